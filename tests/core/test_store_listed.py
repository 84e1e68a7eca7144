"""``Store.load_listed`` (what ``pitui list --json`` prints): the same bytes as the full records.

The fast path prints each session's JSON element from its index row; every test compares its
bytes with ``json_text`` of ``SessionInfo.to_json()`` computed without the index, after the
changes the index must notice.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pitui.cli.common import json_text
from pitui.core.search import SortMode
from pitui.core.session_info import listing_element
from pitui.core.store import Scope, Store
from tests.core.sessiondata import HEADER, chain, entry, jsonl, user
from tests.core.test_index import CHANGES, FOLDER

CWD = "/home/ana/proj"


def fast(
    store: Store, scope: Scope = "all", mode: SortMode = "threaded", named: bool = False
) -> bytes:
    elements = [item.listing for item in store.order(store.load_listed(scope), mode, named)]
    assert None not in elements
    return (
        b"[\n" + b",\n".join(e for e in elements if e is not None) + b"\n]" if elements else b"[]"
    )


def slow(
    store: Store, scope: Scope = "all", mode: SortMode = "threaded", named: bool = False
) -> bytes:
    rows = store.rows(store.load(scope), "", mode, named)
    return json_text([row.item.to_json() for row in rows]).encode()


def reference(agent: Path, scope: Scope = "all", mode: SortMode = "threaded") -> bytes:
    with Store(agent=agent, cwd=CWD, use_index=False) as store:
        return slow(store, scope, mode)


def indexed(agent: Path, tmp_path: Path) -> Store:
    return Store(agent=agent, cwd=CWD, index_path=tmp_path / "index.sqlite3")


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    root = tmp_path / "agent" / "sessions"
    for folder, count in ((FOLDER, 4), ("--home-ana-other--", 2)):
        (root / folder).mkdir(parents=True)
        for i in range(count):
            header = {**HEADER, "id": f"{folder}-s{i}"}
            (root / folder / f"s{i}.jsonl").write_bytes(
                jsonl(*chain([f"hello {i}", f"reply {i}", f"again {i}"]), header=header)
            )
    return tmp_path / "agent"


@pytest.mark.parametrize("scope", ["all", "current"])
@pytest.mark.parametrize("change", CHANGES)
def test_listed_bytes_agree_after_a_change(
    agent: Path, tmp_path: Path, change: str, scope: Scope
) -> None:
    with indexed(agent, tmp_path) as store:
        assert fast(store, scope) == reference(agent, scope)
        assert fast(store, scope) == reference(agent, scope)  # from the index rows
        CHANGES[change](agent / "sessions" / FOLDER / "s1.jsonl")
        assert fast(store, scope) == reference(agent, scope)
        assert store.warnings == []
    with indexed(agent, tmp_path) as again:  # a new process: everything from the index
        assert fast(again, scope) == reference(agent, scope)
        assert fast(again, scope) == reference(agent, scope)


def test_without_the_index_too(agent: Path) -> None:
    with Store(agent=agent, cwd=CWD, use_index=False) as store:
        for mode in ("threaded", "recent", "relevance"):
            assert fast(store, "all", mode) == slow(store, "all", mode)


def test_new_files_and_folders_and_vanished_folders(agent: Path, tmp_path: Path) -> None:
    root = agent / "sessions"
    with indexed(agent, tmp_path) as store:
        fast(store)
        (root / FOLDER / "new.jsonl").write_bytes(jsonl(*chain(["new"]), header=HEADER))
        (root / "--fresh--").mkdir()
        (root / "--fresh--" / "f.jsonl").write_bytes(jsonl(*chain(["f"]), header=HEADER))
        (root / "--empty--").mkdir()
        assert fast(store) == reference(agent)
        for name in os.listdir(root / "--home-ana-other--"):
            (root / "--home-ana-other--" / name).unlink()
        (root / "--home-ana-other--").rmdir()
        assert fast(store) == reference(agent)
        assert store.index is not None
        assert not [p for p in store.index.cached(None) if "--home-ana-other--" in p]
    with indexed(agent, tmp_path) as again:
        assert fast(again) == reference(agent)


def test_names_that_are_no_readable_file(agent: Path, tmp_path: Path) -> None:
    folder = agent / "sessions" / FOLDER
    (folder / "dangling.jsonl").symlink_to(folder / "nowhere")
    (folder / "dir.jsonl").mkdir()
    (folder / "link.jsonl").symlink_to(folder / "s2.jsonl")
    total: list[int] = []
    for _ in range(3):
        with indexed(agent, tmp_path) as store:
            assert fast(store) == reference(agent)
            store.load_listed("all", progress=lambda done, count: total.append(count))
    assert set(total) == {9}
    (folder / "nowhere").write_bytes(jsonl(*chain(["now here"]), header=HEADER))
    with indexed(agent, tmp_path) as store:
        assert fast(store) == reference(agent)


def test_terminal_unsafe_characters_are_escaped_like_json_text(agent: Path, tmp_path: Path) -> None:
    text = "c1 \x85 \x9b bidi \u202e \u2066 lines \u2028\u2029 arabic \u061c marks \u200e\u200f"
    folder = agent / "sessions" / FOLDER
    (folder / "odd.jsonl").write_bytes(jsonl(*chain([text]), header={**HEADER, "name": text}))
    for _ in range(2):
        with indexed(agent, tmp_path) as store:
            got = fast(store)
            assert got == reference(agent)
    assert b"\\u0085" in got and b"\\u202e" in got and "\u2028".encode() not in got


def test_lone_surrogates_have_no_stored_element(agent: Path, tmp_path: Path) -> None:
    folder = agent / "sessions" / FOLDER
    line = (
        b'{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        b'"message":{"role":"user","content":"lone \\ud83d here","timestamp":1735689601000}}'
    )
    (folder / "lone.jsonl").write_bytes(jsonl(line, header={**HEADER, "id": "lone"}))
    with indexed(agent, tmp_path) as store:
        for _ in range(2):
            listed = store.load_listed("all")
            assert [item.id for item in listed if item.listing is None] == ["lone"]
            assert slow(store) == reference(agent)


def test_damaged_index_rows_are_not_trusted(agent: Path, tmp_path: Path) -> None:
    with indexed(agent, tmp_path) as store:
        fast(store)
    conn = sqlite3.connect(tmp_path / "index.sqlite3")
    conn.execute("UPDATE files SET brief = X'ff'")
    conn.commit()
    conn.close()
    with indexed(agent, tmp_path) as store:
        assert fast(store) == reference(agent)
        assert fast(store) == reference(agent)


def test_custom_session_dir_filters_by_cwd(tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    custom.mkdir()
    for i, cwd in enumerate([CWD, "/elsewhere", CWD]):
        (custom / f"c{i}.jsonl").write_bytes(
            jsonl(*chain([f"m{i}"]), header={**HEADER, "id": f"c{i}", "cwd": cwd})
        )
    for _ in range(2):
        with Store(
            agent=tmp_path / "agent", cwd=CWD, session_dir=str(custom),
            index_path=tmp_path / "i.sqlite3",
        ) as store:  # fmt: skip
            got = fast(store, "current")
            assert got == slow(store, "current")
    assert got.count(b'"path"') == 2


def test_threaded_forks_through_a_linked_folder(tmp_path: Path) -> None:
    root = tmp_path / "agent" / "sessions"
    real = tmp_path / "real"
    real.mkdir()
    (root).mkdir(parents=True)
    (root / "--linked--").symlink_to(real)
    (root / "--plain--").mkdir()
    parent = real / "parent.jsonl"
    parent.write_bytes(jsonl(user("u", None, "p", t=1), header={**HEADER, "id": "parent"}))
    (root / "--plain--" / "child.jsonl").write_bytes(
        jsonl(
            user("u", None, "c", t=5),
            header={
                **HEADER,
                "id": "child",
                "parentSession": str(root / "--linked--" / "parent.jsonl"),
            },
        )
    )
    (root / "--plain--" / "grandchild.jsonl").write_bytes(
        jsonl(
            user("u", None, "g", t=7),
            header={
                **HEADER,
                "id": "grandchild",
                "parentSession": str(root / "--plain--" / "child.jsonl"),
            },
        )
    )
    for _ in range(2):
        with Store(agent=tmp_path / "agent", cwd="/", index_path=tmp_path / "i.sqlite3") as store:
            got = fast(store)
            assert got == slow(store)
            order = [item.id for item in store.order(store.load_listed("all"))]
    assert order == ["parent", "child", "grandchild"]


def test_process_pool_gives_the_same_bytes(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pitui.core.pools.POOL_MIN_BYTES", 0)
    with Store(agent=agent, cwd=CWD, index_path=tmp_path / "i.sqlite3", workers=2) as store:
        assert fast(store) == reference(agent)


def test_listing_element_joins_to_orjson_indent() -> None:
    import orjson

    from pitui.core.session_info import SessionInfo

    infos = [
        SessionInfo(
            f"/p/{i}.jsonl", f"id{i}", "/cwd", None if i else "name", None, None, i, "iso", i,
            "first \u2028", 3, 1, 2, {"a": "b"} if i else {}, None, 10, 1e-05 * i,
        )
        for i in range(3)
    ]  # fmt: skip
    elements = [listing_element(info) for info in infos]
    joined = b"[\n" + b",\n".join(e for e in elements if e is not None) + b"\n]"
    assert joined == json_text([info.to_json() for info in infos]).encode()
    assert orjson.loads(joined) == [info.to_json() for info in infos]


def test_an_unchanged_store_reads_no_file(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with indexed(agent, tmp_path) as store:
        first = fast(store)

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file was read")

    monkeypatch.setattr("pitui.core.pools.summarise_many", fail)
    with indexed(agent, tmp_path) as store:
        assert fast(store) == first


def test_cli_json_falls_back_for_lone_surrogates(
    agent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.cli import main

    folder = agent / "sessions" / FOLDER
    line = (
        b'{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        b'"message":{"role":"user","content":"lone \\ud83d here \\u2028","timestamp":1}}'
    )
    (folder / "lone.jsonl").write_bytes(jsonl(line, header={**HEADER, "id": "lone"}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    want = reference(agent).decode() + "\n"
    for args in ([], [], ["--no-index"]):
        assert main(["list", "--all", "--json", *args]) == 0
        out = capsys.readouterr().out
        assert out == want
    assert "\\ud83d" in want


def test_cli_json_is_json_text_of_the_records(
    agent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.cli import main

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    for args in (["--all"], ["--all", "--sort", "recent"], ["--cwd", CWD, "--named"]):
        scope: Scope = "all" if "--all" in args else "current"
        mode: SortMode = "recent" if "recent" in args else "threaded"
        with Store(agent=agent, cwd=CWD, use_index=False) as store:
            want = slow(store, scope, mode, named="--named" in args).decode() + "\n"
        for index in ([], [], ["--no-index"]):
            assert main(["list", "--json", *args, *index]) == 0
            assert capsys.readouterr().out == want


@pytest.mark.parametrize("seed", range(300))
def test_threaded_order_is_the_forests_order(seed: int) -> None:
    import random

    from pitui.core.order import threaded_order
    from pitui.core.search import filter_and_sort
    from pitui.core.store import Listed

    rng = random.Random(seed)
    count = rng.randint(0, 40)
    names = [f"/s/{i}.jsonl" for i in range(count)]
    alias = {name: rng.choice(names) if rng.random() < 0.1 else name for name in names}
    items = []
    for name in names:
        roll = rng.random()
        parent = (
            None if roll < 0.4
            else rng.choice(names) if roll < 0.85
            else name if roll < 0.9
            else "/elsewhere/x.jsonl"
        )  # fmt: skip
        modified = rng.randint(0, 6)  # many ties
        items.append(Listed(name, modified, parent, None, "/", name, b""))
    if rng.random() < 0.5:
        items.sort(key=lambda item: (-item.modified, item.path))

    def normalize(path: str) -> str:
        return alias.get(path, path)

    want = [row.item for row in filter_and_sort(items, "", "threaded", False, normalize)]
    assert threaded_order(items, normalize) == want


def test_a_folder_follows_a_series_of_changes(agent: Path, tmp_path: Path) -> None:
    folder = agent / "sessions" / FOLDER
    for i in range(4, 60):
        (folder / f"s{i}.jsonl").write_bytes(
            jsonl(*chain([f"more {i}"]), header={**HEADER, "id": f"more{i}"})
        )

    steps: list[Callable[[], object]] = [
        lambda: CHANGES["append"](folder / "s1.jsonl"),
        lambda: CHANGES["delete"](folder / "s2.jsonl"),
        lambda: (folder / "fresh.jsonl").write_bytes(jsonl(*chain(["fresh"]), header=HEADER)),
        lambda: CHANGES["replace-by-rename"](folder / "s1.jsonl"),
        lambda: [CHANGES["touch"](folder / f"s{i}.jsonl") for i in range(5, 50)],
        lambda: CHANGES["truncate"](folder / "s3.jsonl"),
    ]
    with indexed(agent, tmp_path) as store:
        assert fast(store) == reference(agent)
        for step in steps:
            step()
            for _ in range(2):
                with indexed(agent, tmp_path) as again:
                    assert fast(again) == reference(agent)
        assert fast(store) == reference(agent)


def grown_file_reads(
    agent: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    listing: Callable[[Store], bytes],
) -> tuple[list[tuple[str, bool]], Path]:
    """List once, grow one file, list again: the files read then (and whether each was read
    from where it stopped), and the grown file."""
    from pitui.core import pools

    with indexed(agent, tmp_path) as store:
        listing(store)
    grown = agent / "sessions" / FOLDER / "s1.jsonl"
    CHANGES["append"](grown)
    want = reference(agent)
    read: list[tuple[str, bool]] = []
    original = pools.summarise_many

    def summarise_many(tasks: list[tuple[str, Any]], texts: bool = True) -> list[Any]:
        read.extend((path, resume is not None) for path, resume in tasks)
        return original(tasks, texts)

    monkeypatch.setattr(pools, "summarise_many", summarise_many)
    with indexed(agent, tmp_path) as store:
        assert listing(store) == want
    return read, grown


def test_a_grown_file_costs_its_row_and_its_new_lines(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read, grown = grown_file_reads(agent, tmp_path, monkeypatch, fast)
    assert read == [(str(grown), True)]


# ------------------------------------------------------------------------------------------------
# Store.listed_json: the whole output


def whole(
    store: Store, scope: Scope = "all", mode: SortMode = "threaded", named: bool = False
) -> bytes:
    output = store.listed_json(scope, mode, named)
    assert output is not None
    return output


def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file was parsed")

    monkeypatch.setattr("pitui.core.pools.summarise_many", fail)


@pytest.mark.parametrize("scope", ["all", "current"])
@pytest.mark.parametrize("change", CHANGES)
def test_whole_output_agrees_after_a_change(
    agent: Path, tmp_path: Path, change: str, scope: Scope
) -> None:
    modes: tuple[tuple[SortMode, bool], ...] = (
        ("threaded", False),
        ("recent", False),
        ("threaded", True),
    )
    for mode, named in modes:
        with indexed(agent, tmp_path) as store:
            assert whole(store, scope, mode, named) == slow(store, scope, mode, named)
    CHANGES[change](agent / "sessions" / FOLDER / "s1.jsonl")
    for mode, named in modes:
        for _ in range(2):  # the changed file read, then all from the index
            with indexed(agent, tmp_path) as store:
                got = whole(store, scope, mode, named)
            with Store(agent=agent, cwd=CWD, use_index=False) as plain:
                assert got == slow(plain, scope, mode, named)
                assert whole(plain, scope, mode, named) == got


def test_an_unchanged_store_is_answered_by_the_index_rows(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    want = reference(agent)
    with indexed(agent, tmp_path) as store:
        assert whole(store) == want
    no_parsing(monkeypatch)
    with indexed(agent, tmp_path) as store:
        assert whole(store) == want


def test_a_grown_file_is_the_only_one_read(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read, grown = grown_file_reads(agent, tmp_path, monkeypatch, whole)
    assert read == [(str(grown), True)]


def test_new_and_vanished_files_and_folders_in_the_whole_output(
    agent: Path, tmp_path: Path
) -> None:
    root = agent / "sessions"
    with indexed(agent, tmp_path) as store:
        whole(store)
    (root / FOLDER / "new.jsonl").write_bytes(jsonl(*chain(["new"]), header=HEADER))
    (root / "--fresh--").mkdir()
    (root / "--fresh--" / "f.jsonl").write_bytes(jsonl(*chain(["f"]), header=HEADER))
    (root / FOLDER / "notes.jsonl").write_bytes(b"not a session\n")
    with indexed(agent, tmp_path) as store:
        assert whole(store) == reference(agent)
    for name in os.listdir(root / "--home-ana-other--"):
        (root / "--home-ana-other--" / name).unlink()
    (root / "--home-ana-other--").rmdir()
    for _ in range(2):
        with indexed(agent, tmp_path) as store:
            assert whole(store) == reference(agent)
            assert store.index is not None
            assert not [p for p in store.index.cached(None) if "--home-ana-other--" in p]


def test_a_file_read_with_an_error_is_not_kept_in_the_output(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.core import pools
    from pitui.core.file_summary import FileSummary

    failing = str(agent / "sessions" / FOLDER / "s2.jsonl")
    original = pools.summarise_many

    def flaky(tasks: list[tuple[str, object]], texts: bool = True) -> list[FileSummary]:
        results = original(tasks, texts)  # type: ignore[arg-type]
        return [
            FileSummary(r.path, (0, 0, 0, 0), error="EACCES") if r.path == failing else r
            for r in results
        ]

    monkeypatch.setattr(pools, "summarise_many", flaky)
    with indexed(agent, tmp_path) as store:
        assert failing.encode() not in whole(store)
    monkeypatch.setattr(pools, "summarise_many", original)
    with indexed(agent, tmp_path) as store:  # the file reads now, unchanged: it is listed
        assert whole(store) == reference(agent)
        assert failing.encode() in whole(store)


def test_a_parent_link_that_resolves_elsewhere_is_noticed(tmp_path: Path) -> None:
    root = tmp_path / "agent" / "sessions"
    for folder in ("--a--", "--b--", "--plain--"):
        (root / folder).mkdir(parents=True)
        (root / folder / "parent.jsonl").write_bytes(
            jsonl(user("u", None, folder, t=1), header={**HEADER, "id": f"parent{folder}"})
        )
    alias = tmp_path / "alias"
    alias.symlink_to(root / "--a--")
    (root / "--plain--" / "child.jsonl").write_bytes(
        jsonl(
            user("u", None, "c", t=5),
            header={**HEADER, "id": "child", "parentSession": str(alias / "parent.jsonl")},
        )
    )

    def both() -> tuple[bytes, bytes]:
        from pitui.core import paths

        paths._cached_real_path.cache_clear()  # (as a new process: resolved afresh)
        with Store(agent=tmp_path / "agent", cwd="/", index_path=tmp_path / "i.sqlite3") as store:
            got = whole(store)
        with Store(agent=tmp_path / "agent", cwd="/", use_index=False) as plain:
            return got, slow(plain)

    got, want = both()
    assert got == want
    alias.unlink()
    alias.symlink_to(root / "--b--")
    got_after, want_after = both()
    assert got_after == want_after != want


def test_whole_output_without_the_index_and_with_a_custom_dir(tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    custom.mkdir()
    for i, cwd in enumerate([CWD, "/elsewhere", CWD]):
        (custom / f"c{i}.jsonl").write_bytes(
            jsonl(*chain([f"m{i}"]), header={**HEADER, "id": f"c{i}", "cwd": cwd})
        )
    for scope in ("current", "all"):
        for _ in range(2):
            with Store(
                agent=tmp_path / "agent", cwd=CWD, session_dir=str(custom),
                index_path=tmp_path / "i.sqlite3",
            ) as store:  # fmt: skip
                assert whole(store, scope) == slow(store, scope)
    with Store(agent=tmp_path / "agent", cwd=CWD, session_dir=str(custom), use_index=False) as s:
        assert whole(s, "current") == slow(s, "current")
        assert whole(s, "current").count(b'"path"') == 2


@pytest.mark.parametrize("named", [False, True])
def test_grown_sessions_take_their_new_place_in_the_threaded_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: bool
) -> None:

    root = tmp_path / "agent" / "sessions"
    layout = {  # name: (folder, last message time, parent session, session name)
        "a": ("--x--", 10, None, "alpha"),
        "b": ("--x--", 20, "a", "beta"),
        "c": ("--x--", 20, None, "gamma"),
        "d": ("--y--", 30, None, None),
        "e": ("--y--", 5, "b", "epsilon"),
        "f": ("--y--", 20, None, "phi"),
        "g": ("--x--", 40, None, "gee"),
        "h": ("--y--", 15, "h", "self"),
    }
    files: dict[str, Path] = {}
    for key, (folder, *_) in layout.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        files[key] = root / folder / f"{key}.jsonl"
    for key, (_, t, parent, name) in layout.items():
        header: dict[str, object] = {**HEADER, "id": key}
        if parent is not None:
            header["parentSession"] = str(files[parent])
        lines = [user("u1", None, key, t=t)]
        if name is not None:
            lines.append(entry("session_info", "n1", "u1", t=1, name=name))
        files[key].write_bytes(jsonl(*lines, header=header))

    def check() -> None:
        with Store(agent=tmp_path / "agent", cwd="/", index_path=tmp_path / "i.sqlite3") as s:
            got = whole(s, "all", "threaded", named)
        with Store(agent=tmp_path / "agent", cwd="/", use_index=False) as plain:
            assert got == slow(plain, "all", "threaded", named)

    def grow(*keys_and_times: tuple[str, int]) -> None:
        for key, t in keys_and_times:
            with files[key].open("ab") as handle:
                handle.write(jsonl(user(f"u{t}", "u1", "more", t=t), header=None))

    check()
    steps: list[tuple[tuple[str, int], ...]] = [
        (("c", 50),),  # alone, to the top
        (("f", 40),),  # a tie with g (by path)
        (("e", 60),),  # inside a tree: the tree moves to the top
        (("a", 61),),  # a tree's root
        (("d", 61), ("g", 61), ("b", 70)),  # several at once, ties
        (("h", 80),),  # its own parent
        (("c", 80), ("f", 80)),
    ]
    for step in steps:
        grow(*step)
        check()
    if named:  # a session whose name goes is left out
        grow(("c", 90))
        with files["c"].open("ab") as handle:
            handle.write(jsonl(entry("session_info", "n2", "u90", t=90, name=" "), header=None))
        check()
