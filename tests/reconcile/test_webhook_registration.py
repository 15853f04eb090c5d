"""The registration of the agent's webhook (DESIGN.md 6.2, issue 32): its body on either of Jira's resources, Jira's
list read, and the steps that keep exactly one webhook of the agent's URL."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.jira.webhook_events import EVENTS
from reconcile.jira.webhook_registration import (
    LEGACY_PATH,
    PATH_10,
    Listed,
    Registration,
    Step,
    listed,
    registration,
    registration_steps,
    unregistration_steps,
    webhooks_path,
)

URL = "http://agent:8790/jira/webhook"


@pytest.mark.parametrize(("major", "path"), [(8, LEGACY_PATH), (9, LEGACY_PATH), (10, PATH_10), (11, PATH_10)])
def test_the_resource_follows_jiras_major_version(major: int, path: str) -> None:
    """Jira ≤ 9: ``/rest/webhooks/1.0/webhook``; 10 and later: ``/rest/jira-webhook/1.0/webhooks``."""
    assert webhooks_path(major) == path
    assert registration(name="a", url=URL, projects=["AURORA"], secret=None, jira_major=major).path == path


def test_jira_10s_body() -> None:
    """Every event, active, the projects as the filter, the body included, the secret in the configuration."""
    found = registration(name="sdlc", url=URL, projects=["AURORA", "OPS"], secret="s", jira_major=10)
    assert found.body == {
        "name": "sdlc",
        "url": URL,
        "events": list(EVENTS),
        "active": True,
        "configuration": {"FILTERS": "project in (AURORA, OPS)", "EXCLUDE_BODY": "false", "SECRET": "s"},
    }
    unsigned = registration(name="sdlc", url=URL, projects=["AURORA"], secret=None, jira_major=10)
    assert unsigned.body["configuration"] == {"FILTERS": "project in (AURORA)", "EXCLUDE_BODY": "false"}


def test_jira_9s_body() -> None:
    """Every event, the filter under ``issue-related-events-section``, the body included, ``secret`` at the top."""
    found = registration(name="sdlc", url=URL, projects=["AURORA"], secret="s", jira_major=9)
    assert found.body == {
        "name": "sdlc",
        "url": URL,
        "events": list(EVENTS),
        "filters": {"issue-related-events-section": "project in (AURORA)"},
        "excludeBody": False,
        "secret": "s",
    }
    assert "secret" not in registration(name="n", url=URL, projects=["A"], secret=None, jira_major=9).body


def test_jiras_list_is_read_from_either_resource() -> None:
    """Jira 10's numeric ``id`` (or its digits), Jira ≤ 9's ``self``; entries without a usable id or URL skipped."""
    answer: list[Any] = [
        {"id": 3, "name": "a", "url": URL},
        {"id": "4", "url": "http://b"},
        {"self": "http://jira/rest/webhooks/1.0/webhook/5", "name": "c", "url": URL},
        {"self": "http://jira/rest/webhooks/1.0/webhook/", "name": "slash", "url": URL},
        {"id": 0, "url": URL},
        {"id": True, "url": URL},
        {"id": "07", "url": URL},
        {"id": "../1", "url": URL},
        {"id": 6.0, "url": URL},
        {"self": 7, "url": URL},
        {"id": 8, "url": None},
        {"id": 9, "name": 1, "url": URL},
        "webhook",
    ]
    assert listed(answer) == [
        Listed(id=3, name="a", url=URL),
        Listed(id=4, name="", url="http://b"),
        Listed(id=5, name="c", url=URL),
        Listed(id=9, name="", url=URL),
    ]
    assert listed({"values": answer}) == listed(None) == listed("[]") == []


WANTED = Registration(path=PATH_10, body={"name": "sdlc", "url": URL})


def test_no_webhook_of_the_url_is_created() -> None:
    """Nothing of the agent's URL in Jira: one POST of the registration."""
    assert registration_steps(WANTED, [Listed(id=1, name="ci", url="http://ci")]) == [
        Step(action="create", method="POST", path=PATH_10, body=WANTED.body)
    ]


def test_the_agents_webhook_is_updated_and_its_duplicates_deleted() -> None:
    """The first webhook of the URL is updated in place (PUT …/{id}); the others of it are deleted; others kept."""
    present = [
        Listed(id=2, name="a", url=URL),
        Listed(id=3, name="ci", url="http://ci"),
        Listed(id=7, name="b", url=URL),
    ]
    assert registration_steps(WANTED, present) == [
        Step(action="update", method="PUT", path=f"{PATH_10}/2", webhook_id=2, body=WANTED.body),
        Step(action="delete", method="DELETE", path=f"{PATH_10}/7", webhook_id=7),
    ]


def test_unregistration_deletes_every_webhook_of_the_url() -> None:
    """Each webhook of the URL is deleted, none other; none of it: no step."""
    present = [
        Listed(id=2, name="a", url=URL),
        Listed(id=3, name="ci", url="http://ci"),
        Listed(id=7, name="b", url=URL),
    ]
    assert unregistration_steps(LEGACY_PATH, URL, present) == [
        Step(action="delete", method="DELETE", path=f"{LEGACY_PATH}/2", webhook_id=2),
        Step(action="delete", method="DELETE", path=f"{LEGACY_PATH}/7", webhook_id=7),
    ]
    assert unregistration_steps(LEGACY_PATH, "http://else", present) == []
