"""The session view through the real SessionScreen: labels, switching, undo, extract, migration,
busy files, the context pane, the header and resuming. After every write the file is reopened with
the core to check what pi would see."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.strip import Strip

from pitui.config import Settings
from pitui.core.context import build_session_context
from pitui.core.session import Session
from pitui.core.store import Store
from pitui.launch import ResumeRequest
from pitui.ui.app import AppOptions, make_app, stylesheets
from pitui.ui.catalog import StoreCatalog
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.switch import SwitchModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.context_pane import ContextLines
from pitui.ui.widgets.raw_lines import RawLinesView
from tests.conftest import FIXTURES, fixture_by_scenario
from tests.core.sessiondata import f26_entries, jsonl
from tests.ui.sessionview import (
    FROZEN,
    ScreenApp,
    context_roles_at,
    copy_fixture,
    copy_session,
    opened,
    oracle_view,
    pi_sees,
    pi_view,
    row_texts,
    selected_row,
    settle,
    two_branch_session,
    wait_for,
    write_session,
)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


async def type_text(pilot: Any, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)


async def select(app: ScreenApp, pilot: Any, uid: str) -> None:
    assert app.branch_tree.select_uid(uid)
    await settle(app, pilot)


# ------------------------------------------------------------------------------------ U34 labels


async def test_u34_label_written_as_pi_writes_it_then_cleared(tmp_path: Path) -> None:
    path = copy_fixture("labels", tmp_path)
    before = oracle_view("labels", path)
    original = path.read_bytes()
    user_2 = "d88c65c5"  # the second user message on the active branch (label cleared)
    assert user_2 not in before["labels"]
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, user_2)
        await pilot.press("L")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, TextInputModal)
        await type_text(pilot, "  mark  ")
        await pilot.press("enter")
        await settle(app, pilot)
        assert selected_row(app.branch_tree).startswith("› • [mark] user: ")
        written = path.read_bytes()
        assert written.startswith(original)  # appended, never edited in place
        label = orjson.loads(written[len(original) :])
        assert list(label) == ["type", "id", "parentId", "timestamp", "targetId", "label"]
        assert label["type"] == "label" and label["targetId"] == user_2
        assert label["label"] == "mark"  # trimmed
        assert label["parentId"] == before["leaf"]  # parent = the leaf, as pi writes it
        assert label["timestamp"] == "2026-01-15T12:00:00.000Z"
        pi_sees(
            path,
            branch=[*before["branch"], label["id"]],  # the leaf moved to the label
            labels={**before["labels"], user_2: "mark"},
            roles=before["roles"],
        )  # fmt: skip  (labels are not context)

        # clearing: empty field, enter → a label entry without a "label" key
        await pilot.press("L")
        await pilot.pause()
        for _ in "mark":
            await pilot.press("backspace")
        await pilot.press("enter")
        await settle(app, pilot)
        cleared = lines_of(path)[-1]
        assert cleared["type"] == "label" and cleared["targetId"] == user_2
        assert "label" not in cleared and cleared["parentId"] == label["id"]
        assert "[mark]" not in selected_row(app.branch_tree)
        pi_sees(path, branch=[*before["branch"], label["id"], cleared["id"]],
                labels=before["labels"], roles=before["roles"])  # fmt: skip


async def test_label_cancel_writes_nothing(tmp_path: Path) -> None:
    path = copy_fixture("labels", tmp_path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await pilot.press("L")
        await pilot.pause()
        await type_text(pilot, "nope")
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        assert path.read_bytes() == original


# ------------------------------------------------------------------------------------ U35 enter


async def switch_to(app: ScreenApp, pilot: Any, uid: str, *, summary: str | None = None) -> None:
    await select(app, pilot, uid)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, SwitchModal)
    if summary is None:
        await pilot.press("enter")
    else:
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, TextInputModal)
        await type_text(pilot, summary)
        await pilot.press("enter")
    await settle(app, pilot)


async def dismiss_resume_offer(app: ScreenApp, pilot: Any) -> None:
    assert isinstance(app.screen, ConfirmModal)  # "Resume pi now?"
    await pilot.press("escape")
    await settle(app, pilot)
    assert isinstance(app.screen, SessionScreen)


async def test_u35_enter_on_an_assistant_entry_continues_from_it(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await switch_to(app, pilot, "a3")
        await dismiss_resume_offer(app, pilot)
        marker = lines_of(path)[-1]
        assert marker["type"] == "custom" and marker["parentId"] == "a3"
        assert marker["customType"] == "pitui.branch"
        pi_sees(path, branch=["u1", "a1", "u3", "a3", marker["id"]], labels={},
                roles=["user", "assistant"] * 2)  # fmt: skip
        assert context_roles_at(path, "a3") == ["user", "assistant"] * 2
        # the • path moved at once: the chosen branch is listed first now
        assert row_texts(app.branch_tree)[2] == "  ├⊟ • user: approach B"
        assert app.noted("Switched")


async def test_u35_enter_on_a_user_message_continues_from_its_parent(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "u3")
        await pilot.press("enter")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, SwitchModal)
        assert modal._editor_text == "approach B"  # offered for sending again
        shown = str(modal.query_one("#switch-editor-text").render())
        assert "approach B" in shown
        await pilot.press("enter")
        await settle(app, pilot)
        await dismiss_resume_offer(app, pilot)
        marker = lines_of(path)[-1]
        assert marker["parentId"] == "a1"
        pi_sees(path, branch=["u1", "a1", marker["id"]], labels={}, roles=["user", "assistant"])
        assert app.branch_tree.selected_uid == "a1"  # the selection shows where pi continues


async def test_u35_enter_on_the_root_user_message_leaves_no_leaf(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await switch_to(app, pilot, "u1")
        await dismiss_resume_offer(app, pilot)
        marker = lines_of(path)[-1]
        assert marker["parentId"] is None  # a new root: the next message starts afresh
        pi_sees(path, branch=[marker["id"]], labels={}, roles=[])
        # Enter on the root again: pi is already there
        await select(app, pilot, "u1")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen) and app.noted("Already at this point")
        assert len(lines_of(path)) == 8


async def test_u35_enter_on_the_leaf_is_already_there(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        assert app.branch_tree.selected_uid == "a2"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.noted("Already at this point")
        assert path.read_bytes() == original


async def test_switch_with_a_summary_appends_a_branch_summary(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    before = oracle_view("branches", path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        target = "0b4d42b3"  # an assistant reply on another branch
        await switch_to(app, pilot, target, summary="tried the benchmark")
        await dismiss_resume_offer(app, pilot)
        summary = lines_of(path)[-1]
        assert summary["type"] == "branch_summary" and summary["parentId"] == target
        assert summary["summary"] == "tried the benchmark"
        assert summary["fromId"] == before["leaf"]
        to_target = pi_view(path)["branch"][:-1]
        assert to_target[-1] == target
        pi_sees(path, branch=[*to_target, summary["id"]], labels=before["labels"],
                roles=[*context_roles_at(path, target), "branchSummary"])  # fmt: skip


async def test_switch_cancelled_writes_nothing(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "0b4d42b3")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SwitchModal)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        # the summary prompt cancelled: nothing either
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, TextInputModal)
        await pilot.press("escape")
        await settle(app, pilot)
        assert path.read_bytes() == original


# ------------------------------------------------------------------------------------ undo


async def test_undo_label_appends_the_inverse_entry(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    before = oracle_view("branches", path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "c44caa7c")  # labelled "benchmark"
        await pilot.press("L")
        await pilot.pause()
        for _ in "benchmark":
            await pilot.press("backspace")
        await type_text(pilot, "bench2")
        await pilot.press("enter")
        await settle(app, pilot)
        relabel = lines_of(path)[-1]
        relabelled = {**before["labels"], "c44caa7c": "bench2"}
        pi_sees(path, branch=[*before["branch"], relabel["id"]], labels=relabelled,
                roles=before["roles"])  # fmt: skip
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        data = path.read_bytes()
        assert data.startswith(original)
        added = [orjson.loads(line) for line in data[len(original) :].splitlines()]
        assert [(e["type"], e.get("label")) for e in added] == [
            ("label", "bench2"),
            ("label", "benchmark"),
        ]
        pi_sees(path, branch=[*before["branch"], *(e["id"] for e in added)],
                labels=before["labels"], roles=before["roles"])  # fmt: skip
        assert "[benchmark]" in selected_row(app.branch_tree)
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert app.noted("Nothing to undo")


async def test_undo_of_a_new_label_clears_it(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "a1")
        await pilot.press("L")
        await pilot.pause()
        await type_text(pilot, "x")
        await pilot.press("enter")
        await settle(app, pilot)
        label = lines_of(path)[-1]
        base = ["u1", "a1", "u2", "a2"]
        pi_sees(
            path, branch=[*base, label["id"]], labels={"a1": "x"}, roles=["user", "assistant"] * 2
        )
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        last = lines_of(path)[-1]
        assert last["type"] == "label" and last["targetId"] == "a1" and "label" not in last
        pi_sees(path, branch=[*base, label["id"], last["id"]], labels={},
                roles=["user", "assistant"] * 2)  # fmt: skip


async def test_undo_switch_returns_to_the_previous_leaf(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    before = oracle_view("branches", path)
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await switch_to(app, pilot, "0b4d42b3")
        await dismiss_resume_offer(app, pilot)
        switched = pi_view(path)
        assert switched["branch"][-2] == "0b4d42b3"
        pi_sees(path, branch=switched["branch"], labels=before["labels"],
                roles=context_roles_at(path, "0b4d42b3"))  # fmt: skip
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)  # no resume offer for an undo
        data = path.read_bytes()
        assert data.startswith(original)
        switch, back = (orjson.loads(x) for x in data[len(original) :].splitlines())
        assert switch["parentId"] == "0b4d42b3" and back["parentId"] == before["leaf"]
        pi_sees(path, branch=[*before["branch"], back["id"]], labels=before["labels"],
                roles=before["roles"])  # fmt: skip
        model = app.branch_tree.model
        assert model.leaf is not None and model.leaf.id == back["id"]


# ------------------------------------------------------------------------------------ extract


async def test_extract_writes_f26_file_and_leaves_the_source_alone(tmp_path: Path) -> None:
    path = write_session(jsonl(*f26_entries()), tmp_path / "sessions")
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "e5")
        await pilot.press("ctrl+e")
        await settle(app, pilot)
        assert path.read_bytes() == original
        made = [p for p in path.parent.iterdir() if p != path]
        assert len(made) == 1 and app.noted("Branch saved as a new session")
        lines = lines_of(made[0])
        header, entries = lines[0], lines[1:]
        assert header["type"] == "session" and header["parentSession"] == str(path)
        assert [e["id"] for e in entries[:4]] == ["e1", "e2", "e4", "e5"]
        labels = entries[4:]
        assert [(e["targetId"], e["label"]) for e in labels] == [("e1", "first"), ("e5", "fifth")]
        assert labels[0]["parentId"] == "e5" and labels[1]["parentId"] == labels[0]["id"]
        view = pi_view(made[0])
        assert view["labels"] == {"e1": "first", "e5": "fifth"}
        assert view["roles"] == ["user", "assistant", "user", "assistant"]


async def test_extract_without_an_assistant_message_is_refused(tmp_path: Path) -> None:
    path = write_session(jsonl(*f26_entries()), tmp_path / "sessions")
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "e1")
        await pilot.press("ctrl+e")
        await settle(app, pilot)
        assert list(path.parent.iterdir()) == [path]
        assert app.noted("Not extracted")


# ------------------------------------------------------------------------------------ v1, busy


async def test_v1_file_is_migrated_atomically_before_the_first_write(tmp_path: Path) -> None:
    source = FIXTURES / "pi-legacy" / "before-compaction.jsonl"
    path = copy_session(source, tmp_path)
    before = pi_view(path)
    assert before["version"] == 1
    inode = os.stat(path).st_ino
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        target = app.branch_tree.selected_uid
        assert target is not None
        await pilot.press("L")
        await pilot.pause()
        await type_text(pilot, "kept")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.noted("migrated to format version 3")
        assert os.stat(path).st_ino != inode  # rewritten by rename, not in place
        header = lines_of(path)[0]
        assert header["version"] == 3
        label = lines_of(path)[-1]
        after = pi_sees(path, branch=[*before["branch"], label["id"]], labels={target: "kept"},
                        roles=before["roles"])  # fmt: skip
        assert after["version"] == 3 and after["entries"] == before["entries"] + 1
        assert "[kept]" in selected_row(app.branch_tree)
        assert not list(tmp_path.glob(".*.tmp"))  # no temp file left behind


async def test_busy_file_asks_before_writing(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path, age=1.0)  # written 1 s ago: pi is working
    original = path.read_bytes()
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await pilot.press("L")
        await pilot.pause()
        await type_text(pilot, "wip")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("escape")
        await settle(app, pilot)
        assert path.read_bytes() == original
        await pilot.press("L")
        await pilot.pause()
        await type_text(pilot, "wip")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("enter")
        await settle(app, pilot)
        base, roles = ["u1", "a1", "u2", "a2"], ["user", "assistant"] * 2
        label = lines_of(path)[-1]
        pi_sees(path, branch=[*base, label["id"]], labels={"a2": "wip"}, roles=roles)
        # pitui's own last write does not make the file "busy" for its next one
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        undo = lines_of(path)[-1]
        pi_sees(path, branch=[*base, label["id"], undo["id"]], labels={}, roles=roles)


async def test_a_deleted_file_is_read_only(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        path.unlink()
        await pilot.press("L")
        await pilot.pause()
        await type_text(pilot, "x")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.session_screen.read_only and not path.exists()
        assert app.noted("deleted on disk")
        assert len(row_texts(app.branch_tree)) == 6  # the content is still shown


# ------------------------------------------------------------------------------- preview, header


async def test_preview_at_a_compaction_shows_summary_and_kept_tail(tmp_path: Path) -> None:
    path = copy_fixture("compaction", tmp_path)
    session = Session.open(path)
    compactions = [m for m in session.branch() if m.type == "compaction"]
    latest = compactions[-1]
    context = build_session_context(session, latest.uid)
    assert context.sources[0] == latest.uid and context.messages[0]["role"] == "compactionSummary"
    app = ScreenApp(path)
    async with app.run_test(size=(140, 50)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, latest.uid)
        screen = app.session_screen
        view = screen.context_pane.shown
        assert view is not None and view.uid == latest.uid
        assert len(view.messages) == len(context.messages)
        lines = screen.context_lines.plain_lines
        assert lines[view.top].lstrip().startswith("compaction summary")
        assert view.top == 0  # the selected entry's own message is in view
        text = "\n".join(lines)
        summary = session.raw(latest)["summary"]
        first_words = next(line for line in summary.splitlines() if line.strip("# "))
        assert first_words.strip("# ")[:20] in text
        pane = screen.query_one("#context-pane")
        title = pane.border_title
        assert title is not None and f"{len(context.messages)} messages" in str(title)
        assert round(screen.context_lines.scroll_offset.y) == 0
        # at the leaf the pane is scrolled to the last message
        await select(app, pilot, session.leaf_id or "")
        leaf_view = screen.context_pane.shown
        assert leaf_view is not None and leaf_view.top > 0
        assert round(screen.context_lines.scroll_offset.y) == min(
            leaf_view.top,
            len(leaf_view.lines) - screen.context_lines.scrollable_content_region.height,
        )


async def test_long_context_draws_earlier_messages_when_scrolled_to(tmp_path: Path) -> None:
    path = copy_fixture("long-5000", tmp_path)
    context = build_session_context(Session.open(path))
    app = ScreenApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await opened(app, pilot)
        screen = app.session_screen
        view = screen.context_pane.shown
        assert view is not None and len(view.messages) == len(context.messages)
        assert 0 < view.first < len(view.messages)  # only the end is drawn at first
        lines = screen.context_lines
        assert lines.plain_lines[0].startswith(f"↑ {view.first:,} earlier messages")
        first = view.first
        last_line = lines.plain_lines[-1]
        lines.scroll_to(y=0, animate=False, immediate=True)
        await settle(app, pilot)
        assert view.first < first and lines.plain_lines[-1] == last_line
        while view.first > 0:
            lines.scroll_to(y=0, animate=False, immediate=True)
            await settle(app, pilot)
        assert not lines.plain_lines[0].startswith("↑")
        # every message is drawn once: one "user · time" heading per user message
        users = [m for m in context.messages if m.get("role") == "user"]
        headings = [line for line in lines.plain_lines if line.startswith("user · ")]
        assert len(headings) == len(users)


async def test_context_lines_scroll_to_the_entry_at_once() -> None:
    # the scroll happens in show() itself, before any layout: the widget may not know yet
    # that the new lines overflow it (a short text was shown before), and a scroll that waited
    # for the next refresh sometimes came too late (the pane stayed at the top)
    class LinesApp(App[None]):
        CSS_PATH = stylesheets()

        def compose(self) -> ComposeResult:
            yield ContextLines(id="context-lines")

    app = LinesApp()
    async with app.run_test(size=(60, 12)) as pilot:
        lines = app.query_one(ContextLines)
        lines.show([Strip([Segment("short")])], 0, more=False)
        await pilot.pause()
        assert not lines.allow_vertical_scroll
        many = [Strip([Segment(f"line {i}")]) for i in range(100)]
        lines.show(many, 90, more=False)
        height = lines.scrollable_content_region.height
        assert round(lines.scroll_y) == 100 - height
        await pilot.pause()
        assert round(lines.scroll_y) == 100 - height and lines.plain_lines[-1] == "line 99"
        assert lines.vertical_scrollbar.position == lines.scroll_y  # the thumb is at the end


async def test_header_shows_branch_and_file_spend(tmp_path: Path) -> None:
    path = copy_fixture("branches", tmp_path)
    session = Session.open(path)
    branch, whole = session.stats(session.branch()), session.stats()
    assert whole.total_tokens > branch.total_tokens  # abandoned branches cost something
    app = ScreenApp(path)
    async with app.run_test(size=(160, 40)) as pilot:
        await opened(app, pilot)
        header = str(app.session_screen.query_one("#session-header").render())
        assert f"this branch {int(branch.total_tokens):,} tok ${branch.cost:.4f}" in header
        assert f"whole file {int(whole.total_tokens):,} tok ${whole.cost:.4f}" in header
        assert f"{len(session.entries)} entries" in header
        assert "branch ends" in header and "created 2025-03-07" in header


# ------------------------------------------------------------------------------------ resume


def with_cwd(source: Path, folder: Path, cwd: Path) -> Path:
    """A copy of ``source`` whose header names ``cwd`` (the fixtures' folders do not exist)."""
    lines = source.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["cwd"] = str(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    target.write_bytes(orjson.dumps(header) + b"\n" + b"".join(lines[1:]))
    os.utime(target, (FROZEN - 3600, FROZEN - 3600))
    return target


def real_app(path: Path, tmp_path: Path) -> Any:
    store = Store(cwd=str(tmp_path), agent=tmp_path / "agent")
    return make_app(
        StoreCatalog(store),
        AppOptions(settings=Settings(watch=False), cwd=str(tmp_path), open_path=str(path)),
    )


async def test_ctrl_r_resumes_pi_in_the_sessions_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = with_cwd(fixture_by_scenario("pi-written", "branches"), tmp_path / "s", project)
    app = real_app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(app.screen.query(BranchTree)))
        await pilot.press("ctrl+r")
        await pilot.pause()
    result = app.return_value
    assert isinstance(result, ResumeRequest)
    assert result.cwd == str(project) and result.path == str(path)
    assert result.argv == ("pi", "--session", str(path))


async def test_resume_offered_after_switching(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = with_cwd(fixture_by_scenario("pi-written", "branches"), tmp_path / "s", project)
    app = real_app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(app.screen.query(BranchTree)))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        screen.branch_tree.select_uid("0b4d42b3")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SwitchModal))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")
        await pilot.pause()
    result = app.return_value
    assert isinstance(result, ResumeRequest) and result.cwd == str(project)
    assert pi_view(path)["roles"] == context_roles_at(path, "0b4d42b3")


async def test_copy_keys_copy_the_message_path_and_resume_command(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await select(app, pilot, "u3")
        await pilot.press("ctrl+y")
        assert app.clipboard == "approach B"
        await pilot.press("alt+p")
        assert app.clipboard == str(path)
        await pilot.press("alt+y")
        assert app.clipboard.endswith(f"pi --session {path}")
        assert app.clipboard.startswith("cd /home/ana/proj")
        assert app.noted("Copied the resume command")


async def test_escape_leaves_a_standalone_view(tmp_path: Path) -> None:
    path = write_session(two_branch_session(), tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_value is None and not app.is_running


@pytest.mark.parametrize("width", [80, 160])
async def test_layout_fits_narrow_and_wide_terminals(tmp_path: Path, width: int) -> None:
    path = copy_fixture("branches", tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(width, 40)) as pilot:
        await opened(app, pilot)
        screen = app.session_screen
        tree = app.branch_tree.region
        pane = screen.query_one("#context-pane").region
        assert screen.has_class("-narrow") == (width < 110)
        if width < 110:
            assert pane.y >= tree.bottom and tree.width == width  # under the tree
        else:
            assert pane.x >= tree.right and tree.height == pane.height  # beside it
        assert screen.context_lines.plain_lines  # the context is drawn either way


async def test_unreadable_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "nothing.jsonl"
    path.write_bytes(b"not json at all\n")
    app = ScreenApp(path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: not app.session_screen.query("#tree-loading"))
        await pilot.pause()
        assert app.session_screen.session is None
        status = str(app.session_screen.query_one("#tree-status").render())
        # its lines instead (format §14), with why it is no session and where to learn more
        assert status.startswith("Not a pi session: it holds no JSON object."), status
        assert "F3" in status
        (line,) = app.session_screen.query_one(RawLinesView).raw.lines
        assert line.problem and line.verdict.startswith("not valid JSON")
