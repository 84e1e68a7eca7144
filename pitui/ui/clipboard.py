"""Copy a session's path, its resume command, or a message's text to the clipboard.

The copy goes through ``App.copy_to_clipboard`` (OSC 52: the terminal puts it on the system
clipboard, also over SSH). The screens call these functions from their actions; each one tells
the user what happened with a notification.

Session text is untrusted, and what is copied gets pasted into shells. A message is copied
without its control characters and escape sequences (a pasted ``ESC [201~`` would end the
shell's bracketed paste and run the rest as typed), with its lines and tabs. A path or a folder
holding a control character is not copied at all: changed, it would name another file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from textual.app import App

from pitui.launch import ResumeRequest, resume_argv, shell_command
from pitui.render.safe_text import one_line, sanitize_plain

__all__ = [
    "clipboard_text",
    "copy_message",
    "copy_resume_command",
    "copy_session_path",
    "copy_text",
    "entry_text",
]

# C0 (but tab and newline), DEL, C1, bidi controls, line/paragraph separators, and lone
# surrogates (a file name that is not UTF-8 decodes to them; they cannot be copied as UTF-8).
_CONTROL_RE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
    "\ud800-\udfff]"
)


def clipboard_text(text: str) -> str:
    """``text`` without escape sequences and control characters; lines and tabs kept."""
    # sanitize_plain expands tabs: sanitize between them instead
    return "\t".join(
        sanitize_plain(part, reveal_invisible=False, strip=True) for part in text.split("\t")
    )


def copy_text(app: App[Any], text: str, what: str) -> bool:
    """Put ``text`` on the clipboard and say so (``what``: "the session path", …)."""
    if not text:
        app.notify(f"Nothing to copy: {what} is empty", severity="warning")
        return False
    app.copy_to_clipboard(text)
    lines = text.count("\n") + 1
    size = f"{lines} lines" if lines > 1 else one_line(text, 40)
    app.notify(f"Copied {what} ({size})", markup=False)
    return True


def _refuse_controls(app: App[Any], value: str, what: str) -> bool:
    if _CONTROL_RE.search(value):
        app.notify(
            f"Not copied: {what} contains control or undecodable characters",
            severity="warning",
            markup=False,
        )
        return True
    return False


def copy_session_path(app: App[Any], path: str | None) -> bool:
    if path is None:
        app.notify("No session selected", severity="warning")
        return False
    if _refuse_controls(app, path, "the session path"):
        return False
    return copy_text(app, path, "the session path")


def copy_resume_command(
    app: App[Any],
    path: str | None,
    cwd: str,
    session_id: str,
    template: Sequence[str] = ("pi", "--session", "{path}"),
) -> bool:
    """``cd <folder> && pi --session <path>`` (the configured ``resume_command``), shell-quoted."""
    if path is None:
        app.notify("No session selected", severity="warning")
        return False
    argv = resume_argv(list(template), path=path, session_id=session_id, cwd=cwd)
    command = shell_command(ResumeRequest(path, cwd, argv))
    if _refuse_controls(app, command, "the resume command"):
        return False
    return copy_text(app, command, "the resume command")


def copy_message(app: App[Any], raw: Mapping[str, Any] | None) -> bool:
    """The text of an entry (the selected message), see :func:`entry_text`."""
    if raw is None:
        app.notify("No entry selected", severity="warning")
        return False
    text = entry_text(raw)
    if text is None:
        app.notify("This entry has no text to copy", severity="warning")
        return False
    return copy_text(app, clipboard_text(text), "the message")


# ------------------------------------------------------------------------------- entry text


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _tool_calls(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    calls: list[str] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "toolCall":
            name = block.get("name") if isinstance(block.get("name"), str) else "?"
            arguments = json.dumps(block.get("arguments"), ensure_ascii=False, default=repr)
            calls.append(f"{name} {arguments}")
    return calls


def _message_text(message: Mapping[str, Any]) -> str | None:
    role = message.get("role")
    content = message.get("content")
    if role == "bashExecution":
        command = message.get("command")
        output = message.get("output")
        parts = [f"$ {command}" if isinstance(command, str) else ""]
        if isinstance(output, str) and output:
            parts.append(output)
        return "\n".join(parts) if parts[0] or len(parts) > 1 else None
    if role in ("branchSummary", "compactionSummary"):
        summary = message.get("summary")
        return summary if isinstance(summary, str) else None
    texts = _texts(content)
    if not texts and role == "assistant":
        texts = _tool_calls(content)  # a reply that only called tools: copy the calls
    joiner = "\n" if role == "toolResult" else "\n\n"
    return joiner.join(texts) if texts else None


def entry_text(raw: Mapping[str, Any]) -> str | None:
    """What "copy message" copies from an entry, unsanitized; None when it has no text.

    A message: its text blocks (an assistant reply without text: its tool calls; a shell
    command: ``$ command`` and the output; summaries: the summary); a compaction or branch
    summary: the summary; a custom message: its content; a label or a name: that; a custom
    entry: its data as JSON.
    """
    kind = raw.get("type")
    if kind == "message":
        message = raw.get("message")
        return _message_text(message) if isinstance(message, Mapping) else None
    if kind in ("compaction", "branch_summary"):
        summary = raw.get("summary")
        return summary if isinstance(summary, str) and summary else None
    if kind == "custom_message":
        texts = _texts(raw.get("content"))
        return "\n\n".join(texts) if texts else None
    if kind == "label":
        label = raw.get("label")
        return label if isinstance(label, str) and label else None
    if kind == "session_info":
        name = raw.get("name")
        return name if isinstance(name, str) and name else None
    if kind == "custom" and "data" in raw:
        return json.dumps(raw.get("data"), indent=2, ensure_ascii=False, default=repr)
    return None
