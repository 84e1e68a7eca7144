"""Clipboard helpers: what is copied (OSC 52 through Textual), and what is refused."""

from __future__ import annotations

from typing import Any

from textual.app import App

from pitui.core.session import Session
from pitui.ui.clipboard import (
    clipboard_text,
    copy_message,
    copy_resume_command,
    copy_session_path,
    entry_text,
)
from tests.conftest import fixture_by_scenario


class ClipApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.notes: list[tuple[str, str]] = []

    def notify(self, message: str, *args: Any, severity: str = "information", **kw: Any) -> None:
        self.notes.append((severity, message))


def test_clipboard_text_drops_controls_keeps_layout() -> None:
    hostile = "a\tb\nc\x1b[31mred\x1b[0m \x1b[201~rm -rf ~\n\x9b2J\u202eevil\ud83d"
    text = clipboard_text(hostile)
    assert text == "a\tb\ncred rm -rf ~\nevil"  # C1 CSI sequences go whole, like ESC [ ones
    assert clipboard_text("def f():\n\treturn 1") == "def f():\n\treturn 1"


def test_entry_text_of_each_kind() -> None:
    def message(**fields: Any) -> dict[str, Any]:
        return {"type": "message", "message": fields}

    assert entry_text(message(role="user", content="hi")) == "hi"
    assert (
        entry_text(
            message(
                role="assistant",
                content=[
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "one"},
                    {"type": "text", "text": "two"},
                ],
            )
        )
        == "one\n\ntwo"
    )
    calls = message(
        role="assistant",
        content=[{"type": "toolCall", "id": "t", "name": "bash", "arguments": {"cmd": "ls"}}],
    )
    assert entry_text(calls) == 'bash {"cmd": "ls"}'
    result = message(role="toolResult", content=[{"type": "text", "text": "a"}, {"type": "image"}])
    assert entry_text(result) == "a"
    assert entry_text(message(role="bashExecution", command="ls", output="x\n")) == "$ ls\nx\n"
    assert entry_text(message(role="compactionSummary", summary="s")) == "s"
    assert entry_text({"type": "compaction", "summary": "sum"}) == "sum"
    assert entry_text({"type": "branch_summary", "summary": "b"}) == "b"
    assert entry_text({"type": "custom_message", "content": "c"}) == "c"
    assert entry_text({"type": "label", "label": "L"}) == "L"
    assert entry_text({"type": "session_info", "name": "N"}) == "N"
    assert entry_text({"type": "custom", "data": {"k": 1}}) == '{\n  "k": 1\n}'
    assert entry_text({"type": "model_change", "provider": "p"}) is None
    assert entry_text(message(role="user", content=[{"type": "image"}])) is None


async def test_copy_path_command_and_message() -> None:
    app = ClipApp()
    async with app.run_test():
        assert copy_session_path(app, "/s/a b.jsonl")
        assert app.clipboard == "/s/a b.jsonl"
        assert copy_resume_command(app, "/s/a b.jsonl", "/home/x y", "id1")
        assert app.clipboard == "cd '/home/x y' && pi --session '/s/a b.jsonl'"
        assert copy_resume_command(app, "/s/p.jsonl", "/w", "id9", ["pi", "-r", "{id}"])
        assert app.clipboard == "cd /w && pi -r id9"
        path = fixture_by_scenario("pi-written", "terminal-hostile")
        with Session.open(str(path)) as session:
            raws = [session.raw(m) for m in session.entries if m.role == "toolResult"]
            assert copy_message(app, next(r for r in raws if "<script>" in str(r)))
        assert "\x1b" not in app.clipboard and "<script>" in app.clipboard
        assert [severity for severity, _ in app.notes] == ["information"] * 4


async def test_refusals_leave_the_clipboard_alone() -> None:
    app = ClipApp()
    async with app.run_test():
        app.copy_to_clipboard("before")
        assert not copy_session_path(app, None)
        assert not copy_session_path(app, "/s/evil\x1b[201~.jsonl")
        assert not copy_session_path(app, "/s/not-utf8-\udcff.jsonl")
        assert not copy_resume_command(app, "/s/a.jsonl", "/home/\u202eevil", "id")
        assert not copy_message(app, None)
        assert not copy_message(app, {"type": "model_change"})
        assert not copy_message(app, {"type": "label", "label": "\x1b[2J"})  # nothing left
        assert app.clipboard == "before"
        assert all(severity == "warning" for severity, _ in app.notes)
        assert len(app.notes) == 7
