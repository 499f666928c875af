"""resolve() takes one request object; the command line's flags make it (jmapclient/connection.py)."""

from __future__ import annotations

from dataclasses import fields

from jmapclient.connection import FLAG_NAMES, ConnectionRequest
from mailadmin.main import build_parser


def test_every_connection_flag_of_the_command_line_reaches_the_request() -> None:
    args = build_parser().parse_args([
        "query", "Directory", "--url", "https://u.example", "--token-file", "/t", "--profile", "p",
        "--timeout", "7", "--ca-file", "/ca", "--insecure", "--allow-http",
    ])
    request = ConnectionRequest.from_args(args)
    assert (request.url, request.token_file, request.profile, request.timeout, request.ca_file) == (
        "https://u.example", "/t", "p", 7, "/ca")
    assert request.insecure and request.allow_http and not request.token_stdin
    login = ConnectionRequest.from_args(build_parser().parse_args(
        ["query", "Directory", "--user", "admin", "--password-stdin"]))
    assert (login.user, login.password_stdin, login.token) == ("admin", True, None)


def test_the_flags_are_the_requests_fields_and_its_repr_hides_the_token() -> None:
    assert set(FLAG_NAMES) <= {field.name for field in fields(ConnectionRequest)}
    assert "s3cret" not in repr(ConnectionRequest(url="https://u.example", token="s3cret"))
