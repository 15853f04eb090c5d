"""The parts a catalogue entry is made of (:mod:`reconcile.vocabulary.catalogue` re-exports them): the type's name, a
parameter with its value format and the editor a person enters it with, the parameter that turns a command into a
removal, the aspect of an issue's state a command type sets, and the role the hub gives a type beyond running it."""

from __future__ import annotations

from enum import Enum, StrEnum

import attrs

__all__ = ["AspectKind", "CommandType", "Editor", "Format", "Param", "Removal", "TypeRole"]


class CommandType(StrEnum):
    """The command types by the names the seed and the wire give them: :data:`reconcile.vocabulary.catalogue.CATALOGUE`
    holds one entry for each, in this order, and nothing else lists them."""

    ENSURE_ISSUE = "ensure_issue"
    ENSURE_FIELDS = "ensure_fields"
    ENSURE_COMMENT = "ensure_comment"
    ENSURE_STATUS = "ensure_status"
    ENSURE_LINK = "ensure_link"
    ENSURE_SPRINT = "ensure_sprint"
    ENSURE_ATTACHMENT = "ensure_attachment"
    REFRESH = "refresh"


class Format(Enum):
    """A parameter's value format: what validation checks and what the schema and description say."""

    ISSUE_KEY = "issue_key"
    TEMP_KEY = "temp_key"
    TEXT = "text"
    NONEMPTY_TEXT = "nonempty_text"
    DATE = "date"
    STRING_LIST = "string_list"
    KEY_LIST = "key_list"
    BOOL = "bool"
    STATUS_TARGET = "status_target"
    ISSUE_TYPE = "issue_type"
    SHA256 = "sha256"
    FILENAME = "filename"
    SPRINT = "sprint"  # a sprint's name, backlog, or null (the backlog)
    # Only-if-unchanged (DESIGN.md 6.4): an object naming the values Jira must still hold for a write to happen.
    IF_UNCHANGED_FIELDS = "if_unchanged_fields"  # {field: text or null}, the fields the command sets
    IF_UNCHANGED_STATUS = "if_unchanged_status"  # {status: name}
    IF_UNCHANGED_SPRINT = "if_unchanged_sprint"  # {sprint: name or null}


class Editor(Enum):
    """How a person enters a parameter in the page's batch editor."""

    TEXT = "text"
    MULTILINE_TEXT = "multiline_text"
    DATE = "date"
    LIST = "list"
    KEY_LIST = "key_list"
    YES_NO = "yes_no"
    STATUS_PATH = "status_path"
    ISSUE_KEY = "issue_key"
    TEMP_KEY = "temp_key"
    ISSUE_TYPE = "issue_type"  # task, epic or bug
    LINK_TYPE = "link_type"  # a logical name of the settings' link_types
    SPRINT = "sprint"  # a sprint's name (the mirror's sprints suggested) or backlog
    FILE = "file"  # a file uploaded to the hub, sent as its sha256
    JSON_OBJECT = "json_object"  # an object typed as JSON (the only-if-unchanged values)


class AspectKind(Enum):
    """The part of an issue's state a command type makes true; the value names the aspect (drift's ``aspect``).

    ``FIELDS`` is one aspect per parameter given (each label on its own:
    :func:`reconcile.outlook.confirm.aspect_names`).
    """

    EXISTENCE = "issue"
    FIELDS = "fields"
    STATUS = "status"
    SPRINT = "sprint"
    LINK = "link"


class TypeRole(Enum):
    """What the hub and the agent do with a command type beyond running it; one type of the catalogue plays each
    role (:func:`reconcile.vocabulary.catalogue.role_type`), and code asks for the role, never for the type's name."""

    # Reads Jira's issues into the mirror (a sync run, the journal mark): the tail refresh of a batch that writes,
    # the hub's automatic and event refreshes, what a stale plan is advised to run.
    MIRROR_REFRESH = "mirror_refresh"


@attrs.frozen(kw_only=True)
class Param:
    """One parameter: ``label`` names it for a person, ``doc`` is its help (the MCP schema's description)."""

    name: str
    format: Format
    label: str
    doc: str
    editor: Editor
    # Added after seed 001 (DESIGN.md 6.4): left out of the seed's «ожидаются …; необязательные …», whose exact
    # words the seed's scenarios pin; the schema, the description and the editor show it as any other.
    unlisted: bool = False


@attrs.frozen(kw_only=True)
class Removal:
    """The optional parameter that turns a command into a removal (DESIGN.md 6.4): ``param`` set to ``value``
    (``absent: true``, ``present: false``); ``frees`` are required parameters a removal does without."""

    param: str
    value: bool
    frees: tuple[str, ...] = ()
