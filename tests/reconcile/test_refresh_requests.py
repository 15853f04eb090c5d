"""The batches a refresh request becomes, whether a queued full refresh answers a new request, which issues a
report could not read, and what the mirror must hold for drift to be judged."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.batches.validation import (
    AUTO_REFRESH_AUTHOR,
    AUTO_REFRESH_TITLE,
    NO_PROJECTS_FOR_FULL_REFRESH,
    auto_refresh_body,
    refresh_body,
)
from reconcile.outlook.drift import MirrorReads, SetCommand, latest_settings, mirror_reads
from reconcile.queue.claim import DELIVERY_LIMIT
from reconcile.queue.history import answers_full_refresh
from reconcile.queue.reports import unreadable_keys
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.lifecycle import CommandStatus
from tests.support import BASE_AWPCA


def test_a_refresh_request_becomes_one_refresh_command() -> None:
    """Keys, a JQL, or neither (the base JQL: a full refresh), under the caller's name."""

    def params(**kw: Any) -> Any:
        body = refresh_body(base_jql=BASE_AWPCA, author="planner", **kw)
        assert (body["author"], body["title"], len(body["commands"])) == ("planner", "обновление из Jira", 1)
        assert body["commands"][0]["type"] == "refresh"
        return body["commands"][0]["params"]

    assert params(keys=["AURORA-1"], jql=None) == {"keys": ["AURORA-1"]}
    assert params(keys=None, jql="key = AURORA-1") == {"jql": "key = AURORA-1"}
    assert params(keys=None, jql=None) == {"jql": BASE_AWPCA}
    assert refresh_body(keys=[], jql=None, base_jql=None, author="a")["commands"][0]["params"] == {"keys": []}


def test_a_refresh_request_that_cannot_be_made() -> None:
    with pytest.raises(ValidationError) as both:
        refresh_body(keys=["AURORA-1"], jql="x", base_jql=BASE_AWPCA, author="a")
    assert str(both.value) == "только одно из keys, jql"
    with pytest.raises(ValidationError) as none:
        refresh_body(keys=None, jql=None, base_jql=None, author="a")
    assert str(none.value) == NO_PROJECTS_FOR_FULL_REFRESH == "нет проектов — полное обновление невозможно"


def test_the_hubs_own_full_refresh() -> None:
    assert auto_refresh_body(BASE_AWPCA) == {
        "author": AUTO_REFRESH_AUTHOR,
        "title": AUTO_REFRESH_TITLE,
        "commands": [{"type": "refresh", "params": {"jql": BASE_AWPCA}}],
    }
    assert (AUTO_REFRESH_AUTHOR, AUTO_REFRESH_TITLE) == ("hub", "автообновление")


@pytest.mark.parametrize(
    ("params", "status", "deliveries", "answers"),
    [
        ({"jql": BASE_AWPCA}, CommandStatus.QUEUED, 0, True),
        ({}, CommandStatus.QUEUED, 0, True),
        ({"jql": BASE_AWPCA}, CommandStatus.CLAIMED, 1, True),
        ({"jql": BASE_AWPCA}, CommandStatus.CLAIMED, DELIVERY_LIMIT - 1, True),
        ({"jql": BASE_AWPCA}, CommandStatus.CLAIMED, DELIVERY_LIMIT, False),
        ({"jql": BASE_AWPCA}, CommandStatus.DONE, 1, False),
        ({"jql": BASE_AWPCA}, CommandStatus.FAILED, 1, False),
        ({"jql": BASE_AWPCA}, CommandStatus.CANCELLED, 0, False),
        ({"jql": "project = AURORA"}, CommandStatus.QUEUED, 0, False),
        ({"keys": ["AURORA-1"]}, CommandStatus.QUEUED, 0, False),
    ],
)
def test_a_full_refresh_that_will_still_run_answers_a_new_request(
    params: dict[str, Any], status: CommandStatus, deliveries: int, answers: bool
) -> None:
    """Only a full run under the current base JQL, queued or claimed with deliveries left."""
    assert answers_full_refresh(params, status=status, deliveries=deliveries, base=BASE_AWPCA) is answers


def test_without_projects_nothing_is_a_full_refresh() -> None:
    assert answers_full_refresh({}, status=CommandStatus.QUEUED, deliveries=0, base=None) is False


def test_the_issues_a_refresh_could_not_read() -> None:
    """Only well-formed entries count; anything else in ``unreadable`` is no key."""
    result = {
        "unreadable": [{"key": "AURORA-1", "error": "x"}, {"key": 5}, "AURORA-2", {"error": "y"}, {"key": "AURORA-3"}]
    }
    assert unreadable_keys(result) == frozenset({"AURORA-1", "AURORA-3"})
    assert unreadable_keys({"unreadable": "AURORA-1"}) == frozenset()
    assert unreadable_keys({}) == frozenset()


def _set(command_id: int, type_: str, **params: Any) -> SetCommand:
    return SetCommand(id=command_id, batch_id=1, type=type_, params=params)


def test_drift_reads_only_what_the_settings_need() -> None:
    """Both ends of a link, the text fields set, status when a status was set, links of sources; labels and
    sprints only when one was set."""
    settings = latest_settings(
        [
            _set(1, "ensure_fields", key="AURORA-1", summary="S", labels_add=["x"], duedate=None),
            _set(2, "ensure_status", key="AURORA-2", target="Готово"),
            _set(3, "ensure_link", source="AURORA-3", target="AURORA-4", link_type="связанные"),
            _set(4, "ensure_sprint", key="AURORA-5", sprint="Спринт 2"),
        ]
    )
    assert mirror_reads(settings) == MirrorReads(
        keys=frozenset({"AURORA-1", "AURORA-2", "AURORA-3", "AURORA-4", "AURORA-5"}),
        fields=frozenset({"summary", "duedate", "status"}),
        linked=frozenset({"AURORA-3"}),
        labels=True,
        sprints=True,
    )
    assert mirror_reads(settings[1:3]) == MirrorReads(
        keys=frozenset({"AURORA-2", "AURORA-3", "AURORA-4"}),
        fields=frozenset({"status"}),
        linked=frozenset({"AURORA-3"}),
    )
    removed = latest_settings([_set(1, "ensure_fields", key="AURORA-1", labels_remove=["x"])])
    assert (mirror_reads(removed).labels, mirror_reads(removed).sprints) == (True, False)
    assert mirror_reads([]) == MirrorReads(keys=frozenset(), fields=frozenset(), linked=frozenset())
