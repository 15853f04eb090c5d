"""The rules of :mod:`adapters.targets` that need no network: what a message may show of a URL."""

from __future__ import annotations

from urllib.parse import quote

import httpx
from hypothesis import given
from hypothesis import strategies as st

from adapters.targets import Target, explain, redacted, shown

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)


@given(user=_TEXT, password=_TEXT)
def test_the_whole_userinfo_of_a_url_is_replaced(user: str, password: str) -> None:
    """Whatever the user and password, escaped or not, the shown URL hides both (issue 24 item 12)."""
    user_q, password_q = quote(user, safe=""), quote(password, safe="")
    assert shown(f"http://{user_q}:{password_q}@proxy.bank:3128/") == "http://***@proxy.bank:3128/"
    assert shown(f"http://{user_q}@jira.bank/jira") == "http://***@jira.bank/jira"


def test_an_unescaped_password_is_hidden_whole() -> None:
    """A password written with a raw ``/`` or ``@`` (not a valid URL, but typed) is hidden up to the host."""
    assert shown("http://agent:pa/ss@w0rd@proxy.bank:3128") == "http://***@proxy.bank:3128"


def test_a_token_written_as_the_user_is_hidden_everywhere() -> None:
    """``http://PAT@jira``: the token is the user; it is hidden in a URL, one without its scheme, and in any text
    naming such URLs (a log line, an error)."""
    assert shown("http://N2Y5MzE0OTk3@jira.bank/jira") == "http://***@jira.bank/jira"
    assert shown("N2Y5MzE0OTk3@jira.bank/jira") == "***@jira.bank/jira"
    line = 'jira at https://N2Y5MzE0OTk3@jira.bank/jira and "http://u:p@proxy:3128", hub at https://hub'
    assert redacted(line) == 'jira at https://***@jira.bank/jira and "http://***@proxy:3128", hub at https://hub'


@given(password=_TEXT)
def test_no_message_shows_the_proxy_password(password: str) -> None:
    password_q = quote(password, safe="")
    proxy = f"http://agent:{password_q}@proxy.bank:3128"
    target = Target(name="hub", url="https://hub.example", proxy=proxy)
    line = explain(target, httpx.ConnectError("All connection attempts failed"))
    assert line == (
        "cannot connect to hub at https://hub.example (ConnectError: All connection attempts failed): check the "
        "host and port in --hub and the proxy http://***@proxy.bank:3128 (--hub-proxy, NO_PROXY)"
    )


def test_a_url_without_userinfo_is_shown_as_it_is() -> None:
    """Nothing to hide: the URL as given, a path with ``@`` in it too."""
    assert [shown(u) for u in ("https://jira.bank/jira", "http://proxy:3128", "https://jira.bank/jira?q=1")] == [
        "https://jira.bank/jira",
        "http://proxy:3128",
        "https://jira.bank/jira?q=1",
    ]
