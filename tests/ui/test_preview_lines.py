"""The picker's preview draws in a worker and shows only what it drew (the Line API): the last
messages first, the earlier ones once scrolled up to; results of an older request are dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.strip import Strip

from pitui.ui.widgets.drawn_lines import draw_back, strips
from pitui.ui.widgets.preview import PreviewData, SessionPreview, draw_earlier, preview_view
from tests.core.sessiondata import chain
from tests.ui.picker_kit import picker, preview_loaded, settle, store_app, wait_for, write_session


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


def lines_of(label: str, count: int) -> str:
    return "\n".join(f"{label} line {n}" for n in range(count))


def data(messages: list[dict[str, Any]], note: str | None = None) -> PreviewData:
    return PreviewData("/x.jsonl", None, [], [], messages, 0, note=note)


def message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": text, "timestamp": 1735689600000}


# --------------------------------------------------------------------------- pure drawing
def test_draw_back_stops_at_the_budget_and_draws_whole_items() -> None:
    tall = [strips([Text(f"{i}.{n}") for n in range(5)], 20) for i in range(6)]  # 5 lines each
    drawn: list[int] = []

    def draw(index: int) -> list[Strip]:
        drawn.append(index)
        return tall[index]

    first, lines, starts = draw_back(draw, 6, 6, budget=12)
    assert (first, drawn) == (3, [5, 4, 3])  # 15 lines: the third item passes the budget
    assert len(lines) == 15 and starts == [0, 5, 10]
    assert [line.text for line in lines[:1]] == ["3.0"]
    drawn.clear()
    first, _, _ = draw_back(draw, 6, 1, budget=1)  # item 1 must be drawn, whatever the budget
    assert first == 1 and drawn == [5, 4, 3, 2, 1]
    drawn.clear()
    first, _, _ = draw_back(draw, 6, 0, budget=100, cancelled=lambda: len(drawn) >= 2)
    assert first == 4 and drawn == [5, 4]  # cancelled: stops between items


def test_the_preview_draws_the_last_messages_first_and_the_note_at_the_top() -> None:
    messages = [message("user" if i % 2 == 0 else "assistant", lines_of(f"m{i}", 30))
                for i in range(4)]  # fmt: skip
    view = preview_view(data(messages, note="up to the hit"), 60, expanded=False)
    assert view.blocks[0] == Text("up to the hit", style="italic") and view.first == 5
    first, lines = draw_earlier(view, budget=40)
    texts = [line.text for line in lines]
    assert first == 3  # the last two messages: 30 lines each pass a budget of 40
    assert texts[0].startswith("↑ 3 earlier messages: scroll up to show")
    assert any("m3 line 29" in t for t in texts) and any("m2 line 0" in t for t in texts)
    assert not any("m1 line" in t for t in texts)
    view.first, view.lines = first, lines
    first, earlier = draw_earlier(view, budget=1000)
    assert first == 0 and earlier[0].text.startswith("up to the hit")
    assert not any(line.text.startswith("↑") for line in earlier)


def test_an_empty_branch_and_an_error() -> None:
    view = preview_view(data([]), 40, expanded=False)
    _, lines = draw_earlier(view, 10)
    assert [line.text.rstrip() for line in lines] == ["(no messages on this branch)"]
    failed = PreviewData("/x.jsonl", None, [], [], [], 0, error="gone")
    assert preview_view(failed, 40, expanded=False).blocks == []


# ----------------------------------------------------------------------------- the widget
async def test_a_long_conversation_draws_its_end_then_the_rest_when_scrolled_up(
    tmp_path: Path,
) -> None:
    agent, cwd = tmp_path / "agent", str(tmp_path / "proj")
    texts = [lines_of(f"m{i}", 100) for i in range(12)]
    write_session(agent, cwd, "long1", chain(texts), name="long.jsonl")
    app = store_app(agent, cwd)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await preview_loaded(pilot)
        preview = picker(app).preview
        lines = preview.lines
        text = preview.text
        assert "m11 line 99" in text and "m0 line 0" not in text
        assert text.startswith("↑ ")  # the earlier messages are not drawn yet
        assert lines.scroll_y == lines.max_scroll_y > 0  # at the end: the last messages
        drawn_before = len(lines.plain_lines)
        for _ in range(12):  # scrolled to the top, again and again: everything is drawn
            lines.scroll_home(animate=False, immediate=True)
            await settle(pilot)
            if "m0 line 0" in preview.text:
                break
        assert "m0 line 0" in preview.text and not preview.text.startswith("↑ ")
        assert len(lines.plain_lines) > drawn_before


async def test_a_result_for_another_session_is_dropped(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", str(tmp_path / "proj")
    write_session(agent, cwd, "one1", chain(["first session", "ok"]), name="one.jsonl")
    write_session(agent, cwd, "two1", chain(["second session", "ok"]), name="two.jsonl",
                  mtime=None)  # fmt: skip
    app = store_app(agent, cwd)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await preview_loaded(pilot)
        preview = picker(app).preview
        shown = preview.text
        old = preview.shown
        assert old is not None
        await pilot.press("down")
        await settle(pilot)
        await preview_loaded(pilot)
        assert preview.text != shown
        # a late result of the first session's drawing arrives: it is not shown
        preview.post_message(SessionPreview._Drawn(old))
        await settle(pilot)
        assert preview.shown is not old and preview.loaded is not None
        assert preview.loaded.path == picker(app).selected_item.path  # type: ignore[union-attr]
        await wait_for(pilot, lambda: preview.text != shown, what="the second session")


async def test_typing_leaves_a_preview_being_read_and_it_is_read_again_later(
    tmp_path: Path,
) -> None:
    agent, cwd = tmp_path / "agent", str(tmp_path / "proj")
    one = write_session(agent, cwd, "one1", chain(["first session", "ok"]), name="one.jsonl")
    two = write_session(agent, cwd, "two1", chain(["second session", "ok"]), name="two.jsonl")
    app = store_app(agent, cwd)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await preview_loaded(pilot)
        preview = picker(app).preview
        shown = preview.text
        assert preview.target is not None
        other = str(two) if preview.target[0] == str(one) else str(one)
        preview.show(other)
        preview.interrupt()  # a key came before it was drawn
        await settle(pilot)
        assert preview.target is None and preview.loaded is None
        assert preview.text == shown  # (what was shown stays; nothing half-drawn)
        preview.show(other)  # the same session asked again: it is read, not skipped
        await preview_loaded(pilot)
        assert preview.loaded is not None and preview.loaded.path == other
        assert preview.text != shown
        preview.interrupt()  # nothing being read: what is shown stays shown
        assert preview.target == (other, None)
