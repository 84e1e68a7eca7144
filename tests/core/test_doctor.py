"""The doctor (pitui/core/doctor.py): every damage kind of format §14 found with its line and byte
offset, the file-level cases, what makes a file big, rewrite leftovers, pi's verdicts (checked by
hand against the loaders of pi 0.73.1 and 1.6.0), and the fixtures reported healthy except for
the oddities pi really wrote into them."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core import doctor
from pitui.core.doctor import (
    FileReport,
    diagnose_bytes,
    diagnose_file,
    diagnose_paths,
)
from pitui.core.pi_verdict import PiVerdict
from pitui.core.problems import Problem, ProblemKind
from tests.conftest import FIXTURES, load_expected
from tests.core.sessiondata import HEADER, assistant, chain, entry, jsonl, user

K = ProblemKind


def offset_of(data: bytes, line: int) -> int:
    """Byte offset of the first byte of 1-based ``line``."""
    pos = 0
    for _ in range(line - 1):
        pos = data.index(b"\n", pos) + 1
    return pos


def write(tmp_path: Path, data: bytes, name: str = "s.jsonl", *, settled: bool = True) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    if settled:  # not "being written by pi": an unterminated tail is read as final
        past = time.time() - 3600
        os.utime(path, (past, past))
    return path


def found(report: FileReport, kind: ProblemKind) -> list[Problem]:
    return [p for p in report.problems if p.kind is kind]


def pi(report: FileReport) -> tuple[PiVerdict, PiVerdict]:
    assert report.pi is not None
    return report.pi


def outcomes(report: FileReport) -> tuple[str, str]:
    return pi(report)[0].outcome, pi(report)[1].outcome


def assert_at(report: FileReport, kind: ProblemKind, data: bytes, line: int) -> None:
    """A problem of ``kind`` at exactly this line and byte offset."""
    where = [(p.line, p.offset) for p in found(report, kind)]
    assert (line, offset_of(data, line)) in where, (kind, line, report.problems)


# ------------------------------------------------------------------------ damage, line by line

M = chain(["q1", "a1", "q2", "a2"])  # m1 → m2 → m3 → m4


def _malformed() -> tuple[bytes, ProblemKind, int]:
    return jsonl(M[0], M[1], b'{"type":"message","id":"x1",', M[2], M[3]), K.MALFORMED, 4


def _truncated() -> tuple[bytes, ProblemKind, int]:
    return jsonl(M[0], M[1], M[2]) + b'{"type":"message","id":"m4","par', K.TRUNCATED, 5


def _invalid_utf8() -> tuple[bytes, ProblemKind, int]:
    line = orjson.dumps(user("m3", "m2", "caf\u00e9")).replace("é".encode(), b"\xe9")
    return jsonl(M[0], M[1], line), K.INVALID_UTF8, 4


def _duplicate_header() -> tuple[bytes, ProblemKind, int]:
    return jsonl(M[0], orjson.dumps(HEADER), M[1], M[2]), K.DUPLICATE_HEADER, 3


def _duplicate_id() -> tuple[bytes, ProblemKind, int]:
    return jsonl(M[0], M[1], M[2], user("m2", "m3", "again", t=9)), K.DUPLICATE_ID, 5


def _missing_id() -> tuple[bytes, ProblemKind, int]:
    no_id = {k: v for k, v in user("zz", "m2", "x", t=5).items() if k != "id"}
    return jsonl(M[0], M[1], no_id, M[2]), K.MISSING_ID, 4


def _orphan() -> tuple[bytes, ProblemKind, int]:
    return jsonl(M[0], M[1], user("m3", "gone0001", "lost", t=3), M[3]), K.ORPHAN, 4


def _self_parent() -> tuple[bytes, ProblemKind, int]:
    return jsonl(M[0], M[1], user("m3", "m3", "me", t=3), M[3]), K.SELF_PARENT, 4


def _cycle() -> tuple[bytes, ProblemKind, int]:
    # c1 → c2 → c1 off the active path: pi's tree drops them, the leaf m2 is fine
    c1, c2 = user("c1", "c2", "x", t=5), assistant("c2", "c1", "y", t=6)
    return jsonl(c1, c2, M[0], M[1]), K.CYCLE, 2


def _label_missing() -> tuple[bytes, ProblemKind, int]:
    lab = entry("label", "l1", "m2", t=3, targetId="nothere", label="keep")
    return jsonl(M[0], M[1], lab), K.LABEL_TARGET_MISSING, 4


def _parent_after_child() -> tuple[bytes, ProblemKind, int]:
    return (
        jsonl(user("m1", "m2", "q", t=1), assistant("m2", None, "a", t=2)),
        K.PARENT_AFTER_CHILD,
        2,
    )


def _bom() -> tuple[bytes, ProblemKind, int]:
    return b"\xef\xbb\xbf" + jsonl(M[0], M[1]), K.BOM, 1


def _version_trap() -> tuple[bytes, ProblemKind, int]:
    header = {k: v for k, v in HEADER.items() if k != "version"}
    return jsonl(M[0], M[1], header=header), K.VERSION_TRAP, 2


DAMAGE: dict[str, Callable[[], tuple[bytes, ProblemKind, int]]] = {
    "malformed": _malformed,
    "truncated": _truncated,
    "invalid-utf8": _invalid_utf8,
    "duplicate-header": _duplicate_header,
    "duplicate-id": _duplicate_id,
    "missing-id": _missing_id,
    "orphan": _orphan,
    "self-parent": _self_parent,
    "cycle": _cycle,
    "label-target-missing": _label_missing,
    "parent-after-child": _parent_after_child,
    "bom": _bom,
    "version-trap": _version_trap,
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_each_damage_is_found_at_its_line_and_offset(tmp_path: Path, name: str) -> None:
    data, kind, line = DAMAGE[name]()
    report = diagnose_file(write(tmp_path, data))
    assert report.status == "problems" and not report.healthy
    assert_at(report, kind, data, line)
    assert doctor.severity(kind) in ("error", "warning")
    # the same content from memory: same findings
    memory = diagnose_bytes(data, str(tmp_path / "s.jsonl"))
    assert memory.problems == report.problems


def test_a_healthy_file_has_no_problem_and_loads_everywhere(tmp_path: Path) -> None:
    data = jsonl(*M)
    report = diagnose_file(write(tmp_path, data))
    assert report.healthy and report.status == "ok" and report.problems == []
    assert outcomes(report) == ("loads", "loads")
    assert report.entries == 4 and report.version == 3 and report.size == len(data)


def test_reading_never_writes(tmp_path: Path) -> None:
    for name, make in DAMAGE.items():
        path = write(tmp_path, make()[0], f"{name}.jsonl")
        before = (path.read_bytes(), path.stat().st_mtime_ns)
        diagnose_file(path)
        assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_an_unfinished_last_line_of_a_fresh_file_is_pending_not_damage(tmp_path: Path) -> None:
    data = jsonl(M[0], M[1]) + b'{"type":"message","id":"m3"'
    report = diagnose_file(write(tmp_path, data, settled=False))
    (pending,) = found(report, K.PENDING)
    assert (pending.line, pending.offset) == (4, offset_of(data, 4))
    assert report.healthy and doctor.severity(K.PENDING) == "note"
    assert not found(report, K.TRUNCATED)
    # once the file is old, the same tail is a truncated line
    old = diagnose_file(write(tmp_path, data, "old.jsonl"))
    assert_at(old, K.TRUNCATED, data, 4)
    assert any("appends one" in note for note in pi(old)[1].notes)


def test_several_damages_are_all_reported(tmp_path: Path) -> None:
    data = jsonl(
        M[0],
        b"\x00junk",
        M[1],
        orjson.dumps(HEADER),
        user("m3", "nowhere", t=3),
        user("m2", "m1", "dup", t=4),
    )
    report = diagnose_file(write(tmp_path, data))
    assert_at(report, K.MALFORMED, data, 3)
    assert_at(report, K.DUPLICATE_HEADER, data, 5)
    assert_at(report, K.ORPHAN, data, 6)
    assert_at(report, K.DUPLICATE_ID, data, 7)
    lines = [p.line for p in report.problems]
    assert lines == sorted(lines)


# ------------------------------------------------------------------------- pi's verdicts


def test_bom_pi_0_73_loads_pi_1_refuses(tmp_path: Path) -> None:
    report = diagnose_file(write(tmp_path, DAMAGE["bom"]()[0]))
    assert outcomes(report) == ("loads", "refuses")
    assert "byte order mark" in pi(report)[1].reason


def test_a_cycle_on_the_leaf_path_hangs_pi(tmp_path: Path) -> None:
    c1, c2 = user("c1", "c2", "x", t=1), assistant("c2", "c1", "y", t=2)
    data = jsonl(c1, c2)
    report = diagnose_file(write(tmp_path, data))
    assert_at(report, K.CYCLE, data, 2)
    assert outcomes(report) == ("hangs", "hangs")
    # a self-parent leaf too
    selfish = diagnose_file(write(tmp_path, jsonl(M[0], user("m2", "m2", t=2)), "self.jsonl"))
    assert outcomes(selfish) == ("hangs", "hangs")
    # a cycle elsewhere: pi loads, its tree lacks the loop
    elsewhere = diagnose_file(write(tmp_path, DAMAGE["cycle"]()[0], "elsewhere.jsonl"))
    assert outcomes(elsewhere) == ("loads", "loads")
    assert any("loop" in n for n in pi(elsewhere)[0].notes)


def test_a_null_line_crashes_pi_0_73_only(tmp_path: Path) -> None:
    data = jsonl(M[0], b"null", M[1])
    report = diagnose_file(write(tmp_path, data))
    assert_at(report, K.MALFORMED, data, 3)
    assert outcomes(report) == ("crashes", "loads")


def test_a_json_value_before_the_header_makes_pi_refuse_what_pitui_reads(tmp_path: Path) -> None:
    data = b"[1]\n" + jsonl(M[0], M[1])
    report = diagnose_file(write(tmp_path, data))
    assert_at(report, K.MALFORMED, data, 1)
    assert report.entries == 2  # pitui still reads the session
    assert outcomes(report) == ("overwrites", "refuses")
    # pi 1.x skips falsy values (`0`), pi 0.73.1 does not
    zero = diagnose_file(write(tmp_path, b"0\n" + jsonl(M[0]), "zero.jsonl"))
    assert outcomes(zero) == ("overwrites", "loads")


def test_a_json_value_after_the_last_entry_becomes_pi_s_leaf(tmp_path: Path) -> None:
    # pi keeps it as an entry: it is the leaf, the context is empty, a loop above is not walked
    c1, c2 = user("c1", "c2", "x", t=1), assistant("c2", "c1", "y", t=2)
    data = jsonl(c1, c2, b"[1]")
    report = diagnose_file(write(tmp_path, data))
    assert_at(report, K.MALFORMED, data, 4)
    assert outcomes(report) == ("loads", "loads")
    for verdict in pi(report):
        assert any("line 4 is an array" in n and "empty context" in n for n in verdict.notes)
    # pi 1.x skips falsy values: `0` is no leaf there, and the loop hangs it
    zero = diagnose_file(write(tmp_path, jsonl(c1, c2, b"0"), "zero.jsonl"))
    assert outcomes(zero) == ("loads", "hangs")


def test_old_formats_are_notes_and_say_pi_rewrites_them(tmp_path: Path) -> None:
    legacy = FIXTURES / "pi-legacy" / "before-compaction.jsonl"
    report = diagnose_file(legacy)
    assert report.healthy and report.status == "ok" and report.version == 1
    assert [p.kind for p in report.problems] == [K.MIGRATED]
    assert outcomes(report) == ("loads", "loads")
    assert any("rewrites the file as version 3" in n for n in pi(report)[0].notes)
    trap = diagnose_file(write(tmp_path, DAMAGE["version-trap"]()[0]))
    assert any("branches are lost" in n for n in pi(trap)[0].notes)


# --------------------------------------------------------------------------- file-level cases


def test_empty_and_blank_files(tmp_path: Path) -> None:
    empty = diagnose_file(write(tmp_path, b"", "empty.jsonl"))
    assert empty.status == "empty" and not empty.healthy
    assert [(p.kind, p.line, p.offset) for p in empty.problems] == [(K.EMPTY, 1, 0)]
    assert outcomes(empty) == ("new-session", "new-session")
    blank = diagnose_file(write(tmp_path, b"\n  \n\t\n", "blank.jsonl"))
    assert blank.status == "empty"
    assert outcomes(blank) == ("new-session", "refuses")  # 1.x: a non-zero size is not empty


def test_not_a_session(tmp_path: Path) -> None:
    data = b"garbage\n" + orjson.dumps(user("m1", None)) + b"\n" + orjson.dumps(HEADER) + b"\n"
    report = diagnose_file(write(tmp_path, data))
    assert report.status == "not-a-session" and not report.healthy
    (problem,) = report.problems
    assert (problem.kind, problem.line, problem.offset) == (K.NOT_A_SESSION, 2, 8)
    assert outcomes(report) == ("overwrites", "refuses")
    assert "data loss" in pi(report)[0].reason


def test_v4_harness_file(tmp_path: Path) -> None:
    data = b'{"kind":"header","version":4,"id":"x"}\n{"kind":"event","n":1}\n'
    report = diagnose_file(write(tmp_path, data))
    assert report.status == "unsupported"
    assert [(p.kind, p.line, p.offset) for p in report.problems] == [(K.UNSUPPORTED_FORMAT, 1, 0)]
    assert "v4" in report.problems[0].reason
    assert outcomes(report) == ("overwrites", "refuses")


def test_unreadable_directory_fifo_and_missing_file(tmp_path: Path) -> None:
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)  # opening it would wait for a writer forever: it is never opened
    for path in (folder, fifo, tmp_path / "missing.jsonl"):
        report = diagnose_file(path)
        assert report.status == "unreadable" and not report.healthy
        (problem,) = report.problems
        assert problem.kind is K.UNREADABLE and problem.line == 0
        assert "\n" not in problem.reason
        assert outcomes(report) == ("unreadable", "unreadable")


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root reads a mode-000 file anyway (the directory case runs as root)"
)
def test_unreadable_permission(tmp_path: Path) -> None:
    path = write(tmp_path, jsonl(*M))
    path.chmod(0)
    try:
        report = diagnose_file(path)
    finally:
        path.chmod(0o644)
    assert report.status == "unreadable"
    assert "Permission denied" in report.problems[0].reason


# ---------------------------------------------------------------------------- what is big


def test_largest_entries_say_what_their_bytes_are(tmp_path: Path) -> None:
    picture = "A" * 200_000
    images = user("m1", None, t=1)
    images["message"]["content"] = [
        {"type": "text", "text": "look"},
        {"type": "image", "data": picture, "mimeType": "image/png"},
        {"type": "image", "data": picture[:50_000], "mimeType": "image/png"},
    ]
    call = assistant("m2", "m1", t=2, stop="toolUse", content=[
        {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}
    ])  # fmt: skip
    result = entry("message", "m3", "m2", t=3, message={
        "role": "toolResult", "toolCallId": "t1", "toolName": "bash", "isError": False,
        "content": [{"type": "text", "text": "line\n" * 20_000}], "timestamp": 3,
    })  # fmt: skip
    data = jsonl(images, call, result, assistant("m4", "m3", "done", t=4))
    report = diagnose_file(write(tmp_path, data))
    assert report.healthy
    first, second = report.largest[:2]
    assert (first.uid, first.kind, first.images, first.line) == ("m1", "image", 2, 2)
    assert first.offset == offset_of(data, 2) and first.length == len(data.split(b"\n")[1])
    assert 250_000 <= first.parts["image"] <= 250_010  # the base64 data with its quotes
    assert (second.uid, second.kind, second.role) == ("m3", "tool output", "toolResult")
    assert second.parts["tool output"] > 100_000  # "\n" is two bytes in the line
    assert [b.length for b in report.largest] == sorted(
        (b.length for b in report.largest), reverse=True
    )
    # bytes by kind cover every entry line (with its newline), the biggest kind first
    header_line = len(data.split(b"\n")[0]) + 1
    assert sum(report.bytes_by_kind.values()) == len(data) - header_line
    assert next(iter(report.bytes_by_kind)) == "user"


def test_largest_is_limited(tmp_path: Path) -> None:
    path = write(tmp_path, jsonl(*chain([f"t{i}" for i in range(12)])))
    assert len(diagnose_file(path).largest) == doctor.LARGEST
    assert diagnose_file(path, largest=0).largest == []


# ------------------------------------------------------------------------ rewrite leftovers


def test_stale_temp_files_of_an_interrupted_rewrite(tmp_path: Path) -> None:
    path = write(tmp_path, jsonl(*M))
    stale = tmp_path / ".s.jsonl.ab12cd_9.tmp"
    stale.write_bytes(b"half")
    past = time.time() - 3600
    os.utime(stale, (past, past))
    fresh = tmp_path / ".s.jsonl.zz99zz99.tmp"
    fresh.write_bytes(b"")
    (tmp_path / ".other.jsonl.ab12cd34.tmp").write_bytes(b"x")  # another file's leftover
    (tmp_path / ".s.jsonl.tmp").write_bytes(b"x")  # not the mkstemp pattern
    report = diagnose_file(path)
    assert sorted(os.path.basename(t.path) for t in report.temp_files) == [
        ".s.jsonl.ab12cd_9.tmp",
        ".s.jsonl.zz99zz99.tmp",
    ]
    (problem,) = found(report, K.STALE_TEMP)
    assert ".s.jsonl.ab12cd_9.tmp" in problem.reason and problem.line == 0
    assert not report.healthy and report.status == "problems"
    stale.unlink()
    report = diagnose_file(path)
    assert report.healthy  # a temp file seconds old may be a rewrite running now
    assert [t.stale for t in report.temp_files] == [False]


def test_find_temp_files_names_the_target(tmp_path: Path) -> None:
    (tmp_path / ".gone.jsonl.abcdefgh.tmp").write_bytes(b"12345")
    (temp,) = doctor.find_temp_files(str(tmp_path), now=time.time() + 3600)
    assert temp.target == str(tmp_path / "gone.jsonl") and temp.size == 5 and temp.stale
    assert doctor.find_temp_files(str(tmp_path / "nope")) == []


# ------------------------------------------------------------------------------- many files


def _comparable(report: FileReport) -> dict[str, Any]:
    data = report.to_json()
    for temp in data["tempFiles"]:
        temp.pop("ageSeconds")
    return data


def test_diagnose_paths_in_parallel_matches_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [str(write(tmp_path, make()[0], f"{name}.jsonl")) for name, make in DAMAGE.items()]
    paths.append(str(tmp_path / "missing.jsonl"))
    serial = [diagnose_file(p) for p in paths]
    monkeypatch.setattr(doctor, "PARALLEL_MIN_BYTES", 0)
    seen: list[tuple[int, int]] = []
    parallel = diagnose_paths(paths, workers=2, progress=lambda d, t: seen.append((d, t)))
    assert [r.path for r in parallel] == paths
    assert [_comparable(r) for r in parallel] == [_comparable(r) for r in serial]
    assert seen[-1] == (len(paths), len(paths))


# ---------------------------------------------------------------------------------- fixtures

# What pi itself wrote oddly into the fixtures (their READMEs say so): kind and line.
KNOWN_ODD = {
    ("pi-written", "opened-empty-then-continued"): [(K.DUPLICATE_HEADER, 2)],
    ("pi-written", "fork-createBranchedSession"): [(K.ORPHAN, 8)],
}


def _fixture_files() -> list[tuple[str, str, Path]]:
    out: list[tuple[str, str, Path]] = []
    for corpus in ("pi-written", "pi-written-1.6.0"):
        expected = load_expected(corpus)
        for rel, record in sorted(expected["sessions"].items()):
            out.append((corpus, record["scenario"], FIXTURES / corpus / "agent" / rel))
    return out


def test_fixtures_are_healthy_except_what_pi_wrote_oddly() -> None:
    files = _fixture_files()
    reports = diagnose_paths([str(p) for _, _, p in files])
    for (corpus, scenario, _), report in zip(files, reports, strict=True):
        odd = KNOWN_ODD.get((corpus, scenario), [])
        assert [(p.kind, p.line) for p in report.problems] == odd, (corpus, scenario)
        assert report.healthy == (not odd)
        assert outcomes(report) == ("loads", "loads"), (corpus, scenario)
        assert bool(report.largest) == bool(report.bytes_by_kind) == (report.entries > 0)


def test_a_copied_fixture_with_a_leftover_is_reported(tmp_path: Path) -> None:
    source = _fixture_files()[0][2]
    copy = tmp_path / source.name
    shutil.copy2(source, copy)
    leftover = tmp_path / f".{source.name}.k2j4h5g6.tmp"
    leftover.write_bytes(source.read_bytes()[:100])
    past = time.time() - 3600
    os.utime(leftover, (past, past))
    (report,) = diagnose_paths([str(copy)])
    assert [p.kind for p in report.problems] == [K.STALE_TEMP]
    assert report.temp_files[0].path == str(leftover)
