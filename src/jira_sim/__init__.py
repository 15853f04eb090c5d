"""jira_sim: an in-memory Jira Data Center 10.3 (REST v2 and agile 1.0 subset) for tests and the demo.

Use :class:`Simulator` in-process (``sim.asgi`` with ``httpx.ASGITransport``) or run ``jira-sim`` as a
server. The seed format is described in ``docs/jira-sim.md``.
"""

from jira_sim.model import JiraError
from jira_sim.seed import load_sample
from jira_sim.simulator import Simulator

__all__ = ["JiraError", "Simulator", "load_sample"]
