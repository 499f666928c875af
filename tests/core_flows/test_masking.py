"""One secret-masking walk, driven by ``spec_field(secret=True)``, for the stub, the CLI and patches."""

from __future__ import annotations

import pytest

from jmapclient.encoding import MASKED_SECRET
from jmapclient.errors import LocalValidationError
from jmapclient.masking import mask_secrets, masked_secret_paths, model_of
from jmapclient.models.objects import DIRECTORY
from jmapclient.patch import ensure_no_masked
from server_stub.methods import get as stub_get
from server_stub.validation import InvalidObject, validate_incoming

SQL = {
    "@type": "Sql",
    "description": "****",  # not a secret field: the mask is text here, and is left alone
    "store": {
        "@type": "MySql",
        "host": "db.example.com",
        "authSecret": {"@type": "Value", "secret": "primary-pw"},
        "readReplicas": {"0": {"host": "r.example.com", "authSecret": {"@type": "Value", "secret": "replica-pw"}}},
    },
}


def test_every_declared_secret_is_masked_at_any_depth_and_nothing_else() -> None:
    masked = mask_secrets(model_of(DIRECTORY, SQL), SQL)
    assert masked["store"]["authSecret"]["secret"] == MASKED_SECRET
    assert masked["store"]["readReplicas"]["0"]["authSecret"]["secret"] == MASKED_SECRET
    assert masked["store"]["host"] == "db.example.com" and masked["description"] == "****"
    assert SQL["store"]["authSecret"]["secret"] == "primary-pw"  # a copy; the input is unchanged


def test_the_mask_sent_back_as_a_secret_is_found_by_its_declared_path() -> None:
    sent = mask_secrets(model_of(DIRECTORY, SQL), SQL)
    assert list(masked_secret_paths(model_of(DIRECTORY, sent), sent)) == [
        "store/authSecret/secret", "store/readReplicas/0/authSecret/secret"]
    with pytest.raises(InvalidObject) as refused:
        validate_incoming(DIRECTORY, sent)
    assert [p.path for p in refused.value.problems] == ["store/authSecret/secret",
                                                        "store/readReplicas/0/authSecret/secret"]


def test_the_stub_and_the_patches_use_the_one_routine() -> None:
    assert stub_get.mask_secrets is mask_secrets
    with pytest.raises(LocalValidationError) as refused:
        ensure_no_masked({"store/authSecret/secret": MASKED_SECRET})
    assert list(refused.value.fields) == ["store/authSecret/secret"]
