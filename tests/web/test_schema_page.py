"""``/schema`` works without internet: the hub's own page of the operations under the page's CSP, linking the
OpenAPI document; no viewer from a CDN is served, nothing on the page points off the hub."""

from __future__ import annotations

import re

import pytest

from hub_app.web.page import CONTENT_SECURITY_POLICY

from .conftest import Api
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def test_schema_is_a_page_of_the_operations(api: Api) -> None:
    """/schema lists every operation of the document (method, path, what it does) and links the JSON."""
    page = await api.client.get("/schema", headers={"Accept": "text/html"})
    assert page.status_code == 200
    document = (await api.client.get("/schema/openapi.json")).json()
    listed = [(row[0], row[1]) for row in cells(page.text, "operations")[1:]]
    assert listed == [(method.upper(), path) for path, item in document["paths"].items() for method in item]
    about = (
        "A batch of commands, validated as a whole; with ``dry_run=true`` nothing is written and each command's "
        "predicted writes are answered. With ``Idempotency-Key``, a retried request answers the first's batch."
    )
    assert ["POST", "/batches", about] in cells(page.text, "operations")
    assert element_text(page.text, "openapi-json") == "/schema/openapi.json"


async def test_schema_pages_load_nothing_from_elsewhere(api: Api) -> None:
    """The page and the document carry the self-only CSP; every script, style and link is a path of the hub."""
    page = await api.client.get("/schema")
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert page.headers["x-content-type-options"] == "nosniff"
    assert (await api.client.get("/schema/openapi.json")).headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    targets = re.findall(r'(?:src|href)="([^"]*)"', page.text)
    assert targets
    assert [t for t in targets if not t.startswith("/") or t.startswith("//")] == []
    assert "<script>" not in page.text and "style=" not in page.text


@pytest.mark.parametrize(
    "path", ["/schema/redoc", "/schema/swagger", "/schema/elements", "/schema/rapidoc", "/schema/openapi.yaml"]
)
async def test_no_viewer_from_a_cdn_is_served(api: Api, path: str) -> None:
    """The viewers Litestar would serve from public CDNs (and the YAML twin) are not there."""
    response = await api.client.get(path)
    assert response.status_code == 404
    assert not re.search(r"https?://", response.text)
