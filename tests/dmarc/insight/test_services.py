"""Base domains from the packaged Public Suffix List, and the senders map."""

from __future__ import annotations

from pathlib import Path

import pytest

from jmapclient.dmarc.insight.services import SenderMap, Service, base_domain, load_senders


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("mail-sor-f41.google.com", "google.com"),
        ("a1-2.smtp-out.eu-west-1.amazonses.com", "amazonses.com"),
        ("mail-db8eur05on2045.outbound.protection.outlook.com", "outlook.com"),
        ("mx.example.co.uk", "example.co.uk"),
        ("Example.COM.", "example.com"),
        ("co.uk", None),  # a public suffix is nobody's organisation
        ("localhost", None),
        ("192.0.2.1", None),
        ("2001:db8::1", None),
        ("", None),
    ],
)
def test_base_domain(name: str, base: str | None) -> None:
    assert base_domain(name) == base


@pytest.mark.parametrize(
    ("name", "service"),
    [
        ("o1.ptr1234.sendgrid.net", "SendGrid"),
        ("a8-31.smtp-out.amazonses.com", "Amazon SES"),
        ("mail-am6eur05on2100.outbound.protection.outlook.com", "Microsoft 365"),
        ("mail180-5.suw21.mandrillapp.com", "Mailchimp Transactional (Mandrill)"),
        ("mta-67-227.sparkpostmail.com", "SparkPost"),
        ("mail.example.com", None),
    ],
)
def test_the_project_map_names_common_senders(name: str, service: str | None) -> None:
    found = load_senders().lookup(name)
    assert (found.name if found else None) == service


def test_a_map_is_easy_to_extend(tmp_path: Path) -> None:
    path = tmp_path / "senders.toml"
    path.write_text('["example-esp.com"]\nname = "Example ESP"\nkind = "esp"\n')
    senders = load_senders(path)
    assert len(senders) == 1 and senders.lookup("out7.example-esp.com") == Service("Example ESP", "esp")


@pytest.mark.parametrize("text", ['["x.com"]\nkind = "esp"\n', 'x = 1\n', '["x.com"]\nname = 3\n'])
def test_a_malformed_entry_is_named(text: str) -> None:
    with pytest.raises(ValueError, match=r"senders\.toml"):
        SenderMap.parse(text)
