"""The simulator's in-memory Jira: the seed's content and every change to it.

Plain Python, no HTTP: the routes (:mod:`jira_sim.routes`) parse requests, call these methods with the
authenticated user's name, and render the result with :mod:`jira_sim.render`. A refused operation raises
:class:`jira_sim.model.JiraError` carrying Jira's status code and error body.

The operations are grouped by what they change, one module each: :mod:`jira_sim.edits` (create, edit,
transitions; field rules in :mod:`jira_sim.field_values`), :mod:`jira_sim.comments`, :mod:`jira_sim.links`,
:mod:`jira_sim.attachments`, :mod:`jira_sim.agile`, :mod:`jira_sim.search` and :mod:`jira_sim.webhooks`
(the registered webhooks and who hears a change); the shared state and its
changelog are :mod:`jira_sim.state`, the seed's loading :mod:`jira_sim.seed`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from jira_sim.agile import Agile
from jira_sim.attachments import Attachments
from jira_sim.edits import IssueEdits
from jira_sim.links import Links
from jira_sim.search import SearchCache
from jira_sim.seed import fill
from jira_sim.state import Clock
from jira_sim.webhooks import Webhooks

__all__ = ["Store"]


class Store(IssueEdits, Links, Attachments, Agile, Webhooks):
    """The whole simulated instance. Mutating methods take ``user`` (the authenticated name)."""

    def __init__(self, seed: Mapping[str, Any], clock: Clock) -> None:
        self.seed = copy.deepcopy(dict(seed))
        self.clock = clock
        self.searches = SearchCache()
        self.reset()

    def reset(self) -> None:
        """Back to the seed: issues, links, id counters and project numbers; no webhooks."""
        fill(self, self.seed)
