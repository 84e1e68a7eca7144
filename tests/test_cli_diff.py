"""``pitui diff PATH|ID A B [--json]`` (issue 23 §2): the report, id prefixes, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.core.sessiondata import HEADER, assistant, jsonl, user
from tests.core.test_diff import branchy_bytes

SESSION_ID = str(HEADER["id"])


@pytest.fixture
def session_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "agent" / "sessions" / "--home-ana-proj--"
    folder.mkdir(parents=True)
    path = folder / f"2025-01-01T00-00-00-000Z_{SESSION_ID}.jsonl"
    path.write_bytes(branchy_bytes())
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    return path


def test_json_report_has_both_sides(run: Run, session_file: Path) -> None:
    before = session_file.read_bytes()
    code, out, err = run("diff", str(session_file), "u3", "a4", "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["relation"] == "diverged" and report["ancestor"] == "u2"
    assert report["sharedEntries"] == 3
    a, b = report["sides"]["a"], report["sides"]["b"]
    assert [e["id"] for e in a["entries"]] == ["a2", "r2", "r2b", "u3"]
    assert a["tools"] == {"edit": 1, "bash": 1}
    assert b["files"] == [
        {"path": "y.txt", "edits": 0, "writes": 1, "failed": 0},
        {"path": "src/x.py", "edits": 1, "writes": 0, "failed": 1},
    ]
    assert b["stats"]["tokens"]["total"] == 206 + 16 and b["stats"]["cost"] == pytest.approx(1.5)
    assert session_file.read_bytes() == before  # never writes


def test_text_report_and_id_prefixes(run: Run, session_file: Path) -> None:
    # the session by id prefix, the entries by unique prefix (u3, a4)
    code, out, err = run("diff", SESSION_ID[:8], "u3", "a4")
    assert (code, err) == (0, "")
    assert "two branches; common ancestor u2 (message/user, line 4), 3 shared entries" in out
    assert "── A: 4 entries, 4 messages, 106 tokens, $0.5000" in out
    assert "    src/x.py  (1 edit, 1 failed)" in out
    assert "  tools: write 1, edit 1" in out
    assert "  r3  [write: y.txt]" in out


def test_an_ancestor_and_the_same_entry(run: Run, session_file: Path) -> None:
    code, out, _ = run("diff", str(session_file), "u1", "u1")
    assert code == 0 and "the same entry" in out
    assert out.count("(nothing after the common ancestor)") == 2
    code, out, _ = run("diff", str(session_file), "a1", "u3", "--json")
    report = json.loads(out)
    assert report["relation"] == "ancestor" and report["sides"]["a"]["entries"] == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["u3", "nope"], "pitui: Entry nope not found\n"),
        (["nope", "a4"], "pitui: Entry nope not found\n"),
        (["a", "u3"], "pitui: entry id prefix 'a' is ambiguous: a1, a2, a3, a4\n"),
    ],
)
def test_unknown_or_ambiguous_entry_is_one_line(
    run: Run, session_file: Path, argv: list[str], message: str
) -> None:
    code, out, err = run("diff", str(session_file), *argv)
    assert (code, out, err) == (1, "", message)


def test_unknown_session_and_missing_argument(run: Run, session_file: Path) -> None:
    code, out, err = run("diff", "ffffffff", "u3", "a4")
    assert (code, out) == (1, "") and err.startswith("pitui: ") and "Traceback" not in err
    code, _, err = run("diff", str(session_file), "u3")
    assert code == 2 and "Missing argument 'B'" in err


def test_hostile_text_cannot_reach_the_terminal(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(user("u1", None, "\x1b]0;owned\x07hi\x9b"), assistant("a1", "u1")))
    code, out, _ = run("diff", str(path), "u1", "a1")
    assert code == 0 and "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    code, out, _ = run("diff", str(path), "a1", "u1", "--json")
    assert code == 0 and "\x1b" not in out and "\x9b" not in out
