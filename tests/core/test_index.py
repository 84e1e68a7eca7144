"""The disposable index: it never changes an answer, survives damage and locks; full-text search."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pitui.core.file_summary as file_summary_module
import pitui.core.summary as summary_module
from pitui.core.fulltext import TextHit, fts_match_expression, hit_snippet
from pitui.core.index import Index
from pitui.core.migrate import v1_id
from pitui.core.store import Store
from tests.conftest import FIXTURES, fixture_by_scenario
from tests.core.sessiondata import HEADER, assistant, chain, entry, jsonl, user

FOLDER = "--home-ana-proj--"


def listing(store: Store) -> list[dict[str, Any]]:
    out = []
    for info in store.load("all"):
        store.load_texts([info])
        out.append({**info.to_json(), "text": info.all_messages_text})
    return out


def reference(agent: Path) -> list[dict[str, Any]]:
    with Store(agent=agent, cwd="/home/ana/proj", use_index=False) as store:
        return listing(store)


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    folder = tmp_path / "agent" / "sessions" / FOLDER
    folder.mkdir(parents=True)
    for i in range(4):
        header = {**HEADER, "id": f"s{i}"}
        (folder / f"s{i}.jsonl").write_bytes(
            jsonl(*chain([f"hello {i}", f"reply {i}", f"again {i}"]), header=header)
        )
    return tmp_path / "agent"


def indexed(agent: Path, tmp_path: Path, *, collect_texts: bool = True) -> Store:
    return Store(
        agent=agent,
        cwd="/home/ana/proj",
        index_path=tmp_path / "index.sqlite3",
        collect_texts=collect_texts,
    )


def _append(path: Path) -> None:
    with open(path, "ab") as handle:
        handle.write(jsonl(user("x1", "m3", "appended words", t=50), header=None))


def _append_label_only(path: Path) -> None:
    with open(path, "ab") as handle:
        handle.write(
            jsonl(entry("label", "l9", "m3", t=60, targetId="m1", label="mark"), header=None)
        )


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"\n") + 1])  # the header only


def _truncate_then_grow(path: Path) -> None:
    data = path.read_bytes()
    head = data[: data.index(b"\n") + 1]
    path.write_bytes(head + jsonl(*chain(["different", "longer than before " * 20]), header=None))


def _replace_by_rename(path: Path) -> None:
    other = path.with_suffix(".tmp")
    other.write_bytes(jsonl(*chain(["replacement"]), header={**HEADER, "id": "new-id"}))
    os.replace(other, path)


def _delete(path: Path) -> None:
    path.unlink()


def _rewrite_same_size(path: Path) -> None:
    data = path.read_bytes()
    stat = path.stat()
    path.write_bytes(data.replace(b"hello", b"HELLO"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))


def _rewrite_end_and_grow(path: Path) -> None:
    data = path.read_bytes()
    with open(path, "r+b") as handle:  # same inode: edited in place near the end, then appended
        handle.write(data.replace(b"again", b"AGAIN"))
    _append(path)


def _touch(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


CHANGES: dict[str, Callable[[Path], None]] = {
    "append": _append,
    "append-label": _append_label_only,
    "truncate": _truncate,
    "truncate-then-grow": _truncate_then_grow,
    "replace-by-rename": _replace_by_rename,
    "delete": _delete,
    "rewrite-in-place": _rewrite_same_size,
    "rewrite-end-and-grow": _rewrite_end_and_grow,
    "touch": _touch,
}


@pytest.mark.parametrize("texts", [True, False], ids=["texts", "texts-on-demand"])
@pytest.mark.parametrize("change", CHANGES)
def test_index_agrees_with_no_index_after_a_change(
    agent: Path, tmp_path: Path, change: str, texts: bool
) -> None:
    # texts=False: each listing reads no message texts, load_texts reads them when asked
    with indexed(agent, tmp_path, collect_texts=texts) as store:
        assert listing(store) == reference(agent)
        CHANGES[change](agent / "sessions" / FOLDER / "s1.jsonl")
        assert listing(store) == reference(agent)
        assert store.warnings == []
    with indexed(agent, tmp_path, collect_texts=texts) as again:  # a new process
        assert listing(again) == reference(agent)


def test_texts_not_read_by_a_listing_are_read_once_when_a_search_needs_them(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with indexed(agent, tmp_path, collect_texts=False) as store:
        sessions = store.load("all")
        assert [s.all_messages_text for s in sessions] == [None] * 4
        assert store.index is not None
        assert store.index.texts([s.path for s in sessions]) == {}
        hits = store.rows(sessions, "again 2", "relevance", False)
        assert [row.item.id for row in hits] == ["s2"]
    read: list[str] = []
    original = file_summary_module.summarise_file

    def spy(path: str, *args: Any, **kwargs: Any) -> Any:
        read.append(path)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(file_summary_module, "summarise_file", spy)
    with indexed(agent, tmp_path, collect_texts=False) as again:  # the index has them now
        sessions = again.load("all")
        again.load_texts(sessions)
        assert sorted(s.all_messages_text or "" for s in sessions)[0] == "hello 0 reply 0 again 0"
    assert read == []


def test_reading_left_out_texts_reports_progress(agent: Path, tmp_path: Path) -> None:
    with indexed(agent, tmp_path, collect_texts=False) as store:
        sessions = store.load("all")
        seen: list[tuple[int, int]] = []
        store.load_texts(sessions, progress=lambda done, total: seen.append((done, total)))
        assert seen and seen[-1] == (4, 4)
        assert all(total == 4 for _, total in seen)
        again: list[tuple[int, int]] = []
        store.load_texts(store.load("all"), progress=lambda d, t: again.append((d, t)))
        assert again == []  # all in the index now: nothing read from the files


def test_texts_left_out_by_a_listing_are_indexed_ahead_of_a_search(
    agent: Path, tmp_path: Path
) -> None:
    with indexed(agent, tmp_path, collect_texts=False) as store:
        sessions = store.load("all")
        assert store.index is not None
        paths = [s.path for s in sessions]
        assert sorted(store.index.without_texts(paths)) == sorted(paths)
        assert store.index_texts(sessions) == 4
        assert store.index.without_texts(paths) == []
        assert [s.all_messages_text for s in sessions] == [None] * 4  # nothing kept in memory
        assert store.index_texts(sessions) == 0  # nothing left to read
        assert listing(store) == reference(agent)


def test_reading_texts_later_keeps_the_full_text_rows(agent: Path, tmp_path: Path) -> None:
    with indexed(agent, tmp_path, collect_texts=False) as store:
        store.sync_fts("all")
        assert [h.entry_id for h in store.text_search("again")] != []
        store.load_texts(store.load("all"))  # each file read again, under the same key
        assert store.index is not None
        assert store.index.fts_todo(s.path for s in store.load("all")) == []
        assert len(store.text_search("again")) == 4


def test_a_folder_that_vanished_drops_out(agent: Path, tmp_path: Path) -> None:
    other = agent / "sessions" / "--other--"
    other.mkdir()
    (other / "o.jsonl").write_bytes(jsonl(*chain(["o"]), header={**HEADER, "id": "o"}))
    with indexed(agent, tmp_path) as store:
        assert len(store.load("all")) == 5
        (other / "o.jsonl").unlink()
        other.rmdir()
        assert len(store.load("all")) == 4
        assert store.index is not None
        assert str(other / "o.jsonl") not in store.index.cached(None)


def test_a_grown_file_is_parsed_from_its_offset(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = agent / "sessions" / FOLDER / "s2.jsonl"
    with indexed(agent, tmp_path) as store:
        store.load("all")
        _append(path)
        starts: list[int] = []
        original = summary_module.SummaryState.read

        def spy(self: Any, lines: Any) -> None:
            starts.append(lines.size - lines.end_offset)  # the bytes left to read
            original(self, lines)

        monkeypatch.setattr(summary_module.SummaryState, "read", spy)
        (info,) = [s for s in store.load("all") if s.id == "s2"]
        assert info.message_count == 4
        appended = len(jsonl(user("x1", "m3", "appended words", t=50), header=None))
        assert starts == [appended]  # only the new line was read


def test_unchanged_files_are_not_read(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with indexed(agent, tmp_path) as store:
        first = [s.to_json() for s in store.load("all")]

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an unchanged file was parsed")

    monkeypatch.setattr("pitui.core.file_summary.summarise_file", fail)  # (store imports it late)
    monkeypatch.setattr("pitui.core.pools.summarise_many", fail)
    with indexed(agent, tmp_path) as store:
        assert [s.to_json() for s in store.load("all")] == first


@pytest.mark.parametrize(
    "damage",
    [b"this is not a database at all" * 100, b"", b"SQLite format 3\x00" + b"\xff" * 5000],
    ids=["garbage", "empty", "bad-pages"],
)
def test_corrupt_index_is_rebuilt_with_a_warning(
    agent: Path, tmp_path: Path, damage: bytes
) -> None:
    with indexed(agent, tmp_path) as store:
        store.load("all")
    for suffix in ("-wal", "-shm"):
        Path(str(tmp_path / "index.sqlite3") + suffix).unlink(missing_ok=True)
    (tmp_path / "index.sqlite3").write_bytes(damage)
    with indexed(agent, tmp_path) as store:
        assert listing(store) == reference(agent)
        warnings = store.warnings
    if damage:
        assert len(warnings) == 1 and "rebuilt" in warnings[0] and "\n" not in warnings[0]
    with indexed(agent, tmp_path) as store:  # the rebuilt file is a good index again
        assert listing(store) == reference(agent)
        assert store.warnings == []


def test_damage_found_while_reading_rebuilds(agent: Path, tmp_path: Path) -> None:
    with indexed(agent, tmp_path) as store:
        store.load("all")
        assert store.index is not None
        store.index.close()
        with open(tmp_path / "index.sqlite3", "r+b") as handle:
            handle.seek(0)
            handle.write(b"garbage garbage garbage")
        for suffix in ("-wal", "-shm"):
            Path(str(tmp_path / "index.sqlite3") + suffix).unlink(missing_ok=True)
        store.index._conn = sqlite3.connect(
            str(tmp_path / "index.sqlite3"), check_same_thread=False
        )
        assert listing(store) == reference(agent)
        assert any("rebuilt" in w for w in store.warnings)


def test_old_schema_is_replaced(agent: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "index.sqlite3")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema', 'ancient')")
    conn.execute("CREATE TABLE files (path TEXT)")
    conn.commit()
    conn.close()
    # what older versions kept beside the index (whole outputs, first pages) goes with it
    leftovers = [tmp_path / "index.sqlite3.out-0123abcd", tmp_path / "first-page-89ab.marshal"]
    for leftover in leftovers:
        leftover.write_bytes(b"old")
    (tmp_path / "notes.txt").write_bytes(b"not ours")
    with indexed(agent, tmp_path) as store:
        assert listing(store) == reference(agent)
        assert store.warnings == []
    assert not any(leftover.exists() for leftover in leftovers)
    assert (tmp_path / "notes.txt").exists()


def test_locked_index_still_lists_correctly(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pitui.core.index.BUSY_TIMEOUT_MS", 50)
    with indexed(agent, tmp_path) as store:
        store.load("all")
    holder = sqlite3.connect(tmp_path / "index.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing for a long time
    try:
        _append(agent / "sessions" / FOLDER / "s0.jsonl")
        with indexed(agent, tmp_path) as store:
            assert listing(store) == reference(agent)
            assert any("locked" in w for w in store.warnings)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with indexed(agent, tmp_path) as store:
        assert listing(store) == reference(agent)


def test_two_stores_share_the_index(agent: Path, tmp_path: Path) -> None:
    with indexed(agent, tmp_path) as one, indexed(agent, tmp_path) as two:
        assert listing(one) == listing(two) == reference(agent)
        _append(agent / "sessions" / FOLDER / "s3.jsonl")
        assert listing(two) == listing(one) == reference(agent)
        assert one.warnings == two.warnings == []


def test_unusable_cache_dir_falls_back_to_memory(agent: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    with Store(agent=agent, cwd="/", index_path=blocker / "index.sqlite3") as store:
        assert listing(store) == reference(agent)
        assert len(store.warnings) == 1 and "in memory" in store.warnings[0]


def test_lone_surrogates_and_odd_file_names(agent: Path, tmp_path: Path) -> None:
    folder = agent / "sessions" / FOLDER
    line = (
        b'{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        b'"message":{"role":"user","content":"lone \\ud83d here","timestamp":1735689601000}}'
    )
    (folder / "lone.jsonl").write_bytes(jsonl(line, header={**HEADER, "id": "lone"}))
    odd = os.fsencode(str(folder)) + b"/bad-\xff-name.jsonl"
    with open(odd, "wb") as handle:
        handle.write(jsonl(*chain(["odd name"]), header={**HEADER, "id": "odd"}))
    for _ in range(2):
        with indexed(agent, tmp_path) as store:
            got = listing(store)
            assert got == reference(agent)
            assert store.warnings == []
    assert any(item["firstMessage"] == "lone \ud83d here" for item in got)


# ------------------------------------------------------------------------------ full text


def fts_store(agent: Path, tmp_path: Path) -> Store:
    store = indexed(agent, tmp_path)
    store.sync_fts("all")
    return store


def test_fts_hit_names_session_and_entry(agent: Path, tmp_path: Path) -> None:
    folder = agent / "sessions" / FOLDER
    tool = entry(
        "message",
        "t1",
        "m3",
        t=10,
        message={
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "bash",
            "content": [{"type": "text", "text": "zebra crossing in the output"}],
            "isError": False,
        },
    )
    custom = entry(
        "custom_message",
        "c1",
        "t1",
        t=11,
        customType="note",
        content="a quokka appears",
        display=True,
    )
    bash = entry(
        "message",
        "b1",
        "c1",
        t=12,
        message={
            "role": "bashExecution",
            "command": "grep narwhal",
            "output": "",
            "exitCode": 1,
        },
    )
    thinking = assistant(
        "a9",
        "b1",
        t=13,
        content=[
            {"type": "thinking", "thinking": "secret ocelot"},
            {"type": "text", "text": "visible"},
        ],
    )
    (folder / "zoo.jsonl").write_bytes(
        jsonl(*chain(["hello zoo"]), tool, custom, bash, thinking, header={**HEADER, "id": "zoo"})
    )
    with fts_store(agent, tmp_path) as store:
        hits = store.text_search("zebra")
        assert [(h.path, h.entry_id, h.kind) for h in hits] == [
            (str(folder / "zoo.jsonl"), "t1", "toolResult")
        ]
        assert "zebra crossing" in hit_snippet(hits[0], "zebra")
        assert [(h.entry_id, h.kind) for h in store.text_search("quokka")] == [
            ("c1", "custom_message")
        ]
        assert [h.entry_id for h in store.text_search("narwhal")] == ["b1"]
        assert store.text_search("ocelot") == []  # thinking is not a message body
        hello = store.text_search("hello")
        assert {(os.path.basename(h.path), h.entry_id) for h in hello} == {
            ("s0.jsonl", "m1"),
            ("s1.jsonl", "m1"),
            ("s2.jsonl", "m1"),
            ("s3.jsonl", "m1"),
            ("zoo.jsonl", "m1"),
        }
        # the entry can be found again from the hit, by id or by byte offset
        from pitui.core.session import Session

        with Session.open(hits[0].path) as session:
            meta = session.get(hits[0].entry_id)
            assert meta is not None and meta.offset == hits[0].offset


def test_fts_follows_appends_and_replacements(agent: Path, tmp_path: Path) -> None:
    path = agent / "sessions" / FOLDER / "s1.jsonl"
    with fts_store(agent, tmp_path) as store:
        assert store.text_search("appended") == []
        _append(path)
        store.sync_fts("all")
        assert [(h.entry_id, os.path.basename(h.path)) for h in store.text_search("appended")] == [
            ("x1", "s1.jsonl")
        ]
        _replace_by_rename(path)
        store.sync_fts("all")
        assert store.text_search("appended") == []
        assert [h.entry_id for h in store.text_search("replacement")] == ["m1"]
        path.unlink()
        store.sync_fts("all")
        assert store.text_search("replacement") == []


def test_fts_scope_and_prefix_and_phrases(agent: Path, tmp_path: Path) -> None:
    other = agent / "sessions" / "--elsewhere--"
    other.mkdir()
    (other / "e.jsonl").write_bytes(
        jsonl(*chain(["hello from elsewhere"]), header={**HEADER, "id": "e", "cwd": "/elsewhere"})
    )
    with fts_store(agent, tmp_path) as store:
        assert len(store.text_search("hello")) == 5
        assert len(store.text_search("hello", scope="current")) == 4
        assert [h.entry_id for h in store.text_search("elsew*")] == ["m1"]
        assert [os.path.basename(h.path) for h in store.text_search('"from elsewhere"')] == [
            "e.jsonl"
        ]
        assert store.text_search('"elsewhere from"') == []
        assert store.text_search("") == []
        assert store.text_search("hello NOT AND OR ( ) : - ^ *") == []  # operators are words


def test_fts_ids_of_v1_files_and_entries_without_ids(agent: Path, tmp_path: Path) -> None:
    folder = agent / "sessions" / FOLDER
    legacy = FIXTURES / "pi-legacy" / "before-compaction.jsonl"
    (folder / "legacy.jsonl").write_bytes(legacy.read_bytes())
    anon = {
        "type": "message",
        "timestamp": "2025-01-01T00:00:09.000Z",
        "message": {"role": "user", "content": "anonymous wombat"},
    }
    (folder / "anon.jsonl").write_bytes(jsonl(*chain(["x"]), anon, header={**HEADER, "id": "an"}))
    with fts_store(agent, tmp_path) as store:
        (hit,) = store.text_search("wombat")
        assert hit.entry_id == "#3"  # the uid Session gives an entry without id (its line)
        hits = store.text_search("untangle")
        assert hits
        from pitui.core.session import Session

        with Session.open(hits[0].path) as session:
            meta = session.get(hits[0].entry_id)
            assert meta is not None and meta.offset == hits[0].offset
            assert hits[0].entry_id == v1_id(meta.line)


def test_fts_of_a_fixture_corpus(tmp_path: Path) -> None:
    agent = FIXTURES / "pi-written" / "agent"
    path = fixture_by_scenario("pi-written", "real-tools")
    with Store(agent=agent, cwd="/", index_path=tmp_path / "i.sqlite3") as store:
        store.sync_fts("all")
        hits = store.text_search("parsePort", limit=100)
        assert str(path) in {h.path for h in hits}
        assert store.sync_fts("all") == 0  # nothing new to read
        assert store.warnings == []


def test_fts_without_the_cache(agent: Path, tmp_path: Path) -> None:
    cache_home = Path(os.environ["XDG_CACHE_HOME"])
    with Store(agent=agent, cwd="/home/ana/proj", use_index=False) as store:
        store.sync_fts("current")
        assert len(store.text_search("hello", scope="current")) == 4
    assert not cache_home.exists()


def test_fts_orphans_are_dropped_when_many(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pitui.core.index._FTS_ORPHAN_MIN", 2)
    with fts_store(agent, tmp_path) as store:
        assert store.index is not None
        before = store.index.fts_size()
        for i in range(3):
            _replace_by_rename(agent / "sessions" / FOLDER / f"s{i}.jsonl")
        store.sync_fts("all")
        assert store.index.fts_size() < before
        found = sorted(os.path.basename(h.path) for h in store.text_search("replacement"))
        assert found == ["s0.jsonl", "s1.jsonl", "s2.jsonl"]
        assert len(store.text_search("hello")) == 1


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("hello world", '"hello" "world"'),
        ('"two words" and', '"two words" "and"'),
        ('say "unclosed', '"say" "unclosed"'),
        ("pre* *", '"pre"* "*"'),
        ('quote"inside', '"quote" "inside"'),
        ("", None),
        ('  ""  ', None),
    ],
)
def test_fts_match_expression(query: str, expression: str | None) -> None:
    assert fts_match_expression(query) == expression


def test_hit_snippet_of_a_vanished_entry(tmp_path: Path) -> None:
    hit = TextHit(str(tmp_path / "gone.jsonl"), "x", "user", 0, 10, 0.0)
    assert hit_snippet(hit, "x") == ""


def test_index_in_memory_api(tmp_path: Path) -> None:
    with Index(None) as index:
        assert index.cached(None) == {}
        assert index.texts(["nothing"]) == {}
        assert index.fts_search("x") == []
        assert index.warnings == []


def test_broad_queries_come_newest_first(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pitui.core.index.FTS_RANK_MAX", 2)
    folder = agent / "sessions" / FOLDER
    for i in (2, 0, 3, 1):  # s0 is the oldest session, s3 the newest
        path = folder / f"s{i}.jsonl"
        path.write_bytes(jsonl(user("m1", None, f"hello {i}", t=100 * i), header=HEADER))
    with fts_store(agent, tmp_path) as store:
        hits = store.text_search("hello", limit=3)
        assert [os.path.basename(h.path) for h in hits] == ["s3.jsonl", "s2.jsonl", "s1.jsonl"]
        assert all(h.rank is None for h in hits)
        (ranked,) = store.text_search("hello 2", limit=3)
        assert ranked.rank is not None and os.path.basename(ranked.path) == "s2.jsonl"
