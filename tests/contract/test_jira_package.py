"""The simulator as a client nobody here wrote sees it: the ``jira`` package (PyPI) over real HTTP.

The package is synchronous (requests), so the simulator is served by uvicorn in a thread on a free port. Every
call must succeed with the package's defaults (it reads serverInfo and the field list on its own) and read back
what Jira would answer; the simulator's stored state confirms each write.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from jira import JIRA

from jira_sim import Simulator
from jira_sim.serving import serve_in_thread
from tests.support import T0

AWPCA_KEYS = [
    "AURORA-1445",
    "AURORA-1446",
    "AURORA-1500",
    "AURORA-1533",
    "AURORA-1537",
    "AURORA-1538",
    "AURORA-1540",
    "AURORA-1541",
    "AURORA-1542",
]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Simulator, str]]:
    sim = Simulator(clock=lambda: T0)
    with serve_in_thread(sim) as url:
        yield sim, url


@pytest.fixture
def sim(served: tuple[Simulator, str]) -> Simulator:
    served[0].reset()
    return served[0]


@pytest.fixture
def client(served: tuple[Simulator, str], sim: Simulator) -> Iterator[JIRA]:
    jira = JIRA(server=served[1], token_auth="personal-access-token")
    try:
        yield jira
    finally:
        jira.close()


def test_the_client_connects_to_a_data_center_10_3(client: JIRA) -> None:
    """The default constructor reads serverInfo: a 10.3 Server; myself and the field list answer."""
    info = client.server_info()
    assert (info["deploymentType"], info["version"], info["versionNumbers"]) == ("Server", "10.3.19", [10, 3, 19])
    assert (info["buildNumber"], info["serverTime"]) == (10030019, "2026-10-22T12:00:00.000+0300")
    assert client.myself()["name"] == "bridge-user"
    by_name = {f["name"]: f for f in client.fields()}
    assert by_name["Sprint"]["schema"] == {
        "type": "array",
        "items": "string",
        "custom": "com.pyxis.greenhopper.jira:gh-sprint",
        "customId": 10104,
    }
    assert by_name["Summary"]["clauseNames"] == ["summary"]


def test_create_trims_the_summary_and_reads_back(client: JIRA, sim: Simulator) -> None:
    """create_issue by project key and issue type name makes AURORA-1590 with the summary trimmed."""
    issue = client.create_issue(
        project="AURORA", issuetype="Задача", summary="  Сверка ОСВ 60  ", description="Строка", labels=["AWPCA"]
    )
    assert issue.key == "AURORA-1590"
    assert (issue.fields.summary, issue.fields.issuetype.name, issue.fields.status.name) == (
        "Сверка ОСВ 60",
        "Задача",
        "Ожидание разработки",
    )
    assert (issue.fields.reporter.name, issue.fields.labels) == ("bridge-user", ["AWPCA"])
    assert sim.raw_issue("AURORA-1590")["summary"] == "Сверка ОСВ 60"


def test_edit_writes_fields_labels_and_changelog(client: JIRA, sim: Simulator) -> None:
    """Issue.update sets fields and adds a label through update verbs; Jira's changelog records both."""
    issue = client.issue("AURORA-1538")
    issue.update(summary="  Новая тема ", duedate="2026-11-30", labels=[{"add": "kind-dev"}])
    again = client.issue("AURORA-1538")
    assert (again.fields.summary, again.fields.duedate, again.fields.labels) == (
        "Новая тема",
        "2026-11-30",
        ["AWPCA", "kind-dev"],
    )
    last = sim.raw_issue("AURORA-1538")["changelog"][-1]["items"]
    assert [(i["field"], i["toString"]) for i in last] == [
        ("duedate", "2026-11-30 00:00:00.0"),
        ("summary", "Новая тема"),
        ("labels", "AWPCA kind-dev"),
    ]


def test_comment_add_update_and_list(client: JIRA, sim: Simulator) -> None:
    """add_comment, Comment.update and comments read back the text; the author is the token's user."""
    comment = client.add_comment("AURORA-1538", "[план] Первый вариант")
    comment.update(body="[план] Второй вариант")
    listed = client.comments("AURORA-1538")
    assert [(c.body, c.author.name) for c in listed] == [("[план] Второй вариант", "bridge-user")]
    assert [c["body"] for c in sim.raw_issue("AURORA-1538")["comments"]] == ["[план] Второй вариант"]


def test_transition_by_name_with_a_comment(client: JIRA, sim: Simulator) -> None:
    """transition_issue by the transition's name moves the status and adds the transition's comment."""
    assert [t["name"] for t in client.transitions("AURORA-1538")] == ["В разработку"]
    client.transition_issue("AURORA-1538", "В разработку", comment="Начали")
    assert client.issue("AURORA-1538").fields.status.name == "Разработка"
    stored = sim.raw_issue("AURORA-1538")
    assert [c["body"] for c in stored["comments"]] == ["Начали"]
    assert stored["changelog"][-1]["items"][0]["toString"] == "Разработка"
    assert [t["name"] for t in client.transitions("AURORA-1538")] == ["На тестирование", "Вернуть в ожидание"]


def test_link_create_read_and_delete(client: JIRA, sim: Simulator) -> None:
    """create_issue_link by type name links both issues; issue_link reads it; delete_issue_link removes it."""
    assert client.create_issue_link("Блокирует начало", "AURORA-1446", "AURORA-1538").status_code == 201
    links = [link for link in client.issue("AURORA-1446").fields.issuelinks if link.type.name == "Блокирует начало"]
    assert [link.outwardIssue.key for link in links] == ["AURORA-1538"]
    link = client.issue_link(links[0].id)
    assert (link.inwardIssue.key, link.outwardIssue.key) == ("AURORA-1446", "AURORA-1538")
    assert client.delete_issue_link(links[0].id).status_code == 204
    assert [x["type"] for x in sim.raw_issue("AURORA-1446")["links"]] == ["Связанные"]


def test_boards_sprints_by_state_and_moves(client: JIRA, sim: Simulator) -> None:
    """boards and sprints(state=…) list what Jira Software would; issues move to a sprint and back to the backlog."""
    assert [(b.id, b.type) for b in client.boards()] == [(4216, "scrum"), (5120, "kanban"), (9001, "scrum")]
    assert [s.name for s in client.sprints(4216, state="active,future")] == ["Спринт 2", "Спринт 3"]
    assert [s.name for s in client.sprints(4216, state="closed")] == ["Спринт 1"]
    assert client.sprint(8).state == "future"
    assert client.add_issues_to_sprint(8, ["AURORA-1538"]).status_code == 204
    assert [s["name"] for s in sim.raw_issue("AURORA-1538")["sprints"]] == ["Спринт 3"]
    assert "name=Спринт 3," in client.issue("AURORA-1538").fields.customfield_10104[0]
    assert client.move_to_backlog(["AURORA-1538"]).status_code == 204
    assert sim.raw_issue("AURORA-1538")["sprints"] == []


def test_attachment_upload_and_download(client: JIRA, sim: Simulator) -> None:
    """add_attachment uploads a Cyrillic file name; the attachment's metadata and content read back."""
    content = bytes(range(64))
    attachment = client.add_attachment("AURORA-1538", io.BytesIO(content), "ОСВ 60.xlsx")
    assert (attachment.filename, attachment.size) == ("ОСВ 60.xlsx", 64)
    assert client.attachment(attachment.id).get() == content
    stored = sim.raw_issue("AURORA-1538")["attachments"]
    assert [(a["filename"], a["size"], a["author"]) for a in stored] == [("ОСВ 60.xlsx", 64, "bridge-user")]


def test_search_reads_every_page(client: JIRA) -> None:
    """search_issues walks all pages (maxResults=False) and a limited page keeps JQL's order and total."""
    everything = client.search_issues("project = AURORA AND labels = AWPCA ORDER BY key", maxResults=False)
    assert [i.key for i in everything] == AWPCA_KEYS
    page = client.search_issues(
        "project = AURORA AND labels = AWPCA ORDER BY key DESC", startAt=2, maxResults=3, fields="summary,labels"
    )
    assert (page.total, [i.key for i in page]) == (9, ["AURORA-1540", "AURORA-1538", "AURORA-1537"])
    assert sorted(page[0].raw["fields"]) == ["labels", "summary"]
