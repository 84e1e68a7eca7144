"""The store: scopes, pi's listing order, progress, custom session directories, picker search."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from pitui.core import pools
from pitui.core.pools import pool_context
from pitui.core.store import SessionInfo, Store, sort_sessions
from pitui.core.units import format_age
from tests.conftest import CORPORA, FIXTURES, PI_LISTED_KEYS, load_expected
from tests.core.sessiondata import HEADER, assistant, chain, entry, jsonl, ts, user

BOTH = pytest.mark.parametrize("use_index", [False, True], ids=["no-index", "index"])


def relative(sessions: list[SessionInfo], agent: Path) -> list[str]:
    return [os.path.relpath(s.path, agent) for s in sessions]


def make_store(agent: Path, tmp_path: Path, use_index: bool, **kwargs: Any) -> Store:
    return Store(agent=agent, use_index=use_index, index_path=tmp_path / "index.sqlite3", **kwargs)


def write_session(
    path: Path, *entries: dict[str, Any] | bytes, header: dict[str, Any] | None = None
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(*entries, header=header if header is not None else HEADER))
    return path


# ------------------------------------------------------------------------------ pi's listings


@BOTH
@pytest.mark.parametrize("corpus", CORPORA)
def test_list_all_matches_pi(corpus: str, tmp_path: Path, use_index: bool) -> None:
    expected = load_expected(corpus)
    agent = FIXTURES / corpus / "agent"
    for _ in range(2):  # the second time from the index
        with make_store(agent, tmp_path, use_index, cwd="/") as store:
            sessions = store.load("all")
            assert relative(sessions, agent) == expected["listAll"]
            assert store.warnings == []
            for info in sessions:
                record = expected["sessions"][os.path.relpath(info.path, agent)]["list"]
                got = info.to_json()
                for key in PI_LISTED_KEYS:
                    assert got[key] == record[key], (info.path, key)
                assert got["allMessagesTextLength"] == record["allMessagesTextLength"]


@BOTH
@pytest.mark.parametrize("corpus", CORPORA)
def test_list_by_cwd_matches_pi(corpus: str, tmp_path: Path, use_index: bool) -> None:
    expected = load_expected(corpus)
    agent = FIXTURES / corpus / "agent"
    for cwd, want in expected["listByCwd"].items():
        with make_store(agent, tmp_path, use_index, cwd=cwd) as store:
            assert relative(store.load("current"), agent) == want, cwd


def test_listing_never_creates_directories(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    cache = tmp_path / "cache"
    with Store(agent=agent, cwd="/home/ana/proj", use_index=False) as store:
        assert store.load("current") == []
        assert store.load("all") == []
    assert not agent.exists()
    with Store(agent=agent, cwd="/home/ana/proj", index_path=cache / "i.sqlite3") as store:
        assert store.load("all") == []
    assert not agent.exists()
    assert cache.exists()  # the index, and only the index, creates its own directory


def test_no_index_does_not_create_the_cache_dir(tmp_path: Path) -> None:
    agent = FIXTURES / "pi-written" / "agent"
    cache_home = Path(os.environ["XDG_CACHE_HOME"])
    with Store(agent=agent, cwd="/", use_index=False) as store:
        assert len(store.load("all")) == len(load_expected("pi-written")["listAll"])
        store.load_texts(store.load("all"))
    assert not cache_home.exists()


# ------------------------------------------------------------------------------ F25 and progress


@BOTH
def test_f25_all_lists_subdirectories_only(tmp_path: Path, use_index: bool) -> None:
    root = tmp_path / "agent" / "sessions"
    x = write_session(root / "a" / "x.jsonl", *chain(["x"]), header={**HEADER, "id": "x"})
    y = write_session(root / "a" / "y.jsonl", *chain(["y"]), header={**HEADER, "id": "y"})
    z = write_session(root / "b" / "z.jsonl", *chain(["z"]), header={**HEADER, "id": "z"})
    write_session(root / "top.jsonl", *chain(["top"]), header={**HEADER, "id": "top"})
    (root / "a" / "notes.txt").write_text("not a session")
    reports: list[tuple[int, int]] = []
    with make_store(tmp_path / "agent", tmp_path, use_index) as store:
        sessions = store.load("all", progress=lambda n, total: reports.append((n, total)))
    assert sorted(s.path for s in sessions) == sorted(str(p) for p in (x, y, z))
    assert reports == [(1, 3), (2, 3), (3, 3)]


def test_progress_counts_every_jsonl_name(tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    write_session(folder / "good.jsonl", *chain(["a"]))
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "dir.jsonl").mkdir()
    (folder / "broken.jsonl").symlink_to(folder / "missing")
    reports: list[tuple[int, int]] = []
    with make_store(tmp_path / "agent", tmp_path, True) as store:
        sessions = store.load("all", progress=lambda n, total: reports.append((n, total)))
        assert [s.path for s in sessions] == [str(folder / "good.jsonl")]
        assert reports[-1] == (4, 4)
        reports.clear()
        assert [s.path for s in store.load("all", progress=lambda *a: reports.append(a))] == [
            str(folder / "good.jsonl")
        ]
        assert reports[-1] == (4, 4)


def test_iter_load_gives_cached_rows_first_then_parsed_ones(tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for i in range(5):
        write_session(
            folder / f"s{i}.jsonl", *chain([f"text {i}"]), header={**HEADER, "id": f"{i}"}
        )
    with make_store(tmp_path / "agent", tmp_path, True) as store:
        store.load("all")
        write_session(folder / "new.jsonl", *chain(["new"]), header={**HEADER, "id": "new"})
        batches = list(store.iter_load("all"))
    assert [len(b) for b in batches] == [5, 1]
    assert batches[1][0].id == "new"


def test_cold_first_batch_is_the_newest_files_before_any_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pools, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(pools, "HEAD_BYTES", 600)
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for i in range(12):  # s11 newest; s10 too big for the calling thread
        text = "x" * (2000 if i == 10 else 10)
        write_session(
            folder / f"s{i:02d}.jsonl", user(text, None, "u", t=i), header={**HEADER, "id": f"{i}"}
        )
    started: list[object] = []
    real_run = pools.run_tasks

    def run(*args: Any) -> Any:
        started.append(args)
        return real_run(*args)

    monkeypatch.setattr(pools, "run_tasks", run)
    with make_store(tmp_path / "agent", tmp_path, True, workers=2) as store:
        batches = store.iter_load("all")
        first = next(batches)
        assert not started  # no pool imported or started yet
        assert [s.id for s in first] == ["11", "9", "8", "7"]
        rest = [s.id for batch in batches for s in batch]
    assert sorted(rest, key=int) == ["0", "1", "2", "3", "4", "5", "6", "10"]


def test_cancel_stops_loading(tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for i in range(40):
        write_session(folder / f"s{i:02d}.jsonl", *chain(["x"]), header={**HEADER, "id": f"{i}"})
    cancel = threading.Event()
    seen = 0
    with make_store(tmp_path / "agent", tmp_path, True) as store:
        for batch in store.iter_load("all", cancel=cancel):
            seen += len(batch)
            cancel.set()
    assert 0 < seen < 40


def test_sort_is_newest_first_then_path(tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for name, t in (("b", 5), ("a", 5), ("c", 9), ("d", 1)):
        write_session(
            folder / f"{name}.jsonl", user("u", None, name, t=t), header={**HEADER, "id": name}
        )
    with make_store(tmp_path / "agent", tmp_path, False) as store:
        assert [s.id for s in store.load("all")] == ["c", "a", "b", "d"]
        assert [s.id for s in sort_sessions(reversed(store.load("all")))] == ["c", "a", "b", "d"]


@pytest.mark.parametrize("workers", [1, 2])
def test_process_pool_gives_the_same_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(pools, "POOL_MIN_BYTES", 0)
    agent = FIXTURES / "pi-written" / "agent"
    with make_store(agent, tmp_path, False, cwd="/", workers=workers) as store:
        pooled = [s.to_json() for s in store.load("all")]
    with make_store(agent, tmp_path, False, cwd="/", workers=1) as store:
        plain = [s.to_json() for s in store.load("all")]
    assert pooled == plain


def test_a_listing_of_many_folders_forks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    for n in range(40):
        for k in range(n % 3 + 1):
            write_session(root / f"--f{n}--" / f"s{k}.jsonl", user("u1", None, f"hi {n} {k}"))
    (root / "--f1--" / "notes.txt").write_text("not a session")
    (root / "--f2--" / "dir.jsonl").mkdir()  # a name that is no regular file
    (root / "--f5--" / "link.jsonl").symlink_to(root / "--f0--" / "s0.jsonl")
    (root / "--f6--" / "dangling.jsonl").symlink_to(root / "gone.jsonl")
    (root / "--linked--").symlink_to(root / "--f3--", target_is_directory=True)

    def fork() -> int:
        raise AssertionError("the store forked")

    with make_store(agent, tmp_path, False, cwd="/") as plain:
        want = plain.listed_json("all")
        monkeypatch.setattr(os, "fork", fork)
        for use_index in (True, True, False):  # cold, warm, no index
            with make_store(agent, tmp_path, use_index, cwd="/") as store:
                assert store.listed_json("all") == want
                assert len(store.load("all")) == len(plain.load("all")) == 81


# ------------------------------------------------------------------------------ custom directories


@BOTH
def test_custom_session_dir_filters_current_folder_by_header_cwd(
    tmp_path: Path, use_index: bool
) -> None:
    custom = tmp_path / "custom"
    mine = write_session(custom / "mine.jsonl", *chain(["a"]), header={**HEADER, "cwd": "/w/p"})
    write_session(custom / "other.jsonl", *chain(["b"]), header={**HEADER, "id": "o", "cwd": "/x"})
    write_session(custom / "nocwd.jsonl", *chain(["c"]), header={**HEADER, "id": "n", "cwd": ""})
    dotted = write_session(
        custom / "dotted.jsonl", *chain(["d"]), header={**HEADER, "id": "d", "cwd": "/w/q/../p/"}
    )
    agent = tmp_path / "agent"
    kwargs: dict[str, Any] = {"cwd": "/w/p", "session_dir": str(custom)}
    with make_store(agent, tmp_path, use_index, **kwargs) as store:
        assert {s.path for s in store.load("current")} == {str(mine), str(dotted)}
        assert len(store.load("all")) == 4  # listAll of a custom directory: everything in it
    assert not agent.exists()


def test_custom_dir_that_is_the_default_one_does_not_filter(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--w-p--"
    write_session(folder / "s.jsonl", *chain(["a"]), header={**HEADER, "cwd": "/elsewhere"})
    with make_store(agent, tmp_path, True, cwd="/w/p", session_dir=str(folder)) as store:
        assert len(store.load("current")) == 1


def test_custom_dir_with_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write_session(tmp_path / "pisessions" / "s.jsonl", *chain(["a"]))
    with Store(cwd="/", session_dir="~/pisessions", use_index=False) as store:
        assert [s.path for s in store.load("all")] == [str(tmp_path / "pisessions" / "s.jsonl")]


# ------------------------------------------------------------------------------ picker search


def picker_store(tmp_path: Path, sessions: list[tuple[str, int, str, str | None]]) -> Store:
    """Sessions (id, time, user text, name) in one folder."""
    folder = tmp_path / "agent" / "sessions" / "--p--"
    for sid, t, text, name in sessions:
        lines: list[dict[str, Any]] = [user("u1", None, text, t=t)]
        if name is not None:
            lines.append(entry("session_info", "n1", "u1", t=t, name=name))
        write_session(folder / f"{sid}.jsonl", *lines, header={**HEADER, "id": sid})
    return Store(agent=tmp_path / "agent", cwd="/", index_path=tmp_path / "i.sqlite3")


def ids(store: Store, query: str, mode: Any = "threaded", named: bool = False) -> list[str]:
    return [row.item.id for row in store.rows(store.load("all"), query, mode, named)]


def test_u3_name_is_searched(tmp_path: Path) -> None:
    store = picker_store(tmp_path, [("a", 5, "first of A", None), ("b", 3, "x", "Fork of A")])
    assert ids(store, '"fork of"') == ["b"]
    assert ids(store, "") == ["a", "b"]


def test_u4_recent_keeps_input_order(tmp_path: Path) -> None:
    store = picker_store(
        tmp_path,
        [
            ("newer", 300, "brave", None),
            ("older", 100, "brave", None),
            ("nomatch", 400, "something else", None),
        ],
    )
    assert ids(store, '"brave"', "recent") == ["newer", "older"]


def test_u5_relevance_lower_index_wins(tmp_path: Path) -> None:
    store = picker_store(
        tmp_path, [("late", 300, "xxxx brave", None), ("early", 100, "brave xxxx", None)]
    )
    assert ids(store, '"brave"', "relevance") == ["early", "late"]


def test_u6_phrase_across_whitespace(tmp_path: Path) -> None:
    store = picker_store(
        tmp_path,
        [("yes", 2, "node\n\n   cve was discussed", None), ("no", 1, "node something else", None)],
    )
    assert ids(store, '"node cve"') == ["yes"]


def test_u7_u8_regex(tmp_path: Path) -> None:
    store = picker_store(
        tmp_path, [("yes", 2, "Brave is great", None), ("no", 1, "bravery is not the same", None)]
    )
    assert ids(store, r"re:\bbrave\b") == ["yes"]
    for mode in ("threaded", "recent", "relevance"):
        assert ids(store, "re:(", mode) == []
        assert ids(store, "re:", mode) == []


def test_u9_unclosed_quote_and_id(tmp_path: Path) -> None:
    store = picker_store(
        tmp_path, [("abc-id", 2, "brave words", None), ("q", 1, 'say "unclosed brave', None)]
    )
    assert ids(store, '"unclosed brave') == ["q"]
    assert ids(store, "abc") == ["abc-id"]


def test_u10_named_filter(tmp_path: Path) -> None:
    store = picker_store(
        tmp_path,
        [
            ("n1", 4, "blueberry", "One"),
            ("n2", 3, "blueberry", "   "),
            ("n3", 2, "blueberry", ""),
            ("n4", 1, "blueberry", "Four"),
        ],
    )
    assert ids(store, "blueberry", "recent", named=True) == ["n1", "n4"]
    assert ids(store, "", "recent", named=True) == ["n1", "n4"]


def test_threaded_forest_links_forks(tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    parent = write_session(
        folder / "parent.jsonl", user("u", None, "p", t=1), header={**HEADER, "id": "parent"}
    )
    write_session(
        folder / "child.jsonl",
        user("u", None, "c", t=5),
        header={**HEADER, "id": "child", "parentSession": str(parent)},
    )
    write_session(folder / "other.jsonl", user("u", None, "o", t=3), header={**HEADER, "id": "o"})
    with Store(agent=tmp_path / "agent", cwd="/", use_index=False) as store:
        rows = store.rows(store.load("all"), "", "threaded")
    assert [(r.item.id, r.depth) for r in rows] == [("parent", 0), ("child", 1), ("o", 0)]


def test_search_loads_texts_from_the_index(tmp_path: Path) -> None:
    store = picker_store(tmp_path, [("a", 2, "alpha words", None), ("b", 1, "beta words", None)])
    store.load("all")  # fill the index
    fresh = Store(agent=tmp_path / "agent", cwd="/", index_path=tmp_path / "i.sqlite3")
    sessions = fresh.load("all")
    assert all(s.all_messages_text is None for s in sessions)  # a listing does not read texts
    assert [row.item.id for row in fresh.rows(sessions, "beta")] == ["b"]
    assert sessions[1].all_messages_text == "beta words"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (30, "now"),
        (59 * 60, "59m"),
        (23 * 3600, "23h"),
        (6 * 86400, "6d"),
        (29 * 86400, "4w"),
        (40 * 86400, "1mo"),
        (400 * 86400, "1y"),
        (-60, "now"),
    ],
)
def test_u20_age(seconds: int, text: str) -> None:
    assert format_age(1_000_000_000_000 - seconds * 1000, 1_000_000_000_000) == text


def test_extras(tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    m = chain(["a", "b"])
    label = entry("label", "l1", "m2", t=3, targetId="m1", label="start")
    fork = user("f1", "m1", "c", t=4)
    path = write_session(
        folder / "s.jsonl",
        *m,
        label,
        fork,
        assistant("f2", "f1", "d", t=5, provider="openai", model="gpt-x"),
    )
    with Store(agent=tmp_path / "agent", cwd="/", use_index=False) as store:
        (info,) = store.load("all")
    assert info.size == path.stat().st_size
    assert info.branch_count == 2 and info.entry_count == 5
    assert info.labels == {"m1": "start"}
    assert info.last_model == "openai/gpt-x"
    assert info.total_tokens == 30 and info.cost == pytest.approx(0.06)
    assert info.modified_iso == ts(5)


def test_pool_from_a_threaded_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With other threads running (a UI), workers start from a fork server, not by fork."""
    monkeypatch.setattr(pools, "POOL_MIN_BYTES", 0)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert pool_context().get_start_method() == "forkserver"
        agent = FIXTURES / "pi-written" / "agent"
        with make_store(agent, tmp_path, True, cwd="/", workers=2) as store:
            pooled = [s.to_json() for s in store.load("all")]
    finally:
        stop.set()
        other.join()
    with make_store(agent, tmp_path, False, cwd="/", workers=1) as store:
        assert pooled == [s.to_json() for s in store.load("all")]
