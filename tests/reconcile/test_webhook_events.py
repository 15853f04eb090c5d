"""Jira DC's webhook bodies read into wire events: recorded payloads of real Jira servers, the simulator's own
deliveries, de-duplication, the agent's policy, the signature and the wire shape the hub checks."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import yaml

from jira_sim import Simulator
from reconcile.config.settings import Settings
from reconcile.guard.policy import AgentPolicy
from reconcile.jira.model import issue_from_jira, mirror_fields
from reconcile.jira.webhook_events import (
    EVENTS,
    Need,
    RecentEvents,
    WebhookError,
    WebhookEvent,
    in_policy,
    need_of,
    parse_webhook,
    signature_ok,
    webhook_secret,
    wire_event,
)
from reconcile.vocabulary.errors import ValidationError

RECORDED = Path(__file__).parents[1] / "cassettes" / "webhooks"
RECEIVED = datetime(2026, 10, 22, 9, 0, 30, tzinfo=UTC)
SETTINGS = Settings()


def _recorded(name: str) -> bytes:
    return str(yaml.safe_load((RECORDED / f"{name}.yaml").read_text(encoding="utf-8"))["payload"]).encode()


def _parse(body: bytes) -> WebhookEvent:
    return parse_webhook(body, SETTINGS, received_at=RECEIVED)


# --- recorded payloads of real Jira servers -------------------------------------------------------------------


def test_a_recorded_edit_is_an_issue_to_apply() -> None:
    """jenkinsci/jira-trigger-plugin's edit (Jira 7): the issue read as a search page is, keyed by its changelog."""
    event = _parse(_recorded("jira-trigger-plugin_issue_updated_fields_updated"))
    assert (event.event, event.key, event.at, event.need) == (
        "jira:issue_updated",
        "TEST-11",
        "2016-01-14T23:01:40Z",
        Need.APPLY,
    )
    assert event.issue is not None
    assert (event.issue.summary, event.issue.description, event.issue.priority) == (
        "summary updated",
        "description updated",
        "Blocker",
    )
    # ``updated`` keeps Jira's millisecond (two states of one second are told apart by it); ``created`` needs none
    assert (event.issue.created, event.issue.updated) == ("2016-01-06T20:16:41Z", "2016-01-14T23:01:40.354Z")
    assert (event.dedup, event.issue_ids, event.problem) == (
        "jira:issue_updated:10010:changelog:10201",
        ("10010",),
        None,
    )


def test_a_recorded_edit_is_a_journal_entry_by_its_user() -> None:
    """The same edit's ``user`` and ``changelog``: one journal entry, Jira's history id, the event's time, the
    person and the items as a changelog page gives them; a creation without a changelog gives none."""
    event = _parse(_recorded("jira-trigger-plugin_issue_updated_fields_updated"))
    assert event.history is not None
    assert (event.history.key, event.history.id, event.history.created, event.history.author) == (
        "TEST-11",
        "10201",
        "2016-01-14T23:01:40Z",
        "admin",
    )
    assert [(i.field, i.from_string, i.to_string) for i in event.history.items] == [
        ("summary", "task summary", "summary updated"),
        ("description", "dummy description", "description updated"),
        ("priority", "Major", "Blocker"),
        ("resolution", None, "Fixed"),
    ]
    assert _parse(_recorded("jira-trigger-plugin_issue_created")).history is None


@pytest.mark.parametrize(
    ("name", "event", "key"),
    [
        ("jira-trigger-plugin_issue_created", "jira:issue_created", "TEST-4"),
        ("jira-trigger-plugin_issue_updated_status_updated", "jira:issue_updated", "TEST-11"),
        ("jira-trigger-plugin_issue_updated_with_comment", "jira:issue_updated", "TEST-4"),
        ("jira-to-matrix_issue_updated_commented", "jira:issue_updated", "BBCOM-956"),
    ],
)
def test_every_recorded_issue_event_reads(name: str, event: str, key: str) -> None:
    """Each recorded issue event (a creation, a transition, a comment's issue event) gives a readable issue."""
    parsed = _parse(_recorded(name))
    assert (parsed.event, parsed.key, parsed.need, parsed.problem) == (event, key, Need.APPLY, None)
    assert parsed.issue is not None and parsed.issue.key == key


def test_a_recorded_deletion_needs_a_targeted_refresh() -> None:
    """zulip's deletion (Jira 5/6): its key, no issue applied (the issue is gone), a targeted refresh."""
    event = _parse(_recorded("zulip_deleted_v1"))
    assert (event.event, event.key, event.issue, event.need) == ("jira:issue_deleted", "BUG-15", None, Need.TARGETED)
    assert event.at == "2013-03-27T17:06:09Z"


@pytest.mark.parametrize(
    ("name", "link_id"), [("jira-to-matrix_issuelink_created", "10656"), ("jira-to-matrix_issuelink_deleted", "10699")]
)
def test_a_recorded_link_event_names_ids_only(name: str, link_id: str) -> None:
    """jira-to-matrix's link events: numeric ids, no key; the change-only refresh finds both issues. Their
    publisher rewrote the timestamp as text: the time received stands in."""
    event = _parse(_recorded(name))
    assert (event.key, event.issue, event.need, event.at) == (None, None, Need.CHANGES, "2026-10-22T09:00:30Z")
    assert event.issue_ids == ("11442", "11961")
    assert event.dedup == f"{event.event}:link:{link_id}"


@pytest.mark.parametrize(
    ("name", "issue_id", "dedup"),
    [
        ("jira-to-matrix_comment_created", "26313", "comment_created::comment:31039:2017-11-30T12:28:04.304+0300"),
        ("jira-trigger-plugin_comment_created", "10003", "comment_created::comment:10000:2015-12-20T19:04:58.421+0000"),
    ],
)
def test_a_recorded_comment_event_needs_nothing(name: str, issue_id: str, dedup: str) -> None:
    """A comment event carries the comment alone: the mirror keeps no comments (the issue event of the same
    comment carries the issue), so it needs nothing; its issue is named by id from the comment's self."""
    event = _parse(_recorded(name))
    assert (event.event, event.key, event.need, event.issue_ids) == ("comment_created", None, Need.NOTHING, (issue_id,))
    assert event.dedup == dedup


# --- what needs what ------------------------------------------------------------------------------------------


def test_the_needs_of_every_event() -> None:
    """Issue events with a readable issue are applied; a deletion or an unreadable issue is refreshed by key; link
    events and empty bodies by the change-only refresh; comments and others need nothing."""
    assert need_of("jira:issue_created", key="A-1", has_issue=True) is Need.APPLY
    assert need_of("jira:issue_updated", key="A-1", has_issue=True) is Need.APPLY
    assert need_of("jira:issue_updated", key="A-1", has_issue=False) is Need.TARGETED
    assert need_of("jira:issue_deleted", key="A-1", has_issue=False) is Need.TARGETED
    assert need_of("issuelink_created", key=None, has_issue=False) is Need.CHANGES
    assert need_of("issuelink_deleted", key=None, has_issue=False) is Need.CHANGES
    assert need_of(None, key=None, has_issue=False) is Need.CHANGES
    assert need_of("comment_updated", key=None, has_issue=False) is Need.NOTHING
    assert need_of("jira:worklog_updated", key=None, has_issue=False) is Need.NOTHING
    assert need_of("jira:issue_updated", key=None, has_issue=True) is Need.NOTHING  # nothing to apply it to
    assert need_of("comment_created", key="A-1", has_issue=False) is Need.NOTHING  # a key does not make it one
    assert need_of("jira:issue_deleted", key="A-1", has_issue=True) is Need.TARGETED  # its body is the last state
    assert EVENTS == (
        "jira:issue_created",
        "jira:issue_updated",
        "jira:issue_deleted",
        "comment_created",
        "comment_updated",
        "issuelink_created",
        "issuelink_deleted",
    )


def test_an_empty_body_names_nothing_and_is_never_a_duplicate() -> None:
    """excludeBody: an empty body is an event that names nothing (the change-only refresh reads what changed)."""
    event = _parse(b"")
    assert (event.event, event.key, event.dedup, event.need, event.at) == (
        None,
        None,
        None,
        Need.CHANGES,
        "2026-10-22T09:00:30Z",
    )
    recent = RecentEvents()
    assert recent.first_time(event.dedup) and recent.first_time(event.dedup)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "webhook body is not JSON: Expecting property name enclosed in double quotes: line 1 column 2"),
        (b"[1, 2]", "webhook body is not a JSON object"),
        (b'{"timestamp": 1}', "webhook body has no webhookEvent"),
        (
            b'{"webhookEvent": "jira:issue_updated", "issue": {"key": "nope"}}',
            "jira:issue_updated without an issue key",
        ),
        (b'{"webhookEvent": "jira:issue_created"}', "jira:issue_created without an issue key"),
    ],
)
def test_a_body_that_is_no_payload_is_refused(body: bytes, message: str) -> None:
    """No JSON object, no webhookEvent, an issue event without a key: WebhookError (400, nothing relayed)."""
    with pytest.raises(WebhookError) as refused:
        _parse(body)
    assert refused.value.message.startswith(message)


def test_an_unreadable_issue_is_refreshed_by_its_key() -> None:
    """An issue whose fields cannot be read is not applied: its key is refreshed, the problem named."""
    body = {"webhookEvent": "jira:issue_updated", "timestamp": 1792659600000, "issue": {"id": "7", "key": "AURORA-7"}}
    body["issue"]["fields"] = {"summary": ["not", "text"]}
    event = _parse(json.dumps(body).encode())
    assert (event.key, event.issue, event.need, event.at) == ("AURORA-7", None, Need.TARGETED, "2026-10-22T09:00:00Z")
    assert event.problem is not None and "summary" in event.problem


def test_duplicates_keep_their_key_and_edits_do_not() -> None:
    """The same change twice is one key; the same comment edited twice, two; a body without ids, its bytes."""
    edit = {"webhookEvent": "comment_updated", "timestamp": 1, "comment": {"id": "5", "updated": "t1"}}
    again = {**edit, "comment": {"id": "5", "updated": "t2"}}
    first, second = _parse(json.dumps(edit).encode()), _parse(json.dumps(again).encode())
    assert first.dedup != second.dedup
    bare = b'{"webhookEvent": "jira:issue_updated", "issue": {"key": "AURORA-1", "fields": {}}}'
    assert _parse(bare).dedup == "body:" + hashlib.sha256(bare).hexdigest()
    timed = {"webhookEvent": "jira:issue_updated", "timestamp": 5, "issue": {"id": 9, "key": "AURORA-1", "fields": {}}}
    assert _parse(json.dumps(timed).encode()).dedup == "jira:issue_updated:9:at:5"


def test_ids_that_are_no_numbers_and_objects_that_are_none_are_left_out() -> None:
    """The ids a payload names are Jira's numeric ids only (a number or a string of digits): a link's ``"x1"`` or
    ``null`` ends, a comment ``self`` naming no issue, an ``issue`` that is no object name nothing."""
    link = {
        "webhookEvent": "issuelink_created",
        "issueLink": {"id": 4, "sourceIssueId": "x1", "destinationIssueId": None},
    }
    assert _parse(json.dumps(link).encode()).issue_ids == ()
    odd = {"webhookEvent": "comment_created", "issue": "AURORA-1", "comment": {"id": 5, "self": "https://j/comment/5"}}
    assert _parse(json.dumps(odd).encode()).issue_ids == ()
    both = {**link, "issue": {"id": 7}, "issueLink": {"id": 4, "sourceIssueId": 10, "destinationIssueId": "11"}}
    assert _parse(json.dumps(both).encode()).issue_ids == ("7", "10", "11")
    flagged = {"webhookEvent": "issuelink_created", "issueLink": {"id": 4, "sourceIssueId": True}}
    assert _parse(json.dumps(flagged).encode()).issue_ids == ()


def test_a_body_without_an_issue_id_is_keyed_by_its_bytes_not_its_time() -> None:
    """Two bodies naming no issue id, no change, comment or link, at the same ``timestamp``: two keys."""
    one = b'{"webhookEvent": "jira:worklog_updated", "timestamp": 5, "worklog": {"id": 1}}'
    two = b'{"webhookEvent": "jira:worklog_updated", "timestamp": 5, "worklog": {"id": 2}}'
    assert (_parse(one).dedup, _parse(two).dedup) == (
        "body:" + hashlib.sha256(one).hexdigest(),
        "body:" + hashlib.sha256(two).hexdigest(),
    )


def test_the_time_is_utc_whatever_the_machines_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jira's timestamp and the time received are written in UTC on a machine in Omsk too; a timestamp that is no
    time (past year 9999, or past what a float holds) falls back to when it was received."""
    monkeypatch.setenv("TZ", "Asia/Omsk")
    time.tzset()
    try:
        stamped = _parse(b'{"webhookEvent": "comment_created", "timestamp": 1792659600000, "comment": {"id": 1}}')
        huge = _parse(b'{"webhookEvent": "comment_created", "timestamp": 10000000000000000, "comment": {"id": 1}}')
        vast = _parse(b'{"webhookEvent": "comment_created", "timestamp": 1' + b"0" * 400 + b', "comment": {"id": 1}}')
        local = parse_webhook(b"", SETTINGS, received_at=RECEIVED.astimezone(ZoneInfo("Asia/Omsk")))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert (stamped.at, local.at) == ("2026-10-22T09:00:00Z", "2026-10-22T09:00:30Z")
    assert huge.at == vast.at == "2026-10-22T09:00:30Z"  # a year past 9999; a number no float holds


@pytest.mark.usefixtures("moscow")
def test_a_time_received_late_in_year_9999_is_written_in_utc_on_a_moscow_machine() -> None:
    """Without Jira's timestamp the time received stands, reckoned in UTC only (Moscow's UTC+3 plays no part)."""
    late = datetime(9999, 12, 31, 22, 0, tzinfo=UTC)
    assert parse_webhook(b"", SETTINGS, received_at=late).at == "9999-12-31T22:00:00Z"


def test_a_refusal_says_why_as_its_text() -> None:
    """A :class:`WebhookError` is its message (the listener's log line shows it)."""
    with pytest.raises(WebhookError) as refused:
        _parse(b"[]")
    assert str(refused.value) == refused.value.message == "webhook body is not a JSON object"


def test_recent_events_remember_the_last_ten_thousand() -> None:
    """By default the last 10 000 keys: the first of 10 001 is new again, the second still a repeat."""
    recent = RecentEvents()
    assert all(recent.first_time(str(n)) for n in range(10_001))
    assert (recent.first_time("1"), recent.first_time("0")) == (False, True)


def test_recent_events_are_bounded() -> None:
    """The agent remembers the N keys seen last: a repeat among them is dropped (and remembered afresh), a key
    pushed out by newer ones is new again."""
    recent = RecentEvents(size=2)
    assert [recent.first_time(k) for k in ("a", "b", "a", "c", "a", "b")] == [True, True, False, True, False, True]


def test_the_policy_judges_by_the_issue_key() -> None:
    """An event of an allowed project is relayed, another project's dropped, one naming no key relayed."""
    policy = AgentPolicy(allow_projects=("AURORA",))
    assert in_policy(WebhookEvent(event="jira:issue_updated", at="t", key="AURORA-1"), policy)
    assert not in_policy(WebhookEvent(event="jira:issue_updated", at="t", key="HR-1"), policy)
    assert in_policy(WebhookEvent(event="issuelink_created", at="t"), policy)


def test_the_signature() -> None:
    """sha256=<hex HMAC-SHA256 of the body>: right → accepted; another secret, another body, none → refused."""
    body = b'{"webhookEvent": "jira:issue_updated"}'
    signed = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert signature_ok(body, signed, b"s3cret")
    assert signature_ok(body, signed.upper().replace("SHA256=", "sha256="), b"s3cret")
    assert not signature_ok(body, signed, b"other")
    assert not signature_ok(body + b" ", signed, b"s3cret")
    assert not signature_ok(body, None, b"s3cret")
    assert not signature_ok(body, signed.removeprefix("sha256="), b"s3cret")
    assert webhook_secret("s3cret\n") == webhook_secret("s3cret") == b"s3cret"
    assert webhook_secret("s3cret\r\n") == b"s3cret"


# --- the wire event the hub checks ----------------------------------------------------------------------------


def test_the_wire_event_goes_there_and_back() -> None:
    """to_wire → wire_event gives the event, key, time, issue and journal entry back (what the hub applies)."""
    parsed = _parse(_recorded("jira-trigger-plugin_issue_updated_fields_updated"))
    wire = parsed.to_wire()
    assert set(wire) == {"event", "key", "at", "issue", "history"}
    back = wire_event(json.loads(json.dumps(wire)), "events[0]")
    assert (back.event, back.key, back.at, back.issue, back.history, back.need) == (
        parsed.event,
        parsed.key,
        parsed.at,
        parsed.issue,
        parsed.history,
        Need.APPLY,
    )
    link = wire_event({"event": "issuelink_created", "key": None, "at": "2026-10-22T09:00:00Z"}, "events[1]")
    assert link == WebhookEvent(event="issuelink_created", key=None, at="2026-10-22T09:00:00Z")
    assert (link.need, link.issue, link.history) == (Need.CHANGES, None, None)
    bodiless = {"event": "jira:issue_updated", "key": "AURORA-1", "at": "2026-10-22T09:00:00.5+03:00", "issue": None}
    assert (wire_event(bodiless, "events[2]").issue, wire_event(bodiless, "events[2]").need) == (None, Need.TARGETED)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "events[0]: ожидается объект {event, key, at, issue?, history?}"),
        (
            {"event": "x", "key": None, "at": "2026-10-22T09:00:00Z", "id": 1},
            "events[0]: ожидается объект {event, key, at, issue?, history?}",
        ),
        (
            {
                "event": "jira:issue_updated",
                "key": "AURORA-2",
                "at": "2026-10-22T09:00:00Z",
                "history": {"key": "AURORA-1", "id": "5", "created": "2026-10-22T09:00:00Z"},
            },
            "events[0]: history.key — не тот ключ, что key",
        ),
        (
            {"event": "jira:issue_updated", "key": "AURORA-1", "at": "2026-10-22T09:00:00Z", "history": {"key": 1}},
            "events[0].history: key — ожидается строка",
        ),
        ({"event": 5, "key": None, "at": "2026-10-22T09:00:00Z"}, "events[0]: event — ожидается строка или null"),
        (
            {"event": "x", "key": "HR 1", "at": "2026-10-22T09:00:00Z"},
            "events[0]: key — ожидается ключ задачи Jira или null",
        ),
        ({"event": "x", "key": None, "at": "вчера"}, "events[0]: at — ожидается время ISO-8601"),
        (
            {
                "event": "jira:issue_updated",
                "key": "AURORA-2",
                "at": "2026-10-22T09:00:00Z",
                "issue": {"key": "AURORA-1"},
            },
            "events[0]: issue.key — не тот ключ, что key",
        ),
        (
            {"event": "jira:issue_updated", "key": "AURORA-1", "at": "2026-10-22T09:00:00Z", "issue": {"key": 1}},
            "events[0].issue: key — ожидается ключ задачи",
        ),
    ],
)
def test_a_bad_wire_event_is_422(data: Any, message: str) -> None:
    """What the hub refuses of an agent's event, in the words its 422 carries."""
    with pytest.raises(ValidationError) as refused:
        wire_event(data, "events[0]")
    assert refused.value.message == message


# --- the simulator's deliveries -------------------------------------------------------------------------------

Change = Callable[[httpx.AsyncClient], Awaitable[Any]]


async def _deliveries(change: Change, **hook: Any) -> tuple[list[httpx.Request], Simulator, httpx.AsyncClient]:
    received: list[httpx.Request] = []

    def receiver(request: httpx.Request) -> httpx.Response:
        received.append(request)
        return httpx.Response(200)

    sim = Simulator(clock=lambda: RECEIVED, webhook_transport=httpx.MockTransport(receiver))
    jira = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test", headers={"Authorization": "Bearer t"}
    )
    body = {"name": "agent", "url": "http://agent.bank/jira/webhook", "events": list(EVENTS), **hook}
    assert (await jira.post("/rest/jira-webhook/1.0/webhooks", json=body)).status_code == 201
    await change(jira)
    await sim.settle_webhooks()
    return received, sim, jira


async def _search_hit(jira: httpx.AsyncClient, key: str) -> Any:
    """The issue as a refresh page reads it (the same search, the mirror's fields)."""
    body = {"jql": f"key = {key}", "fields": mirror_fields(SETTINGS), "maxResults": 1}
    [hit] = (await jira.post("/rest/api/2/search", json=body)).json()["issues"]
    return hit


@pytest.mark.anyio
async def test_the_simulators_edit_reads_as_its_search_page_does() -> None:
    """An edit in the simulator: the webhook's issue is the very record a refresh page of it would give."""

    async def edit(jira: httpx.AsyncClient) -> None:
        fields = {"summary": "Шахматка v2", "duedate": "2026-11-01", "labels": ["AWPCA", "срочно"]}
        assert (await jira.put("/rest/api/2/issue/AURORA-1533", json={"fields": fields})).status_code == 204

    received, _, jira = await _deliveries(edit)
    [event] = [_parse(r.content) for r in received]
    assert (event.event, event.key, event.need) == ("jira:issue_updated", "AURORA-1533", Need.APPLY)
    assert event.issue == issue_from_jira(await _search_hit(jira, "AURORA-1533"), SETTINGS)
    assert event.at == "2026-10-22T09:00:30Z"
    await jira.aclose()


@pytest.mark.anyio
async def test_the_simulators_events_of_every_kind() -> None:
    """Create, comment, link, unlink and delete in the simulator: each delivery reads, with the need it has."""

    async def changes(jira: httpx.AsyncClient) -> None:
        fields = {"project": {"key": "AURORA"}, "issuetype": {"name": "Задача"}, "summary": "Новая"}
        assert (await jira.post("/rest/api/2/issue", json={"fields": fields})).status_code == 201
        assert (await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "Да"})).status_code == 201
        link = {
            "type": {"name": "Связанные"},
            "inwardIssue": {"key": "AURORA-1533"},
            "outwardIssue": {"key": "AURORA-1"},
        }
        assert (await jira.post("/rest/api/2/issueLink", json=link)).status_code == 201
        issue = (await jira.get("/rest/api/2/issue/AURORA-1537", params={"fields": "issuelinks"})).json()
        assert (await jira.delete(f"/rest/api/2/issueLink/{issue['fields']['issuelinks'][0]['id']}")).status_code == 204
        assert (await jira.delete("/rest/api/2/issue/AURORA-1538")).status_code == 204

    received, _, jira = await _deliveries(changes)
    parsed = [_parse(r.content) for r in received]
    assert sorted((e.event or "", e.key or "", e.need.value) for e in parsed) == [
        ("comment_created", "", "nothing"),
        ("issuelink_created", "", "changes"),
        ("issuelink_deleted", "", "changes"),
        ("jira:issue_created", "AURORA-1590", "apply"),
        ("jira:issue_deleted", "AURORA-1538", "targeted"),
        ("jira:issue_updated", "AURORA-1533", "apply"),
    ]
    assert len({e.dedup for e in parsed}) == len(parsed)
    assert all(len(e.issue_ids) == 2 for e in parsed if e.event in ("issuelink_created", "issuelink_deleted"))
    await jira.aclose()


@pytest.mark.anyio
async def test_the_simulators_signature_duplicates_and_empty_bodies() -> None:
    """A signed delivery checks with the secret; a repeated one has the same key; excludeBody sends nothing."""

    async def edit(jira: httpx.AsyncClient) -> None:
        await jira.put("/rest/api/2/issue/AURORA-1", json={"fields": {"summary": "Другая"}})

    signed, sim, jira = await _deliveries(edit, configuration={"SECRET": "s3cret"})
    [request] = signed
    assert signature_ok(request.content, request.headers.get("X-Hub-Signature"), webhook_secret("s3cret\n"))
    assert not signature_ok(request.content, request.headers.get("X-Hub-Signature"), b"wrong")
    sim.set_webhook_faults(duplicate=1)
    await jira.put("/rest/api/2/issue/AURORA-1", json={"fields": {"summary": "Третья"}})
    await sim.settle_webhooks()
    keys = [_parse(r.content).dedup for r in signed[1:]]
    assert len(keys) == 2 and keys[0] == keys[1]
    recent = RecentEvents()
    assert [recent.first_time(k) for k in keys] == [True, False]
    await jira.aclose()

    empty, _, jira = await _deliveries(edit, configuration={"EXCLUDE_BODY": "true"})
    assert [(r.content, _parse(r.content).need) for r in empty] == [(b"", Need.CHANGES)]
    await jira.aclose()
