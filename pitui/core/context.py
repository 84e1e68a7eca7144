"""What the model sees at an entry (format §10, §15).

``build_context_entries`` and ``build_session_context``; ``estimate_context_tokens``, the size of a
context as the session view shows it.

The [new] rules: the latest compaction on the path is expanded; a compaction with ``retainedTail``
(present and a list, even empty) is a self-contained checkpoint; otherwise ``firstKeptEntryId``
selects the kept range. pi 1.x additions: a compaction's ``systemMessage`` comes first and replaces
the system messages of the kept range; ``context_edit`` entries on the path edit or drop messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pitui.core.js import parse_iso_ms
from pitui.core.session import EntryMeta, Session

Leaf = str | None | Literal["default"]


@dataclass(frozen=True, slots=True)
class ModelRef:
    provider: str | None
    model_id: str | None

    def to_json(self) -> dict[str, str]:
        """As pi's JSON has it: a part the message lacks is left out (``undefined``), not null."""
        parts = {"provider": self.provider, "modelId": self.model_id}
        return {key: value for key, value in parts.items() if value is not None}


@dataclass(slots=True)
class SessionContext:
    """Messages (as JSON objects, like pi's AgentMessage) plus the settings that apply."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    thinking_level: str = "off"
    model: ModelRef | None = None
    # for each message, the uid of the entry it came from (a compaction yields several)
    sources: list[str] = field(default_factory=list)


def iso_to_ms(timestamp: str | None) -> int | None:
    """An entry's ISO time as the ms timestamp pi gives the message built from it (format §9.3)."""
    return parse_iso_ms(timestamp)


def context_settings(path: list[EntryMeta]) -> tuple[str, ModelRef | None]:
    """Thinking level and model from the full path, last one wins (format §10.2)."""
    level = "off"
    source: EntryMeta | None = None  # the last entry that sets the model
    for meta in path:
        etype = meta.type
        if etype == "message":
            if meta.role == "assistant":
                source = meta
        elif etype == "model_change":
            source = meta
        elif etype == "thinking_level_change":
            value = meta.level
            if value is not None:
                level = value
    return level, None if source is None else ModelRef(source.provider, source.model)


def _last_compaction(path: list[EntryMeta]) -> int | None:
    for index in range(len(path) - 1, -1, -1):
        if path[index].type == "compaction":
            return index
    return None


def build_context_entries(session: Session, leaf: Leaf = "default") -> list[EntryMeta]:
    """The entries that make up what the model sees at ``leaf`` (format §10.3, [new] rules)."""
    return _context_entries(session, session.branch(leaf))


def _context_entries(session: Session, path: list[EntryMeta]) -> list[EntryMeta]:
    at = _last_compaction(path)
    if at is None:
        return path
    compaction = path[at]
    result = [compaction]
    first_kept = compaction.first_kept
    if not compaction.retained and first_kept is not None:
        for index in range(at):
            if path[index].id == first_kept:
                kept = path[index:at]
                if _has_system_checkpoint(session, compaction):
                    kept = [m for m in kept if not (m.type == "message" and m.role == "system")]
                result.extend(kept)
                break
    result.extend(path[at + 1 :])
    return result


def _has_system_checkpoint(session: Session, compaction: EntryMeta) -> bool:
    # Only pi 1.x compactions carry one; re-reading the line is cheap next to building the context.
    return isinstance(session.raw(compaction).get("systemMessage"), dict)


def _as_text_blocks(content: Any) -> Any:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def build_session_context(session: Session, leaf: Leaf = "default") -> SessionContext:
    """Messages, thinking level and model at ``leaf`` (format §10.4)."""
    path = session.branch(leaf)
    level, model = context_settings(path)
    context = SessionContext(thinking_level=level, model=model)
    entries = _context_entries(session, path)
    edits = _context_edits(session, path)
    for meta in entries:
        etype = meta.type
        if etype == "message":
            edit = edits.get(meta.id) if meta.id is not None else None
            _add_message(context, session.raw(meta), meta, edit)
        elif etype == "custom_message":
            edit = edits.get(meta.id) if meta.id is not None else None
            _add_custom_message(context, session.raw(meta), meta, edit)
        elif etype == "branch_summary":
            _add_branch_summary(context, session.raw(meta), meta)
        elif etype == "compaction" and meta is entries[0]:
            # (an older compaction inside a kept range yields nothing, format §10.4)
            _add_compaction(context, session.raw(meta), meta)
    return context


def _replacement_content(replacement: Any) -> Any:
    """What a ``context_edit``'s replacement puts in place of a message's content."""
    return replacement.get("content") if type(replacement) is dict else replacement


def _add_message(
    context: SessionContext, raw: dict[str, Any], meta: EntryMeta, edit: dict[str, Any] | None
) -> None:
    """A ``message`` entry's message, as a ``context_edit`` on the path leaves it (dropped when
    the edit has no replacement); a missing content of a conversation message reads ``[]``."""
    message = raw.get("message")
    if type(message) is not dict:
        return
    if edit is not None:
        replacement = edit.get("replacement")
        if replacement is None:
            return
        message = dict(message)
        content = _replacement_content(replacement)
        if message.get("role") in ("assistant", "toolResult"):
            content = _as_text_blocks(content)
        message["content"] = content
    elif (
        message.get("role") in ("user", "assistant", "toolResult")
        and message.get("content") is None
    ):
        message = dict(message)
        message["content"] = []
    context.messages.append(message)
    context.sources.append(meta.uid)


def _add_custom_message(
    context: SessionContext, raw: dict[str, Any], meta: EntryMeta, edit: dict[str, Any] | None
) -> None:
    """An extension's ``custom_message`` as the ``custom`` message pi builds from it."""
    if edit is not None and edit.get("replacement") is None:
        return
    content = raw.get("content")
    if edit is not None:
        content = _replacement_content(edit.get("replacement"))
    custom: dict[str, Any] = {
        "role": "custom",
        "customType": raw.get("customType"),
        "content": [] if content is None else content,
        "display": raw.get("display"),
    }
    if "details" in raw:
        custom["details"] = raw["details"]
    custom["timestamp"] = iso_to_ms(meta.timestamp)
    context.messages.append(custom)
    context.sources.append(meta.uid)


def _add_branch_summary(context: SessionContext, raw: dict[str, Any], meta: EntryMeta) -> None:
    """A ``branch_summary`` with a summary, as a ``branchSummary`` message."""
    summary = raw.get("summary")
    if summary:
        context.messages.append(
            {
                "role": "branchSummary",
                "summary": summary,
                "fromId": raw.get("fromId"),
                "timestamp": iso_to_ms(meta.timestamp),
            }
        )
        context.sources.append(meta.uid)


def _add_compaction(context: SessionContext, raw: dict[str, Any], meta: EntryMeta) -> None:
    """The compaction the context starts from: its system checkpoint (pi 1.x), the
    ``compactionSummary`` message, then the messages of its ``retainedTail``."""
    system = raw.get("systemMessage")
    if isinstance(system, dict):
        context.messages.append(system)
        context.sources.append(meta.uid)
    context.messages.append(
        {
            "role": "compactionSummary",
            "summary": raw.get("summary"),
            "tokensBefore": raw.get("tokensBefore"),
            "timestamp": iso_to_ms(meta.timestamp),
        }
    )
    context.sources.append(meta.uid)
    tail = raw.get("retainedTail")
    if type(tail) is list:
        for message in tail:
            if type(message) is dict:
                context.messages.append(message)
                context.sources.append(meta.uid)


def _context_edits(session: Session, path: list[EntryMeta]) -> dict[str, dict[str, Any]]:
    """Latest ``context_edit`` per target among the entries on the active path (format §15)."""
    edits: dict[str, dict[str, Any]] = {}
    for meta in path:
        if meta.type == "context_edit" and meta.target_id is not None:
            edits[meta.target_id] = session.raw(meta)
    return edits


BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n"
    "<summary>\n"
)


def _bash_text(message: dict[str, Any]) -> str:
    output = message.get("output")
    text = f"Ran `{message.get('command', '')}`\n"
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif type(exit_code) in (int, float) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def to_llm_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What pi sends to the model for these context messages (format §6.3): the coding-agent roles
    become user messages; a ``!!`` bash execution (``excludeFromContext``) and a role pi does not
    know are dropped (pi's ``convertToLlm``)."""
    result: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        stamp = message.get("timestamp")
        if role == "bashExecution":
            if message.get("excludeFromContext"):
                continue
            result.append(_user_text(_bash_text(message), stamp))
        elif role == "custom":
            content = message.get("content")
            result.append(
                {"role": "user", "content": _as_text_blocks(content or []), "timestamp": stamp}
            )
        elif role == "branchSummary":
            text = BRANCH_SUMMARY_PREFIX + f"{message.get('summary', '')}\n</summary>"
            result.append(_user_text(text, stamp))
        elif role == "compactionSummary":
            text = COMPACTION_SUMMARY_PREFIX + f"{message.get('summary', '')}\n</summary>"
            result.append(_user_text(text, stamp))
        elif role in _LLM_ROLES:
            result.append(message)
        # any other role (hookMessage in a v3 file, which is not migrated) pi drops
    return result


# pi 1.6.0 sends system messages too; 0.73.1 has none to send (it never writes them).
_LLM_ROLES = frozenset({"user", "assistant", "toolResult", "system"})


def _user_text(text: str, stamp: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": stamp}


def estimate_context_tokens(session: Session, sources: Sequence[str]) -> int:
    """Tokens the model would see with the context made of ``sources`` (entry uids, in context
    order): the last assistant ``usage`` (input + output + cache read + cache write of that reply)
    plus ~4 bytes a token for what follows it. A reply older than the latest compaction in the
    context measured the context before it was compacted, so it does not count."""
    metas = [m for m in (session.get(uid) for uid in sources) if m is not None]
    compacted = max((m.line for m in metas if m.type == "compaction"), default=-1)
    tail = 0
    for meta in reversed(metas):
        tokens = _usage_tokens(meta)
        if tokens is not None and meta.line > compacted:
            return tokens + tail // 4
        tail += meta.length
    return tail // 4


def _usage_tokens(meta: EntryMeta) -> int | None:
    usage = meta.usage
    if meta.role != "assistant" or usage is None:
        return None
    return int(usage[0] + usage[1] + usage[2] + usage[3])  # (counted: finite numbers)
