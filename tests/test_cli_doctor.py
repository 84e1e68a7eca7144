"""``pitui doctor``: human and JSON output, exit codes (0 healthy, 1 problems, 2 usage), scopes,
terminal safety of what it prints from damaged files."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import orjson

from pitui.core.paths import session_dir_for
from tests.conftest import FIXTURES, Run, load_expected
from tests.core.sessiondata import HEADER, chain, jsonl, user

EXPECTED = load_expected("pi-written")


def scenario(root: Path, name: str) -> Path:
    rel: str = next(k for k, r in EXPECTED["sessions"].items() if r["scenario"] == name)
    return root / rel


def settled(path: Path, data: bytes | None = None) -> Path:
    """Write ``data`` (if given) and age the file: not "being written by pi"."""
    if data is not None:
        path.write_bytes(data)
    past = time.time() - 3600
    os.utime(path, (past, past))
    return path


def damaged(folder: Path, name: str = "damaged.jsonl") -> tuple[Path, bytes]:
    m = chain(["q1", "a1", "q2"])
    data = jsonl(m[0], b'{"type":"message","id":', m[1], user("m3", "gone", t=3))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return settled(path), data


# ------------------------------------------------------------------------------ one file


def test_a_healthy_file_exits_0(run: Run) -> None:
    path = scenario(FIXTURES / "pi-written" / "agent", "large-content")
    code, out, err = run("doctor", str(path))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{path}: healthy"
    assert "  pi 0.73.1  loads it" in lines and "  pi 1.x     loads it" in lines
    assert "largest entries" in out and "tool output" in out and "by kind" in out


def test_a_damaged_file_exits_1_with_lines_and_offsets(run: Run, tmp_path: Path) -> None:
    path, data = damaged(tmp_path)
    code, out, _ = run("doctor", str(path))
    assert code == 1
    assert out.splitlines()[0] == f"{path}: 1 error, 1 warning"
    bad = data.index(b'{"type":"message","id":\n')
    orphan = data.index(b'{"type":"message","id":"m3"')
    assert f"error    line 3 (byte {bad}): malformed: " in out
    assert f"warning  line 5 (byte {orphan}): orphan: parent 'gone'" in out


def test_json_output(run: Run, tmp_path: Path) -> None:
    path, data = damaged(tmp_path)
    code, out, _ = run("doctor", str(path), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["healthy"] is False
    assert report["summary"] == {"files": 1, "healthy": 0, "withProblems": 1}
    (file,) = report["files"]
    assert file["path"] == str(path) and file["status"] == "problems" and file["size"] == len(data)
    assert [(p["kind"], p["severity"], p["line"]) for p in file["problems"]] == [
        ("malformed", "error", 3),
        ("orphan", "warning", 5),
    ]
    assert file["problems"][1]["offset"] == data.index(b'{"type":"message","id":"m3"')
    assert file["pi"]["0.73.1"]["loads"] is True and file["pi"]["1.x"]["outcome"] == "loads"
    assert {"id", "line", "offset", "bytes", "kind", "parts", "images"} <= set(file["largest"][0])


def test_file_level_cases(run: Run, tmp_path: Path) -> None:
    empty = settled(tmp_path / "empty.jsonl", b"")
    v4 = tmp_path / "v4.jsonl"
    v4.write_bytes(b'{"kind":"header","version":4}\n')
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    for path, headline in (
        (empty, "empty: 1 warning"),
        (v4, "unsupported format: 1 error"),
        (folder, "unreadable: 1 error"),
        (tmp_path / "missing.jsonl", "unreadable: 1 error"),
    ):
        code, out, err = run("doctor", str(path))
        assert (code, err) == (1, ""), path
        assert out.splitlines()[0] == f"{path}: {headline}"


def test_terminal_safe_output(run: Run, tmp_path: Path) -> None:
    evil = "\x1b]0;pwned\x07\x1b[31m\x9b2J\u202e"
    data = jsonl(user("m1", evil, t=1), header={**HEADER, "cwd": evil})
    path = settled(tmp_path / "evil.jsonl", data)
    code, out, _ = run("doctor", str(path))
    assert code == 1 and "orphan" in out
    assert not any(ch in out for ch in "\x1b\x07\x9b\u202e")
    code, out, _ = run("doctor", str(path), "--json")
    assert not any(ch in out for ch in "\x1b\x07\x9b\u202e")
    assert "pwned" in json.loads(out)["files"][0]["problems"][0]["reason"]


# ---------------------------------------------------------------------------------- scopes


def test_all_reports_the_odd_fixtures_and_a_damaged_file(run: Run, agent: Path) -> None:
    folder = session_dir_for("/home/alice/code/webapp", agent)
    path, _ = damaged(folder)
    leftover = folder / ".deleted.jsonl.abcd1234.tmp"
    leftover.write_bytes(b"{")
    settled(leftover)
    code, out, err = run("doctor", "--all")
    assert (code, err) == (1, "")
    odd = [
        scenario(agent, "opened-empty-then-continued"),
        scenario(agent, "fork-createBranchedSession"),
    ]
    for bad in [*odd, path]:
        assert f"{bad}: " in out
    assert "duplicate-header" in out and "orphan" in out and "malformed" in out
    assert f"{leftover}: leftover temp file of deleted.jsonl" in out
    assert "checked 27 files: 24 healthy, 3 with problems" in out
    assert "largest files" in out
    code, out, _ = run("doctor", "--all", "--json")
    report = orjson.loads(out)
    assert code == 1 and report["summary"] == {"files": 27, "healthy": 24, "withProblems": 3}
    assert [t["path"] for t in report["leftoverTempFiles"]] == [str(leftover)]


def test_current_folder_by_default(run: Run, agent: Path) -> None:
    code, out, _ = run("doctor", "--cwd", "/home/alice/code/webapp")
    expected = sum(1 for rel in EXPECTED["sessions"] if "--home-alice-code-webapp--" in rel)
    assert code == 0
    assert out.splitlines()[0] == f"checked {expected} files: {expected} healthy, 0 with problems"
    damaged(session_dir_for("/home/alice/code/webapp", agent))
    code, _, _ = run("doctor", "--cwd", "/home/alice/code/webapp")
    assert code == 1
    code, out, _ = run("doctor", "--cwd", "/nowhere/at/all")
    assert (code, out) == (0, "no session files found\n")


def test_an_unreadable_entry_in_a_folder(run: Run, agent: Path) -> None:
    folder = session_dir_for("/srv/data/etl-pipeline", agent)
    (folder / "not-a-file.jsonl").mkdir()
    code, out, _ = run("doctor", "--cwd", "/srv/data/etl-pipeline", "--json")
    report = json.loads(out)
    assert code == 1
    (bad,) = [f for f in report["files"] if not f["healthy"]]
    assert bad["status"] == "unreadable" and bad["problems"][0]["kind"] == "unreadable"


# ----------------------------------------------------------------------------------- usage


def test_usage_errors_exit_2(run: Run, tmp_path: Path) -> None:
    code, _, err = run("doctor", str(tmp_path / "x.jsonl"), "--all")
    assert code == 2 and "not allowed with" in err
    code, _, err = run("doctor", "--bogus")
    assert code == 2


def test_help_names_the_exit_codes(run: Run) -> None:
    code, out, _ = run("doctor", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "0 when every file checked is healthy" in text
    assert "1 when any file has a problem" in text and "2 on a usage error" in text
    code, out, _ = run("--help")
    assert "doctor" in out
