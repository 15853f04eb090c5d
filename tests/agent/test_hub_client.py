"""The agent's hub client: wire shapes of claim/pages/report/files and its typed errors."""

from __future__ import annotations

import attrs
import httpx
import pytest

from adapters.hub_client import (
    ClaimConflict,
    HubClient,
    HubRefused,
    HubUnreachable,
    ReportAck,
    report_from_wire,
    report_to_wire,
)
from reconcile.config.settings import Settings
from reconcile.executors.base import Delivery, Operation, Page, Report
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef

from .agent_fakes import FakeHub, Fault, FlakyTransport, command

pytestmark = pytest.mark.anyio


def client(hub: FakeHub, faults: list[Fault] | None = None, token: str = "agent-secret") -> HubClient:
    return HubClient("http://hub/", token, transport=FlakyTransport(hub.transport(), faults))


async def test_claim_returns_the_delivery() -> None:
    """A 200 claim becomes a Delivery with params, pause, deliveries and context; the body names the agent."""
    hub = FakeHub(queue=[command(40, "ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"}, 120)])
    async with client(hub) as hub_client:
        delivery = await hub_client.claim(
            agent_id="a1",
            version="0.1.0",
            jira_user="bridge-user",
            jira_time_zone="Europe/Moscow",
            symmetric_link_types=frozenset({"Связанные"}),
            wait=0,
        )
    assert delivery == Delivery(
        id=40,
        type="ensure_fields",
        params={"key": "AURORA-1533", "duedate": "2026-10-23"},
        pause_seconds=120.0,
        deliveries=1,
        context=Settings().agent_context(),
    )
    assert hub.claims == [
        {
            "agent_id": "a1",
            "version": "0.1.0",
            "jira_user": "bridge-user",
            "jira_time_zone": "Europe/Moscow",
            "jira_base_url": None,
            "symmetric_link_types": ["Связанные"],
            "wait": 0,
        }
    ]


async def test_claim_with_nothing_queued_is_none() -> None:
    """A 204 claim means nothing to do."""
    async with client(FakeHub()) as hub_client:
        assert await hub_client.claim(agent_id="a1", version="v", wait=0) is None


async def test_claim_conflict_is_its_own_error() -> None:
    """409 on claim (another agent active) raises ClaimConflict with the hub's detail."""
    async with client(FakeHub(claim_answers=[409])) as hub_client:
        with pytest.raises(ClaimConflict) as caught:
            await hub_client.claim(agent_id="a2", version="v", wait=0)
    assert (caught.value.status_code, caught.value.detail) == (409, "другой агент активен")
    assert str(caught.value) == "HTTP 409: другой агент активен"


async def test_wrong_token_is_a_refusal() -> None:
    """401 is a refusal (HubRefused), not an outage."""
    async with client(FakeHub(), token="wrong") as hub_client:
        with pytest.raises(HubRefused) as caught:
            await hub_client.claim(agent_id="a1", version="v", wait=0)
    assert caught.value.status_code == 401
    assert not isinstance(caught.value, ClaimConflict)


async def test_transport_error_and_5xx_are_unreachable() -> None:
    """A connection error and a 502 from a proxy both raise HubUnreachable (retry later)."""
    faults = [
        Fault("POST", "/agent/claim", "before"),
        Fault("POST", "/agent/claim", "status", status=502),
    ]
    async with client(FakeHub(), faults) as hub_client:
        with pytest.raises(
            HubUnreachable,
            match=r"POST /agent/claim: cannot connect to hub at http://hub \(ConnectError: .*\): check the host",
        ):
            await hub_client.claim(agent_id="a1", version="v", wait=0)
        with pytest.raises(HubUnreachable, match=r"POST /agent/claim: HTTP 502: fault"):
            await hub_client.claim(agent_id="a1", version="v", wait=0)


async def test_report_wire_shape_and_ack() -> None:
    """A report is sent as {status, result, error?, jira_calls, operations}; the answer is a ReportAck."""
    hub = FakeHub(queue=[command(7, "ensure_link", {"source": "A-1", "target": "A-2", "link_type": "связанные"})])
    report = Report(
        status="done",
        result={"existed": False, "link_id": "10007", "removed": ["10003"]},
        operations=(
            Operation(method="DELETE", path="/rest/api/2/issueLink/10003", status=204),
            Operation(method="POST", path="/rest/api/2/issueLink", status=201),
        ),
    )
    async with client(hub) as hub_client:
        await hub_client.claim(agent_id="a1", version="v", wait=0)
        ack = await hub_client.report(7, report, jira_calls=3)
        again = await hub_client.report(7, attrs.evolve(report, status="failed"), jira_calls=3)
    assert ack == ReportAck(accepted=True, status="done")
    assert again == ReportAck(accepted=False, status="done")
    assert hub.reports[0] == (
        7,
        {
            "status": "done",
            "result": {"existed": False, "link_id": "10007", "removed": ["10003"]},
            "jira_calls": 3,
            "operations": [
                {"method": "DELETE", "path": "/rest/api/2/issueLink/10003", "status": 204},
                {"method": "POST", "path": "/rest/api/2/issueLink", "status": 201},
            ],
        },
    )


def test_failed_report_round_trips_through_wire_form() -> None:
    """The journal's wire form turns back into the same report and call count."""
    report = Report(
        status="failed",
        result={"status": "Разработка", "transitions": ["В работу"]},
        error="нет перехода в «Готово» из «Разработка»; доступны: На проверку",
        operations=(Operation(method="POST", path="/rest/api/2/issue/AURORA-1/transitions", status=204),),
    )
    wire = report_to_wire(report, 4)
    assert wire["error"] == "нет перехода в «Готово» из «Разработка»; доступны: На проверку"
    assert report_from_wire(wire) == (report, 4)


async def test_page_wire_shape() -> None:
    """A refresh page carries kind, issues as wire records (links source → target) and history."""
    hub = FakeHub()
    issue = MirrorIssue(
        key="AURORA-1538",
        summary="Сверка",
        status="Разработка",
        labels=("AWPCA",),
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=(MirrorLink(id="10007", type="Связанные", source="AURORA-1537", target="AURORA-1538"),),
    )
    async with client(hub) as hub_client:
        await hub_client.post_page(12, Page(page=1, kind="issues", issues=(issue,)))
    command_id, body = hub.pages[0]
    assert command_id == 12
    assert (body["page"], body["kind"], body["history"]) == (1, "issues", [])
    wire = body["issues"][0]
    assert wire["key"] == "AURORA-1538"
    assert wire["labels"] == ["AWPCA"]
    assert wire["sprint"] == {"id": 7, "name": "Спринт 2", "state": "active"}
    assert wire["links"] == [{"id": "10007", "type": "Связанные", "source": "AURORA-1537", "target": "AURORA-1538"}]


async def test_fetch_file_bytes_or_none() -> None:
    """GET /agent/files/{sha}: the bytes, or None when the hub answers 404."""
    sha = "a" * 64
    hub = FakeHub(files={sha: b"\x00\x01data"})
    async with client(hub) as hub_client:
        assert await hub_client.fetch_file(sha) == b"\x00\x01data"
        assert await hub_client.fetch_file("b" * 64) is None


async def test_report_refusal_carries_detail() -> None:
    """A 422 to a report is a HubRefused with the hub's detail."""
    faults = [Fault("POST", "/report$", "status", status=422)]
    async with client(FakeHub(), faults) as hub_client:
        with pytest.raises(HubRefused) as caught:
            await hub_client.report(1, Report(status="done"), jira_calls=0)
    assert caught.value.status_code == 422


async def test_a_proxys_html_page_is_named_by_its_title() -> None:
    """A 502 page of a proxy in front of the hub reads «HTTP 502: Bad Gateway» in the agent's error, not markup."""
    page = "<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>"
    transport = httpx.MockTransport(lambda _: httpx.Response(502, text=page, headers={"content-type": "text/html"}))
    async with HubClient("http://hub/", "agent-secret", transport=transport) as hub_client:
        with pytest.raises(HubUnreachable, match=r"^POST /agent/claim: HTTP 502: Bad Gateway$"):
            await hub_client.claim(agent_id="a1", version="v", wait=0)
