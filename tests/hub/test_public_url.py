"""The hub's public URL (DESIGN.md 7): its default, what a link is, and the Origin and Host that ``/mcp`` admits."""

from __future__ import annotations

import pytest

from hub_app.runtime.public_url import PublicUrl, PublicUrlError

PROXIED = PublicUrl.of("https://Hub.Bank.Example:443/planning/", listen_host="10.1.2.3", listen_port=8700)
LOOPBACK = PublicUrl.of(None, listen_port=8711)


def test_the_default_is_serves_address() -> None:
    """None: http://<host>:<port> of serve (IPv6 in brackets); loopback Hosts are the hub's when it listens on one."""
    assert (LOOPBACK.url, LOOPBACK.loopback) == ("http://127.0.0.1:8711", True)
    assert PublicUrl.of(None, listen_host="::1").url == "http://[::1]:8700"
    everywhere = PublicUrl.of(None, listen_host="0.0.0.0", listen_port=8080)
    assert (everywhere.url, everywhere.loopback) == ("http://0.0.0.0:8080", True)
    interface = PublicUrl.of("https://hub.example", listen_host="10.1.2.3")
    assert interface.loopback is False


def test_a_public_url_is_normalised_and_links_are_built_from_it() -> None:
    """Host in lower case, the scheme's own port left out, no trailing slash; a link is the URL plus the path."""
    assert (PROXIED.url, PROXIED.origin, PROXIED.loopback) == (
        "https://hub.bank.example/planning",
        "https://hub.bank.example",
        False,
    )
    assert PROXIED.link("/batches/7") == "https://hub.bank.example/planning/batches/7"
    assert PublicUrl.of("http://hub:8080").link("/batches/1") == "http://hub:8080/batches/1"


@pytest.mark.parametrize(
    "value",
    ["ftp://hub", "https://", "hub.example", "https://me@hub", "https://hub?x=1", "https://hub#x", "http://h:99999"],
)
def test_a_public_url_must_be_an_http_url_of_a_host(value: str) -> None:
    with pytest.raises(PublicUrlError) as refused:
        PublicUrl.of(value)
    assert str(refused.value) == f"--public-url {value!r}: expected http(s)://host[:port][/path]"


@pytest.mark.parametrize(
    ("origin", "admitted"),
    [
        (None, True),
        ("https://hub.bank.example", True),
        ("https://HUB.bank.example:443", True),
        ("http://hub.bank.example", False),
        ("https://hub.bank.example:8443", False),
        ("https://evil.example", False),
        ("https://hub.bank.example.evil.example", False),
        ("null", False),
        ("https://hub.bank.example/planning", False),
        ("https://hub.bank.example:x", False),
    ],
)
def test_origin_is_the_public_urls_own_or_absent(origin: str | None, admitted: bool) -> None:
    refusal = PROXIED.origin_refusal(origin)
    if admitted:
        assert refusal is None
    else:
        assert (
            refusal
            == f"Origin {origin} не принят: MCP хаба принимает запросы только со страниц https://hub.bank.example"
        )


@pytest.mark.parametrize(
    ("url", "host", "admitted"),
    [
        (PROXIED, "hub.bank.example", True),
        (PROXIED, "HUB.bank.example:443", True),
        (PROXIED, "hub.bank.example:8700", False),
        (PROXIED, "127.0.0.1:8700", False),
        (PROXIED, "evil.example", False),
        (PROXIED, "evil.example@hub.bank.example", False),
        (PROXIED, "hub.bank.example/x", False),
        (PROXIED, "", False),
        (PROXIED, None, False),
        (LOOPBACK, "127.0.0.1:8711", True),
        (LOOPBACK, "localhost:9000", True),
        (LOOPBACK, "[::1]:8711", True),
        (LOOPBACK, "127.1.2.3", True),
        (LOOPBACK, "rebound.example:8711", False),
        (LOOPBACK, "localhost.evil.example:8711", False),
    ],
)
def test_host_is_the_public_urls_or_a_loopback_name_on_loopback(
    url: PublicUrl, host: str | None, admitted: bool
) -> None:
    refusal = url.host_refusal(host)
    if admitted:
        assert refusal is None
    else:
        assert refusal == f"Host {host or ''} не принят: MCP хаба отвечает по адресу {url.origin}"


@pytest.mark.parametrize("listen_host", ["127.0.0.1", "0.0.0.0", "::"])
def test_a_proxy_or_a_published_port_on_the_same_machine_may_pass_its_loopback_host(listen_host: str) -> None:
    """--public-url https://hub.example with serve on loopback or on every address (a container): nginx's default
    Host 127.0.0.1:8700, or localhost:<published port>, is the hub; another name is not."""
    behind = PublicUrl.of("https://hub.example", listen_host=listen_host)
    assert behind.host_refusal("127.0.0.1:8700") is None
    assert behind.host_refusal("localhost:18700") is None
    assert behind.host_refusal("hub.example") is None
    assert behind.host_refusal("rebound.example") is not None
