"""The agent's local journal: atomic JSON file with the command in hand and its unacknowledged report."""

from __future__ import annotations

import json
from pathlib import Path

from agent_app.journal import Journal, JournalEntry


def test_missing_file_reads_as_empty(tmp_path: Path) -> None:
    """No journal file means nothing in hand."""
    assert Journal(tmp_path / "j.json").read() is None


def test_begin_then_report_then_clear(tmp_path: Path) -> None:
    """The entry goes command id → id with report → empty, each state readable back."""
    journal = Journal(tmp_path / "sub" / "j.json")
    journal.begin(command_id=40, type="ensure_issue", deliveries=2)
    entry = journal.read()
    assert entry == JournalEntry(command_id=40, type="ensure_issue", deliveries=2, report=None)
    report = {"status": "done", "result": {"key": "AURORA-1590", "created": True}, "jira_calls": 2}
    journal.record_report(entry, report)
    assert journal.read() == JournalEntry(command_id=40, type="ensure_issue", deliveries=2, report=report)
    journal.clear()
    assert journal.read() is None


def test_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    """The temporary file of an atomic write is renamed over the journal, never left behind."""
    journal = Journal(tmp_path / "j.json")
    for command_id in range(5):
        journal.begin(command_id=command_id, type="refresh", deliveries=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.json"]
    assert json.loads((tmp_path / "j.json").read_text(encoding="utf-8"))["entry"]["command_id"] == 4


def test_corrupt_file_is_moved_aside(tmp_path: Path) -> None:
    """An unreadable journal reads as empty and is kept as ``<name>.corrupt`` for a person to look at."""
    path = tmp_path / "j.json"
    path.write_text("{not json", encoding="utf-8")
    assert Journal(path).read() is None
    assert (tmp_path / "j.json.corrupt").read_text(encoding="utf-8") == "{not json"
    assert not path.exists()


def test_russian_text_is_stored_readably(tmp_path: Path) -> None:
    """Reports keep the seed's Russian messages as text, not escapes."""
    journal = Journal(tmp_path / "j.json")
    entry = JournalEntry(command_id=1, type="ensure_status", deliveries=1)
    journal.record_report(entry, {"status": "failed", "error": "нет перехода в «Готово»"})
    assert "нет перехода в «Готово»" in (tmp_path / "j.json").read_text(encoding="utf-8")
