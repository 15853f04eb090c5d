"""A Jira write as the plan lines it stands for: what a person approves, and what the agent checks before it writes
(DESIGN.md 6.5).

A :class:`WriteLine` says which issue (``key``), which ``aspect`` (a field by its logical name, ``labels``,
``status``, ``sprint``, ``link``, ``comment``, ``attachment``, ``issue`` for its creation), what it held before the
write (``before``; :data:`UNKNOWN` when the plan cannot vouch for it: comments and attachments the mirror does not
hold, an issue the batch has yet to create) and what the write makes it (``after``).

One mapping, two users: the dry run (:mod:`reconcile.outlook.dryrun`) drives each executor against the mirror and maps
its writes into the lines a person approves; the agent drives the same executor against Jira and, before each
write, maps it the same way (:class:`PlanCheck`). A write whose lines are not all among the approved ones —
another aspect, another ``before``, a creation where «найдена» was approved — is not made: the command is dropped
before it and the agent reports the difference. What the executor read comes in through :meth:`Reads.seen`.

Pure: calls and answers come in as values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import unquote

import attrs

from reconcile.config.settings import Settings
from reconcile.executors import Dropped, Executor, JiraCall, JiraResponse
from reconcile.jira.model import issue_fields, issue_from_jira, links_from_jira, sprint_of
from reconcile.vocabulary.errors import JiraAnswerError
from reconcile.vocabulary.records import MirrorIssue, MirrorLink
from reconcile.vocabulary.text import normalise_text

__all__ = [
    "UNKNOWN",
    "Difference",
    "PlanCheck",
    "Reads",
    "WriteLine",
    "difference_text",
    "is_approved",
    "lines_of_write",
]


class _Unknown:
    """What the plan cannot vouch for: any value matches it."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()

_ISSUE = "/rest/api/2/issue"
_FIELD_NAMES = ("summary", "description", "priority", "assignee", "duedate")


def _plain(value: Any) -> Any:
    """A written value as a line says it: ``{"name": X}`` → ``X``, ``{"key": K}`` → ``K``, text without CRLF
    and with ``""`` as nothing (the seed's comparison of text)."""
    if isinstance(value, Mapping) and len(value) == 1:
        inner = value.get("name", value.get("key", value))
        if inner is not value:
            return _plain(inner)
    if isinstance(value, str):
        return normalise_text(value) or None
    return value


@attrs.frozen(kw_only=True)
class WriteLine:
    """One line of what a write does (see the module docstring)."""

    key: str
    aspect: str
    after: Any
    before: Any = UNKNOWN

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"key": self.key, "aspect": self.aspect, "to": self.after}
        if self.before is not UNKNOWN:
            data["from"] = self.before
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WriteLine:
        return cls(
            key=str(data.get("key")),
            aspect=str(data.get("aspect")),
            after=data.get("to"),
            before=data.get("from", UNKNOWN),
        )

    def vouching_nothing_before(self) -> WriteLine:
        """The same line with ``before`` not vouched for (an issue the batch has yet to create)."""
        return attrs.evolve(self, before=UNKNOWN)


def is_approved(line: WriteLine, approved: Iterable[WriteLine]) -> bool:
    """Whether an approved line covers ``line``: the same issue, aspect and value after, and the same value before
    unless the approved line could not vouch for it."""
    return any(
        a.key == line.key
        and a.aspect == line.aspect
        and a.after == line.after
        and (a.before is UNKNOWN or a.before == line.before)
        for a in approved
    )


@attrs.frozen(kw_only=True)
class Difference:
    """A write not among the approved lines: the line, and the approved line of the same issue and aspect (if any)."""

    found: WriteLine
    approved: WriteLine | None

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.found.key,
            "aspect": self.found.aspect,
            "now": self.found.to_json(),
            "approved": None if self.approved is None else self.approved.to_json(),
            "text": difference_text(self),
        }


def difference_text(difference: Difference) -> str:
    """The difference in words («AURORA-1533: summary изменилась в Jira после одобрения»)."""
    found = difference.found
    if difference.approved is not None:
        return f"{found.key}: {found.aspect} изменилась в Jira после одобрения"
    if found.aspect == "issue":
        return f"{found.key}: задачи нет в Jira — одобрено, что она найдена"
    return f"{found.key}: запись {found.aspect} не была одобрена"


def _differences(lines: Sequence[WriteLine], approved: Sequence[WriteLine]) -> list[Difference]:
    def same_aspect(line: WriteLine) -> WriteLine | None:
        return next((a for a in approved if (a.key, a.aspect) == (line.key, line.aspect)), None)

    return [Difference(found=line, approved=same_aspect(line)) for line in lines if not is_approved(line, approved)]


@attrs.define
class Reads:
    """What an executor has read of Jira so far, as the lines of its writes need it."""

    settings: Settings
    issues: dict[str, Any] = attrs.Factory(dict)
    status: dict[str, str | None] = attrs.Factory(dict)
    sprint: dict[str, str | None] = attrs.Factory(dict)
    links: dict[str, MirrorLink] = attrs.Factory(dict)
    transitions: dict[tuple[str, str], str] = attrs.Factory(dict)
    sprint_names: dict[str, str] = attrs.Factory(dict)
    #: ``issues`` read as the mirror reads them, once per answer (``None``: unreadable)
    parsed: dict[str, MirrorIssue | None] = attrs.field(factory=dict, init=False)

    def seen(self, call: JiraCall, answer: JiraResponse) -> None:
        """Take in one answered call (a malformed answer teaches nothing: the executor fails on it itself)."""
        if not answer.ok:
            return
        path = unquote(call.path)
        try:
            if call.method == "GET" and isinstance(answer.json, Mapping):
                self._read(path, answer.json)
            elif call.is_write:
                self._wrote(path, call)
        except (JiraAnswerError, AttributeError, TypeError, ValueError):
            return

    def _read(self, path: str, body: Any) -> None:
        if path.startswith(f"{_ISSUE}/"):
            key, _, suffix = path[len(_ISSUE) + 1 :].partition("/")
            if suffix == "transitions":
                for transition in body.get("transitions") or ():
                    to = transition.get("to") or {}
                    self.transitions[(key, str(transition.get("id")))] = str(to.get("name") or transition.get("name"))
            elif not suffix:
                self._issue(key, body)
        elif path.startswith("/rest/agile/1.0/board/") and path.endswith("/sprint"):
            for sprint in body.get("values") or ():
                self.sprint_names[str(sprint.get("id"))] = str(sprint.get("name"))

    def _issue(self, key: str, body: Any) -> None:
        fields = issue_fields(body, key)
        self.issues[key] = body
        self.parsed.pop(key, None)
        if "status" in fields:
            status = fields.get("status")
            self.status[key] = status.get("name") if isinstance(status, Mapping) else None
        if "issuelinks" in fields:
            for link in links_from_jira(key, fields.get("issuelinks")):
                self.links[link.id] = link
        sprint_field = self.settings.fields.get("sprint")
        if sprint_field and sprint_field in fields:
            sprint = sprint_of(fields.get(sprint_field))
            self.sprint[key] = sprint.name if sprint else None

    def _wrote(self, path: str, call: JiraCall) -> None:
        """A write went through: what it changed is what the next write starts from."""
        for line in lines_of_write(call, params={}, reads=self):
            if line.aspect in ("status", "sprint"):
                getattr(self, line.aspect)[line.key] = line.after
        if call.method == "DELETE" and path.startswith("/rest/api/2/issueLink/"):
            self.links.pop(path.rpartition("/")[2], None)

    def before(self, key: str, aspect: str) -> Any:
        """A field's value in the issue last read (``None`` when the issue was not read)."""
        raw = self.issues.get(key)
        if raw is None:
            return None
        if key not in self.parsed:
            try:
                self.parsed[key] = issue_from_jira(raw, self.settings)
            except JiraAnswerError:
                self.parsed[key] = None
        issue = self.parsed[key]
        return None if issue is None else _plain(getattr(issue, aspect))


def _field_names(settings: Settings) -> dict[str, str]:
    """Jira field ids of ``PUT /issue`` → the logical names of ``ensure_fields``."""
    names = {name: name for name in _FIELD_NAMES}
    for logical in ("planned_start", "planned_end"):
        field_id = settings.fields.get(logical)
        if field_id:
            names[field_id] = logical
    names["parent" if settings.epic_link.mode == "parent" else settings.epic_link.field_id or ""] = "epic_key"
    return names


def _fields_lines(key: str, body: Mapping[str, Any], reads: Reads) -> list[WriteLine]:
    lines: list[WriteLine] = []
    names = _field_names(reads.settings)
    for field_id, value in (body.get("fields") or {}).items():
        aspect = names.get(field_id, field_id)
        before = reads.before(key, aspect) if aspect in names.values() else None
        after = _plain(value)
        if aspect == "summary":
            before = before.strip() if isinstance(before, str) else before
            after = after.strip() if isinstance(after, str) else after
        lines.append(WriteLine(key=key, aspect=aspect, before=before, after=after))
    for verb in (body.get("update") or {}).get("labels") or ():
        lines.extend(WriteLine(key=key, aspect="labels", after={op: label}) for op, label in verb.items())
    return lines


def _issue_write(call: JiraCall, path: str, params: Mapping[str, Any], reads: Reads) -> list[WriteLine] | None:
    """The lines of a write under ``/rest/api/2/issue`` (``None``: not one of those)."""
    body = call.json if isinstance(call.json, Mapping) else {}
    if path == _ISSUE and call.method == "POST":
        summary = _plain((body.get("fields") or {}).get("summary"))
        key = str(params.get("temp_key") or "")
        return [WriteLine(key=key, aspect="issue", before=None, after=summary.strip() if summary else summary)]
    if not path.startswith(f"{_ISSUE}/"):
        return None
    key, _, suffix = path[len(_ISSUE) + 1 :].partition("/")
    if not suffix and call.method == "PUT":
        return _fields_lines(key, body, reads)
    if suffix == "transitions" and call.method == "POST":
        transition = str((body.get("transition") or {}).get("id"))
        after = reads.transitions.get((key, transition), transition)
        return [WriteLine(key=key, aspect="status", before=reads.status.get(key), after=after)]
    if suffix.startswith("comment"):
        return [WriteLine(key=key, aspect="comment", after=_plain(body.get("body")))]
    if suffix == "attachments":
        filename = call.upload.filename if call.upload is not None else params.get("filename")
        return [WriteLine(key=key, aspect="attachment", after=filename)]
    return None


def _link(link: MirrorLink) -> dict[str, str]:
    return {"type": link.type, "source": link.source, "target": link.target}


def _other_write(call: JiraCall, path: str, params: Mapping[str, Any], reads: Reads) -> list[WriteLine] | None:
    """The lines of a link or sprint write (``None``: not one of those)."""
    body = call.json if isinstance(call.json, Mapping) else {}
    if path == "/rest/api/2/issueLink" and call.method == "POST":
        link = {
            "type": str((body.get("type") or {}).get("name")),
            "source": str((body.get("inwardIssue") or {}).get("key")),
            "target": str((body.get("outwardIssue") or {}).get("key")),
        }
        return [WriteLine(key=link["source"], aspect="link", before=None, after=link)]
    if path.startswith("/rest/api/2/issueLink/") and call.method == "DELETE":
        link_id = path.rpartition("/")[2]
        known = reads.links.get(link_id)
        key = known.source if known else str(params.get("source"))
        before = _link(known) if known else {"id": link_id}
        return [WriteLine(key=key, aspect="link", before=before, after=None)]
    if path.startswith("/rest/agile/1.0/") and path.endswith("/issue") and call.method == "POST":
        segments = path.split("/")
        after = None if segments[4] == "backlog" else reads.sprint_names.get(segments[5], params.get("sprint"))
        keys = body.get("issues") or ()
        return [WriteLine(key=str(k), aspect="sprint", before=reads.sprint.get(str(k)), after=after) for k in keys]
    return None


def lines_of_write(call: JiraCall, *, params: Mapping[str, Any], reads: Reads) -> list[WriteLine]:
    """The lines of one write of a command with ``params``, against what its executor has read (``reads``).

    A write no rule knows is one line naming its method and path: it matches only the same write approved.
    """
    path = unquote(call.path)
    found = _issue_write(call, path, params, reads)
    if found is None:
        found = _other_write(call, path, params, reads)
    if found is None:
        found = [WriteLine(key="", aspect=f"{call.method} {path}", after=_plain(call.json))]
    return found


@attrs.define
class PlanCheck:
    """The agent's check of one command's writes against its approved lines (``context.approved``).

    :meth:`watch` wraps the command's executor: each answered call goes into :class:`Reads`, and before each write
    its lines are looked up among the approved ones. A write not approved is not handed to the driver: the
    executor is told it was dropped (it ends ``failed`` with the writes made so far) and :attr:`differences` say
    why, for the agent's ``stale_plan`` report.
    """

    params: Mapping[str, Any]
    approved: Sequence[WriteLine]
    reads: Reads
    differences: list[Difference] = attrs.Factory(list)

    def refusal(self, call: JiraCall) -> str | None:
        """Why ``call`` must not be made (``None``: every line of it was approved)."""
        found = _differences(lines_of_write(call, params=self.params, reads=self.reads), self.approved)
        if not found:
            return None
        self.differences.extend(found)
        return "план изменился после одобрения: " + "; ".join(difference_text(d) for d in found)

    def watch(self, executor: Executor) -> Executor:
        """``executor`` with every write checked first (see the class docstring)."""
        try:
            step = executor.send(None)
            while True:
                if isinstance(step, JiraCall) and step.is_write and (refused := self.refusal(step)) is not None:
                    step = executor.throw(Dropped(refused))
                    continue
                try:
                    reply = yield step
                except Dropped as dropped:  # the driver's own refusal (the fence), passed on
                    step = executor.throw(dropped)
                    continue
                if isinstance(step, JiraCall) and isinstance(reply, JiraResponse):
                    self.reads.seen(step, reply)
                step = executor.send(reply)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        finally:
            executor.close()
