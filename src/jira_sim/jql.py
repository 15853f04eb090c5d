"""The JQL subset the simulator understands, compiled to predicates (its parser: :mod:`jira_sim.jql_syntax`).

Plain Python, no I/O: the store builds :class:`~jira_sim.jql_facts.IssueFacts` for each issue and a
:class:`~jira_sim.jql_facts.JqlContext` for the caller, and this module answers which issues match and in which
order. Errors carry Jira's own wording (``Error in the JQL Query: …``, ``Field 'x' does not exist …``,
``The value 'x' does not exist …``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time, timedelta

from jira_sim.jql_facts import INDEXED_FIELDS, Compiled, IssueFacts, JqlContext, Predicate
from jira_sim.jql_syntax import And, Clause, Func, JqlError, Node, Not, Operand, Or, parse

__all__ = ["compile_query"]


_FIELD_ALIASES = {
    "project": "project",
    "key": "key",
    "issuekey": "key",
    "id": "key",
    "issue": "key",
    "labels": "labels",
    "label": "labels",
    "reporter": "reporter",
    "assignee": "assignee",
    "creator": "creator",
    "status": "status",
    "statuscategory": "statusCategory",
    "issuetype": "issuetype",
    "type": "issuetype",
    "priority": "priority",
    "sprint": "sprint",
    "created": "created",
    "createddate": "created",
    "updated": "updated",
    "updateddate": "updated",
    "duedate": "duedate",
    "due": "duedate",
    "summary": "summary",
    "description": "description",
    "epic link": "epic",
}

_EQ_OPS = ("=", "!=", "in", "not in")
_EMPTY_OPS = ("is", "is not")
_CMP_OPS = ("=", "!=", ">", ">=", "<", "<=")
_SUPPORTED_OPS: Mapping[str, tuple[str, ...]] = {
    "project": _EQ_OPS,
    "key": _EQ_OPS,
    "labels": _EQ_OPS + _EMPTY_OPS,
    "reporter": _EQ_OPS + _EMPTY_OPS,
    "assignee": _EQ_OPS + _EMPTY_OPS,
    "creator": _EQ_OPS + _EMPTY_OPS,
    "status": _EQ_OPS,
    "statusCategory": _EQ_OPS,
    "issuetype": _EQ_OPS,
    "priority": _EQ_OPS + _EMPTY_OPS,
    "sprint": _EQ_OPS + _EMPTY_OPS,
    "created": _CMP_OPS + _EMPTY_OPS,
    "updated": _CMP_OPS + _EMPTY_OPS,
    "duedate": _CMP_OPS + _EMPTY_OPS,
    "summary": ("~", "!~", "is", "is not"),
    "description": ("~", "!~", "is", "is not"),
    "epic": _EQ_OPS + _EMPTY_OPS,
}

_CATEGORIES = {
    "new": "new",
    "to do": "new",
    "2": "new",
    "indeterminate": "indeterminate",
    "in progress": "indeterminate",
    "4": "indeterminate",
    "done": "done",
    "3": "done",
    "undefined": "undefined",
    "no category": "undefined",
    "1": "undefined",
}

_PERIOD = re.compile(r"^([-+]?)((?:\s*\d+\s*[wdhm])+)$", re.IGNORECASE)
_PERIOD_PART = re.compile(r"(\d+)\s*([wdhm])", re.IGNORECASE)
_DATE_FORMATS = ("%Y/%m/%d %H:%M", "%Y-%m-%d %H:%M", "%Y/%m/%d", "%Y-%m-%d")
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)-(\d+)$")


def _canonical_field(name: str, ctx: JqlContext) -> str:
    low = name.strip().lower()
    if low in _FIELD_ALIASES:
        return _FIELD_ALIASES[low]
    if low == ctx.epic_link_field.lower() or low == "cf[" + ctx.epic_link_field.rsplit("_", 1)[-1] + "]":
        return "epic"
    raise JqlError(f"Field '{name}' does not exist or you do not have permission to view it.")


def _period(text: str) -> timedelta | None:
    m = _PERIOD.match(text.strip())
    if not m:
        return None
    total = timedelta()
    unit = {"w": timedelta(weeks=1), "d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}
    for amount, letter in _PERIOD_PART.findall(m.group(2)):
        total += int(amount) * unit[letter.lower()]
    return -total if m.group(1) == "-" else total


class _Compiler:
    def __init__(self, ctx: JqlContext) -> None:
        self.ctx = ctx
        self.warnings: list[str] = []
        self.uses_now = False
        self.indexed: dict[Clause, tuple[str, frozenset[str]]] = {}

    def unknown_value(self, value: str, field: str) -> None:
        message = f"The value '{value}' does not exist for the field '{field}'."
        if self.ctx.strict:
            raise JqlError(message)
        self.warnings.append(message)

    def node(self, node: Node) -> Predicate:
        if isinstance(node, And):
            parts = [self.node(n) for n in node.items]
            return lambda i: all(p(i) for p in parts)
        if isinstance(node, Or):
            parts = [self.node(n) for n in node.items]
            return lambda i: any(p(i) for p in parts)
        if isinstance(node, Not):
            inner = self.node(node.item)
            return lambda i: not inner(i)
        return self.clause(node)

    def clause(self, clause: Clause) -> Predicate:
        field = _canonical_field(clause.field, self.ctx)
        if clause.op not in _SUPPORTED_OPS[field]:
            raise JqlError(f"The operator '{clause.op}' is not supported by the '{clause.field}' field.")
        if field in ("created", "updated", "duedate"):
            return self.date_clause(field, clause)
        if field in ("summary", "description"):
            return self.text_clause(field, clause)
        getter = self.multi_getter(field)
        if clause.op in _EMPTY_OPS:
            return (lambda i: not getter(i)) if clause.op == "is" else (lambda i: bool(getter(i)))
        wanted = self.resolve(field, clause)
        if clause.op in ("=", "in"):
            if field in INDEXED_FIELDS:
                self.indexed[clause] = (field, wanted)
            return lambda i: bool(getter(i) & wanted)
        return lambda i: bool(getter(i)) and not (getter(i) & wanted)

    def multi_getter(self, field: str) -> Callable[[IssueFacts], frozenset[str]]:
        def one(value: str | None) -> frozenset[str]:
            return frozenset() if value is None else frozenset([value.lower()])

        getters: dict[str, Callable[[IssueFacts], frozenset[str]]] = {
            "project": lambda i: frozenset([i.project_key.lower()]),
            "key": lambda i: frozenset([i.key.lower()]),
            "labels": lambda i: frozenset(label.lower() for label in i.labels),
            "reporter": lambda i: one(i.reporter),
            "assignee": lambda i: one(i.assignee),
            "creator": lambda i: one(i.creator),
            "status": lambda i: frozenset([i.status_id.lower()]),
            "statusCategory": lambda i: frozenset([i.status_category]),
            "issuetype": lambda i: frozenset([i.issuetype_id.lower()]),
            "priority": lambda i: one(i.priority_id),
            "sprint": lambda i: frozenset(str(s.id) for s in i.sprints),
            "epic": lambda i: one(i.epic_link),
        }
        return getters[field]

    def resolve(self, field: str, clause: Clause) -> frozenset[str]:
        out: set[str] = set()
        for operand in clause.operands:
            out |= self.resolve_one(field, clause.field, operand)
        return frozenset(out)

    def resolve_one(self, field: str, shown: str, operand: Operand) -> set[str]:
        ctx = self.ctx
        if isinstance(operand, Func):
            fname = operand.name.lower()
            if fname == "currentuser" and field in ("reporter", "assignee", "creator"):
                return {ctx.user.lower()}
            sprint_states = {
                "opensprints": ("active", "future"),
                "closedsprints": ("closed",),
                "futuresprints": ("future",),
            }
            if fname in sprint_states and field == "sprint":
                return {str(s.id) for s in ctx.sprints if s.state in sprint_states[fname]}
            if fname in ("currentuser", "opensprints", "closedsprints", "futuresprints"):
                raise JqlError(f"The field '{shown}' does not support the function '{operand.name}'.")
            raise JqlError(f"Unable to find JQL function '{operand.name}()'.")
        raw = operand.text
        low = raw.strip().lower()
        if field == "project":
            for key, name, pid in ctx.projects:
                if low in (key.lower(), name.lower(), pid):
                    return {key.lower()}
        elif field == "key":
            by_id = ctx.key_of_id(raw.strip()) if raw.strip().isdigit() else None
            if by_id is not None:  # Jira takes an issue's id wherever it takes its key
                return {by_id.lower()}
            m = _KEY.match(raw.strip())
            if not m and not raw.strip().isdigit():
                raise JqlError(f"The issue key '{raw}' for field '{shown}' is invalid.")
            if raw.strip().upper() in ctx.issue_keys:
                return {low}
            message = f"An issue with key '{raw}' does not exist for field '{shown}'."
            if ctx.strict:
                raise JqlError(message)
            self.warnings.append(message)
            return set()
        elif field == "epic":
            if raw.strip().upper() in ctx.issue_keys:
                return {low}
        elif field == "labels":
            return {low}
        elif field in ("reporter", "assignee", "creator"):
            if low in {u.lower() for u in ctx.users}:
                return {low}
        elif field in ("status", "issuetype", "priority"):
            table = {"status": ctx.statuses, "issuetype": ctx.issue_types, "priority": ctx.priorities}[field]
            ids = {i.lower() for i, name in table if low in (i.lower(), name.lower())}
            if ids:
                return ids
        elif field == "statusCategory":
            if low in _CATEGORIES:
                return {_CATEGORIES[low]}
        elif field == "sprint":
            ids = {str(s.id) for s in ctx.sprints if low in (str(s.id), s.name.lower())}
            if ids:
                return ids
        self.unknown_value(raw, shown)
        return set()

    def instant(self, operand: Operand, shown: str) -> datetime:
        ctx = self.ctx
        if isinstance(operand, Func):
            fname = operand.name.lower()
            if fname == "now":
                self.uses_now = True
                return ctx.now
            if fname in ("startofday", "endofday"):
                self.uses_now = True
                local = ctx.now.astimezone(ctx.zone)
                day = datetime.combine(local.date(), time(0), tzinfo=ctx.zone)
                if operand.args:
                    delta = _period(operand.args[0])
                    if delta is not None:
                        day += timedelta(days=delta.days)
                return day if fname == "startofday" else day + timedelta(days=1) - timedelta(milliseconds=1)
            raise JqlError(f"Unable to find JQL function '{operand.name}()'.")
        text = operand.text.strip()
        delta = _period(text)
        if delta is not None:
            self.uses_now = True
            return ctx.now + delta
        for fmt in _DATE_FORMATS:
            try:
                naive = datetime.strptime(text, fmt)
            except ValueError:
                continue
            return naive.replace(tzinfo=ctx.zone)
        raise JqlError(
            f"Date value '{operand.text}' for field '{shown}' is invalid. Valid formats include: "
            "'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format "
            "e.g. '-5d', '4w 2d'."
        )

    def date_clause(self, field: str, clause: Clause) -> Predicate:
        zone = self.ctx.zone

        def value(i: IssueFacts) -> datetime | None:
            if field == "duedate":
                return None if i.duedate is None else datetime.combine(i.duedate, time(0), tzinfo=zone)
            return i.created if field == "created" else i.updated

        if clause.op in _EMPTY_OPS:
            return (lambda i: value(i) is None) if clause.op == "is" else (lambda i: value(i) is not None)
        bound = self.instant(clause.operands[0], clause.field)
        if field == "duedate":
            local = bound.astimezone(zone)
            bound = datetime.combine(local.date(), time(0), tzinfo=zone)
        compare: dict[str, Callable[[datetime, datetime], bool]] = {
            "=": lambda a, b: a == b,
            "!=": lambda a, b: a != b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
        }
        cmp = compare[clause.op]

        def pred(i: IssueFacts) -> bool:
            v = value(i)
            return v is not None and cmp(v, bound)

        return pred

    def text_clause(self, field: str, clause: Clause) -> Predicate:
        def value(i: IssueFacts) -> str | None:
            return i.summary if field == "summary" else i.description

        if clause.op in _EMPTY_OPS:
            return (lambda i: not value(i)) if clause.op == "is" else (lambda i: bool(value(i)))
        operand = clause.operands[0]
        if isinstance(operand, Func):
            raise JqlError(f"Unable to find JQL function '{operand.name}()'.")
        needle = operand.text.lower()
        if clause.op == "~":
            return lambda i: needle in (value(i) or "").lower()
        return lambda i: needle not in (value(i) or "").lower()

    def sorter(self, order: tuple[tuple[str, bool], ...]) -> Callable[[Sequence[IssueFacts]], list[IssueFacts]]:
        def default_key(i: IssueFacts) -> tuple[str, int]:
            return (i.project_key, i.number)

        priority_rank = {pid: n for n, (pid, _) in enumerate(self.ctx.priorities)}
        keys: list[tuple[Callable[[IssueFacts], object], bool]] = []
        for name, asc in order:
            low = name.strip().lower()
            field = _FIELD_ALIASES.get(low)
            extract: Callable[[IssueFacts], object]
            if field == "key":
                extract = default_key
            elif field == "created":
                extract = lambda i: i.created  # noqa: E731
            elif field == "updated":
                extract = lambda i: i.updated  # noqa: E731
            elif field == "duedate":
                extract = lambda i: i.duedate or date.max  # noqa: E731
            elif field == "summary":
                extract = lambda i: i.summary.lower()  # noqa: E731
            elif field == "priority":
                extract = lambda i: priority_rank.get(i.priority_id or "", len(priority_rank))  # noqa: E731
            elif field == "status":
                extract = lambda i: i.status.lower()  # noqa: E731
            else:
                _canonical_field(name, self.ctx)
                raise JqlError(f"Not able to sort using field '{name}'.")
            keys.append((extract, asc))

        def sort(items: Sequence[IssueFacts]) -> list[IssueFacts]:
            out = sorted(items, key=default_key)
            for extract, asc in reversed(keys):
                out.sort(key=extract, reverse=not asc)  # type: ignore[arg-type]
            return out

        return sort


def compile_query(text: str, ctx: JqlContext) -> Compiled:
    """Parse and compile ``text``; raises :class:`JqlError` with Jira's wording when Jira would answer 400."""
    query = parse(text)
    compiler = _Compiler(ctx)
    matches: Predicate = (lambda _i: True) if query.where is None else compiler.node(query.where)
    sort = compiler.sorter(query.order_by)
    return Compiled(
        matches=matches,
        sort=sort,
        warnings=tuple(compiler.warnings),
        required=tuple(_required(query.where, compiler.indexed)),
        uses_now=compiler.uses_now,
    )


def _required(
    node: Node | None, indexed: Mapping[Clause, tuple[str, frozenset[str]]]
) -> list[tuple[str, frozenset[str]]]:
    """The indexed conditions that every match of ``node`` meets: its clauses joined by ``AND`` at the top."""
    if isinstance(node, Clause):
        return [indexed[node]] if node in indexed else []
    if isinstance(node, And):
        return [found for item in node.items for found in _required(item, indexed)]
    return []  # OR and NOT: no single condition holds for every match
