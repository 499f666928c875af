"""80×24 (issue 16): the footer keeps the important keys whole, the inbox keeps its pass rate,
and the footer offers r and / only where they act."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from tests.support.console import Console, StubWorld
from tests.support.directory_steps import open_directory
from tests.support.inbox_steps import table
from tests.support.waiting import settle
from tui.forms.model_form import ModelForm
from tui.textual_compat import FooterKey
from tui.widgets.nav import NavTree

LDAP = "Corporate OpenLDAP (service account)"


def footer_keys(app: object) -> list[FooterKey]:
    return list(app.query(FooterKey))  # type: ignore[attr-defined]


def assert_whole_and_inside(app: object, width: int) -> None:
    keys = footer_keys(app)
    palette = [k for k in keys if k.has_class("-command-palette")]
    others = [k for k in keys if not k.has_class("-command-palette")]
    right = palette[0].region.x if palette else width
    for key in others:
        # a key drawn whole: wide enough for its key and description, ending before the palette key
        assert key.region.width >= len(key.key_display) + 1 + len(key.description), key.description
        assert key.region.right <= right, (key.description, key.region, right)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_inbox_footer_keeps_the_important_keys_whole(world: StubWorld, size: tuple[int, int]) -> None:
    async with world.app().run_test(size=size) as pilot:
        await settle(pilot)
        await settle(pilot)
        assert_whole_and_inside(pilot.app, size[0])
        shown = [k.description for k in footer_keys(pilot.app)]
        for important in ("Help", "Quit", "Open", "Delete", "Export", "Keep longer", "Analytics"):
            assert important in shown, (important, shown)
        assert shown.index("Help") < shown.index("Quit") < shown.index("Open")


async def test_inbox_keeps_the_pass_rate_on_screen_at_80_columns(world: StubWorld) -> None:
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        grid: DataTable = table(pilot)
        labels = [str(column.label) for column in grid.ordered_columns]
        pass_at = labels.index("Msg pass %")
        right = sum(c.get_render_width(grid) for c in grid.ordered_columns[: pass_at + 1])
        assert right <= grid.scrollable_content_region.width, (labels, right, grid.size)


async def test_footer_offers_r_and_slash_only_where_they_act(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        at_list = {k.description for k in footer_keys(pilot.app)}
        assert {"Filter", "Refresh"} <= at_list
        await open_directory(pilot, LDAP)
        await settle(pilot)
        in_form = {k.description for k in footer_keys(pilot.app)}
        assert "Filter" not in in_form and "Refresh" not in in_form and "Save" in in_form
        palette = {c.title for c in pilot.app.get_system_commands(pilot.app.screen)}
        assert "Filter" not in palette and "Refresh" not in palette
        await pilot.press("escape")
        await settle(pilot)
        assert {"Filter", "Refresh"} <= {k.description for k in footer_keys(pilot.app)}


async def test_palette_holds_this_apps_commands_once_in_words(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        commands = list(pilot.app.get_system_commands(pilot.app.screen))
        titles = [c.title for c in commands]
        assert len(titles) == len(set(titles)), titles
        assert titles.count("Quit") == 1 and "Theme" in titles
        for textual_own in ("Keys", "Screenshot", "Maximize", "Minimize"):
            assert textual_own not in titles
        for command in commands:
            assert "." not in command.help.split(" ")[0] and "app." not in command.help, command.help
        assert {"Cursor up", "Cursor down", "Page down"}.isdisjoint(titles)  # Textual's widget bindings


async def in_a_text_field(pilot: Pilot[Any]) -> Input:
    """The LDAP directory's form open, the keyboard in its first text field."""
    await settle(pilot)
    await open_directory(pilot, LDAP)
    field = pilot.app.screen.query_one(ModelForm).query(Input).first()
    field.focus()
    await settle(pilot)
    return field


async def test_inside_a_text_field_the_footer_names_f1_for_help(console: Console) -> None:
    async with console.app.run_test(size=(80, 24)) as pilot:
        field = await in_a_text_field(pilot)
        helps = [k.key_display for k in footer_keys(pilot.app) if k.description == "Help"]
        assert helps == ["f1"]
        await pilot.press("question_mark")  # types into the field, opens nothing
        await pilot.pause()
        assert field.value.endswith("?")
        await pilot.press("f1")
        await settle(pilot)
        assert type(pilot.app.screen).__name__ == "HelpScreen"


async def test_inside_a_text_field_the_palette_offers_quit_and_names_the_keys_that_act_there(console: Console) -> None:
    # The tester's: in a new directory's form, ctrl+p then "quit" found nothing (ctrl+q quit, shown nowhere), and
    # the palette said "Key: ?" for Help, where ? types a question mark.
    async with console.app.run_test(size=(80, 24)) as pilot:
        await in_a_text_field(pilot)
        palette = {command.title: command.help for command in pilot.app.get_system_commands(pilot.app.screen)}
        assert palette.get("Quit") == "Key: ^q" and palette.get("Help") == "Key: f1", palette
        pilot.app.query_one(NavTree).focus()  # out of the field: q quits, as the footer says
        await settle(pilot)
        palette = {command.title: command.help for command in pilot.app.get_system_commands(pilot.app.screen)}
        assert palette.get("Quit") == "Key: q" and palette.get("Help") == "Key: ?", palette
