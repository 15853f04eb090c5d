"""Jira Data Center's contract for the calls the agent makes (DESIGN.md 5.2), as the tests check it.

Three things live here, one table each:

- ``OPERATIONS``: every call of DESIGN 5.2 → the operation of Atlassian's OpenAPI document that declares it;
- ``DEFECTS``: where the document is wrong or silent (SOURCE.md's numbered defects, and our own findings A–D),
  each with the patch applied to the converted schema and the endpoints it applies to;
- the cassettes under ``tests/cassettes`` (vcrpy YAML), read here as plain data.

The OpenAPI 3.0 document is large; ``openapi-subset.json`` next to this file holds the operations above and
every component schema they reach, verbatim (``test_cassette_schemas`` checks it against the full document
when that is present). :func:`response_schema` turns an operation's answer into a JSON Schema (2020-12):
``$ref`` kept and resolved in place, ``nullable: true`` → a type list with ``"null"``, OpenAPI-only keywords
(``example``, ``xml``) dropped, then the defects' patches. Formats are not asserted: Jira's timestamps
(``2026-10-14T09:00:00.000+0300``) are not RFC 3339 date-times although the document says ``date-time``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import attrs
import jsonschema
import yaml

HERE = Path(__file__).parent
CASSETTES = HERE.parent / "cassettes"
SUBSET_FILE = HERE / "openapi-subset.json"
FULL_DOCUMENT = Path("/work/shared/jira/openapi/jira-software-dc-10.3-openapi.json")
SCHEMAS = "#/components/schemas/"


@attrs.frozen(kw_only=True)
class Operation:
    """One call of DESIGN 5.2: Jira's URL template (under ``/rest``) and the document's operation."""

    method: str
    template: str
    operation_id: str
    defects: tuple[str, ...] = ()

    @property
    def document_path(self) -> str:
        """The document's path: its server URL ends with ``/rest``, so ``/rest/api/2/x`` is ``/api/2/x``."""
        return self.template.removeprefix("/rest")

    def matches(self, method: str, path: str) -> bool:
        if method != self.method:
            return False
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(self.template))
        return re.fullmatch(pattern, path) is not None


# Every call the agent makes, with the defects that apply to it (letters: our own findings, see DEFECTS).
OPERATIONS: tuple[Operation, ...] = (
    Operation(method="GET", template="/rest/api/2/myself", operation_id="getUser", defects=("C",)),
    Operation(method="GET", template="/rest/api/2/issueLinkType", operation_id="getIssueLinkTypes", defects=("A",)),
    Operation(method="GET", template="/rest/api/2/serverInfo", operation_id="getServerInfo"),
    Operation(
        method="GET",
        template="/rest/api/2/issue/{issueIdOrKey}",
        operation_id="getIssue",
        defects=("2", "5", "6", "B", "C", "D"),
    ),
    Operation(method="PUT", template="/rest/api/2/issue/{issueIdOrKey}", operation_id="editIssue", defects=("C",)),
    Operation(method="POST", template="/rest/api/2/issue", operation_id="createIssue", defects=("C",)),
    Operation(
        method="POST",
        template="/rest/api/2/search",
        operation_id="searchUsingSearchRequest",
        defects=("2", "5", "6", "B", "C"),
    ),
    Operation(method="GET", template="/rest/api/2/issue/{issueIdOrKey}/comment", operation_id="getComments"),
    Operation(method="POST", template="/rest/api/2/issue/{issueIdOrKey}/comment", operation_id="addComment"),
    Operation(method="PUT", template="/rest/api/2/issue/{issueIdOrKey}/comment/{id}", operation_id="updateComment"),
    Operation(method="GET", template="/rest/api/2/issue/{issueIdOrKey}/transitions", operation_id="getTransitions"),
    Operation(method="POST", template="/rest/api/2/issue/{issueIdOrKey}/transitions", operation_id="doTransition"),
    Operation(method="POST", template="/rest/api/2/issueLink", operation_id="linkIssues"),
    Operation(method="DELETE", template="/rest/api/2/issueLink/{linkId}", operation_id="deleteIssueLink"),
    Operation(
        method="POST",
        template="/rest/api/2/issue/{issueIdOrKey}/attachments",
        operation_id="addAttachment",
        defects=("4",),
    ),
    Operation(method="GET", template="/rest/agile/1.0/board/{boardId}", operation_id="getBoard"),
    Operation(
        method="GET",
        template="/rest/agile/1.0/board/{boardId}/sprint",
        operation_id="getAllSprints",
        defects=("1", "3"),
    ),
    Operation(method="POST", template="/rest/agile/1.0/sprint/{sprintId}/issue", operation_id="moveIssuesToSprint"),
    Operation(method="POST", template="/rest/agile/1.0/backlog/issue", operation_id="moveIssuesToBacklog"),
)


def operation_of(method: str, path: str) -> Operation:
    for operation in OPERATIONS:
        if operation.matches(method, path):
            return operation
    raise LookupError(f"no operation of DESIGN 5.2 for {method} {path}")


# ----------------------------------------------------------------------------------------------- the document


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(SCHEMAS):
            yield ref.removeprefix(SCHEMAS)
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


# Schemas the defects' patches use that no declared answer reaches (``fields`` is typeless in the document).
PATCH_ROOTS = (
    "AttachmentJsonBean",
    "ErrorCollection",
    "IssueLinkTypeJsonBean",
    "IssueRefJsonBean",
    "PriorityJsonBean",
    "StatusJsonBean",
    "UserJsonBean",
    "issueLinks",
)


def subset(document: Mapping[str, Any]) -> dict[str, Any]:
    """The operations of ``OPERATIONS`` and every component schema they or ``PATCH_ROOTS`` reach, verbatim."""
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        declared = document["paths"][operation.document_path][operation.method.lower()]
        if declared.get("operationId") != operation.operation_id:
            raise LookupError(f"{operation.method} {operation.document_path} is not {operation.operation_id}")
        paths.setdefault(operation.document_path, {})[operation.method.lower()] = declared
    all_schemas = document["components"]["schemas"]
    wanted = [*PATCH_ROOTS, *_refs(paths)]
    schemas: dict[str, Any] = {}
    while wanted:
        name = wanted.pop()
        if name not in schemas:
            schemas[name] = all_schemas[name]
            wanted.extend(_refs(all_schemas[name]))
    return {
        "openapi": document["openapi"],
        "info": document["info"],
        "servers": document["servers"],
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(schemas.items()))},
    }


def load_subset() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(SUBSET_FILE.read_text(encoding="utf-8"))
    return result


_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains")
_OPENAPI_ONLY = frozenset({"example", "xml", "nullable", "discriminator", "externalDocs"})


def to_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 Schema Object as JSON Schema 2020-12 (``nullable`` → ``"null"`` in the type list)."""
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _OPENAPI_ONLY:
            continue
        if key in _SCHEMA_MAPS:
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS:
            out[key] = [to_json_schema(sub) for sub in value]
        elif key in _SCHEMA_ONE:
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    if node.get("nullable") is True:
        if "$ref" in out:
            out = {"anyOf": [{"$ref": out.pop("$ref")}, {"type": "null"}], **out}
        elif "type" in out:
            kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*kinds, "null"]
    return out


# ----------------------------------------------------------------------------------------------- the defects

Schemas = dict[str, Any]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": SCHEMAS + name}


def _nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema), {"type": "null"}]}


def _fields_by_kind(schemas: Schemas) -> None:
    # The fields the agent reads, typed with the document's own beans; any other field may be anything.
    text = {"type": ["string", "null"]}
    schemas["IssueBean"]["properties"]["fields"] = {
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "description": text,
            "status": _ref("StatusJsonBean"),
            "priority": _nullable(_ref("PriorityJsonBean")),
            "duedate": text,
            "labels": {"type": "array", "items": {"type": "string"}},
            "assignee": _nullable(_ref("UserJsonBean")),
            "reporter": _nullable(_ref("UserJsonBean")),
            "created": {"type": "string"},
            "updated": {"type": "string"},
            "issuelinks": {"type": "array", "items": _ref("issueLinks")},
            "attachment": {"type": "array", "items": _ref("AttachmentJsonBean")},
            "parent": _ref("IssueRefJsonBean"),
        },
    }


def _decimal_ids(schemas: Schemas) -> None:
    decimal = {"type": "string", "pattern": r"^\d+$"}
    schemas["issueLinks"]["properties"]["id"] = decimal
    schemas["IssueRefJsonBean"]["properties"]["id"] = decimal


def _changelog_by_expand(schemas: Schemas) -> None:
    schemas["ChangelogBean"]["required"] = ["histories"]


def _link_types_listed(schemas: Schemas) -> None:
    schemas["IssueLinkTypesBean"] = {
        "type": "object",
        "required": ["issueLinkTypes"],
        "properties": {"issueLinkTypes": {"type": "array", "items": _ref("IssueLinkTypeJsonBean")}},
    }


def _change_values_nullable(schemas: Schemas) -> None:
    for name in ("from", "fromString", "to", "toString"):
        schemas["ChangeItemBean"]["properties"][name] = {"type": ["string", "null"]}


def _no_patch(schemas: Schemas) -> None:
    del schemas


@attrs.frozen(kw_only=True)
class Defect:
    title: str
    patch: Callable[[Schemas], None] = _no_patch


# Numbers are SOURCE.md's; letters are findings of our own on this document.
DEFECTS: dict[str, Defect] = {
    "1": Defect(title="list endpoints declared as single items (here: the board's sprints, see 3)"),
    "2": Defect(
        title="IssueBean.fields values declared as objects: replaced by the agent's fields, typed with the "
        "document's own beans (strings, arrays and null allowed where Jira sends them)",
        patch=_fields_by_kind,
    ),
    "3": Defect(title="board sprint list declared as one SprintBean: a {maxResults, startAt, isLast, values} page"),
    "4": Defect(title="attachments POST declared as one AttachmentJsonBean: Jira answers an array of them"),
    "5": Defect(title='example link id "10004L": link and issue ids must be decimal strings', patch=_decimal_ids),
    "6": Defect(
        title="no /issue/{key}/changelog path in DC: history comes with expand=changelog as IssueBean.changelog",
        patch=_changelog_by_expand,
    ),
    "A": Defect(
        title="IssueLinkTypesBean declared as an object without properties: Jira answers "
        '{"issueLinkTypes": [IssueLinkTypeJsonBean…]}',
        patch=_link_types_listed,
    ),
    "B": Defect(
        title="the document declares nothing nullable: ChangeItemBean from/fromString/to/toString are null "
        "where Jira has no raw value",
        patch=_change_values_nullable,
    ),
    "C": Defect(title="4xx answers declare no body: Jira sends components.schemas.ErrorCollection"),
    "D": Defect(
        title="429 is not declared at all: Jira DC's rate limiter answers it with a Retry-After header; "
        "no public source shows its body, so the body is not checked"
    ),
}

SPRINT_PAGE = {
    "type": "object",
    "required": ["maxResults", "startAt", "isLast", "values"],
    "properties": {
        "maxResults": {"type": "integer"},
        "startAt": {"type": "integer"},
        "isLast": {"type": "boolean"},
        "values": {"type": "array", "items": _ref("SprintBean")},
    },
}
ERROR_BODY = {"allOf": [_ref("ErrorCollection"), {"required": ["errorMessages", "errors"]}]}


@attrs.frozen(kw_only=True)
class Expected:
    """What an answer must be: ``schema`` None = no body (any body when ``any_body``); ``headers`` present."""

    schema: dict[str, Any] | None
    headers: tuple[str, ...] = ()
    any_body: bool = False


def converted_schemas(document: Mapping[str, Any], *, without: tuple[str, ...] = ()) -> Schemas:
    """The document's component schemas as JSON Schema, with every defect's patch (but ``without``) applied."""
    schemas: Schemas = {name: to_json_schema(schema) for name, schema in document["components"]["schemas"].items()}
    for number, defect in DEFECTS.items():
        if number not in without:
            defect.patch(schemas)
    return schemas


def expected(document: Mapping[str, Any], method: str, path: str, status: int) -> Expected:
    """The answer the document (with its defects corrected) allows for ``method path`` with ``status``."""
    operation = operation_of(method, path)
    if status == 429:
        return Expected(schema=None, headers=("Retry-After",), any_body=True)
    if status >= 400:
        return Expected(schema=ERROR_BODY)
    if "3" in operation.defects:
        return Expected(schema=SPRINT_PAGE)
    declared = document["paths"][operation.document_path][method.lower()]["responses"].get(str(status))
    if declared is None:
        raise LookupError(f"{operation.operation_id} declares no {status}")
    content = declared.get("content", {}).get("application/json")
    if content is None:
        return Expected(schema=None)
    schema = to_json_schema(content["schema"])
    if "4" in operation.defects:
        schema = {"type": "array", "minItems": 1, "items": schema}
    return Expected(schema=schema)


def validator(schemas: Schemas, schema: Mapping[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator whose ``#/components/schemas/…`` references resolve into ``schemas``."""
    root = {**schema, "components": {"schemas": schemas}}
    return jsonschema.Draft202012Validator(root)


def problems(document: Mapping[str, Any], schemas: Schemas, answer: Answer) -> list[str]:
    """Every way ``answer`` departs from :func:`expected` (``[]`` = it conforms)."""
    want = expected(document, answer.method, answer.path, answer.status)
    found: list[str] = []
    lower = {name.lower() for name in answer.headers}
    found.extend(f"header {name} missing" for name in want.headers if name.lower() not in lower)
    if want.schema is None:
        if answer.body not in (None, "") and not want.any_body:
            found.append(f"a body where none is expected: {str(answer.body)[:80]}")
        return found
    if answer.body is None:
        return [*found, "no body"]
    for error in validator(schemas, want.schema).iter_errors(answer.body):
        where = "/".join(str(part) for part in error.absolute_path) or "(root)"
        found.append(f"{error.message} @ {where}")
    return found


# ----------------------------------------------------------------------------------------------- the cassettes


@attrs.frozen(kw_only=True)
class Answer:
    """One recorded (or simulated) exchange: the request, then Jira's status, headers and decoded body."""

    cassette: str
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    request_body: Any
    status: int
    headers: Mapping[str, str]
    body: Any


def _decoded(text: str | bytes | None) -> Any:
    if text in (None, "", b""):
        return None
    raw = text.decode("utf-8") if isinstance(text, bytes) else text
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def cassette_files() -> list[Path]:
    return sorted(CASSETTES.glob("*.yaml"))


def cassette_answers(path: Path) -> list[Answer]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    answers: list[Answer] = []
    for interaction in data["interactions"]:
        request, response = interaction["request"], interaction["response"]
        url = urlsplit(request["uri"])
        answers.append(
            Answer(
                cassette=path.name,
                method=request["method"],
                path=url.path,
                query=tuple(parse_qsl(url.query)),
                request_body=_decoded(request.get("body")),
                status=int(response["status"]["code"]),
                headers={name: values[-1] for name, values in (response.get("headers") or {}).items()},
                body=_decoded(response["body"]["string"]),
            )
        )
    return answers


def all_answers() -> list[Answer]:
    return [answer for path in cassette_files() for answer in cassette_answers(path)]


def cassette_comment(path: Path) -> str:
    """The cassette's leading comment (its public sources)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return "\n".join(lines)
