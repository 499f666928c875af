"""The policy-domain filter tells the truth on both profiles, and the CLI and the console agree.

The real server has no ``domain`` condition (wire-notes.md); the client falls back to the
word search ``text``, which matches every report holding the words anywhere, and keeps
only reports whose policyDomain is the one asked for. One implementation
(:class:`jmapclient.paging.QueryPager`) serves both the CLI and the console's inbox.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from jmapclient import JmapClient, paging
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env
from tui.reports.pager import InboxPager, position_text
from tui.reports.query import InboxQuery

REPORTS = 60
SMALL_PAGE = 7
"""Pages smaller than the data, so narrowing has to carry on across pages."""


@pytest.fixture(scope="module", params=["spec", "stalwart"])
def server(request: pytest.FixtureRequest) -> Iterator[StubServer]:
    with StubServer(profile=request.param, reports=REPORTS, seed=12) as running:
        yield running


async def _reports(server: StubServer) -> list[dict]:
    async with JmapClient(server.base_url, server.admin_token, timeout=10) as client:
        return (await client.dmarc_reports.get(None)).raw


async def _word_matches(server: StubServer, words: str) -> list[str]:
    async with JmapClient(server.base_url, server.admin_token, timeout=10) as client:
        return (await client.dmarc_reports.query({"text": words})).ids


async def _console_ids(server: StubServer, domain: str) -> tuple[list[str], list[str]]:
    """Every id the inbox shows, page by page, and the position line of each page."""
    async with JmapClient(server.base_url, server.admin_token, timeout=10) as client:
        pager = InboxPager(client.dmarc_reports, InboxQuery(domain=domain), page_size=SMALL_PAGE)
        first = await pager.page(0)
        ids, lines = [r.id for r in first.rows], [position_text(first)]
        for index in range(1, min(pager.page_count or 1, 50)):
            page = await pager.page(index)
            ids += [r.id for r in page.rows]
            lines.append(position_text(page))
        lines.append(pager.note)
        return ids, lines


def _cli_ids(server: StubServer, domain: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[list[str], str]:
    with token_in_env(server.admin_token):
        code = main(["query", "DmarcExternalReport", "--where", f"domain={domain}", *extra, f"--url={server.base_url}"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out.split(), captured.err


@pytest.mark.parametrize("asked", ["example.com", "EXAMPLE.org"])
def test_cli_and_console_list_exactly_the_reports_of_that_policy_domain(
    server: StubServer, asked: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paging, "PAGE_SIZE", SMALL_PAGE)
    reports = asyncio.run(_reports(server))
    truth = {r["id"] for r in reports if r["report"]["policyDomain"].casefold() == asked.casefold()}
    assert truth and len(truth) < len(reports)

    cli_ids, cli_err = _cli_ids(server, asked, capsys, "--ids-only")
    console_ids, lines = asyncio.run(_console_ids(server, asked))

    assert set(cli_ids) == truth and len(cli_ids) == len(truth)
    assert console_ids == cli_ids  # same reports, same order
    if server.profile == "stalwart":
        # the word search finds these and, for example.com, strictly more: reports of example.net
        # sent from a .com reporter hold the words "example" and "com" too (wire-notes)
        words = set(asyncio.run(_word_matches(server, asked)))
        assert words > truth if asked == "example.com" else words >= truth
        assert "searched the words" in cli_err and "searched the words" in lines[-1]
        assert all("total unknown" in line for line in lines[:-1])
        assert not any(f"of {len(truth)}" in line for line in lines)
    else:
        assert cli_err == "" and lines[-1] == ""
        assert lines[0].endswith(f"of {len(truth)}")


def test_cli_rows_and_json_are_narrowed_too_and_carry_only_the_asked_columns(
    server: StubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = asyncio.run(_reports(server))
    truth = {r["id"] for r in reports if r["report"]["policyDomain"] == "example.org"}
    lines, _ = _cli_ids(server, "example.org", capsys, "--json", "--fields", "id,receivedAt")
    objects = [json.loads(line) for line in lines if line.startswith("{")]
    assert {o["id"] for o in objects} == truth
    assert all(set(o) <= {"id", "receivedAt"} for o in objects)  # "report" was fetched only to narrow
