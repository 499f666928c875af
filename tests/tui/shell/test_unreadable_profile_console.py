"""The console lists the profiles it can read, and names the file of one it cannot (tester89 F8)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Static

from jmapclient.config import Config, Profile
from tests.support.config_files import private_file
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.screens.connect import ConnectScreen

FUTURE = '[profiles.future]\nurls = ["https://a.example", "https://b.example"]\ntoken = "x"\n'


async def never(profile: Profile) -> None:
    raise AssertionError(f"no connection expected, to {profile.name}")


async def test_a_default_profile_this_version_cannot_read_is_said_with_its_file(tmp_path: Path) -> None:
    path = private_file(tmp_path / "config.toml",
                        f'default = "future"\n[profiles.good]\nurl = "https://good.example"\ntoken = "t"\n{FUTURE}')
    app = MailAdminApp(config=Config.load(path), connector=never)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConnectScreen)
        said = str(app.screen.query_one("#connect-error", Static).render())
        assert f"cannot use profile 'future' in {path}: it has no url" in said, said
        assert app.screen.query_one("#profiles", DataTable).row_count == 1  # the one it can read
