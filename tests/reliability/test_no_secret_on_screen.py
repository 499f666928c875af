"""No screen under snapshot test shows a stored secret, and neither do the screenshots.

The console's snapshots render the demo directories, whose bind and database secrets
are stored in plaintext on the stub; a form that echoed one would put it into an SVG
(and, through screenshots/refresh.sh, into a PNG that people share).
"""

from __future__ import annotations

from pathlib import Path

from server_stub.demo_data import seed_store
from server_stub.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _demo_secrets() -> tuple[str, ...]:
    store = Store(":memory:")
    try:
        return seed_store(store, reports=0, directories=True).secrets
    finally:
        store.close()


def test_no_snapshot_shows_a_stored_secret() -> None:
    secrets = _demo_secrets()
    assert secrets, "the demo data stores secrets, so this test has something to look for"
    snapshots = sorted(ROOT.glob("tests/**/__snapshots__/**/*.svg"))
    assert len(snapshots) >= 10
    texts = {svg.name: _visible_text(svg) for svg in snapshots}
    leaked = {name: [s for s in secrets if s in text] for name, text in texts.items()}
    assert {name: found for name, found in leaked.items() if found} == {}
    # The scan does see what is on screen: the directory the secret belongs to is there.
    assert any("Corporate OpenLDAP" in text for text in texts.values())


def _visible_text(svg: Path) -> str:
    # Textual's SVG writes each cell's spaces as non-breaking ones; compare on plain text.
    return svg.read_text(encoding="utf-8").replace("&#160;", " ").replace("\xa0", " ")
