"""``(show all)`` in the session view's context pane (issue 21 §3): alt+a, or a click on a fold's
marker line, draws the context with nothing folded; it stays so from entry to entry until alt+a
folds it again. Snapshot: the unfolded pane."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets._footer import FooterKey

from pitui.core.session import Session
from pitui.ui.widgets.context_pane import (
    FOLD_MARKER,
    ContextLines,
    ContextPane,
    ContextView,
    context_view,
    grown_from,
)
from tests.core.sessiondata import assistant, entry, jsonl, user
from tests.ui.sessionview import ScreenApp, opened, settle, wait_for, write_session

SnapCompare = Callable[..., bool]
OUTPUT_LINES = 300
THOUGHT = "I should read the whole log before answering, line by line, " * 8


def tool_result(eid: str, parent: str, call_id: str, text: str, t: int) -> dict[str, Any]:
    message = {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
               "content": [{"type": "text", "text": text}], "isError": False,
               "timestamp": 1735689600000 + t * 1000}  # fmt: skip
    return entry("message", eid, parent, t, message=message)


def folded_session() -> bytes:
    """A bash call whose output is long (folded to its last lines), after a thinking block."""
    output = "\n".join(f"output line {n:03d}" for n in range(OUTPUT_LINES))
    call = {"type": "toolCall", "id": "call1", "name": "bash", "arguments": {"command": "cat log"}}
    thinking = {"type": "thinking", "thinking": THOUGHT}
    return jsonl(
        user("u1", None, "what does the log say?", t=1),
        assistant("a1", "u1", content=[thinking, call], stop="toolUse", t=2),
        tool_result("r1", "a1", "call1", output, t=3),
        assistant("a2", "r1", "The log counts lines.", t=4),
        user("u2", "a2", "thanks", t=5),
    )


pytestmark = pytest.mark.usefixtures("utc")  # (times are drawn in local time)


def pane(app: ScreenApp) -> ContextPane:
    return app.session_screen.context_pane


def lines(app: ScreenApp) -> list[str]:
    return pane(app).lines.plain_lines


def text(app: ScreenApp) -> str:
    return "\n".join(lines(app))


def every_output_line(app: ScreenApp) -> bool:
    drawn = text(app)
    return all(f"output line {n:03d}" in drawn for n in range(OUTPUT_LINES))


async def shown_at(app: ScreenApp, pilot: Any, uid: str, *, expanded: bool) -> None:
    def ready() -> bool:
        view = pane(app).shown
        return view is not None and view.uid == uid and view.expanded == expanded

    await wait_for(pilot, ready)
    await settle(app, pilot)


async def test_alt_a_unfolds_the_context_and_it_stays_so(tmp_path: Path) -> None:
    app = ScreenApp(write_session(folded_session(), tmp_path), select="a2")
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await shown_at(app, pilot, "a2", expanded=False)
        assert FOLD_MARKER in text(app) and not every_output_line(app)
        assert "∴ thinking · " in text(app) and THOUGHT.strip() not in " ".join(lines(app))
        await pilot.press("alt+a")
        await shown_at(app, pilot, "a2", expanded=True)
        assert FOLD_MARKER not in text(app) and every_output_line(app)
        assert "all shown" in str(pane(app).border_title)
        # another entry: still unfolded (its context is mostly the same messages)
        await pilot.press("down")
        await shown_at(app, pilot, "u2", expanded=True)
        assert FOLD_MARKER not in text(app) and every_output_line(app)
        # alt+a again: folded, here and on
        await pilot.press("alt+a")
        await shown_at(app, pilot, "u2", expanded=False)
        assert FOLD_MARKER in text(app) and not every_output_line(app)
        assert "all shown" not in str(pane(app).border_title)


def footer_label(app: ScreenApp, action: str) -> str:
    keys = [key for key in app.session_screen.query(FooterKey) if key.action == action]
    assert len(keys) == 1, f"one footer key for {action}"
    return keys[0].description


async def test_the_footer_key_says_what_alt_a_does_now(tmp_path: Path) -> None:
    """Unfolded, alt+a folds: its footer key says so (and Show all again once folded)."""
    app = ScreenApp(write_session(folded_session(), tmp_path), select="a2")
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await shown_at(app, pilot, "a2", expanded=False)
        assert footer_label(app, "show_all") == "Show all"
        await pilot.press("alt+a")
        await shown_at(app, pilot, "a2", expanded=True)
        await wait_for(pilot, lambda: footer_label(app, "show_all") == "Fold all")
        await pilot.press("alt+a")
        await shown_at(app, pilot, "a2", expanded=False)
        await wait_for(pilot, lambda: footer_label(app, "show_all") == "Show all")


async def test_a_click_on_the_marker_line_unfolds(tmp_path: Path) -> None:
    app = ScreenApp(write_session(folded_session(), tmp_path), select="a2")
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await shown_at(app, pilot, "a2", expanded=False)
        body = pane(app).lines
        # a click elsewhere only focuses the pane
        first_text = next(i for i, line in enumerate(lines(app)) if "what does the log" in line)
        body.scroll_to(y=first_text, animate=False, immediate=True, force=True)
        await pilot.pause()
        await pilot.click(ContextLines, offset=(2, first_text - round(body.scroll_y)))
        await settle(app, pilot)
        assert body.has_focus and not pane(app).expanded
        marker = next(i for i, line in enumerate(lines(app)) if FOLD_MARKER in line)
        body.scroll_to(y=marker, animate=False, immediate=True, force=True)
        await pilot.pause()
        await pilot.click(ContextLines, offset=(4, marker - round(body.scroll_y)))
        await shown_at(app, pilot, "a2", expanded=True)
        assert FOLD_MARKER not in text(app) and every_output_line(app)


async def test_a_click_on_a_folded_thinking_line_unfolds(tmp_path: Path) -> None:
    app = ScreenApp(write_session(folded_session(), tmp_path), select="r1")
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await shown_at(app, pilot, "r1", expanded=False)
        body = pane(app).lines
        thinking = next(i for i, line in enumerate(lines(app)) if "∴ thinking · " in line)
        await pilot.click(ContextLines, offset=(4, thinking - round(body.scroll_y)))
        await shown_at(app, pilot, "r1", expanded=True)
        assert THOUGHT.split(",")[0] in text(app) and "line by line" in text(app)


async def test_the_message_whose_marker_was_clicked_stays_in_view(tmp_path: Path) -> None:
    """Selected u2 (the last message); the click is on r1's fold: unfolded, the pane shows r1
    from its first line, where alt+a would have kept u2 in view."""
    app = ScreenApp(write_session(folded_session(), tmp_path), select="u2")
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        await shown_at(app, pilot, "u2", expanded=False)
        body = pane(app).lines
        marker = next(i for i, line in enumerate(lines(app)) if FOLD_MARKER in line)
        await pilot.click(ContextLines, offset=(4, marker - round(body.scroll_y)))
        await shown_at(app, pilot, "u2", expanded=True)
        top = lines(app)[round(body.scroll_y)]
        assert "bash" in top and "cat log" in top, top
        view = pane(app).shown
        assert view is not None and view.message_at(round(body.scroll_y)) == 2  # r1's result
        await pilot.press("alt+a", "alt+a")  # folded, then unfolded by the key: u2 in view
        await shown_at(app, pilot, "u2", expanded=True)
        visible = lines(app)[round(body.scroll_y) :][: body.size.height]
        assert any("thanks" in line for line in visible)


def test_an_unfolded_view_is_no_growth_of_a_folded_one(tmp_path: Path) -> None:
    """The lines drawn folded are not reused for an unfolded view (nor the other way)."""
    with Session.open(write_session(folded_session(), tmp_path)) as session:
        before = context_view(session, "r1", 80)
        assert before is not None
        before.lines = []
        for expanded in (False, True):
            after = context_view(session, "a2", 80, expanded=expanded)
            assert after is not None
            assert grown_from(before, after) is not expanded


def drawn_messages_are_known(view: ContextView) -> None:
    for index, start in enumerate(view.starts):
        text = "".join(line.text for line in view.lines[start : start + 3])
        assert f"message {view.first + index + 1}" in text, (index, text)
        assert view.message_at(start) == view.first + index


async def test_each_drawn_line_knows_its_message(tmp_path: Path) -> None:
    """``message_at`` over the lines drawn first (the end of the context, under a "more above"
    line) and after the earlier ones were drawn above them (scrolled to the top)."""
    chat = [(user if n % 2 else assistant)(f"m{n}", f"m{n - 1}" if n > 1 else None,
                                           f"message {n}", t=n) for n in range(1, 201)]  # fmt: skip
    app = ScreenApp(write_session(jsonl(*chat), tmp_path), select="m200")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(app, pilot)
        await shown_at(app, pilot, "m200", expanded=False)
        view = pane(app).shown
        assert view is not None and view.first > 0 and view.message_at(0) is None
        drawn_messages_are_known(view)
        first = view.first
        pane(app).lines.scroll_to(y=0, animate=False, immediate=True, force=True)
        await wait_for(pilot, lambda: view.first < first)
        drawn_messages_are_known(view)


def test_snapshot_unfolded(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = ScreenApp(write_session(folded_session(), tmp_path), select="r1")

    async def run(pilot: Any) -> None:
        await opened(app, pilot)
        await pilot.press("alt+a")
        await shown_at(app, pilot, "r1", expanded=True)

    assert snap_compare(app, terminal_size=(120, 36), run_before=run)
