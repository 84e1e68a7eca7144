"""``pitui labels``: every label of the folder's (or all) sessions, as pi resolves them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pitui.core.paths import session_dir_for
from tests.conftest import CORPORA, FIXTURES, Run, load_expected, run_json
from tests.core.sessiondata import HEADER, entry, jsonl, ts, user


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("index", [[], ["--no-index"]], ids=["index", "no-index"])
def test_labels_all_are_pis_labels(
    run: Run,
    monkeypatch: pytest.MonkeyPatch,
    corpus: str,
    index: list[str],
) -> None:
    agent = FIXTURES / corpus / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    expected = load_expected(corpus)["sessions"]
    want = {
        (str(agent / rel), target, label, record["labelTimestamps"][target])
        for rel, record in expected.items()
        for target, label in record["labels"].items()
    }
    assert want  # (the corpus has labels: the test can fail)
    for _ in range(2):  # cold, then from the index
        data = run_json(run, "labels", "--all", *index)
        got = {(d["path"], d["entryId"], d["label"], d["time"]) for d in data}
        assert got == want and len(data) == len(want)
        times = [d["time"] for d in data]
        assert times == sorted(times, reverse=True)  # newest first


def write(folder: Path, name: str, session_id: str, *entries: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(jsonl(*entries, header={**HEADER, "id": session_id}))
    return path


def test_labels_of_this_folder_table_and_json(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    cwd = str(tmp_path / "proj")
    os.makedirs(cwd)
    monkeypatch.chdir(cwd)
    here = session_dir_for(cwd, agent)
    path = write(
        here, "a.jsonl", "0195aaaa-0000-7000-8000-0000000000aa",
        user("u1", None, "fix the \x1b[31mparser", t=1),
        entry("session_info", "n1", "u1", 2, name="Parser work"),
        entry("label", "l1", "n1", 3, targetId="u1", label="start \x1b[2J here"),
        entry("label", "l2", "l1", 4, targetId="n1", label="gone soon"),
        entry("label", "l3", "l2", 5, targetId="n1", label=""),
    )  # fmt: skip
    elsewhere = session_dir_for(str(tmp_path / "other"), agent)
    write(
        elsewhere, "b.jsonl", "0195bbbb-0000-7000-8000-0000000000bb",
        user("v1", None, "elsewhere", t=1),
        entry("label", "m1", "v1", 9, targetId="v1", label="other folder"),
    )  # fmt: skip
    data = run_json(run, "labels")
    assert data == [
        {
            "label": "start \x1b[2J here",
            "entryId": "u1",
            "time": ts(3),
            "path": str(path),
            "sessionId": "0195aaaa-0000-7000-8000-0000000000aa",
            "sessionName": "Parser work",
            "title": "Parser work",
            "cwd": HEADER["cwd"],
        }
    ]
    code, out, err = run("labels", "--json")
    assert "\x1b" not in out  # JSON output is terminal-safe (escaped)
    code, out, err = run("labels")
    assert code == 0 and err == ""
    (line,) = out.splitlines()
    assert "\x1b" not in line
    assert "start" in line and "Parser work" in line and "0195aaaa u1" in line
    assert [d["label"] for d in run_json(run, "labels", "--all")] == [
        "other folder",
        "start \x1b[2J here",
    ]


def test_no_labels_says_so(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("labels") == (0, "No labels in current folder.\n", "")
    assert run("labels", "--all") == (0, "No labels found.\n", "")
    assert run_json(run, "labels") == []
