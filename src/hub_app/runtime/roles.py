"""Who may do what (DESIGN.md section 6): the roles of API tokens and the doors each one opens.

- ``interface``: batches, files, notes, reads, MCP (and the web page);
- ``admin``: the same plus settings, projects and tokens;
- ``agent``: ``/agent/*`` only.
"""

from __future__ import annotations

from enum import StrEnum

import attrs

from reconcile.outlook import Door, Requester

__all__ = ["ADMIN", "AGENT", "INTERFACE", "Caller", "Role"]


class Role(StrEnum):
    AGENT = "agent"
    INTERFACE = "interface"
    ADMIN = "admin"


#: Planning tools: the API's interface endpoints, MCP and the web page.
INTERFACE: tuple[Role, ...] = (Role.INTERFACE, Role.ADMIN)
#: Settings, projects and tokens.
ADMIN: tuple[Role, ...] = (Role.ADMIN,)
#: The agent's endpoints.
AGENT: tuple[Role, ...] = (Role.AGENT,)


@attrs.frozen(kw_only=True)
class Caller:
    """An authenticated caller: the token's ``name`` and ``role``, and whether every batch it creates waits for a
    person's approval (``token add --needs-approval``)."""

    name: str
    role: Role
    needs_approval: bool = False

    def through(self, door: Door) -> Requester:
        """This token asking through ``door``."""
        return Requester(door=door, token_name=self.name, needs_approval=self.needs_approval)
