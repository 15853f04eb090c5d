"""Jira's own address as the page links to it: a web address only, never a credential written into it."""

from __future__ import annotations

import pytest

from reconcile.jira.site import browse_url, site_url


@pytest.mark.parametrize(
    ("reported", "kept"),
    [
        ("https://jira.bank/jira/", "https://jira.bank/jira"),
        ("https://jira.bank/JIRAX//", "https://jira.bank/JIRAX"),
        ("https://bridge:s3cret@jira.bank/jira", "https://jira.bank/jira"),
        ("https://PAT@jira.bank", "https://jira.bank"),
        ("HTTP://Jira.Bank:8080/x?os_authType=basic#top", "http://jira.bank:8080/x"),
        ("http://[::1]:2990/jira", "http://[::1]:2990/jira"),
        ("javascript:alert(1)", None),
        ("ftp://jira.bank", None),
        ("https://", None),
        ("https://jira bank", None),
        ("https://jira.bank:99999", None),
        ("", None),
        (None, None),
        (42, None),
    ],
)
def test_only_a_web_address_without_userinfo_is_kept(reported: object, kept: str | None) -> None:
    assert site_url(reported) == kept


def test_an_issue_links_to_its_browse_page() -> None:
    assert browse_url("https://jira.bank/jira", "AURORA-1590") == "https://jira.bank/jira/browse/AURORA-1590"
    assert browse_url("https://jira.bank", "A/B?") == "https://jira.bank/browse/A%2FB%3F"


def test_an_address_of_up_to_2000_characters_is_kept() -> None:
    """Up to 2 000 characters an address is a link's base; a longer one is not kept."""
    longest = "https://jira.bank/" + "j" * (2000 - len("https://jira.bank/"))
    assert len(longest) == 2000
    assert site_url(longest) == longest
    assert site_url(longest + "j") is None
