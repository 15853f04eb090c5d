"""Laws of the executors, checked on generated states and commands against the simulator:

- idempotence: a command that ends ``done`` makes no write when run again;
- pacing: two writes inside one command are never closer than the command's gap.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import anyio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from .sim_support import Bench, make_bench

KEYS = ["AURORA-1", "AURORA-1445", "AURORA-1446", "AURORA-1533", "AURORA-1537", "AURORA-1538", "AURORA-1540"]
STATUSES = ["Ожидание разработки", "Разработка", "Тестирование", "Готово"]
LABELS = ["AWPCA", "STOCKS_DRRK", "kind-dev", "kind-test"]
words = st.text(alphabet=st.sampled_from(list("абвгд eёжABC xyz019:,.[]")), min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)
multiline = st.lists(words, min_size=1, max_size=3).flatmap(
    lambda parts: st.sampled_from(["\n", "\r\n"]).map(lambda nl: nl.join(parts))
)
dates = st.integers(min_value=1, max_value=28).map(lambda day: f"2026-11-{day:02d}")


@st.composite
def fields_command(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    params: dict[str, Any] = {"key": draw(st.sampled_from(KEYS))}
    optional: dict[str, st.SearchStrategy[Any]] = {
        "summary": words,
        "description": st.one_of(st.none(), multiline),
        "priority": st.one_of(st.none(), st.sampled_from(["High", "Low", "Medium"])),
        "duedate": st.one_of(st.none(), dates),
        "planned_start": st.one_of(st.none(), dates),
        "planned_end": st.one_of(st.none(), dates),
        "assignee": st.one_of(st.none(), st.sampled_from(["ivanov", "petrova"])),
        "epic_key": st.one_of(st.none(), st.just("AURORA-1500")),
    }
    for name in draw(st.sets(st.sampled_from(sorted(optional)), min_size=1)):
        params[name] = draw(optional[name])
    add = draw(st.sets(st.sampled_from(LABELS), max_size=2))
    remove = draw(st.sets(st.sampled_from([x for x in LABELS if x not in add]), max_size=2))
    if add:
        params["labels_add"] = sorted(add)
    if remove:
        params["labels_remove"] = sorted(remove)
    return "ensure_fields", params


def other_commands() -> list[st.SearchStrategy[tuple[str, dict[str, Any]]]]:
    key = st.sampled_from(KEYS)
    status = st.builds(
        lambda k, path: ("ensure_status", {"key": k, "target": path if len(path) > 1 else path[0]}),
        key,
        st.lists(st.sampled_from(STATUSES), min_size=1, max_size=3, unique=True),
    )
    link = st.builds(
        lambda pair, kind, replace: (
            "ensure_link",
            {"source": pair[0], "target": pair[1], "link_type": kind, "replace": replace},
        ),
        st.lists(key, min_size=2, max_size=2, unique=True),
        st.sampled_from(["связанные", "блокирует начало"]),
        st.booleans(),
    )
    sprint = st.builds(
        lambda k, name: ("ensure_sprint", {"key": k, "sprint": name, "board_id": 4216}),
        key,
        st.sampled_from(["Спринт 2", "Спринт 3", "backlog"]),
    )
    comment = st.builds(
        lambda k, marker, body: ("ensure_comment", {"key": k, "marker": marker, "body": body}),
        key,
        st.sampled_from(["[план]", "[m]"]),
        multiline,
    )
    issue = st.builds(
        lambda summary, kind: ("ensure_issue", {"temp_key": "new:1", "issue_type": kind, "summary": summary}),
        words,
        st.sampled_from(["task", "epic", "bug"]),
    )
    attachment = st.builds(
        lambda k, content, name: (
            "ensure_attachment",
            {"key": k, "file": hashlib.sha256(content).hexdigest(), "filename": name, "size": len(content)},
        ),
        key,
        st.binary(min_size=1, max_size=64),
        st.sampled_from(["ОСВ 60.xlsx", "a.txt"]),
    )
    return [status, link, sprint, comment, issue, attachment]


commands = st.one_of(fields_command(), *other_commands())


async def _twice(
    setup: list[tuple[str, dict[str, Any]]], command: tuple[str, dict[str, Any]], content: bytes
) -> tuple[Bench, Any, Any]:
    bench = make_bench()
    files = {hashlib.sha256(content).hexdigest(): content}
    for type_, params in setup:
        await bench.run(type_, params, pause=5, files=files)
    first = await bench.run(*command, pause=5, files=files)
    second = await bench.run(*command, pause=5, files=files)
    writes = bench.writes()
    await bench.jira.aclose()
    return bench, first, (second, writes)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.lists(commands, max_size=2), command=commands, content=st.binary(min_size=1, max_size=64))
def test_a_done_command_writes_nothing_the_second_time(
    setup: list[tuple[str, dict[str, Any]]], command: tuple[str, dict[str, Any]], content: bytes
) -> None:
    """Running any command twice: if the first run is done, the second is done and writes nothing."""
    type_, params = command
    if type_ == "ensure_attachment":
        params = {**params, "file": hashlib.sha256(content).hexdigest(), "size": len(content)}

    async def scenario() -> tuple[Any, Any, list[tuple[str, str, int]]]:
        _, first, (second, writes) = await _twice(setup, (type_, params), content)
        return first, second, writes

    first, second, writes = anyio.run(scenario)
    event(f"{type_}: {first.report.status}")
    if first.report.status == "done":
        assert second.report.status == "done", second.report.error
        assert writes == []
        assert second.report.operations == ()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.lists(commands, max_size=2),
    command=commands,
    gap=st.sampled_from([0.5, 5, 30, 120]),
    idle=st.floats(min_value=0, max_value=200),
)
def test_writes_inside_a_command_are_never_closer_than_the_gap(
    setup: list[tuple[str, dict[str, Any]]], command: tuple[str, dict[str, Any]], gap: float, idle: float
) -> None:
    """Between two writes of one command at least the command's pause passes (fake clock, simulator time)."""

    async def scenario() -> list[float]:
        bench = make_bench()
        for type_, params in setup:
            await bench.run(type_, params, pause=gap)
        bench.clock.advance(idle)
        await bench.run(*command, pause=gap)
        times = bench.write_times()
        await bench.jira.aclose()
        return times

    times = anyio.run(scenario)
    assert all(later - earlier >= gap - 1e-6 for earlier, later in itertools.pairwise(times))


def test_replace_with_two_conflicts_pauses_before_every_write() -> None:
    """Two conflicting links with replace: DELETE, pause, DELETE, pause, POST."""

    async def scenario() -> Bench:
        bench = make_bench()
        for inward, outward in (("AURORA-1550", "AURORA-1560"), ("AURORA-1560", "AURORA-1550")):
            link = {
                "type": {"name": "Блокирует начало"},
                "inwardIssue": {"key": inward},
                "outwardIssue": {"key": outward},
            }
            bench.sim.store.add_link(link, "ivanov")
        await bench.run(
            "ensure_link",
            {"source": "AURORA-1550", "target": "AURORA-1560", "link_type": "связанные", "replace": True},
            pause=10,
        )
        return bench

    bench = anyio.run(scenario)
    assert [w[0] for w in bench.writes()] == ["DELETE", "DELETE", "POST"]
    times = bench.write_times()
    assert [round(b - a) for a, b in itertools.pairwise(times)] == [10, 10]
