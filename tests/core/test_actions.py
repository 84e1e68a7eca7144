"""The one write path (pitui/core/actions.py) and its guards: fresh-write check with pitui's own
last write recognised, newline repair, a blank first line, stale temp files, the trash batch and
what `restore --last` may give back, the resume template."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core import actions, edit, journal, trash
from pitui.core.paths import sessions_root
from pitui.core.session import Session
from pitui.core.stringify import dump_entry
from pitui.launch import resume_argv
from tests.conftest import Run
from tests.core.sessiondata import assistant, entry, jsonl, user


def _old(path: Path, seconds: float = 3600) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def _session_file(folder: Path, data: bytes, name: str = "s.jsonl", age: float = 3600) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    _old(path, age)
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def _pi_appends(path: Path, entry_id: str, parent: str | None) -> None:
    with path.open("ab") as handle:
        handle.write(dump_entry(entry("custom", entry_id, parent, customType="pi-ext")))


BASE = jsonl(user("u", None), assistant("a", "u"))


# ---------------------------------------------------------------------- fresh-write check


def test_pitui_recognises_its_own_last_write(tmp_path: Path) -> None:
    path = _session_file(tmp_path, BASE)
    with Session.open(path) as session:
        actions.rename(session, "first")
        # a second write right away: the file is as pitui's own write left it
        written = actions.label(session, "a", "checked")
        assert session.labels == {"a": "checked"} and written.entry_id in session.by_id
    # another process (a chained command) knows it too: the record is in the data dir
    journal._memory.clear()
    with Session.open(path) as session:
        actions.rename(session, "third")
    # once pi wrote after pitui, the fresh file is pi's
    _pi_appends(path, "pi000001", None)
    with Session.open(path) as session, pytest.raises(actions.FileBusyError, match="ago"):
        actions.rename(session, "refused")
    with Session.open(path) as session:
        actions.rename(session, "forced", force=True)
        assert session.name == "forced"


def test_chained_commands_are_not_refused_by_their_own_write(tmp_path: Path, run: Run) -> None:
    path = _session_file(tmp_path, BASE)
    code, _, err = run("rename", str(path), "")
    assert code == 0, err
    code, _, err = run("label", str(path), "a", "x")
    assert code == 0, err
    code, _, err = run("switch", str(path), "u")
    assert code == 0, err
    assert [e["type"] for e in _lines(path)[-3:]] == ["session_info", "label", "custom"]
    _pi_appends(path, "pi000001", None)
    code, _, err = run("label", str(path), "a", "y")
    assert code == 1 and "--force" in err


def test_rm_right_after_a_rename_is_not_refused(tmp_path: Path, run: Run) -> None:
    folder = sessions_root() / "--p--"
    path = _session_file(folder, BASE)
    assert run("rename", str(path), "named")[0] == 0
    code, _, err = run("rm", str(path), "--yes")
    assert code == 0, err
    assert not path.exists()


def test_a_data_dir_that_cannot_be_written_costs_only_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_bytes(b"")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    path = _session_file(tmp_path / "s", BASE)
    with Session.open(path) as session:
        actions.rename(session, "still written")
        actions.rename(session, "again")  # this process remembers its write
        assert session.name == "again"


# ---------------------------------------------------------------------- how the file ends


def test_a_complete_last_line_without_newline_gets_it_in_the_same_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _session_file(tmp_path, BASE.rstrip(b"\n"))
    writes: list[bytes] = []
    real_write = os.write

    def counting_write(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    with Session.open(path) as session:
        monkeypatch.setattr(os, "write", counting_write)
        written = actions.rename(session, "ended")
        monkeypatch.undo()
    assert written.ended_line and len(writes) == 1 and writes[0].startswith(b"\n{")
    assert path.read_bytes() == BASE + dump_entry(written.entries[0])
    assert Session.open(path, final=True).name == "ended"


def test_a_line_still_being_written_is_never_written_onto(tmp_path: Path) -> None:
    path = _session_file(tmp_path, BASE + b'{"type":"message","id":"half"', age=0)
    before = path.read_bytes()
    with Session.open(path) as session:
        for force in (False, True):
            with pytest.raises(actions.FileBusyError, match="still being written"):
                actions.rename(session, "x", force=force)
    assert path.read_bytes() == before


def test_a_cut_last_line_of_a_quiet_file_needs_force(tmp_path: Path) -> None:
    path = _session_file(tmp_path, BASE + b'{"type":"message","id":"half"')
    before = path.read_bytes()
    with Session.open(path) as session:
        with pytest.raises(actions.WriteError, match="cut-off line") as refused:
            actions.rename(session, "x")
        assert not isinstance(refused.value, actions.FileBusyError)
        assert path.read_bytes() == before
        written = actions.rename(session, "x", force=True)
    assert path.read_bytes() == before + b"\n" + dump_entry(written.entries[0])
    assert Session.open(path, final=True).name == "x"


def test_a_blank_first_line_does_not_make_the_write_look_replaced(tmp_path: Path, run: Run) -> None:
    path = _session_file(tmp_path, b"\n" + BASE)
    code, _, err = run("rename", str(path), "after a blank line")
    assert code == 0, err
    code, _, err = run("label", str(path), "a", "ok")
    assert code == 0, err
    kinds = [e["type"] for e in _lines(path)]
    assert kinds.count("session_info") == 1 and kinds.count("label") == 1


def test_a_v1_file_is_migrated_first(tmp_path: Path) -> None:
    header = {"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z",
              "cwd": "/p"}  # fmt: skip
    first = {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": "a"}}  # fmt: skip
    path = _session_file(tmp_path, jsonl(first, header=header).rstrip(b"\n"))
    with Session.open(path) as session:
        written = actions.label(session, session.entries[0].uid, "kept")
    assert written.migrated and not written.ended_line
    lines = _lines(path)
    assert lines[0]["version"] == 3 and lines[-1]["type"] == "label"


def _lossy_v1() -> bytes:
    header = b'{"type":"session","id":"legacy","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'

    def message(text: bytes, extra: bytes = b"") -> bytes:
        return (
            b'{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user",'
            b'"content":"' + text + b'"' + extra + b"}}\n"
        )

    return (
        header
        + message(b"first")
        + b"not json\n"  # line 3
        + message(b"nan", b',"v":NaN')  # line 4: not JSON either
        + header  # line 5: a second header
        + message(b"bad \xff byte")  # line 6
        + message(b"big", b',"usage":1e400')  # line 7
    )


def test_a_lossy_migration_is_refused_then_keeps_the_original_in_the_trash(
    tmp_path: Path, run: Run
) -> None:
    path = _session_file(tmp_path, _lossy_v1())
    before = path.read_bytes()
    code, out, err = run("rename", str(path), "renamed")
    assert code == 1 and err.count("\n") == 1 and "--force" in err
    for line in (3, 4, 5, 6, 7):
        assert f"line {line} (" in err
    assert path.read_bytes() == before
    code, out, err = run("rename", str(path), "renamed", "--force", "--json")
    assert code == 0, err
    kept = json.loads(out)["originalKept"]
    assert Path(kept).read_bytes() == before  # the original, byte for byte, in the trash
    assert not Path(f"{path}.before-migration").exists()
    assert Session.open(path, final=True).name == "renamed"
    restored = actions.restore(f"{path}.before-migration")
    assert Path(restored.original).read_bytes() == before


def test_a_clean_migration_needs_no_force(tmp_path: Path) -> None:
    header = {"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z",
              "cwd": "/p"}  # fmt: skip
    first = {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": "a"}}  # fmt: skip
    path = _session_file(tmp_path, jsonl(first, header=header) + b"\n")  # a blank line is no loss
    with Session.open(path) as session:
        assert actions.migration_losses(session) == []
        written = actions.rename(session, "clean")
    assert written.migrated and written.original_kept is None and written.notice is None


def test_a_version_trap_is_migrated_only_when_linearizing_is_allowed(tmp_path: Path) -> None:
    header = {"type": "session", "id": "trap", "timestamp": "2025-01-01T00:00:00.000Z",
              "cwd": "/p"}  # fmt: skip
    path = _session_file(tmp_path, jsonl(user("u", None), assistant("a", "u"), header=header))
    with Session.open(path) as session:
        with pytest.raises(actions.WriteError, match="linearize"):
            actions.check_write(session)
        # the app's "write anyway" (pi may be busy) is not a yes to linearizing
        with pytest.raises(actions.WriteError, match="linearize"):
            actions.check_write(session, force=True, linearize=False)
        assert actions.check_write(session, force=True) is False  # the CLI's --force


# ---------------------------------------------------------------------- stale temp files


def test_stale_temp_files_of_killed_rewrites_go_on_the_next_write(tmp_path: Path) -> None:
    import fcntl

    path = _session_file(tmp_path, BASE)
    stale = tmp_path / ".s.jsonl.abcd1234.tmp"
    young = tmp_path / ".s.jsonl.young123.tmp"
    locked = tmp_path / ".s.jsonl.locked12.tmp"
    other = tmp_path / ".notes.txt.abcd1234.tmp"  # not pitui's naming
    for temp in (stale, young, locked, other):
        temp.write_bytes(b"half a rewrite")
    for temp in (stale, locked, other):
        _old(temp, 600)
    holder = os.open(locked, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # a rewrite still running holds its temp file
    try:
        with Session.open(path) as session:
            actions.rename(session, "cleaned")
    finally:
        os.close(holder)
    assert not stale.exists()
    assert young.exists() and locked.exists() and other.exists()


def test_a_rewrite_holds_its_temp_file_locked(tmp_path: Path) -> None:
    import fcntl

    target = tmp_path / "s.jsonl"
    seen: list[bool] = []

    def lines() -> Any:
        (temp,) = [p for p in tmp_path.iterdir() if edit.TEMP_NAME.match(p.name)]
        fd = os.open(temp, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append(False)
        except BlockingIOError:
            seen.append(True)
        finally:
            os.close(fd)
        yield BASE

    edit.atomic_write(str(target), lines())
    assert seen == [True] and target.read_bytes() == BASE


# ---------------------------------------------------------------------- trash and restore


def _trash_dir() -> Path:
    return trash._home_trash()


def _fake_trashed(name: str, path_line: str, data: bytes) -> Path:
    """A trash record as another tool would leave it."""
    trash_dir = _trash_dir()
    (trash_dir / "files").mkdir(parents=True, exist_ok=True)
    (trash_dir / "info").mkdir(parents=True, exist_ok=True)
    (trash_dir / "files" / name).write_bytes(data)
    info = trash_dir / "info" / f"{name}.trashinfo"
    info.write_text(f"[Trash Info]\nPath={path_line}\nDeletionDate=2030-01-01T00:00:00\n")
    return info


def test_restore_last_only_gives_back_sessions_from_a_sessions_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    inside = sessions_root() / "--p--" / "pi.jsonl"
    inside.parent.mkdir(parents=True)
    _fake_trashed("rel.jsonl", "rel.jsonl", BASE)  # relative: not a path at all here
    _fake_trashed("outside.jsonl", str(tmp_path / "outside.jsonl"), BASE)
    _fake_trashed("notes.jsonl", str(sessions_root() / "--p--" / "notes.jsonl"), b"[1]\n")
    with pytest.raises(trash.TrashError, match="no session files"):
        actions.restore_last()
    _fake_trashed("pi.jsonl", str(inside), BASE)  # what pi's `trash` would leave
    outcome = actions.restore_last()
    assert [i.original for i in outcome.restored] == [str(inside)]
    assert inside.read_bytes() == BASE
    assert not (tmp_path / "rel.jsonl").exists() and not (tmp_path / "outside.jsonl").exists()


def test_restore_last_gives_back_pitui_batches_from_any_folder(tmp_path: Path) -> None:
    custom = tmp_path / "custom-session-dir"
    paths = [_session_file(custom, BASE, name=f"{n}.jsonl") for n in "abc"]
    outcome = actions.trash([str(p) for p in paths[:1]])
    assert [p for p, _ in outcome.trashed] == [str(paths[0])]
    actions.trash([str(p) for p in paths[1:]])
    assert not any(p.exists() for p in paths)
    restored = actions.restore_last()
    assert sorted(i.original for i in restored.restored) == [str(p) for p in paths[1:]]
    assert not paths[0].exists()
    assert [i.original for i in actions.restore_last().restored] == [str(paths[0])]


def test_restore_last_reports_what_it_cannot_give_back(tmp_path: Path) -> None:
    folder = sessions_root() / "--p--"
    paths = [_session_file(folder, BASE, name=f"{n}.jsonl") for n in "ab"]
    actions.trash([str(p) for p in paths])
    paths[0].write_bytes(b"someone else\n")
    outcome = actions.restore_last()
    assert [i.original for i in outcome.restored] == [str(paths[1])]
    ((item, reason),) = outcome.failed
    assert item.original == str(paths[0]) and "exists again" in reason
    assert paths[0].read_bytes() == b"someone else\n"


def test_rm_match_selects_words_exactly_never_fuzzily(run: Run) -> None:
    """Issue 21 §3: a fuzzy subsequence selected 24 of 37 sessions for `parsePort`."""
    from pitui.core.search import score

    folder = sessions_root() / "--p--"
    texts = {
        "a": "fix parsePort accepting 0",
        "b": "parse the port number",  # parsePort as a subsequence only
        "c": "PARSEPORT in capitals",
        "d": "nothing alike",
    }
    paths = {
        key: _session_file(
            folder,
            jsonl(user("u", None, text), assistant("a", "u", "ok")),
            name=f"{key}.jsonl",
        )
        for key, text in texts.items()
    }

    def selected(query: str) -> set[str]:
        code, out, err = run("rm", "--all", "--match", query, "--dry-run", "--json")
        assert code == 0, err
        return {Path(s["path"]).stem for s in json.loads(out)["sessions"]}

    assert score("parsePort", texts["b"]) is not None  # what the picker's search finds
    assert selected("parsePort") == {"a", "c"}
    assert selected('"parsePort accepting"') == {"a"}
    assert selected("port parse") == {"a", "b", "c"}  # every word, anywhere
    assert selected(r"re:parse\s+the") == {"b"}
    assert all(p.exists() for p in paths.values())


# ---------------------------------------------------------------------- resume template


def test_resume_template_is_substituted_once_from_the_template() -> None:
    argv = resume_argv(
        ["pi", "--session", "{path}", "--in={cwd}", "{id}{id}", "{other}"],
        path="/s/x_{id}_{cwd}.jsonl",
        session_id="SID",
        cwd="/w/{path}",
    )
    assert argv == ("pi", "--session", "/s/x_{id}_{cwd}.jsonl", "--in=/w/{path}", "SIDSID",
                    "{other}")  # fmt: skip


def test_resume_position_sees_through_labels_and_markers() -> None:
    session = Session.from_bytes(
        jsonl(
            user("u1", None, t=1),
            assistant("a1", "u1", t=2),
            entry("custom", "m1", "u1", t=3, customType="pitui.branch", data={}),
            entry("label", "l1", "m1", t=4, targetId="a1", label="x"),
        )
    )
    position = actions.resume_position(session)
    assert position is not None and position.id == "u1"
