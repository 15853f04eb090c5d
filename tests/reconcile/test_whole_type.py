"""A type is whole or it does not import: a throwaway 9th type in a copy of the catalogue is refused until its
executor, plan lines, state check and dry-run answers exist, and a dry run never answers a call its type did not
declare — the plan says «не известно по зеркалу» there instead of inventing Jira's answer."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from reconcile.batches.validation import NewCommand
from reconcile.outlook.dryrun import BEYOND_MIRROR, predict_command
from reconcile.outlook.plan_lines import NOT_KNOWN, plan_command
from reconcile.types.binding import ENTRIES, TYPES, IncompleteCatalogueError, TypeBinding, bind, missing_parts
from reconcile.types.dryrun_answers import FIELDS_ANSWERS, MirrorAnswers, NotDriven, answer, endpoint, not_known
from reconcile.types.plan_rules import CREATE, PlanLine
from reconcile.types.prediction import Prediction
from reconcile.vocabulary.catalogue import CATALOGUE

from .test_dryrun import MIRROR, NOW, SETTINGS
from .watcher_type import ADD_WATCHER, NO_WATCHERS, READ_WATCHERS, WATCHER, with_watcher

WATCHERS = "/rest/api/2/issue/AURORA-1537/watchers"


def predict(types: Mapping[str, TypeBinding], command_type: str, params: Mapping[str, object]) -> Prediction:
    return predict_command(
        seq=1,
        command_type=command_type,
        params=params,
        issues=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=frozenset({"Связанные"}),
        now=NOW,
        types=types,
    )


def test_a_new_type_without_any_part_is_refused() -> None:
    """A catalogue entry nobody bound: the binding refuses the copy, naming all four parts missing."""
    catalogue, _ = with_watcher()
    missing = (
        "ensure_watcher: no executor, plan lines, state check or dry-run answers (no entry in reconcile.types.binding)"
    )
    assert missing_parts(catalogue, ENTRIES) == [missing]
    with pytest.raises(IncompleteCatalogueError, match="ensure_watcher: no executor"):
        bind(catalogue, ENTRIES)


def test_a_new_type_without_its_dry_run_answers_is_refused() -> None:
    """Executor, plan lines and state check are not enough: without its dry-run answers the type does not bind."""
    catalogue, entries = with_watcher(dry_run=None)
    with pytest.raises(IncompleteCatalogueError) as refused:
        bind(catalogue, entries)
    assert (
        str(refused.value) == "ensure_watcher: no dry-run answers (what the mirror says to each call of its executor)"
    )


def test_a_writing_type_must_declare_its_writes_and_be_driven() -> None:
    """A type that writes but declares only reads, or says the dry run need not drive it, is refused."""
    catalogue, entries = with_watcher(dry_run=MirrorAnswers((READ_WATCHERS,)))
    assert missing_parts(catalogue, entries) == [
        "ensure_watcher: writes to Jira, but its dry-run answers declare no write"
    ]
    catalogue, entries = with_watcher(dry_run=NotDriven(why="no", endpoints=(READ_WATCHERS.endpoint,)))
    assert missing_parts(catalogue, entries) == [
        "ensure_watcher: writes to Jira, so the dry run must drive it against the mirror (MirrorAnswers)"
    ]


def test_the_whole_type_binds_and_its_example_is_predicted_from_its_answers() -> None:
    """Whole, the 9th type binds after the eight; its catalogue example is predicted with its own answers: the
    read it assumed named in ``unknown``, the write it would make, its plan line."""
    catalogue, entries = with_watcher()
    types = bind(catalogue, entries)
    assert list(types) == [*CATALOGUE, "ensure_watcher"]
    prediction = predict(types, "ensure_watcher", WATCHER.example)
    assert (prediction.status, prediction.writes, prediction.unknown, prediction.beyond) == (
        "done",
        ({"method": "POST", "path": WATCHERS, "json": "petrov"},),
        (NO_WATCHERS,),
        None,
    )
    command = NewCommand(seq=1, type="ensure_watcher", params=WATCHER.example)
    plan = plan_command(command, prediction, issues=MIRROR, settings=SETTINGS, types=types)
    assert (plan.subject, plan.lines) == (
        "AURORA-1537",
        (PlanLine(sign=CREATE, text="наблюдатель petrov", unknown=True),),
    )


def test_a_call_its_type_did_not_declare_is_not_known_by_the_mirror() -> None:
    """The type declares a write, but not the one its executor makes: the prediction stops at that call with status
    «unknown», writes nothing it could not vouch for, and the plan shows the call as «? не известно по зеркалу»."""
    elsewhere = answer("PUT /rest/api/2/issue/{key}", ADD_WATCHER.reply)
    catalogue, entries = with_watcher(dry_run=MirrorAnswers((READ_WATCHERS, elsewhere)))
    types = bind(catalogue, entries)
    prediction = predict(types, "ensure_watcher", WATCHER.example)
    refused = not_known("POST", WATCHERS)
    assert refused == "не известно по зеркалу: POST /rest/api/2/issue/AURORA-1537/watchers"
    assert (prediction.status, prediction.writes, prediction.unknown, prediction.beyond, prediction.error) == (
        BEYOND_MIRROR,
        (),
        (NO_WATCHERS, refused),
        refused,
        None,
    )
    assert prediction.to_json()["unknown"] == [NO_WATCHERS, refused]
    command = NewCommand(seq=1, type="ensure_watcher", params=WATCHER.example)
    plan = plan_command(command, prediction, issues=MIRROR, settings=SETTINGS, types=types)
    assert plan.lines == (PlanLine(sign=NOT_KNOWN, text=refused, unknown=True),)
    assert plan.unknown == (NO_WATCHERS, refused)


def test_a_type_is_answered_only_with_its_own_answers() -> None:
    """An endpoint another type declares is no answer for this one: ensure_fields' issue read does not serve a
    type that declared only its watchers, and its very first call is not known."""
    catalogue, entries = with_watcher(dry_run=MirrorAnswers((*FIELDS_ANSWERS.answers, ADD_WATCHER)))
    prediction = predict(bind(catalogue, entries), "ensure_watcher", WATCHER.example)
    assert (prediction.status, prediction.unknown) == (BEYOND_MIRROR, (not_known("GET", WATCHERS),))


@pytest.mark.parametrize("command_type", list(CATALOGUE))
def test_every_types_example_is_predicted_without_a_call_beyond_its_answers(command_type: str) -> None:
    """The catalogue's example of each type (its hub parameters added as the hub would) is predicted from the
    mirror with no call its type's answers do not cover."""
    spec = CATALOGUE[command_type]
    params = {**spec.example, **({"board_id": 4216} if command_type == "ensure_sprint" else {})}
    prediction = predict(TYPES, command_type, params)
    assert prediction.beyond is None
    assert prediction.status == "done", prediction.error
    assert [u for u in prediction.unknown if u.startswith("не известно по зеркалу")] == []


def test_endpoints_match_one_path_segment_per_name() -> None:
    """``{key}`` stands for one segment: the issue's endpoint is not its comments', and the method counts."""
    issue = endpoint("GET /rest/api/2/issue/{key}")
    assert issue.parts("GET", "/rest/api/2/issue/AURORA-1") == {"key": "AURORA-1"}
    assert issue.parts("GET", "/rest/api/2/issue/AURORA-1/comment") is None
    assert issue.parts("PUT", "/rest/api/2/issue/AURORA-1") is None
    assert issue.parts("GET", "/rest/api/2/issue/") is None
    comment = endpoint("DELETE /rest/api/2/issue/{key}/comment/{id}")
    assert comment.parts("DELETE", "/rest/api/2/issue/A-1/comment/10") == {"key": "A-1", "id": "10"}
    assert endpoint("POST /rest/api/2/search").is_write is False
    assert (str(comment), comment.is_write, issue.is_write) == (
        "DELETE /rest/api/2/issue/{key}/comment/{id}",
        True,
        False,
    )
