"""``sdlc-hub``'s client commands (DESIGN.md 10): they talk to a hub over HTTP (``--hub URL``/``SDLC_HUB_URL``,
``--token``/``SDLC_HUB_TOKEN``/``SDLC_HUB_TOKEN_FILE``) beside the server's own subcommands.

Each module of :data:`MODULES` declares its commands as :class:`~hub_app.client_cli.registry.ClientCommand`
values in its ``COMMANDS``; :func:`add_client_commands` puts them into ``sdlc-hub``'s argument tree. A new
subcommand (``batch undo``, ``audit export``) is one module named here.
"""

from hub_app.client_cli.registry import MODULES, add_client_commands

__all__ = ["MODULES", "add_client_commands"]
