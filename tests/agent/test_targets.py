"""The rules of :mod:`adapters.targets` that need no network: what a message may show of a URL."""

from __future__ import annotations

from urllib.parse import quote

import httpx
from hypothesis import given
from hypothesis import strategies as st

from adapters.targets import Target, explain, shown

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)


@given(user=_TEXT, password=_TEXT)
def test_a_password_in_a_url_is_replaced(user: str, password: str) -> None:
    """Whatever the user and password, the shown URL keeps the user and hides the password."""
    user_q, password_q = quote(user, safe=""), quote(password, safe="")
    assert shown(f"http://{user_q}:{password_q}@proxy.bank:3128/") == f"http://{user_q}:***@proxy.bank:3128/"


@given(password=_TEXT)
def test_no_message_shows_the_proxy_password(password: str) -> None:
    password_q = quote(password, safe="")
    proxy = f"http://agent:{password_q}@proxy.bank:3128"
    target = Target(name="hub", url="https://hub.example", proxy=proxy)
    line = explain(target, httpx.ConnectError("All connection attempts failed"))
    assert line == (
        "cannot connect to hub at https://hub.example (ConnectError: All connection attempts failed): check the "
        "host and port in --hub and the proxy http://agent:***@proxy.bank:3128 (--hub-proxy, NO_PROXY)"
    )


def test_a_url_without_password_is_shown_as_it_is() -> None:
    assert [shown(u) for u in ("https://jira.bank/jira", "http://user@proxy:3128")] == [
        "https://jira.bank/jira",
        "http://user@proxy:3128",
    ]
