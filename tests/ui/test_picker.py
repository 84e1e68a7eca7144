"""The picker driven through the real screen (ui-behaviour §2, scenarios U1-U21), plus delete,
trash failure, undo, rename, resume, --print, the session view and full-text mode."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from shlex import quote

import orjson
import pytest
from rich.cells import cell_len
from textual.widgets import Static

from pitui.core import actions, journal
from pitui.core.session import Session
from pitui.launch import ResumeRequest, run_resume, shell_command
from pitui.ui.app import PrintRequest
from pitui.ui.catalog import FullTextHit
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.picker.state import DELETE_HINT
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.search_input import SearchInput
from pitui.ui.widgets.session_list import SessionList
from tests.core.sessiondata import assistant, chain, entry, user
from tests.fakes.fake_pi import install_fake_pi, read_fake_pi_log
from tests.ui.picker_kit import (
    DAY,
    HOUR,
    MINUTE,
    NOW,
    FakeCatalog,
    FakeItem,
    aged,
    fake_app,
    picker,
    preview_loaded,
    record_statuses,
    row_texts,
    settle,
    static_text,
    store_app,
    titles,
    wait_for,
    write_session,
)

SIZE = (150, 40)
HOME = "/home/ana"  # fake sessions' home; the real $HOME is a temp dir (send2trash stats it)


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def fake_home(monkeypatch: pytest.MonkeyPatch) -> str:
    """$HOME as the fake sessions' home (U19 shortens paths under it)."""
    monkeypatch.setenv("HOME", HOME)
    return HOME


def u1_items() -> list[FakeItem]:
    def item(sid: str, age: float, **kw: object) -> FakeItem:
        return FakeItem(
            path=f"{HOME}/s/{sid}.jsonl",
            id=sid,
            first_message=f"first of {sid}",
            modified=aged(age),
            cwd=f"{HOME}/proj",
            **kw,  # type: ignore[arg-type]
        )

    parent = f"{HOME}/s/A.jsonl"
    return [
        item("A", 5 * MINUTE),
        item("B", 2 * HOUR, parent_session_path=parent, name="Fork of A"),
        item("C", 1 * MINUTE, parent_session_path=parent),
        item("D", 3 * DAY, parent_session_path=f"{HOME}/s/C.jsonl"),
        item("E", 40 * DAY),
        item("F", 400 * DAY, parent_session_path=f"{HOME}/s/missing.jsonl"),
    ]


def u1_catalog() -> FakeCatalog:
    return FakeCatalog(scopes={"current": u1_items(), "all": u1_items()})


def line(left: str, right: str, width: int) -> str:
    return left + " " * (width - cell_len(left) - cell_len(right)) + right


def list_width(app: object) -> int:
    return picker(app).query_one(SessionList).scrollable_content_region.width  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ U1-U3: rows
async def test_u1_threaded_rows() -> None:
    app = fake_app(u1_catalog())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        width = list_width(app)
        assert row_texts(app) == [
            line("› first of A", "3 5m", width),
            line("     ├─ first of C", "3 1m", width),
            line("     │  └─ first of D", "3 3d", width),
            line("     └─ Fork of A", "3 2h", width),
            line("  first of E", "3 1mo", width),
            line("  first of F", "3 1y", width),
        ]
        rows = picker(app).query_one(SessionList).rows
        assert [row.named for row in rows] == [False, False, False, True, False, False]
        # "Fork of A" is drawn in the theme's warning colour
        strip = picker(app).query_one(SessionList).render_line(3)
        warning = app.get_css_variables()["warning"].lower()
        styles = [seg.style for seg in strip if "Fork of A" in seg.text]
        assert styles and styles[0] is not None and styles[0].color is not None
        assert styles[0].color.triplet is not None
        assert styles[0].color.triplet.hex == warning
        assert "Resume Session (Current Folder)" in static_text(app, "#picker-title")
        assert static_text(app, "#picker-modes").endswith(
            "◉ Current Folder | ○ All  Name: All  Sort: Threaded"
        )


async def test_u2_sort_cycle() -> None:
    app = fake_app(u1_catalog())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert static_text(app, "#picker-modes").endswith("Sort: Recent")
        assert titles(app) == [f"first of {x}" for x in "CA"] + ["Fork of A"] + [
            f"first of {x}" for x in "DEF"
        ]
        assert all(not row.prefix for row in picker(app).query_one(SessionList).rows)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert static_text(app, "#picker-modes").endswith("Sort: Fuzzy")
        assert titles(app)[:3] == ["first of C", "first of A", "Fork of A"]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert static_text(app, "#picker-modes").endswith("Sort: Threaded")
        assert titles(app)[:2] == ["first of A", "first of C"]


async def test_u3_search_flattens_then_clearing_restores_the_forest() -> None:
    app = fake_app(u1_catalog())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*'"fork of"')
        await settle(pilot)
        rows = picker(app).query_one(SessionList).rows
        assert [(row.title, row.prefix) for row in rows] == [("Fork of A", "")]
        for _ in range(len('"fork of"')):
            await pilot.press("backspace")
        await settle(pilot)
        assert picker(app).query_one(SessionList).rows[1].prefix == "   ├─ "


# ------------------------------------------------------------------------------ U4-U10: search
def flat(*specs: tuple[str, str, float], name: dict[str, str] | None = None) -> FakeCatalog:
    """Sessions (id, text, epoch-ms modified) in the Current scope."""
    names = name or {}
    items = [
        FakeItem(
            path=f"{HOME}/s/{sid}.jsonl",
            id=sid,
            first_message=text.split("\n")[0],
            text=text,
            modified=modified,
            name=names.get(sid),
        )
        for sid, text, modified in specs
    ]
    return FakeCatalog(scopes={"current": items, "all": list(items)})


JAN = 1735689600000  # 2025-01-01T00:00:00Z in ms


async def type_query(pilot: object, query: str) -> None:
    search = pilot.app.screen.query_one(SearchInput)  # type: ignore[attr-defined]
    assert search.has_focus
    await pilot.press(*query)  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]


def ids(app: object) -> list[str]:
    return [item.id for item in picker(app).listed]  # type: ignore[arg-type]


async def test_u4_recent_keeps_input_order_of_matches() -> None:
    catalog = flat(
        ("newer", "brave", JAN + 2 * DAY),
        ("older", "brave", JAN),
        ("nomatch", "something else", JAN + 3 * DAY),
    )
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await type_query(pilot, '"brave"')
        assert ids(app) == ["newer", "older"]


async def test_u5_fuzzy_orders_by_score_then_newest() -> None:
    catalog = flat(
        ("late", "xxxx brave", JAN + 2 * DAY),
        ("early", "brave xxxx", JAN),
        ("s1", "brave", JAN + 5 * DAY),
        ("s2", "brave", JAN + 6 * DAY),
    )
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s", "ctrl+s")
        await type_query(pilot, '"brave"')
        # s1/s2 score best (short ids); of the two the newer first; then early before late
        assert ids(app) == ["s2", "s1", "early", "late"]


async def test_u6_phrase_normalizes_whitespace() -> None:
    catalog = flat(
        ("yes", "node\n\n   cve was discussed", JAN),
        ("no", "node something else", JAN + 1),
    )
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, '"node cve"')
        assert ids(app) == ["yes"]


async def test_u7_regex_word_boundary() -> None:
    catalog = flat(("yes", "Brave is great", JAN), ("no", "bravery is not the same", JAN + 1))
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, r"re:\bbrave\b")
        assert ids(app) == ["yes"]


@pytest.mark.parametrize("query", ["re:(", "re:"])
@pytest.mark.parametrize("sorts", [0, 1, 2])
async def test_u8_bad_or_empty_regex_gives_nothing(query: str, sorts: int) -> None:
    app = fake_app(u1_catalog())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(sorts):
            await pilot.press("ctrl+s")
        await type_query(pilot, query)
        assert ids(app) == []
        assert list(picker(app).query_one(SessionList).rows) == []


async def test_a_regex_too_slow_to_search_says_so_and_typing_goes_on() -> None:
    # (a+)+$ backtracks exponentially on a long run of "a" that does not end the text: Python's
    # re (and V8: pi) would run for ever and, holding the interpreter, froze the picker
    catalog = flat(("slow", "a" * 30_000 + "!", JAN), ("other", "b", JAN + 1))
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "re:(a+)+$")
        session_list = picker(app).query_one(SessionList)
        await wait_for(pilot, lambda: "takes too long" in session_list.empty_text, what="notice")
        assert ids(app) == [] and list(session_list.rows) == []
        await pilot.press("backspace")  # re:(a+)+ matches at once
        await settle(pilot)
        assert ids(app) == ["slow"]


async def test_u9_unclosed_phrase_and_id_name_matches() -> None:
    catalog = flat(
        ("plain", "unclosed brave", JAN),
        ("quoted", 'say "unclosed brave', JAN + 1),
        ("abc-id", "nothing here", JAN + 2),
    )
    catalog.scopes["current"].append(
        FakeItem(f"{HOME}/s/n.jsonl", "n1", "zzz", JAN + 3, name="my abc session")
    )
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, '"unclosed brave')
        assert ids(app) == ["quoted"]
        picker(app).search.value = ""
        await type_query(pilot, "abc")
        assert sorted(ids(app)) == ["abc-id", "n1"]


async def test_u10_named_filter() -> None:
    catalog = flat(
        ("a", "blueberry pie", JAN),
        ("b", "blueberry jam", JAN + 1),
        ("c", "blueberry tart", JAN + 2),
        ("d", "blueberry cake", JAN + 3),
        ("e", "other", JAN + 4),
        ("f", "other", JAN + 5),
        name={"a": "Pie", "b": "   ", "c": "", "d": "Cake", "e": "Named other"},
    )
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert static_text(app, "#picker-modes").endswith("Name: Named  Sort: Threaded")
        assert sorted(ids(app)) == ["a", "d", "e"]
        await type_query(pilot, "blueberry")
        assert sorted(ids(app)) == ["a", "d"]
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert sorted(ids(app)) == ["a", "b", "c", "d"]


# ------------------------------------------------------------------------------ U11: empty
async def test_u11_empty_current_scope_texts() -> None:
    app = fake_app(FakeCatalog(scopes={"current": [], "all": u1_items()}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert row_texts(app)[0].rstrip() == (
            "  No sessions in current folder. Press Tab to view all."
        )
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert row_texts(app)[0].rstrip() == (
            "  No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
        )


async def test_empty_all_scope_texts() -> None:
    items = [FakeItem(f"{HOME}/s/x.jsonl", "x", "hello", JAN)]
    app = fake_app(FakeCatalog(scopes={"current": items, "all": []}), scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert row_texts(app)[0].rstrip() == "  No sessions found"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert row_texts(app)[0].rstrip() == (
            "  No named sessions found. Press ctrl+n to show all."
        )


# ------------------------------------------------------------------------------ U12-U15: delete
def two_sessions(agent: Path, cwd: str) -> tuple[Path, Path]:
    a = write_session(agent, cwd, "aaaa", chain(["alpha one", "reply"]), name="a.jsonl")
    b_entries = [user("m1", None, "beta two", t=100), assistant("m2", "m1", "ok", t=101)]
    b = write_session(agent, cwd, "bbbb", b_entries, name="b.jsonl")
    return a, b


def agent_dir() -> Path:
    return Path(os.environ["PI_CODING_AGENT_DIR"])


def trashed_files() -> list[Path]:
    from send2trash import plat_other

    files = Path(os.fsdecode(plat_other.HOMETRASH_B)) / "files"
    return sorted(files.iterdir()) if files.exists() else []


async def test_u12_ctrl_backspace_with_a_query_is_an_editing_key(tmp_path: Path) -> None:
    two_sessions(agent_dir(), str(tmp_path))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "a")
        await pilot.press("ctrl+backspace")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmModal)
        assert picker(app).search.value == ""  # the key deleted the word
        await type_query(pilot, "a")
        first = picker(app).selected_item
        assert first is not None
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert picker(app).query_one(SessionList).confirming == first.path
        assert picker(app).search.value == "a"  # ctrl+d did not edit the query


async def test_u13_ctrl_backspace_on_empty_query_deletes_to_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = two_sessions(agent_dir(), str(tmp_path))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        statuses = record_statuses(app, monkeypatch)
        first = picker(app).selected_item
        assert first is not None and first.path == str(b)  # newest first
        await pilot.press("ctrl+backspace")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)
        assert static_text(app, "#picker-hint-1") == DELETE_HINT
        await pilot.press("enter")
        await settle(pilot)
        assert statuses == ["Session moved to trash"]
        assert not b.exists()
        assert [p.name for p in trashed_files()] == ["b.jsonl"]
        assert [item.path for item in picker(app).listed] == [str(a)]


async def test_a_picker_delete_is_a_batch_pitui_restore_gives_back(tmp_path: Path) -> None:
    # the picker deletes through core.actions, as `pitui rm` does: the trash log names the batch
    a, b = two_sessions(agent_dir(), str(tmp_path))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: not b.exists(), what="the delete")
        await settle(pilot)
    assert [[item.original for item in batch] for batch in journal.trash_batches()] == [[str(b)]]
    restored = actions.restore_last(agent_dir() / "sessions")
    assert [item.original for item in restored.restored] == [str(b)] and b.exists() and a.exists()


async def test_u14_other_keys_do_nothing_while_confirming(tmp_path: Path) -> None:
    a, b = two_sessions(agent_dir(), str(tmp_path))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for cancel in ("escape", "ctrl+c"):
            await pilot.press("ctrl+d")
            await pilot.pause()
            modal = app.screen
            assert isinstance(modal, ConfirmModal)
            focused = app.focused
            for key in ("down", "x", "tab", "ctrl+s", "ctrl+n", "ctrl+p", "ctrl+r", "pagedown"):
                await pilot.press(key)
                await pilot.pause()
                assert app.screen is modal
                assert app.focused is focused
            screen = picker(app)
            assert screen.state.scope == "current" and screen.state.sort == "threaded"
            assert not screen.state.named_only and not screen.state.show_path
            assert screen.search.value == "" and screen.query_one(SessionList).selected == 0
            await pilot.press(cancel)
            await settle(pilot)
            assert isinstance(app.screen, PickerScreen)
            assert screen.query_one(SessionList).confirming is None
            assert a.exists() and b.exists()
        assert trashed_files() == []


async def test_u15_cannot_delete_the_current_session() -> None:
    items = u1_items()
    app = fake_app(FakeCatalog(scopes={"current": items}), current_session=items[0].path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert picker(app).selected_item is not None
        assert picker(app).selected_item.path == items[0].path  # type: ignore[union-attr]
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        assert picker(app).status_text == "Cannot delete the currently active session"
        assert "-error" in picker(app).query_one("#picker-hint-1").classes
        assert picker(app).query_one(SessionList).rows[0].current


# ------------------------------------------------------------------------------ U16-U17: scopes
async def test_u16_all_load_finishing_in_the_background() -> None:
    gate = threading.Event()
    catalog = FakeCatalog(scopes={"current": u1_items(), "all": u1_items()}, gates={"all": gate})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        await pilot.pause()
        assert "Resume Session (All)" in static_text(app, "#picker-title")
        assert "○ Current Folder | Loading" in static_text(app, "#picker-modes")
        await pilot.press("tab")
        await pilot.pause()
        assert "Resume Session (Current Folder)" in static_text(app, "#picker-title")
        await pilot.press("tab", "tab")  # All again while it still loads, and back
        await pilot.pause()
        gate.set()
        await settle(pilot)
        assert "Resume Session (Current Folder)" in static_text(app, "#picker-title")
        assert static_text(app, "#picker-modes").startswith("◉ Current Folder | ○ All")
        assert catalog.loads.count("all") == 1
        await pilot.press("tab")
        await settle(pilot)
        assert catalog.loads.count("all") == 1  # cached
        assert len(picker(app).query_one(SessionList).rows) == 6


async def test_the_first_page_is_in_the_first_frame_while_the_load_runs() -> None:
    gate = threading.Event()
    items = u1_items()
    early = items[:3]
    catalog = FakeCatalog(
        scopes={"current": items}, gates={"current": gate}, first_pages={"current": early}
    )
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = picker(app).query_one(SessionList)
        assert sorted(row.path for row in widget.rows) == sorted(item.path for item in early)
        assert "Loading" in static_text(app, "#picker-modes")
        await pilot.press("down")
        assert widget.selected == 1
        gate.set()
        await settle(pilot)
        assert len(widget.rows) == len(items)
        assert "Loading" not in static_text(app, "#picker-modes")


async def test_a_loaded_scope_is_prepared_for_search_after_its_rows_are_shown() -> None:
    gate = threading.Event()
    items = u1_items()
    catalog = FakeCatalog(scopes={"current": items}, gates={"current": gate})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert catalog.prepared == []  # not while the load runs
        gate.set()
        await settle(pilot)
        assert catalog.prepared == [len(items)]
        assert len(picker(app).query_one(SessionList).rows) == len(items)


async def test_u17_nothing_anywhere_closes_the_picker() -> None:
    app = fake_app(FakeCatalog(scopes={"current": [], "all": []}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.is_running
        await pilot.press("tab")
        await settle(pilot)
    assert app.return_value is None
    assert app._exit_renderables == []  # closed normally, no error


# ------------------------------------------------------------------------------ U18: rename
def last_line(path: Path) -> dict[str, object]:
    data: dict[str, object] = orjson.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    return data


def named_session(agent: Path, cwd: str, name: str = "Old") -> Path:
    entries = [
        *chain(["hello there", "hi"]),
        entry("session_info", "si1", "m2", t=3, name=name),
        user("m3", "si1", "more", t=4),
    ]
    return write_session(agent, cwd, "old1", entries, name="old.jsonl")


async def test_u18_rename_writes_session_info_and_shows_it(tmp_path: Path) -> None:
    path = named_session(agent_dir(), str(tmp_path))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "ctrl+r rename" in static_text(app, "#picker-hint-2")
        assert titles(app) == ["Old"]
        await pilot.press("ctrl+r")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, TextInputModal)
        field = modal.query_one("#dialog-input")
        assert field.value == "Old" and field.cursor_position == 3  # type: ignore[attr-defined]
        await pilot.press("ctrl+u", *"New", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        written = last_line(path)
        assert written["type"] == "session_info" and written["name"] == "New"
        assert written["parentId"] == "m3"  # the file's last entry
        assert titles(app) == ["New"]
        assert picker(app).selected_item is not None


@pytest.mark.parametrize("typed", ["", "   "])
async def test_u18_empty_name_keeps_the_panel_open(tmp_path: Path, typed: str) -> None:
    path = named_session(agent_dir(), str(tmp_path))
    before = path.read_bytes()
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("ctrl+u", *typed, "enter")
        await settle(pilot)
        assert isinstance(app.screen, TextInputModal)  # still open, nothing written
        assert path.read_bytes() == before
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        assert path.read_bytes() == before


async def test_rename_is_ignored_while_the_scope_loads() -> None:
    gate = threading.Event()
    catalog = FakeCatalog(scopes={"current": u1_items(), "all": u1_items()}, gates={"all": gate})
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        gate.set()
        await settle(pilot)


# ------------------------------------------------------------------------------ U19-U21: rows
async def test_u19_cwd_and_path_in_the_right_part(fake_home: str) -> None:
    app = fake_app(u1_catalog(), scope="all")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        widget = picker(app).query_one(SessionList)
        assert widget.right_text(widget.rows[0]) == "~/proj 3 5m"
        assert "ctrl+p path (off)" in static_text(app, "#picker-hint-2")
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert widget.right_text(widget.rows[0]) == "~/s/A.jsonl ~/proj 3 5m"
        assert "ctrl+p path (on)" in static_text(app, "#picker-hint-2")
        assert row_texts(app)[0].endswith("~/s/A.jsonl ~/proj 3 5m")
        await pilot.press("tab")
        await settle(pilot)
        assert widget.right_text(widget.rows[0]) == "~/s/A.jsonl 3 5m"


async def test_u20_ages() -> None:
    ages = {
        "now": 30_000,
        "59m": 59 * MINUTE,
        "23h": 23 * HOUR,
        "6d": 6 * DAY,
        "4w": 29 * DAY,
        "1mo": 40 * DAY,
        "1y": 400 * DAY,
        "future": -5 * MINUTE,
    }
    items = [
        FakeItem(f"{HOME}/s/{label}.jsonl", label, label, aged(ms)) for label, ms in ages.items()
    ]
    app = fake_app(FakeCatalog(scopes={"current": items}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        widget = picker(app).query_one(SessionList)
        shown = {row.title: widget.right_text(row).split(" ")[-1] for row in widget.rows}
        assert shown == {label: label for label in ages if label != "future"} | {"future": "now"}


async def test_u21_titles_are_cleaned() -> None:
    items = [
        FakeItem(f"{HOME}/s/a.jsonl", "a", "line1\nline2\ttab", JAN + 2),
        FakeItem(f"{HOME}/s/b.jsonl", "b", "  the message  ", JAN + 1, name="   "),
        FakeItem(f"{HOME}/s/c.jsonl", "c", "x\x1b[31mred\x07", JAN),
    ]
    app = fake_app(FakeCatalog(scopes={"current": items}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert titles(app) == ["line1 line2 tab", "the message", "x [31mred"]
        rows = picker(app).query_one(SessionList).rows
        assert not rows[1].named  # a whitespace-only name is no name
        assert all("\x1b" not in text for text in row_texts(app))


# ------------------------------------------------------------------------------ keys
async def test_navigation_is_clamped_and_pages_by_ten() -> None:
    items = [FakeItem(f"{HOME}/s/{i}.jsonl", f"s{i}", f"session {i}", JAN - i) for i in range(45)]
    app = fake_app(FakeCatalog(scopes={"current": items}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        widget = picker(app).query_one(SessionList)
        await pilot.press("up")
        assert widget.selected == 0
        await pilot.press("pagedown")
        assert widget.selected == 10
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        assert widget.selected == 44
        await pilot.press("down")
        assert widget.selected == 44
        await pilot.pause()
        assert static_text(app, "#picker-position").strip() == "(45/45)"
        await pilot.press("pageup")
        assert widget.selected == 34
        await pilot.press("pageup", "pageup", "pageup", "pageup")
        assert widget.selected == 0
        await pilot.pause()
        assert static_text(app, "#picker-position").strip() == "(1/45)"


@pytest.mark.parametrize(
    "key",
    ["tab", "ctrl+d", "ctrl+c", "ctrl+r", "ctrl+s", "ctrl+n", "ctrl+p", "ctrl+backspace", "enter"],
)
async def test_picker_keys_work_while_the_search_has_focus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """Every key pi's picker needs reaches the picker although the search input is focused."""
    two_sessions(agent_dir(), str(tmp_path))
    install_fake_pi(monkeypatch, tmp_path)
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        search = screen.search
        await pilot.press("e")  # a query ("beta two" / "alpha one" both contain an e)
        await settle(pilot)
        assert search.has_focus and search.value == "e"
        search.cursor_position = 0  # ctrl+d would delete the "e" if the input took it
        await pilot.press(key)
        await settle(pilot)
        if key == "ctrl+backspace":  # with a query: pi hands it to the editor (U12)
            assert isinstance(app.screen, PickerScreen)
            return
        if key in ("ctrl+c", "enter"):
            assert not app.is_running
            if key == "enter":
                assert isinstance(app.return_value, ResumeRequest)
            else:
                assert app.return_value is None
            return
        assert search.value == "e"
        expected = {
            "tab": lambda: screen.state.scope == "all",
            "ctrl+d": lambda: isinstance(app.screen, ConfirmModal),
            "ctrl+r": lambda: isinstance(app.screen, TextInputModal),
            "ctrl+s": lambda: screen.state.sort == "recent",
            "ctrl+n": lambda: screen.state.named_only,
            "ctrl+p": lambda: screen.state.show_path,
        }
        assert expected[key]()


# ------------------------------------------------------------------------------ trash failure
def break_the_trash() -> None:
    """Make the home trash unwritable. Mode bits do not stop root, so as root a plain file takes
    the trash directory's place (nothing can be created inside it either way)."""
    from send2trash import plat_other

    trash_dir = Path(os.fsdecode(plat_other.HOMETRASH_B))
    if os.geteuid() == 0:
        trash_dir.parent.mkdir(parents=True, exist_ok=True)
        trash_dir.write_text("not a directory")
    else:
        trash_dir.parent.mkdir(parents=True, exist_ok=True)
        trash_dir.parent.chmod(0o500)


@pytest.mark.parametrize("second", ["enter", "escape"])
async def test_trash_failure_offers_permanent_delete_behind_a_second_modal(
    tmp_path: Path, second: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = two_sessions(agent_dir(), str(tmp_path))
    break_the_trash()
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        kinds: list[str] = []
        statuses = record_statuses(app, monkeypatch, kinds)
        await pilot.press("ctrl+d")
        await pilot.pause()
        first_modal = app.screen
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not first_modal and isinstance(
            app.screen, ConfirmModal), what="the second modal")  # fmt: skip
        assert statuses[-1].startswith("Failed to delete: the trash cannot take")
        assert kinds[-1] == "error"  # (drawn as an error: the load-error test looks at the line)
        assert b.exists()  # nothing gone before the second confirmation
        body = str(app.screen.query_one("#dialog-body", Static).visual)
        assert "permanently" in body and "cannot be undone" in body
        await pilot.press(second)
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        if second == "enter":
            assert statuses[-1] == "Session deleted"
            assert not b.exists()
            assert [item.path for item in picker(app).listed] == [str(a)]
            assert picker(app).state.undo == []  # a permanent delete cannot be undone
        else:
            assert b.exists()
            assert len(picker(app).listed) == 2
    assert a.exists()


# ------------------------------------------------------------------------------ undo
async def test_undo_restores_a_deleted_session_to_its_exact_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = two_sessions(agent_dir(), str(tmp_path))
    content = b.read_bytes()
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        statuses = record_statuses(app, monkeypatch)
        await pilot.press("down")  # select a (older): after the undo it is selected again
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert not a.exists() and len(picker(app).listed) == 1
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert a.exists() and a.read_bytes() != b"" and trashed_files() == []
        assert statuses[-1] == "Session restored from the trash"
        assert [item.path for item in picker(app).listed] == [str(b), str(a)]
        assert picker(app).selected_item.path == str(a)  # type: ignore[union-attr]
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert picker(app).status_text == "Nothing to undo"
    assert b.read_bytes() == content


async def test_undo_refuses_to_overwrite_a_new_file_at_the_path(tmp_path: Path) -> None:
    _, b = two_sessions(agent_dir(), str(tmp_path))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        b.write_bytes(b"something new\n")
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert (picker(app).status_text or "").startswith("Cannot undo: cannot restore")
        assert b.read_bytes() == b"something new\n"
        assert len(trashed_files()) == 1


async def test_rename_then_undo_renames_back(tmp_path: Path) -> None:
    path = named_session(agent_dir(), str(tmp_path))
    unnamed = write_session(agent_dir(), str(tmp_path), "un1", chain(["plain"]), name="u.jsonl")
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("ctrl+u", *"Better", "enter")
        await settle(pilot)
        assert "Better" in titles(app)
        # the file was just written by pitui itself: undo must not ask "is pi writing?"
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        assert picker(app).status_text == "Rename undone"
        assert last_line(path)["name"] == "Old"
        assert "Old" in titles(app)
        with Session.open(str(path)) as session:
            assert session.name == "Old"
        # an unnamed session renamed and undone is unnamed again (an empty name clears it)
        index = [item.path for item in picker(app).listed].index(str(unnamed))
        picker(app).query_one(SessionList).selected = index
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press(*"Named", "enter")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert last_line(unnamed)["name"] == ""
        with Session.open(str(unnamed)) as session:
            assert not session.name
        assert "plain" in titles(app)


async def test_rename_of_a_busy_file_asks_first(tmp_path: Path) -> None:
    path = named_session(agent_dir(), str(tmp_path))
    soon = time.time() + 600  # "just written" however slow the machine: pi may be working in it
    os.utime(path, (soon, soon))
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("ctrl+u", *"New", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="busy modal")
        assert last_line(path)["type"] == "message"  # nothing written yet
        await pilot.press("enter")
        await settle(pilot)
        assert last_line(path)["name"] == "New"


# ------------------------------------------------------------------------------ resume
async def test_enter_resumes_pi_in_the_sessions_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = write_session(agent_dir(), str(project), "r1", chain(["resume me"]), name="r.jsonl")
    log = install_fake_pi(monkeypatch, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    app = store_app(agent_dir(), str(project))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
    result = app.return_value
    assert result == ResumeRequest(str(path), str(project), ("pi", "--session", str(path)))
    assert run_resume(result, replace_process=False) == 0
    assert read_fake_pi_log(log) == [{"argv": ["--session", str(path)], "cwd": str(project)}]


@pytest.mark.parametrize("answer", ["enter", "escape"])
async def test_missing_folder_offers_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    gone = str(tmp_path / "deleted-project")
    path = write_session(agent_dir(), gone, "r2", chain(["old place"]), name="r.jsonl")
    here = tmp_path / "here"
    here.mkdir()
    log = install_fake_pi(monkeypatch, tmp_path)
    monkeypatch.chdir(here)  # the folder pitui was started in
    app = store_app(agent_dir(), gone)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, ConfirmModal)
        body = str(modal.query_one("#dialog-body", Static).visual)
        assert "does not exist any more" in body
        await pilot.press(answer)
        await pilot.pause()
        if answer == "escape":
            assert isinstance(app.screen, PickerScreen) and app.is_running
            return
    result = app.return_value
    assert isinstance(result, ResumeRequest) and result.cwd == str(here)
    assert run_resume(result, replace_process=False) == 0
    assert read_fake_pi_log(log) == [{"argv": ["--session", str(path)], "cwd": str(here)}]


async def test_pi_missing_from_path_prints_the_exact_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "my project"  # a space: the printed command must quote it
    project.mkdir()
    path = write_session(agent_dir(), str(project), "r3", chain(["x"]), name="r.jsonl")
    app = store_app(agent_dir(), str(project))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
    result = app.return_value
    assert isinstance(result, ResumeRequest)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert run_resume(result, replace_process=False) == 1
    err = capsys.readouterr().err
    assert f"  {shell_command(result)}\n" in err
    assert shell_command(result) == f"cd {quote(str(project))} && pi --session {quote(str(path))}"


async def test_print_returns_the_chosen_path(tmp_path: Path) -> None:
    path = write_session(agent_dir(), str(tmp_path), "p1", chain(["print me"]), name="p.jsonl")
    app = store_app(agent_dir(), str(tmp_path), print_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value == PrintRequest(str(path))


async def test_enter_on_an_empty_list_does_nothing() -> None:
    app = fake_app(FakeCatalog(scopes={"current": [], "all": u1_items()}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, PickerScreen)


# ------------------------------------------------------------------------------ session view
async def test_ctrl_t_opens_the_tree_and_escape_returns_to_the_same_row_and_query(
    tmp_path: Path,
) -> None:
    for i in range(5):
        write_session(
            agent_dir(), str(tmp_path), f"v{i}", chain([f"topic {i}", "ok"]), name=f"v{i}.jsonl"
        )
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "topic")
        await pilot.press("down", "down")
        chosen = picker(app).selected_item
        assert chosen is not None
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), what="tree")
        assert app.screen.path == chosen.path  # type: ignore[attr-defined]
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        screen = picker(app)
        assert app.screen is screen
        assert screen.search.value == "topic" and screen.search.has_focus
        assert screen.query_one(SessionList).selected == 2
        assert screen.selected_item is not None and screen.selected_item.path == chosen.path


async def test_double_click_opens_the_tree(tmp_path: Path) -> None:
    write_session(agent_dir(), str(tmp_path), "d1", chain(["click me"]), name="d.jsonl")
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.double_click(SessionList, offset=(5, 0))
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), what="tree")


# ------------------------------------------------------------------------------ full text
async def test_full_text_mode_shows_hits_and_opens_the_tree_at_the_hit(tmp_path: Path) -> None:
    entries = [
        user("u1", None, "let us talk about the weather", t=1),
        assistant("a1", "u1", "the weather is fine", t=2),
        user("u2", "a1", "now something about zebras", t=3),
        assistant("a2", "u2", "zebras have stripes", t=4),
        user("u3", "a1", "a side branch about kettles", t=5),
    ]
    path = write_session(agent_dir(), str(tmp_path), "f1", entries, name="f.jsonl")
    write_session(agent_dir(), str(tmp_path), "f2", chain(["nothing here"]), name="g.jsonl")
    app = store_app(agent_dir(), str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "fts:stripes")
        await wait_for(pilot, lambda: bool(picker(app).hits), what="hits")
        await settle(pilot)
        rows = picker(app).query_one(SessionList).rows
        assert [(row.path, row.snippet) for row in rows] == [(str(path), "zebras have stripes")]
        assert rows[0].match == (12, 19)
        assert picker(app).selected_entry == "a2"
        await preview_loaded(pilot)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen), what="tree")
        await settle(pilot)
        tree = app.screen.query_one("#branch-tree")
        assert tree.selected_uid == "a2"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settle(pilot)
        # a hit off the active branch: the preview shows the conversation up to it
        picker(app).search.value = ""
        await type_query(pilot, "fts:kettles")
        await wait_for(pilot, lambda: picker(app).selected_entry == "u3", what="kettle hit")
        await preview_loaded(pilot)
        from pitui.ui.widgets.preview import SessionPreview

        loaded = picker(app).query_one(SessionPreview).loaded
        assert loaded is not None and loaded.note is not None
        texts = [str(m.get("content")) for m in loaded.messages]
        assert texts[-1] == "a side branch about kettles" and not any("zebra" in t for t in texts)
        picker(app).search.value = ""
        await type_query(pilot, "fts:nomatchword")
        await wait_for(
            pilot,
            lambda: picker(app).query_one(SessionList).empty_text == "  No message matches.",
            what="no hits",
        )


async def test_full_text_mode_with_a_fake_catalog_drops_stale_answers() -> None:
    items = u1_items()
    catalog = u1_catalog()
    catalog.hits = [
        FullTextHit(items[0].path, "e1", "alpha beta"),
        FullTextHit(items[1].path, "e2", "beta gamma"),
    ]
    app = fake_app(catalog)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_query(pilot, "fts:")
        await settle(pilot)
        assert picker(app).query_one(SessionList).empty_text.startswith("  Full-text search:")
        await type_query(pilot, "beta")
        await wait_for(pilot, lambda: len(picker(app).hits) == 2, what="hits")
        await type_query(pilot, " gamma")
        await wait_for(pilot, lambda: len(picker(app).hits) == 1, what="one hit")
        assert picker(app).selected_item is not None
        assert picker(app).selected_item.path == items[1].path  # type: ignore[union-attr]
        for _ in range(len("fts:beta gamma")):
            await pilot.press("backspace")
        await settle(pilot)
        assert picker(app).hits == [] and len(picker(app).query_one(SessionList).rows) == 6


def test_now_constant_is_in_the_past() -> None:
    # the fake clock must be after the sessiondata timestamps (2025-01-01) for ages to make sense
    assert NOW * 1000 > JAN
