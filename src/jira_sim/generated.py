"""A seed with as many issues as a test or a benchmark needs, on the built-in sample's instance.

Deterministic, so tests may count on it: issue ``n`` (1-based) is ``AURORA-n`` and

- is labelled ``STOCKS_DRRK`` when ``n % 3 == 0``, no project label when ``n % 20 == 0``, else ``AWPCA``;
- walks the workflow in turn (``n % 4``: waiting, development, testing, done);
- when labelled ``AWPCA``: is in the active sprint when ``n % 4 == 1``, the future one when ``n % 8 == 2``
  (and in the closed one too when ``n % 16 == 2``);
- links «Связанные» to ``n + 1`` when ``n % 10 == 0`` and «Блокирует начало» to ``n + 2`` when ``n % 25 == 0``;
- was created a minute after ``n - 1``, the last one 60 days before the sample's reference time, by the
  users in turn.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from jira_sim.model import parse_time
from jira_sim.seed import load_sample

__all__ = ["generated_seed"]

_STATUSES = ("Ожидание разработки", "Разработка", "Тестирование", "Готово")
_TYPES = ("Задача", "Задача", "Ошибка")


def _labels(n: int) -> list[str]:
    if n % 20 == 0:
        return []
    return ["STOCKS_DRRK"] if n % 3 == 0 else ["AWPCA"]


def _sprints(n: int) -> list[int]:
    if _labels(n) != ["AWPCA"]:
        return []
    if n % 4 == 1:
        return [7]
    if n % 8 == 2:
        return [6, 8] if n % 16 == 2 else [8]
    return []


def generated_seed(count: int) -> dict[str, Any]:
    """The sample's users, project, workflow, link types and boards with ``count`` generated issues only."""
    seed = load_sample()
    users = [u["name"] for u in seed["users"]]
    start = parse_time(seed["reference_now"]) - timedelta(days=60)
    issues = []
    for n in range(1, count + 1):
        created = (start - timedelta(minutes=count - n)).isoformat()
        issue: dict[str, Any] = {
            "key": f"AURORA-{n}",
            "issuetype": _TYPES[n % len(_TYPES)],
            "summary": f"Задача {n}: сверка остатков",
            "status": _STATUSES[n % len(_STATUSES)],
            "labels": _labels(n),
            "reporter": users[n % len(users)],
            "created": created,
            "sprints": _sprints(n),
        }
        if n % 5 == 0:
            issue["description"] = f"Строка 1 задачи {n}\r\nСтрока 2"
        issues.append(issue)
    links = [{"type": "Связанные", "inward": f"AURORA-{n}", "outward": f"AURORA-{n + 1}"} for n in range(10, count, 10)]
    links += [
        {"type": "Блокирует начало", "inward": f"AURORA-{n}", "outward": f"AURORA-{n + 2}"}
        for n in range(25, count - 1, 25)
    ]
    seed["about"] = f"{count} generated issues on the built-in sample's instance"
    seed["issues"] = issues
    seed["links"] = links
    seed["projects"][0]["next_number"] = count + 1
    return seed
