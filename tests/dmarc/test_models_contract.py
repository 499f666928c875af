"""Every imported corpus report is a valid DmarcExternalReport per the shared models.

The models keep unknown properties (extra="allow"), so validation alone would not
notice a misspelt wire name; the test also requires that nothing was left over.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from jmapclient.dmarc import load_file
from jmapclient.models import DmarcExternalReport
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_corpus import IMPORTED


def unknown_properties(model: BaseModel, where: str = "") -> list[str]:
    found = [f"{where}/{key}" for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for position, item in enumerate(items):
            if isinstance(item, BaseModel):
                found += unknown_properties(item, f"{where}/{name}[{position}]")
    return found


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_corpus_report_validates_against_models(samples: Path, name: str) -> None:
    result = load_file(samples / name, now=FROZEN_NOW)
    assert result.wire is not None, result.reason
    model = DmarcExternalReport.model_validate(result.wire)
    assert unknown_properties(model) == []
    records, _total, _passing = IMPORTED[name]
    assert len(model.report.records) == records
    # Serialising the model back gives our values (nulls aside, which we omit).
    assert model.report.report_id == result.wire["report"]["reportId"]
    assert model.to_wire()["receivedAt"] == result.wire["receivedAt"]
