"""The cassettes against Atlassian's OpenAPI document for Jira Software DC 10.3, its defects corrected."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from .jira_contract import (
    DEFECTS,
    FULL_DOCUMENT,
    OPERATIONS,
    SUBSET_FILE,
    Answer,
    all_answers,
    cassette_answers,
    cassette_comment,
    cassette_files,
    converted_schemas,
    load_subset,
    operation_of,
    problems,
    subset,
    to_json_schema,
)

DOCUMENT = load_subset()
SCHEMAS = converted_schemas(DOCUMENT)


def _answer(cassette: str, method: str, path: str, status: int) -> Answer:
    for answer in all_answers():
        if (answer.cassette, answer.method, answer.path, answer.status) == (cassette, method, path, status):
            return answer
    raise LookupError((cassette, method, path, status))


def _with_body(answer: Answer, body: Any) -> Answer:
    return Answer(
        cassette=answer.cassette,
        method=answer.method,
        path=answer.path,
        query=answer.query,
        request_body=answer.request_body,
        status=answer.status,
        headers=answer.headers,
        body=body,
    )


@pytest.mark.parametrize("path", cassette_files(), ids=lambda p: p.name)
def test_every_recorded_answer_conforms_to_the_document(path: Any) -> None:
    """Each answer of each cassette validates against its operation's schema with the listed defects corrected."""
    found = {
        f"{answer.method} {answer.path} {answer.status}": problems(DOCUMENT, SCHEMAS, answer)
        for answer in cassette_answers(path)
    }
    assert {where: errors for where, errors in found.items() if errors} == {}


@pytest.mark.parametrize("path", cassette_files(), ids=lambda p: p.name)
def test_every_cassette_names_its_public_sources(path: Any) -> None:
    """A cassette opens with a comment naming its sources: the document's operation and what was adapted."""
    comment = cassette_comment(path)
    assert "Sources:" in comment
    assert "OpenAPI" in comment
    assert "Adapted:" in comment


def test_the_cassettes_cover_every_call_of_design_5_2() -> None:
    """Every operation the agent uses has a recorded answer, and so have 400, 401, 404 and 429."""
    answers = all_answers()
    covered = {operation_of(a.method, a.path).operation_id for a in answers}
    assert covered == {operation.operation_id for operation in OPERATIONS}
    assert {a.status for a in answers if a.status >= 400} == {400, 401, 404, 429}


def test_every_defect_is_used_and_every_operation_names_known_defects() -> None:
    """The defect table and the operations table agree: no defect unused, none unknown."""
    used = {number for operation in OPERATIONS for number in operation.defects}
    assert used == set(DEFECTS)


def test_the_subset_is_the_document_verbatim() -> None:
    """``openapi-subset.json`` is exactly what the full document yields for the operations used."""
    if not FULL_DOCUMENT.exists():
        pytest.skip(f"the full OpenAPI document is not at {FULL_DOCUMENT} on this machine")
    document = json.loads(FULL_DOCUMENT.read_text(encoding="utf-8"))
    assert json.loads(SUBSET_FILE.read_text(encoding="utf-8")) == subset(document)


def test_nullable_becomes_a_null_type_and_openapi_keywords_go() -> None:
    """OpenAPI 3.0's ``nullable`` turns into a type list (or anyOf for a $ref); ``example``/``xml`` are dropped."""
    schema = {
        "type": "object",
        "example": {"x": 1},
        "xml": {"name": "x"},
        "properties": {
            "example": {"type": "string", "nullable": True, "example": "a"},
            "bean": {"$ref": "#/components/schemas/X", "nullable": True},
        },
    }
    assert to_json_schema(schema) == {
        "type": "object",
        "properties": {
            "example": {"type": ["string", "null"]},
            "bean": {"anyOf": [{"$ref": "#/components/schemas/X"}, {"type": "null"}]},
        },
    }


def test_defect_2_the_documented_fields_reject_a_real_summary() -> None:
    """Without correcting defect 2, ``fields.summary`` (a string) fails the document's «object» rule."""
    answer = _answer("ensure_fields.yaml", "GET", "/rest/api/2/issue/AURORA-1537", 200)
    found = problems(DOCUMENT, converted_schemas(DOCUMENT, without=("2",)), answer)
    assert "'Интеграция с АБС' is not of type 'object' @ fields/summary" in found


def test_defect_5_a_java_long_literal_id_is_rejected() -> None:
    """The document's example id ``"10004L"`` would not pass as a link id."""
    answer = _answer("ensure_fields.yaml", "GET", "/rest/api/2/issue/AURORA-1537", 200)
    body = copy.deepcopy(answer.body)
    body["fields"]["issuelinks"][0]["id"] = "10004L"
    assert problems(DOCUMENT, SCHEMAS, _with_body(answer, body)) == [
        "'10004L' does not match '^\\\\d+$' @ fields/issuelinks/0/id"
    ]


def test_defect_4_one_attachment_object_is_not_the_answer() -> None:
    """The attachments POST must answer an array: one AttachmentJsonBean, as declared, is refused."""
    answer = _answer("ensure_attachment.yaml", "POST", "/rest/api/2/issue/AURORA-1540/attachments", 200)
    found = problems(DOCUMENT, SCHEMAS, _with_body(answer, answer.body[0]))
    assert len(found) == 1
    assert found[0].endswith("is not of type 'array' @ (root)")


def test_defect_3_a_single_sprint_is_not_a_page() -> None:
    """The board's sprint list must be a page; one SprintBean, as declared, lacks the page's keys."""
    answer = _answer("ensure_sprint.yaml", "GET", "/rest/agile/1.0/board/4216/sprint", 200)
    found = problems(DOCUMENT, SCHEMAS, _with_body(answer, answer.body["values"][0]))
    assert found == [
        "'maxResults' is a required property @ (root)",
        "'startAt' is a required property @ (root)",
        "'isLast' is a required property @ (root)",
        "'values' is a required property @ (root)",
    ]


def test_defect_b_null_change_values_need_the_correction() -> None:
    """Without finding B, the changelog's null ``from``/``to`` values fail the document's string rule."""
    answer = _answer("issue_changelog.yaml", "GET", "/rest/api/2/issue/AURORA-1533", 200)
    body = copy.deepcopy(answer.body)
    body["changelog"]["histories"][0]["items"][0]["from"] = None
    assert problems(DOCUMENT, converted_schemas(DOCUMENT, without=("B",)), _with_body(answer, body)) == [
        "None is not of type 'string' @ changelog/histories/0/items/0/from"
    ]
    assert problems(DOCUMENT, SCHEMAS, _with_body(answer, body)) == []


def test_finding_a_link_types_must_be_listed() -> None:
    """``GET issueLinkType`` must carry the ``issueLinkTypes`` list the document leaves undeclared."""
    answer = _answer("agent_start.yaml", "GET", "/rest/api/2/issueLinkType", 200)
    assert problems(DOCUMENT, SCHEMAS, _with_body(answer, {"types": []})) == [
        "'issueLinkTypes' is a required property @ (root)"
    ]


def test_finding_d_a_429_needs_retry_after() -> None:
    """A 429 without ``Retry-After`` is not what Jira DC's rate limiter sends."""
    answer = _answer("rate_limited.yaml", "GET", "/rest/api/2/issue/AURORA-1537", 429)
    bare = Answer(
        cassette=answer.cassette,
        method=answer.method,
        path=answer.path,
        query=answer.query,
        request_body=None,
        status=429,
        headers={"Content-Type": "application/json"},
        body=None,
    )
    assert problems(DOCUMENT, SCHEMAS, bare) == ["header Retry-After missing"]
    assert problems(DOCUMENT, SCHEMAS, answer) == []


def test_finding_c_errors_carry_both_keys() -> None:
    """A 4xx body must be an ErrorCollection with both ``errorMessages`` and ``errors``."""
    answer = _answer("not_found.yaml", "GET", "/rest/api/2/issue/AURORA-9999", 404)
    assert problems(DOCUMENT, SCHEMAS, _with_body(answer, {"errorMessages": ["Issue Does Not Exist"]})) == [
        "'errors' is a required property @ (root)"
    ]
