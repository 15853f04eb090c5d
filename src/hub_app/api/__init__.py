"""The hub's HTTP API (DESIGN.md section 6) on Litestar: routes by role, JSON bodies, errors, OpenAPI."""
