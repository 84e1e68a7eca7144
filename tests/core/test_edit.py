"""The write helpers the SessionManager and the commands share (pitui/core/edit.py additions),
and the concurrency guarantee of the append discipline (issue 8)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core import actions, edit
from pitui.core.context import build_session_context
from pitui.core.session import Session
from pitui.core.stringify import dump_entry, dump_header
from tests.core.sessiondata import assistant, entry, f26_entries, jsonl, ts, user

HEX8 = re.compile(r"[0-9a-f]{8}")


def _old(path: Path) -> None:
    """Make a file look untouched for an hour (not "being written by pi")."""
    past = time.time() - 3600
    os.utime(path, (past, past))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().split(b"\n") if line]


# ------------------------------------------------------------------------------ small builders


def test_entry_base_has_pi_fields_and_a_fresh_id() -> None:
    taken = {"aaaaaaaa"}
    base = edit.entry_base(taken, "custom", "p1", clock=1735689600.5)
    assert list(base) == ["type", "id", "parentId", "timestamp"]
    assert base["type"] == "custom" and base["parentId"] == "p1"
    assert HEX8.fullmatch(base["id"]) and base["id"] not in taken
    assert base["timestamp"] == "2025-01-01T00:00:00.500Z"


def test_entry_id_falls_back_to_a_uuid_when_every_short_id_is_taken() -> None:
    class Everything:
        def __contains__(self, item: object) -> bool:
            return True

    base = edit.entry_base(Everything(), "custom", None)
    assert len(base["id"]) == 36


def test_new_header_is_version_3_in_pi_key_order() -> None:
    header = edit.new_header("/home/ana/proj", parent_session="/x/a.jsonl", clock=1735689600.0)
    line = dump_header(header)
    assert line.startswith(b'{"type":"session","version":3,"id":"')
    assert line.endswith(b'"cwd":"/home/ana/proj","parentSession":"/x/a.jsonl"}\n')
    assert header["timestamp"] == "2025-01-01T00:00:00.000Z"
    assert "parentSession" not in edit.new_header("/p")
    assert edit.new_header("/p", session_id="custom-id")["id"] == "custom-id"


def test_has_assistant() -> None:
    assert not edit.has_assistant([user("u", None), entry("custom", "c", "u", customType="x")])
    assert edit.has_assistant([user("u", None), assistant("a", "u")])
    assert not edit.has_assistant([{"type": "message", "message": "assistant"}])


def test_is_blank_file(tmp_path: Path) -> None:
    blank = tmp_path / "b.jsonl"
    blank.write_bytes(b"")
    assert edit.is_blank_file(str(blank))
    blank.write_bytes(b" \n\n\t")
    assert edit.is_blank_file(str(blank))
    blank.write_bytes(b"x")
    assert not edit.is_blank_file(str(blank))
    assert not edit.is_blank_file(str(tmp_path / "missing.jsonl"))


# ------------------------------------------------------------------------------ file creation


def test_first_flush_writes_header_and_entries_exclusively(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    header = edit.new_header("/p")
    entries = [user("u1", None), assistant("a1", "u1")]
    state = edit.first_flush(str(target), header, entries)
    assert target.read_bytes() == dump_header(header) + b"".join(map(dump_entry, entries))
    assert state == edit.file_state(str(target))
    before = target.read_bytes()
    with pytest.raises(edit.WriteError, match="already exists"):
        edit.first_flush(str(target), edit.new_header("/q"), entries)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temp file left behind


def test_initialize_blank_file_replaces_only_a_blank_file(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"\n")
    header = edit.new_header("/p")
    edit.initialize_blank_file(str(target), header, [user("u", None), assistant("a", "u")])
    assert _lines(target)[0]["id"] == header["id"] and len(_lines(target)) == 3
    before = target.read_bytes()
    with pytest.raises(edit.WriteError, match="no longer empty"):
        edit.initialize_blank_file(str(target), edit.new_header("/p"), [])
    assert target.read_bytes() == before


# ------------------------------------------------------------------------------ owned appends


def _session_file(tmp_path: Path, *entries: dict[str, Any], name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(jsonl(*entries))
    _old(path)
    return path


def test_an_append_migrates_a_v1_file_first(tmp_path: Path) -> None:
    v1_header = {"type": "session", "id": "legacy", "timestamp": ts(0), "cwd": "/p"}
    first = {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "a"}}
    second = {"type": "message", "timestamp": ts(2), "message": {"role": "hookMessage",
              "customType": "x", "content": "h", "display": True}}  # fmt: skip
    path = tmp_path / "v1.jsonl"
    path.write_bytes(jsonl(first, second, header=v1_header))
    _old(path)
    inode = os.stat(path).st_ino
    session = Session.open(path)
    ids = [m.uid for m in session.entries]
    actions.append(session, lambda s: [edit.label_entry(s, s.entries[0], "start")])
    lines = _lines(path)
    assert lines[0]["version"] == 3
    assert [line["id"] for line in lines[1:3]] == ids  # the ids pitui showed are the ones written
    assert lines[2]["message"]["role"] == "custom" and lines[2]["parentId"] == ids[0]
    assert lines[3]["type"] == "label" and lines[3]["parentId"] == ids[1]
    assert os.stat(path).st_ino != inode  # atomic rewrite (rename), then the append
    reread = Session.open(path)
    assert reread.original_version == 3 and reread.labels == {ids[0]: "start"}


def test_version_trap_file_is_not_rewritten_without_force(tmp_path: Path) -> None:
    trap_header = {"type": "session", "id": "trap", "timestamp": ts(0), "cwd": "/p"}
    path = tmp_path / "trap.jsonl"
    path.write_bytes(jsonl(user("u", None), assistant("a", "u"), header=trap_header))
    _old(path)
    before = path.read_bytes()
    session = Session.open(path)
    with pytest.raises(edit.WriteError, match="linearize"):
        actions.append(session, lambda s: [edit.label_entry(s, s.entries[0], "x")])
    assert path.read_bytes() == before


# ------------------------------------------------------------------------------ branch extraction


def _f26_session(tmp_path: Path) -> Path:
    return _session_file(tmp_path, *f26_entries())


def test_branch_file_entries_f26(tmp_path: Path) -> None:
    session = Session.open(_f26_session(tmp_path))
    out = edit.branch_file_entries(session, session.by_id["e5"])
    assert [e["id"] for e in out[:4]] == ["e1", "e2", "e4", "e5"]
    assert [e["parentId"] for e in out[:4]] == [None, "e1", "e2", "e4"]
    labels = out[4:]
    assert [(e["type"], e["targetId"], e["label"]) for e in labels] == [
        ("label", "e1", "first"),
        ("label", "e5", "fifth"),
    ]
    assert labels[0]["parentId"] == "e5" and labels[1]["parentId"] == labels[0]["id"]
    assert [e["timestamp"] for e in labels] == [ts(6), ts(7)]  # the original label times
    ids = [e["id"] for e in out]
    assert len(set(ids)) == len(ids) and all(HEX8.fullmatch(i) for i in ids[4:])
    # entries other than the parent link are copied as they are
    assert out[3]["message"] == session.raw(session.by_id["e5"])["message"]


def test_branch_file_entries_rechains_around_labels_on_the_path(tmp_path: Path) -> None:
    # pi 0.73.1 drops the label and leaves `a` pointing at it: an orphan in the new file
    path = _session_file(
        tmp_path,
        user("u", None, t=1),
        entry("label", "lab", "u", t=2, targetId="u", label="x"),
        assistant("a", "lab", t=3),
    )
    session = Session.open(path)
    out = edit.branch_file_entries(session, session.by_id["a"])
    assert [(e["id"], e["parentId"]) for e in out[:2]] == [("u", None), ("a", "u")]
    assert out[2]["type"] == "label" and out[2]["parentId"] == "a" and out[2]["targetId"] == "u"
    new = Session.from_bytes(jsonl(*out))
    assert not [p for p in new.problems if p.kind.name == "ORPHAN"]
    assert len(new.roots) == 1


def test_branch_file_entries_label_order_and_clears(tmp_path: Path) -> None:
    path = _session_file(
        tmp_path,
        user("u", None, t=1),
        assistant("a", "u", t=2),
        entry("label", "l1", "a", t=3, targetId="u", label="one"),
        entry("label", "l2", "l1", t=4, targetId="a", label="two"),
        entry("label", "l3", "l2", t=5, targetId="u"),  # clears u
        entry("label", "l4", "l3", t=6, targetId="u", label="again"),  # u moves to the end
    )
    session = Session.open(path)
    out = edit.branch_file_entries(session, session.by_id["a"])
    assert [(e["targetId"], e["label"], e["timestamp"]) for e in out[2:]] == [
        ("a", "two", ts(4)),
        ("u", "again", ts(6)),
    ]


def test_branch_file_entries_gives_broken_entries_fresh_ids(tmp_path: Path) -> None:
    no_id = {"type": "message", "parentId": None, "timestamp": ts(1),
             "message": {"role": "user", "content": "no id"}}  # fmt: skip
    path = _session_file(tmp_path, no_id, assistant("a", None, t=2))
    session = Session.open(path)
    root = session.entries[0]
    out = edit.branch_file_entries(session, root)
    assert len(out) == 1 and HEX8.fullmatch(out[0]["id"]) and out[0]["parentId"] is None


# ------------------------------------------------------------------------------ concurrency

_PI_WRITER = r"""
import os, sys, orjson
path, count = sys.argv[1], int(sys.argv[2])
parent = "a"
for i in range(count):
    eid = f"p{i:07d}"
    line = orjson.dumps({"type": "message", "id": eid, "parentId": parent,
        "timestamp": "2025-01-01T00:00:10.000Z",
        "message": {"role": "user", "content": "x" * (i % 300), "timestamp": 1}}) + b"\n"
    # as Node's appendFileSync: open with O_APPEND, one write, close
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, line)
    os.close(fd)
    parent = eid
"""


def label_with(text: str) -> Callable[[Session], list[dict[str, Any]]]:
    """The entries of an append that labels entry ``u`` with ``text``."""
    return lambda session: [edit.label_entry(session, session.by_id["u"], text)]


def test_concurrent_pi_appends_and_pitui_labels_never_mix_lines(tmp_path: Path) -> None:
    path = _session_file(tmp_path, user("u", None), assistant("a", "u"))
    count = 3000
    writer = subprocess.Popen([sys.executable, "-c", _PI_WRITER, str(path), str(count)])
    ours: list[str] = []
    refused = 0
    try:
        session = Session.open(path)
        while writer.poll() is None or len(ours) < 20:
            text = f"L{len(ours)}"
            try:
                written = actions.append(session, label_with(text), force=True)
            except edit.FileBusyError:
                refused += 1  # the file moved under us: nothing written, try again
                continue
            ours.append(written.entry_id)
    finally:
        writer.wait(timeout=120)
    assert writer.returncode == 0
    raw_lines = path.read_bytes().split(b"\n")
    assert raw_lines[-1] == b""
    parsed = [orjson.loads(line) for line in raw_lines[:-1]]  # every line is whole JSON
    ids = [obj.get("id") for obj in parsed[1:]]
    pi_ids = [i for i in ids if i.startswith("p")]
    assert pi_ids == [f"p{i:07d}" for i in range(count)]  # each once, in order
    assert [i for i in ids if i in set(ours)] == ours  # each of ours once, in order
    assert len(ids) == 2 + count + len(ours)
    # the two writers really interleaved: some of ours landed between pi's lines
    assert ids.index(ours[0]) < ids.index(pi_ids[-1])
    reread = Session.open(path, final=True)
    assert not reread.problems
    assert reread.labels["u"] == f"L{len(ours) - 1}"
    assert len(build_session_context(reread).messages) >= 2
