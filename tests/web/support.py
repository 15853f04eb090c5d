"""A person's browser over the hub's app (cookies, CSRF from the page, htmx headers) and readers of the HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import attrs
import httpx

__all__ = ["Browser", "cells", "element_text", "has_element"]

HTML = {"Accept": "text/html,application/xhtml+xml"}


@attrs.define
class Browser:
    """What a browser sends: ``Accept: text/html``, its cookies, the CSRF field of the form it submits."""

    client: httpx.AsyncClient
    last: httpx.Response | None = None

    async def get(self, path: str, *, htmx: bool = False, **kwargs: Any) -> httpx.Response:
        headers = {**HTML, **({"HX-Request": "true"} if htmx else {}), **kwargs.pop("headers", {})}
        response = await self.client.get(path, headers=headers, **kwargs)
        if not htmx:
            self.last = response
        return response

    def csrf(self) -> str:
        """The CSRF field of the page last shown (as the browser submits it with a form)."""
        assert self.last is not None
        found = re.search(r'name="_csrf_token" value="([^"]+)"', self.last.text)
        assert found is not None, "the page has no form with a CSRF field"
        return found.group(1)

    async def post(
        self, path: str, data: dict[str, Any] | None = None, *, csrf: bool = True, htmx: bool = False, **kwargs: Any
    ) -> httpx.Response:
        """Submit a form of the page last shown (its CSRF field included unless ``csrf=False``)."""
        fields = dict(data or {})
        if csrf:
            fields["_csrf_token"] = self.csrf()
        headers = {**HTML, **({"HX-Request": "true"} if htmx else {})}
        response = await self.client.post(path, data=fields, headers=headers, **kwargs)
        if response.status_code != 303 and not htmx:  # htmx swaps a part in: the page (and its form) stays
            self.last = response
        return response

    async def login(self, secret: str, *, target: str = "/") -> httpx.Response:
        await self.get(f"/login?next={target}")
        return await self.post("/login", {"token": secret, "next": target})

    async def follow(self, response: httpx.Response) -> httpx.Response:
        """Where a 303 sends the browser."""
        assert response.status_code == 303, response.text
        return await self.get(response.headers["location"])


class _Collector(HTMLParser):
    """The text of the element with ``id`` (or of every ``<tr>`` of a table with that id, cell by cell)."""

    _VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})
    # Text of two of these never runs together (as a browser lays them out apart).
    _BLOCKS = frozenset({"br", "dd", "div", "dt", "h1", "h2", "li", "option", "p", "pre", "section", "td", "th", "tr"})

    def __init__(self, element_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.element_id = element_id
        self.depth = 0
        self.found = False
        self.text: list[str] = []
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attributes: list[tuple[str, str | None]]) -> None:
        if self.depth and tag in self._BLOCKS:
            self.text.append(" ")
        if tag in self._VOID:
            return
        if self.depth:
            self.depth += 1
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []
        elif dict(attributes).get("id") == self.element_id:
            self.found = True
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._VOID or not self.depth:
            return
        if tag in self._BLOCKS:
            self.text.append(" ")
        self.depth -= 1
        if tag in ("td", "th") and self.cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)
            if self.cell is not None:
                self.cell.append(data)


def _collect(html: str, element_id: str) -> _Collector:
    collector = _Collector(element_id)
    collector.feed(html)
    assert collector.found, f"no element with id={element_id!r}"
    return collector


def element_text(html: str, element_id: str) -> str:
    """The element's text with runs of whitespace as one space."""
    return " ".join("".join(_collect(html, element_id).text).split())


def cells(html: str, table_id: str) -> list[list[str]]:
    """A table's rows (header row included) as lists of cell texts."""
    return [row for row in _collect(html, table_id).rows if row]


def has_element(html: str, element_id: str) -> bool:
    collector = _Collector(element_id)
    collector.feed(html)
    return collector.found
