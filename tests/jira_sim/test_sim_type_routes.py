"""Every Jira endpoint a command type declares (its dry-run answers, or the endpoints of a type the dry run does not
drive) is answered by a route of the simulator: a new type is not whole until the simulator can play Jira for it
(issue 33: the 9th type's missing route was found only by the demo's end-to-end test)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from jira_sim.routes import routed
from reconcile.types.binding import TYPES, TypeBinding, bind
from reconcile.types.dryrun_answers import Endpoint
from tests.reconcile.test_catalogue import with_due
from tests.reconcile.watcher_type import with_watcher


def _sample(endpoint: Endpoint) -> str:
    """The endpoint's path with an issue key for ``{key}`` and a positive id for any other name."""
    return re.sub(r"\{([a-z_]+)\}", lambda m: "AURORA-1533" if m[1] == "key" else "4216", endpoint.path)


def unrouted(types: Mapping[str, TypeBinding]) -> list[str]:
    """The endpoints of ``types`` no route of the simulator answers, one line each."""
    return [
        f"{name}: {declared} is answered by no route of jira_sim"
        for name, entry in types.items()
        for declared in entry.dry_run.endpoints
        if not routed(declared.method, _sample(declared))
    ]


def test_every_endpoint_of_every_type_is_a_route_of_the_simulator() -> None:
    """The eight types' endpoints, the refresh's too, are all answered by the simulator."""
    assert unrouted(TYPES) == []
    assert [name for name, entry in TYPES.items() if not entry.dry_run.endpoints] == []


def test_a_new_type_whose_endpoints_the_simulator_lacks_is_named() -> None:
    """ensure_watcher, whole in reconcile, still lacks the simulator's watchers routes: each endpoint is named."""
    assert unrouted(bind(*with_watcher())) == [
        "ensure_watcher: GET /rest/api/2/issue/{key}/watchers is answered by no route of jira_sim",
        "ensure_watcher: POST /rest/api/2/issue/{key}/watchers is answered by no route of jira_sim",
    ]


def test_a_new_type_on_routes_the_simulator_has_passes() -> None:
    """ensure_due reads and edits the issue, which the simulator answers: nothing is missing."""
    assert unrouted(bind(*with_due())) == []
    assert [str(e) for e in bind(*with_due())["ensure_due"].dry_run.endpoints] == [
        "GET /rest/api/2/issue/{key}",
        "PUT /rest/api/2/issue/{key}",
    ]


def test_routed_knows_the_method_and_the_whole_path() -> None:
    """A route answers its method on its whole path only."""
    assert routed("GET", "/rest/api/2/issue/AURORA-1533")
    assert not routed("PATCH", "/rest/api/2/issue/AURORA-1533")
    assert not routed("GET", "/rest/api/2/issue/AURORA-1533/watchers")
