"""``pitui list``: pi's listings as JSON, the table, search, the index switch, full text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pitui.core.units import format_age
from tests.conftest import CORPORA, FIXTURES, PI_LISTED_KEYS, Run, load_expected, run_json
from tests.core.sessiondata import HEADER, chain, entry, jsonl, user

PI_KEYS = ("path", *PI_LISTED_KEYS)  # (pi's own order: `path` first)


@pytest.fixture
def corpus_agent(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    corpus: str = request.param
    agent = FIXTURES / corpus / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    return agent


@pytest.mark.parametrize("corpus_agent", CORPORA, indirect=True)
@pytest.mark.parametrize("index", [[], ["--no-index"]], ids=["index", "no-index"])
def test_list_all_json_is_pis_list(run: Run, corpus_agent: Path, index: list[str]) -> None:
    expected = load_expected(corpus_agent.parent.name)
    for _ in range(2):
        data = run_json(run, "list", "--all", "--sort", "recent", *index)
        assert [os.path.relpath(d["path"], corpus_agent) for d in data] == expected["listAll"]
        for item in data:
            assert os.path.isabs(item["path"])
            record = expected["sessions"][os.path.relpath(item["path"], corpus_agent)]["list"]
            assert list(item)[: len(PI_KEYS)] == list(PI_KEYS)
            for key in PI_KEYS[1:]:
                assert item[key] == record[key], (item["path"], key)


@pytest.mark.parametrize("corpus_agent", CORPORA, indirect=True)
def test_list_by_cwd_json(run: Run, corpus_agent: Path) -> None:
    expected = load_expected(corpus_agent.parent.name)
    for cwd, want in expected["listByCwd"].items():
        data = run_json(run, "list", "--cwd", cwd, "--sort", "recent")
        assert [os.path.relpath(d["path"], corpus_agent) for d in data] == want


@pytest.mark.parametrize("corpus_agent", ["pi-written"], indirect=True)
def test_no_index_equals_index_and_creates_no_cache(run: Run, corpus_agent: Path) -> None:
    cache = Path(os.environ["XDG_CACHE_HOME"])
    run_json(run, "list", "--all", "--search", "x", "--no-index")
    assert not cache.exists()
    for sort in ("threaded", "recent", "relevance"):
        for search in ("", "parse", "re:\\bfix", '"the"'):
            args = ["--all", "--sort", sort, "--search", search]
            plain = run_json(run, "list", *args, "--no-index")
            assert run_json(run, "list", *args) == plain
    assert (cache / "pitui" / "index.sqlite3").exists()


def _folder(agent: Path) -> Path:
    folder = agent / "sessions" / "--home-ana-proj--"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_table_is_the_pickers_rows(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    folder = _folder(agent)
    parent = folder / "parent.jsonl"
    parent.write_bytes(jsonl(*chain(["first of A"]), header={**HEADER, "id": "A"}))
    (folder / "child.jsonl").write_bytes(
        jsonl(
            user("u", None, "first of C", t=9),
            header={**HEADER, "id": "C", "parentSession": str(parent)},
        )
    )
    hostile = user("u", None, "\x1b[31mred\x1b[0m\x07 bell", t=3)
    (folder / "hostile.jsonl").write_bytes(jsonl(hostile, header={**HEADER, "id": "H"}))
    named = entry("session_info", "n", "m1", t=2, name="Named one")
    (folder / "named.jsonl").write_bytes(jsonl(*chain(["x"]), named, header={**HEADER, "id": "N"}))
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run("list", "--cwd", "/home/ana/proj")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("first of A ") and lines[1].startswith("   └─ first of C ")
    assert all(len(line) == 80 for line in lines), lines
    assert "\x1b" not in out and "\x07" not in out
    assert any(line.startswith("[31mred [0m  bell ") for line in lines)  # controls: spaces
    assert lines[0].endswith(" 1 " + format_age(1735689601000))  # messages, age
    code, out, _ = run("list", "--cwd", "/home/ana/proj", "--named")
    assert [line.split("  ")[0] for line in out.splitlines()] == ["Named one"]
    code, out, _ = run("list", "--all", "--search", "zzz-nothing")
    assert out.strip() == "No sessions found."
    code, out, _ = run("list", "--cwd", "/elsewhere")
    assert out.strip() == "No sessions in current folder."


def test_all_scope_shows_the_cwd(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    monkeypatch.setenv("HOME", "/home/ana")
    (_folder(agent) / "s.jsonl").write_bytes(jsonl(*chain(["hello"])))
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run("list", "--all")
    assert code == 0
    assert out.rstrip("\n").endswith(" ~/proj 1 " + format_age(1735689601000))


def test_session_dir_option(run: Run, tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "here.jsonl").write_bytes(jsonl(*chain(["here"]), header={**HEADER, "cwd": "/w"}))
    (custom / "there.jsonl").write_bytes(
        jsonl(*chain(["there"]), header={**HEADER, "id": "t", "cwd": "/x"})
    )
    data = run_json(run, "list", "--session-dir", str(custom), "--cwd", "/w")
    assert [d["firstMessage"] for d in data] == ["here"]
    data = run_json(run, "list", "--session-dir", str(custom), "--all", "--sort", "recent")
    assert sorted(d["firstMessage"] for d in data) == ["here", "there"]


def test_corrupt_index_warns_once_and_answers(run: Run) -> None:
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    (_folder(agent) / "s.jsonl").write_bytes(jsonl(*chain(["hello"])))
    first = run_json(run, "list", "--all")
    index = Path(os.environ["XDG_CACHE_HOME"]) / "pitui" / "index.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(str(index) + suffix).unlink(missing_ok=True)
    index.write_bytes(b"garbage" * 1000)
    code, out, err = run("list", "--all", "--json")
    assert code == 0 and json.loads(out) == first
    assert err.count("\n") == 1 and err.startswith("pitui: warning: index ")
    assert "Traceback" not in err


def test_full_text(run: Run) -> None:
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    folder = _folder(agent)
    path = folder / "s.jsonl"
    path.write_bytes(jsonl(*chain(["find the capybara", "no animals here"])))
    code, out, _ = run("list", "--all", "--fts", "capybara", "--json")
    assert code == 0
    hits = json.loads(out)
    assert [(h["path"], h["entryId"], h["kind"]) for h in hits] == [(str(path), "m1", "user")]
    assert "capybara" in hits[0]["snippet"]
    code, out, _ = run("list", "--cwd", "/home/ana/proj", "--fts", "capybara")
    assert "m1  user" in out and "find the capybara" in out
    code, out, _ = run("list", "--all", "--fts", "unicorn")
    assert out.strip() == "No matches."
    code, out, _ = run("list", "--all", "--fts", "capybara", "--no-index", "--json")
    assert [h["entryId"] for h in json.loads(out)] == ["m1"]


def test_a_regex_too_slow_to_search_is_an_error_not_a_hang(run: Run) -> None:
    # (a+)+$ backtracks exponentially on a long run of "a": the listing stops after a while and
    # says why (pi itself would run for ever), as `pitui rm --match` does
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    (_folder(agent) / "s.jsonl").write_bytes(jsonl(*chain(["a" * 30_000 + "!"])))
    for argv in (["list", "--all", "--search"], ["rm", "--all", "--dry-run", "--match"]):
        code, out, err = run(*argv, "re:(a+)+$")
        assert code == 1 and out == ""
        assert "re: pattern takes too long" in err and "Traceback" not in err
    code, out, _ = run("list", "--all", "--search", "re:(a+)+")
    assert code == 0 and out.startswith("a")
