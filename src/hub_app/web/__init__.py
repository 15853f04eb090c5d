"""The web page (DESIGN.md 8): the hub's own server-rendered views for the people who plan and watch.

Jinja templates and htmx (vendored in ``static/``), in Russian, on the API's origin and roles. Views call the
same operations as the API; :mod:`hub_app.web.page` mounts them, :mod:`hub_app.web.session` logs people in.
"""

from __future__ import annotations

from hub_app.web.page import WebPage
from hub_app.web.session import session_key

__all__ = ["WebPage", "session_key"]
