"""What a delivery adds to the stored params: real keys, size, boards, history, and the pause."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import Settings, settings_from_json
from reconcile.queue.delivery import boards_param, complete_params
from reconcile.queue.pacing import pause_seconds
from tests.support import SHA


def test_attachment_after_creation_gets_key_and_size() -> None:
    """Scenario «Ошибка с вложением одним пакетом»: the attachment goes out with the real key and the size."""
    stored = {"key": "new:1", "file": SHA, "filename": "ОСВ 60.xlsx"}
    sent = complete_params("ensure_attachment", stored, resolved_temp_keys={"new:1": "AURORA-1601"}, file_size=2048)
    assert sent == {"key": "AURORA-1601", "file": SHA, "filename": "ОСВ 60.xlsx", "size": 2048}
    assert stored == {"key": "new:1", "file": SHA, "filename": "ОСВ 60.xlsx"}


def test_attachment_whose_file_is_gone_gets_null_size() -> None:
    """size is always present for ensure_attachment: null when the hub no longer has the file."""
    sent = complete_params("ensure_attachment", {"key": "X-1", "file": SHA, "filename": "a"}, resolved_temp_keys={})
    assert sent == {"key": "X-1", "file": SHA, "filename": "a", "size": None}


def test_board_type_unknown_is_sent_in_boards() -> None:
    """Scenario «Тип доски определён»: the refresh carries {id: 5120, type: null}; params stay without it."""
    stored = {"jql": 'project = AURORA AND labels in ("STOCKS_DRRK")'}
    boards = boards_param([(5120, None)])
    sent = complete_params("refresh", stored, resolved_temp_keys={}, boards=boards)
    assert sent == {"jql": 'project = AURORA AND labels in ("STOCKS_DRRK")', "boards": [{"id": 5120, "type": None}]}
    assert stored == {"jql": 'project = AURORA AND labels in ("STOCKS_DRRK")'}


def test_first_refresh_carries_history() -> None:
    """Scenario «Первый refresh после выкатки»: history is added to the delivered params, not to the stored."""
    history = {
        "jql": '(project = AURORA AND labels in ("AWPCA")) AND sprint in openSprints() AND statusCategory != Done'
    }
    stored: dict[str, Any] = {"jql": 'project = AURORA AND labels in ("AWPCA")'}
    sent = complete_params("refresh", stored, resolved_temp_keys={}, boards=[], history=history)
    assert sent == {"jql": 'project = AURORA AND labels in ("AWPCA")', "boards": [], "history": history}
    assert "history" not in stored


def test_tail_refresh_without_history_and_with_real_keys() -> None:
    """Scenario «Хвост пакета до первой отметки»: no history key; temp keys substituted, unresolved dropped."""
    sent = complete_params(
        "refresh", {"keys": ["new:1", "AURORA-1", "new:2"]}, resolved_temp_keys={"new:1": "AURORA-9"}, boards=[]
    )
    assert sent == {"keys": ["AURORA-9", "AURORA-1"], "boards": []}


def test_other_types_get_only_substitution() -> None:
    """Commands other than attachment and refresh get nothing added."""
    stored = {"source": "new:60", "target": "AURORA-1537", "link_type": "связанные", "replace": False}
    assert complete_params("ensure_link", stored, resolved_temp_keys={"new:60": "AURORA-1590"}, file_size=5) == {
        "source": "AURORA-1590",
        "target": "AURORA-1537",
        "link_type": "связанные",
        "replace": False,
    }


def test_boards_without_repeats_and_first_known_type() -> None:
    """Boards of all projects appear once, in order; projects without a board are left out."""
    assert boards_param([(4216, "scrum"), (None, None), (5120, None), (4216, None), (5120, "kanban")]) == [
        {"id": 4216, "type": "scrum"},
        {"id": 5120, "type": "kanban"},
    ]
    assert boards_param([]) == []


def test_pause_by_the_current_pacing() -> None:
    """pause_seconds is the gap of the delivered type under the current pacing."""
    assert pause_seconds("ensure_issue", Settings()) == 120
    assert pause_seconds("ensure_attachment", Settings()) == 30
    assert pause_seconds("refresh", Settings()) == 2
    fast = settings_from_json({"pacing": {"ensure_link": 0.25}})
    assert pause_seconds("ensure_link", fast) == 0.25


@given(
    st.lists(st.one_of(st.integers(1, 5).map(lambda n: f"new:{n}"), st.sampled_from(["A-1", "A-2"])), max_size=6),
    st.dictionaries(st.integers(1, 5).map(lambda n: f"new:{n}"), st.sampled_from(["A-7", "A-8"]), max_size=5),
)
def test_redelivery_gives_the_same_params(keys: list[str], resolved: dict[str, str]) -> None:
    """Completing already completed params changes nothing: a re-delivery sends the same params."""
    once = complete_params("refresh", {"keys": keys}, resolved_temp_keys=resolved, boards=[{"id": 1, "type": None}])
    again = complete_params("refresh", once, resolved_temp_keys=resolved, boards=[{"id": 1, "type": None}])
    assert again == once
