"""Inputs never hold what could act on the terminal: pre-filled names and labels, and pastes."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.widgets.safe_input import SafeInput, input_safe

HOSTILE = "[bold]x[/] \x1b[31mred\x1b[0m \x07 a\u202eb\ud800 \x1b]0;title\x07end"


def test_input_safe() -> None:
    assert input_safe("plain text [not markup]") == "plain text [not markup]"
    assert input_safe("two\nlines\ttab") == "two lines tab"
    cleaned = input_safe(HOSTILE)
    assert cleaned == "[bold]x[/] red  ab end"
    assert input_safe(cleaned) == cleaned


class Host(App[None]):
    def __init__(self, modal: TextInputModal | None = None) -> None:
        super().__init__()
        self.modal = modal
        self.result: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield SafeInput(id="field")

    def on_mount(self) -> None:
        if self.modal is not None:
            self.push_screen(self.modal, callback=self.result.append)


async def test_paste_and_assignment_are_cleaned() -> None:
    app = Host()
    async with app.run_test() as pilot:
        field = app.query_one(SafeInput)
        field.focus()
        field.post_message(events.Paste("a\x1b[2Jb"))
        await pilot.pause()
        assert field.value == "ab"
        field.value = "c\x9b31md"
        assert field.value == "cd"


async def test_a_prefilled_hostile_name_is_shown_clean_and_kept_when_unchanged() -> None:
    app = Host(TextInputModal("Rename Session", value=HOSTILE))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.screen.query_one(SafeInput).value == input_safe(HOSTILE)
        await pilot.press("enter")
        await pilot.pause()
    assert app.result == [HOSTILE.strip()]  # not rewritten behind the user's back


async def test_an_edited_hostile_name_is_saved_as_shown() -> None:
    app = Host(TextInputModal("Rename Session", value=HOSTILE))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("backspace", "backspace", "backspace")
        await pilot.press("enter")
        await pilot.pause()
    assert app.result == [input_safe(HOSTILE)[:-3].strip()]  # (trimmed, as pi does)


def test_every_line_break_becomes_a_space() -> None:
    # Issue 21 §3: a newline alone was not "unsafe", so a name with one kept it, and the dialog
    # drew the text after it outside its box.
    for text in ("two\nlines", "two\rlines", "two\r\nlines", "two\u2028lines", "two\x85lines"):
        assert input_safe(text) == "two lines", repr(text)


async def test_a_prefilled_name_with_a_newline_is_one_line_in_the_dialog() -> None:
    app = Host(TextInputModal("Rename Session", value="first line\nsecond line"))
    async with app.run_test() as pilot:
        await pilot.pause()
        field = app.screen.query_one(SafeInput)
        assert field.value == "first line second line"


async def test_a_multi_line_paste_arrives_whole_on_one_line() -> None:
    app = Host()
    async with app.run_test() as pilot:
        field = app.query_one(SafeInput)
        field.focus()
        field.post_message(events.Paste("fix the\nparser\r\nbug"))
        await pilot.pause()
        assert field.value == "fix the parser bug"
        assert field.cursor_position == len(field.value)
