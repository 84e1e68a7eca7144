"""Pruning an abandoned branch (issue 23 §1): the plan (what goes, what is refused and why), the
write (every other line byte for byte, the original in the trash first), the undo, the bulk form,
and the SessionManager's operation."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from pitui.core import actions, edit, journal, prune, trash
from pitui.core.manager import SessionManager
from pitui.core.session import Session
from tests.core.sessiondata import assistant, entry, jsonl, user

DAY = 86_400


def _file(folder: Path, *objects: dict[str, Any] | bytes, age: float = 3600) -> Path:
    path = folder / "s.jsonl"
    path.write_bytes(jsonl(*objects))
    past = time.time() - age
    os.utime(path, (past, past))
    return path


def _tree() -> list[dict[str, Any]]:
    """u1 → a1 → u2 → a2 (the active path, a2 last) and two branches off a1:
    b1 → b2 (with a label entry on b1 inside it) and c1 (labelled from the active path)."""
    return [
        user("u1", None, "first", t=1),
        assistant("a1", "u1", "one", t=2),
        user("b1", "a1", "abandoned", t=3),
        assistant("b2", "b1", "abandoned reply", t=4),
        entry("label", "l1", "b2", t=5, targetId="b1", label="old try"),
        user("c1", "a1", "another", t=6),
        user("u2", "a1", "second", t=7),
        entry("label", "l2", "u2", t=8, targetId="c1", label="keep?"),
        assistant("a2", "l2", "two", t=9),
    ]


def _without_lines(data: bytes, ids: set[str]) -> bytes:
    lines = data.split(b"\n")
    return b"\n".join(
        line for line in lines if not any(f'"id":"{i}"'.encode() in line for i in ids)
    )


# ------------------------------------------------------------------------------------ the plan


def test_the_plan_names_entries_messages_labels_and_bytes() -> None:
    session = Session.from_bytes(jsonl(*_tree()))
    plan = prune.plan_prune(session, ["b1"])
    assert [m.uid for m in plan.entries] == ["b1", "b2", "l1"]
    assert plan.messages == 2
    assert plan.labels == {"b1": "old try"}
    assert plan.label_entries == 1 and plan.dangling_labels == 0 and plan.kept_labels == {}
    lines = {m.uid: m.length + 1 for m in session.entries}
    assert plan.bytes_saved == lines["b1"] + lines["b2"] + lines["l1"]
    assert plan.ended == "2025-01-01T00:00:05.000Z"


def test_the_active_path_is_refused() -> None:
    session = Session.from_bytes(jsonl(*_tree()))
    for uid in ("u1", "a1", "u2", "l2", "a2"):
        with pytest.raises(prune.PruneRefusedError, match="active path"):
            prune.plan_prune(session, [uid])


def test_label_entries_elsewhere_pointing_into_the_branch_go_when_nothing_hangs_under_them() -> (
    None
):
    side = entry("label", "lx", "b2", t=5, targetId="c1", label="side")  # childless, off-path
    session = Session.from_bytes(jsonl(*_tree()[:5], side, *_tree()[5:]))
    plan = prune.plan_prune(session, ["c1"])
    assert [m.uid for m in plan.entries] == ["lx", "c1"]
    # l2 (on the active path, a2 hangs under it) stays, pointing at nothing, which pi ignores
    assert plan.dangling_labels == 1
    assert plan.labels == {"c1": "keep?"}


def test_a_label_set_from_inside_the_branch_on_a_kept_entry_is_refused_unless_allowed() -> None:
    objects = [*_tree()[:4], entry("label", "l9", "b2", t=5, targetId="u1", label="start"),
               *_tree()[5:]]  # fmt: skip
    session = Session.from_bytes(jsonl(*objects))
    with pytest.raises(prune.PruneRefusedError, match=r"“start” of u1.*--drop-labels"):
        prune.plan_prune(session, ["b1"])
    plan = prune.plan_prune(session, ["b1"], drop_labels=True)
    assert plan.kept_labels == {"u1": ("start", None)}


def test_a_superseded_label_entry_in_the_branch_is_no_dependency() -> None:
    objects = [*_tree()[:4], entry("label", "l9", "b2", t=5, targetId="u1", label="early"),
               *_tree()[5:8], entry("label", "l8", "l2", t=8, targetId="u1", label="late"),
               assistant("a2", "l8", t=9)]  # fmt: skip
    plan = prune.plan_prune(Session.from_bytes(jsonl(*objects)), ["b1"])
    assert plan.kept_labels == {}


def test_what_a_kept_entry_points_at_is_refused() -> None:
    base = _tree()
    # a compaction on a kept branch whose firstKeptEntryId is in the branch
    compaction = entry("compaction", "k1", "c1", t=10, summary="s", tokensBefore=1,
                       firstKeptEntryId="b2")  # fmt: skip
    session = Session.from_bytes(jsonl(*base[:-1], compaction, base[-1]))
    with pytest.raises(prune.PruneRefusedError, match="firstKeptEntryId"):
        prune.plan_prune(session, ["b1"])
    edit_entry = entry("context_edit", "e1", "c1", t=10, targetId="b1", replacement=None)
    session = Session.from_bytes(jsonl(*base[:-1], edit_entry, base[-1]))
    with pytest.raises(prune.PruneRefusedError, match="context edit"):
        prune.plan_prune(session, ["b1"])
    twin = user("b2", "c1", "same id", t=11)  # b2's id used again on a kept branch
    session = Session.from_bytes(jsonl(*base[:-1], twin, base[-1]))
    with pytest.raises(prune.PruneRefusedError, match="used twice"):
        prune.plan_prune(session, ["b1"])


def test_a_branch_summary_naming_the_branch_is_no_dependency() -> None:
    # pi 1.x stores the abandoned leaf in fromId; the summary's text stays in the context
    summary = entry("branch_summary", "s1", "a1", t=10, fromId="b2", summary="tried b")
    objects = [*_tree()[:6], summary, user("u2", "s1", t=11), assistant("a2", "u2", t=12)]
    plan = prune.plan_prune(Session.from_bytes(jsonl(*objects)), ["b1"])
    assert {m.uid for m in plan.entries} == {"b1", "b2", "l1"}


def test_the_name_decided_inside_the_branch_is_refused() -> None:
    objects = [*_tree()[:4], entry("session_info", "n1", "b2", t=5, name="Named here"),
               *_tree()[5:]]  # fmt: skip
    with pytest.raises(prune.PruneRefusedError, match="name"):
        prune.plan_prune(Session.from_bytes(jsonl(*objects)), ["b1"])


def test_a_file_pi_reads_as_one_chain_is_refused() -> None:
    header = {"type": "session", "id": "trap", "timestamp": "2025-01-01T00:00:00.000Z",
              "cwd": "/p"}  # fmt: skip
    session = Session.from_bytes(jsonl(*_tree(), header=header), path="/x/s.jsonl")
    with pytest.raises(prune.PruneRefusedError, match="one chain"):
        prune.plan_prune(session, ["b1"])


def test_an_unknown_entry_is_refused() -> None:
    with pytest.raises(prune.PruneRefusedError, match="not in"):
        prune.plan_prune(Session.from_bytes(jsonl(*_tree())), ["nope"])


# ------------------------------------------------------------------------------------ the write


def test_prune_keeps_every_other_line_byte_for_byte_and_the_original_in_the_trash(
    tmp_path: Path,
) -> None:
    crlf = (  # a line pi can read: \r is JSON white space; U+2028 raw inside a string
        b'{"type":"message","id":"x1","parentId":"a1","timestamp":"2025-01-01T00:00:06.500Z",'
        b'"message":{"role":"user","content":"\xe2\x80\xa8"}}\r'
    )
    tree = _tree()
    objects: list[dict[str, Any] | bytes] = [
        *tree[:5], b"not json at all", b"", *tree[5:7], crlf, *tree[7:]
    ]  # fmt: skip
    path = _file(tmp_path, *objects)
    original = path.read_bytes()
    with Session.open(path) as session:
        pruned = actions.prune(session, ["b1", "x1"])
        assert session.leaf_id == "a2" and session.get("b1") is None
    expected = _without_lines(original, {"b1", "b2", "l1", "x1"})
    assert path.read_bytes() == expected
    assert b"not json at all\n\n" in expected  # a bad line and a blank one, kept as they were
    assert pruned.size_before == len(original) and pruned.size_after == len(expected)
    assert Path(pruned.original_kept).read_bytes() == original
    assert not Path(f"{path}{actions.PRUNE_SUFFIX}").exists()
    restored = actions.restore_pruned(str(path))
    assert restored.original == str(path)
    assert path.read_bytes() == original


def test_restore_gives_back_the_original_through_pitui_restore_too(tmp_path: Path) -> None:
    path = _file(tmp_path, *_tree())
    original = path.read_bytes()
    with Session.open(path) as session:
        actions.prune(session, ["c1"])
    assert path.read_bytes() != original
    item = actions.restore(str(path))  # the path exists: its pruned original comes back
    assert item.original == str(path) and path.read_bytes() == original
    with pytest.raises(trash.TrashError, match="no original"):
        actions.restore_pruned(str(path))


def test_restore_refuses_to_lose_what_pi_wrote_after_the_prune(tmp_path: Path) -> None:
    path = _file(tmp_path, *_tree())
    original = path.read_bytes()
    with Session.open(path) as session:
        actions.prune(session, ["b1"])
    with open(path, "ab") as handle:  # pi goes on
        handle.write(jsonl(user("u3", "a2", "more", t=20), header=None))
    grown = path.read_bytes()
    with pytest.raises(trash.TrashError, match=r"changed since it was pruned.*--force"):
        actions.restore_pruned(str(path))
    assert path.read_bytes() == grown
    actions.restore_pruned(str(path), force=True)
    assert path.read_bytes() == original
    assert trash.find_trashed(str(path))[0].stored  # the grown file went to the trash first
    assert Path(trash.find_trashed(str(path))[0].stored).read_bytes() == grown


def test_a_file_pi_is_writing_is_refused(tmp_path: Path) -> None:
    path = _file(tmp_path, *_tree(), age=0)
    original = path.read_bytes()
    with Session.open(path) as session, pytest.raises(actions.FileBusyError, match="pi may"):
        actions.prune(session, ["b1"])
    assert path.read_bytes() == original
    with Session.open(path) as session:
        actions.prune(session, ["b1"], force=True)
    assert path.read_bytes() != original


def test_a_line_still_being_written_is_refused_even_forced(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*_tree()) + b'{"type":"message","id":"half')
    with (
        Session.open(path, final=False) as session,
        pytest.raises(actions.FileBusyError, match="still being written"),
    ):
        actions.prune(session, ["b1"], force=True)


def test_a_refused_prune_writes_nothing_and_trashes_nothing(tmp_path: Path) -> None:
    path = _file(tmp_path, *_tree())
    original = path.read_bytes()
    with Session.open(path) as session, pytest.raises(prune.PruneRefusedError):
        actions.prune(session, ["u2"])
    assert path.read_bytes() == original
    assert actions.pruned_original(str(path)) is None
    assert sorted(os.listdir(tmp_path)) == ["s.jsonl"]


def test_a_file_changed_before_the_replace_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path, *_tree())
    real = edit.atomic_write

    def pi_appends_meanwhile(target: str, lines: Any, **kwargs: Any) -> None:
        with open(path, "ab") as handle:
            handle.write(jsonl(user("u3", "a2", t=20), header=None))
        real(target, lines, **kwargs)

    monkeypatch.setattr(edit, "atomic_write", pi_appends_meanwhile)
    with Session.open(path) as session, pytest.raises(actions.FileBusyError, match="changed"):
        actions.prune(session, ["b1"])
    assert b'"id":"b1"' in path.read_bytes() and b'"id":"u3"' in path.read_bytes()
    assert actions.pruned_original(str(path)) is None  # the copy in the trash was taken back


def test_the_journal_knows_the_state_a_prune_left(tmp_path: Path) -> None:
    path = _file(tmp_path, *_tree())
    with Session.open(path) as session:
        pruned = actions.prune(session, ["b1"])
    assert pruned.original is not None
    assert journal.is_pruned_state(str(path), os.stat(path), pruned.original.info)
    assert not journal.is_pruned_state(str(path), os.stat(path), "other.trashinfo")


# ---------------------------------------------------------------------------------- the bulk


def _dated(day: int, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects with their timestamps moved ``day`` days after 2025-01-01."""
    out = []
    for obj in objects:
        stamp = obj["timestamp"]
        out.append({**obj, "timestamp": f"2025-01-{1 + day:02d}" + stamp[10:]})
    return out


def test_stale_branches_without_labels_go_together() -> None:
    old = _dated(0, [user("o1", "a1", t=3), assistant("o2", "o1", t=4)])
    recent = _dated(20, [user("r1", "a1", t=5)])
    labelled = _dated(0, [user("k1", "a1", t=6), assistant("k2", "k1", t=7)])
    under_label = _dated(0, [user("k3", "k2", t=8)])
    trunk = _dated(0, _tree()[:2]) + _dated(25, [user("u2", "a1", t=9)])
    tail = _dated(25, [entry("label", "l5", "u2", t=10, targetId="k2", label="kept"),
                       assistant("a2", "l5", t=11)])  # fmt: skip
    session = Session.from_bytes(jsonl(*trunk, *old, *recent, *labelled, *under_label, *tail))
    now = time.mktime((2025, 1, 31, 0, 0, 0, 0, 0, 0)) - time.timezone
    plan = prune.plan_stale(session, 10, now=now)
    assert [b.top.uid for b in plan.pruned] == ["o1"]  # r1 is recent; k1..k3 carry a label
    assert plan.plan is not None and {m.uid for m in plan.plan.entries} == {"o1", "o2"}
    assert plan.pruned[0].entries == 2 and plan.pruned[0].ended == old[-1]["timestamp"]
    assert prune.plan_stale(session, 40, now=now).plan is None


def test_a_stale_branch_that_cannot_go_is_listed_with_its_reason() -> None:
    objects = [*_tree()[:4], entry("label", "l9", "b2", t=5, targetId="u1", label="start"),
               *_tree()[5:8], assistant("a2", "l2", t=9)]  # fmt: skip
    session = Session.from_bytes(jsonl(*objects))
    plan = prune.plan_stale(session, 1, now=time.time())
    assert [b.top.uid for b in plan.refused] == ["b1"]
    assert "start" in (plan.refused[0].refused or "")
    assert [b.top.uid for b in plan.pruned] == []  # c1 is labelled (from the active path)
    allowed = prune.plan_stale(session, 1, now=time.time(), drop_labels=True)
    assert [b.top.uid for b in allowed.pruned] == ["b1"]


# --------------------------------------------------------------------------------- the manager


def test_the_manager_prunes_and_keeps_its_own_leaf(tmp_path: Path) -> None:
    path = _file(tmp_path, *_tree())
    with SessionManager.open(path) as sm:
        sm.branch("b2")  # the in-memory leaf is on the branch: it is active
        with pytest.raises(prune.PruneRefusedError, match="active path"):
            sm.plan_prune("b1")
        sm.branch("a2")
        plan = sm.plan_prune("b1")
        assert [m.uid for m in plan.entries] == ["b1", "b2", "l1"]
        pruned = sm.prune("b1")
        assert pruned.plan.messages == 2
        assert sm.get_entry("b1") is None and sm.get_leaf_id() == "a2"
        assert sm.append_message(user("x", None, "after", t=30).get("message", {}))  # still writes
    with Session.open(path) as session:
        assert session.leaf is not None and session.leaf.parent_id == "a2"


def test_a_session_without_a_file_has_nothing_to_prune(tmp_path: Path) -> None:
    sm = SessionManager.create("/p", tmp_path)
    sm.append_message(user("x", None).get("message", {}))
    with pytest.raises(actions.WriteError, match="no file"):
        sm.prune("x")
