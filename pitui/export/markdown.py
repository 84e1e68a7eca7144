"""A branch's context as a Markdown document.

Markdown is a document format, so the messages of pi's own roles are written as Markdown from
their content (what the model wrote is Markdown already; tool output goes into fenced code), not
as the terminal drawing. Messages whose look belongs to an extension (``custom`` messages, roles
pitui does not know) are drawn by the renderer registry, so plug-ins apply, and their text goes
into a fenced block.

Session text is untrusted and stays text:

- control, bidi and line-separator characters are replaced by visible symbols;
- in message Markdown, raw HTML is neutralized (``<`` before a tag becomes ``&lt;``) outside code
  spans and fenced blocks, and a fence the text leaves open is closed, so one message can never
  swallow the rest of the document;
- titles, names and paths are escaped as inline text or put into code spans; fenced output gets
  a fence longer than any backtick run inside it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pitui.core.js import parse_iso_ms
from pitui.core.units import format_bytes, format_count, format_local_time
from pitui.export.document import ExportDocument
from pitui.export.rendered import draw_extensions, draw_messages, lines_text
from pitui.render.parts import dump_json, usage_text
from pitui.render.registry import RendererRegistry
from pitui.render.safe_text import one_line, sanitize_plain

__all__ = ["code_span", "fenced", "inline", "neutralize", "to_markdown"]

# A fence opener/closer: the fence run and what follows it. Openers are only recognised at the
# start of a line: a fence indented 1-3 spaces may belong to a list item the renderer closes at
# the next unindented line, and then what follows would be raw HTML to it but code to us.
_OPEN_RE = re.compile(r"(`{3,}|~{3,})(.*)")
_CLOSE_RE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_TAG_START_RE = re.compile(r"[A-Za-z/!?]")
_BACKTICKS_RE = re.compile(r"`+")
# What the escaping of a line looks at: a backslash escape, a backtick run, a tag opener.
_TOKEN_RE = re.compile(r"\\.|`+|<(?=[A-Za-z/!?])", re.DOTALL)
_INLINE_SPECIAL_RE = re.compile(r"([\\`*_\[\]<>#|!~&])")


def clean(text: str) -> str:
    """Untrusted text without control, bidi or separator characters (lines and tabs kept)."""
    return sanitize_plain(text, reveal_invisible=False, tab_size=4)


def _escape_line(line: str) -> str:
    """``<`` that could start raw HTML becomes ``&lt;``, except inside code spans.

    Linear in the line: code-span closers are found by bisecting the backtick runs of each size
    (a search from each opener to the end of the line was quadratic on long lines)."""
    if "<" not in line:
        return line
    runs: dict[int, list[int]] = {}  # run size -> starts of the runs of that size, in order
    for run in _BACKTICKS_RE.finditer(line):
        runs.setdefault(run.end() - run.start(), []).append(run.start())
    out: list[str] = []
    last = i = 0
    while (token := _TOKEN_RE.search(line, i)) is not None:
        first = line[token.start()]
        if first == "\\":
            i = token.end()  # a backslash escape: never a code span or a tag
        elif first == "`":
            starts = runs.get(token.end() - token.start(), [])
            k = bisect.bisect_left(starts, token.end())
            # a code span is literal up to its closer; an unmatched run is just text
            i = starts[k] + token.end() - token.start() if k < len(starts) else token.end()
        else:
            out.append(line[last : token.start()])
            out.append("&lt;")
            last = i = token.end()
    out.append(line[last:])
    return "".join(out)


def neutralize(markdown: str) -> str:
    """Session Markdown kept as Markdown, minus raw HTML; a fence left open is closed."""
    out: list[str] = []
    fence: str | None = None
    for line in clean(markdown).split("\n"):
        if fence is not None:
            out.append(line)
            close = _CLOSE_RE.fullmatch(line)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                fence = None
            continue
        opener = _OPEN_RE.fullmatch(line)
        if opener and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
            fence = opener.group(1)
            out.append(line)
            continue
        out.append(_escape_line(line))
    if fence is not None:
        out.append(fence)
    return "\n".join(out).strip("\n")


def inline(text: str) -> str:
    """Untrusted text as one line of plain Markdown text (no markup, no HTML)."""
    return _INLINE_SPECIAL_RE.sub(r"\\\1", one_line(text, reveal_invisible=False))


def code_span(text: str) -> str:
    """Untrusted text as one inline code span."""
    value = one_line(text, reveal_invisible=False)
    if not value.strip():
        return "` `" if value else "*(empty)*"
    longest = max((len(m.group()) for m in _BACKTICKS_RE.finditer(value)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def fenced(text: str, info: str = "") -> str:
    """Untrusted text in a fenced code block no line of it can close."""
    body = clean(text).rstrip("\n")
    longest = max((len(m.group()) for m in _BACKTICKS_RE.finditer(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _quote(markdown: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in markdown.split("\n"))


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


def _image(block: Mapping[str, Any]) -> str:
    mime = block.get("mimeType")
    data = block.get("data")
    size = f", {format_bytes(len(data) * 3 // 4)}" if isinstance(data, str) else ""  # base64
    return f"*\\[image{': ' + inline(mime) if isinstance(mime, str) else ''}{size}\\]*"


def _content(content: Any) -> list[str]:
    """Text blocks as Markdown, images as a note, anything else as JSON."""
    parts: list[str] = []
    for block in _blocks(content):
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text" and isinstance(block, Mapping):
            text = neutralize(_text_of(block.get("text")))
            if text.strip():
                parts.append(text)
        elif kind == "image" and isinstance(block, Mapping):
            parts.append(_image(block))
        elif kind == "thinking" and isinstance(block, Mapping):
            if block.get("redacted"):
                parts.append("> *Thinking (redacted by the provider)*")
            elif _text_of(block.get("thinking")).strip():
                thinking = neutralize(_text_of(block.get("thinking")))
                parts.append(_quote("*Thinking*\n\n" + thinking))
        elif kind == "toolCall" and isinstance(block, Mapping):
            name = code_span(_text_of(block.get("name")) or "?")
            parts.append(
                f"**Tool call** {name}\n\n" + fenced(dump_json(block.get("arguments")), "json")
            )
        else:
            parts.append(fenced(dump_json(block), "json"))
    return parts


def _output(content: Any) -> str:
    texts: list[str] = []
    notes: list[str] = []
    for block in _blocks(content):
        if isinstance(block, Mapping) and block.get("type") == "text":
            texts.append(_text_of(block.get("text")))
        elif isinstance(block, Mapping) and block.get("type") == "image":
            notes.append(_image(block))
        else:
            texts.append(dump_json(block))
    parts = [fenced("\n".join(texts), "text")] if texts else []
    return "\n\n".join([*parts, *notes])


def _heading(title: str, message: Mapping[str, Any], *extra: str) -> str:
    when = format_local_time(message.get("timestamp"), seconds=True)
    bits = [title, *extra, *([when] if when else [])]
    return "## " + " · ".join(bits)


def _user(message: Mapping[str, Any]) -> str:
    body = _content(message.get("content"))
    return "\n\n".join([_heading("User", message), *(body or ["*(no text)*"])])


def _assistant(message: Mapping[str, Any]) -> str:
    provider, model = message.get("provider"), message.get("model")
    name = "/".join(p for p in (provider, model) if isinstance(p, str) and p)
    parts = [_heading("Assistant", message, *([inline(name)] if name else []))]
    parts.extend(_content(message.get("content")))
    reason = message.get("stopReason")
    error = _text_of(message.get("errorMessage"))
    if reason in ("error", "aborted"):
        label = "Error" if reason == "error" else "Aborted"
        parts.append(f"> **{label}**" + (f": {inline(error)}" if error else ""))
    elif reason == "length":
        parts.append("> *Stopped at the length limit*")
    usage = usage_text(message.get("usage"))
    if usage:
        parts.append(f"*{inline(usage)}*")
    return "\n\n".join(parts)


def _tool_result(message: Mapping[str, Any]) -> str:
    name = _text_of(message.get("toolName")) or "tool"
    status = "failed" if message.get("isError") else "result"
    parts = [_heading(f"Tool {status}", message, code_span(name))]
    output = _output(message.get("content"))
    if output:
        parts.append(output)
    details = message.get("details")
    if isinstance(details, Mapping) and isinstance(details.get("diff"), str):
        parts.append(fenced(details["diff"], "diff"))
    return "\n\n".join(parts)


def _bash(message: Mapping[str, Any]) -> str:
    command = _text_of(message.get("command"))
    output = _text_of(message.get("output"))
    parts = [_heading("Shell", message), fenced(f"$ {command}\n{output}", "console")]
    code = message.get("exitCode")
    if message.get("cancelled"):
        parts.append("*cancelled*")
    elif isinstance(code, int | float) and not isinstance(code, bool):
        parts.append(f"*exit {code:g}*")
    if message.get("truncated"):
        parts.append("*output truncated*")
    return "\n\n".join(parts)


def _summary(title: str, message: Mapping[str, Any]) -> str:
    parts = [_heading(title, message)]
    before = message.get("tokensBefore")
    if isinstance(before, int | float) and not isinstance(before, bool):
        parts.append(f"*{format_count(before)} tokens before*")
    summary = neutralize(_text_of(message.get("summary")))
    parts.append(summary if summary.strip() else "*(empty)*")
    return "\n\n".join(parts)


def _system(message: Mapping[str, Any]) -> str:
    """pi 1.x's system prompt: long and rarely read, so folded (``<details>``, ours, not the
    session's: everything inside is fenced or escaped)."""
    parts = _content(message.get("content"))
    sections = message.get("sections")
    if isinstance(sections, Mapping):
        for name, text in sections.items():
            title = f"**Section** {code_span(str(name))}"
            body = fenced(text, "text") if isinstance(text, str) else "*removed*"
            parts.append(f"{title}\n\n{body}")
    for key, label in (("toolsAdded", "Tools added"), ("toolsRemoved", "Tools removed")):
        value = message.get(key)
        if value:
            parts.append(f"**{label}**\n\n" + fenced(dump_json(value), "json"))
    folded = ["<details><summary>System prompt</summary>", *parts, "</details>"]
    return "\n\n".join([_heading("System", message), *(folded if parts else ["*(empty)*"])])


_WRITERS = {
    "user": _user,
    "assistant": _assistant,
    "toolResult": _tool_result,
    "bashExecution": _bash,
    "system": _system,
}


_SUMMARIES = {"branchSummary": "Branch summary", "compactionSummary": "Compaction summary"}
_WRITTEN_ROLES = {*_WRITERS, *_SUMMARIES}


def _written_here(role: object) -> bool:
    """Whether a message of ``role`` is written as Markdown here (else the registry draws it:
    plug-ins, and the fallback for a role that is not even a string)."""
    return isinstance(role, str) and role in _WRITTEN_ROLES


# facts that are names of things (ids, paths): code spans; the rest is prose
_CODE_FACTS = {"Session", "Folder", "File", "Forked from"}


def _fact(label: str, value: str) -> str:
    return f"- **{label}:** " + (code_span(value) if label in _CODE_FACTS else inline(value))


def _drawn(title: str, message: Mapping[str, Any], text: str) -> str:
    return "\n\n".join([_heading(title, message), fenced(text, "text")])


def to_markdown(
    document: ExportDocument,
    *,
    registry: RendererRegistry | None = None,
    width: int = 100,
) -> str:
    """The document as Markdown (``registry``: for extension messages; default: the app's)."""
    messages: Sequence[dict[str, Any]] = document.messages
    drawn_at = [i for i, m in enumerate(messages) if not _written_here(m.get("role"))]
    drawn: dict[int, str] = {}
    if drawn_at:
        pictures = draw_messages(
            [messages[i] for i in drawn_at],
            [document.sources[i] for i in drawn_at] if document.sources else None,
            width=width,
            registry=registry,
        )
        drawn = {i: lines_text(lines) for i, lines in zip(drawn_at, pictures, strict=True)}
    parts = [f"# {inline(document.title)}"]
    parts.append("\n".join(_fact(label, value) for label, value in document.facts))
    extensions = _extensions_at(document, width, registry)
    for index, message in enumerate(messages):
        parts.extend(extensions.get(index, []))
        role = message.get("role")
        if index in drawn:
            custom = message.get("customType")
            title = inline(custom) if isinstance(custom, str) and custom else inline(str(role))
            parts.append(_drawn(title, message, drawn[index]))
        elif role in _SUMMARIES:
            parts.append(_summary(_SUMMARIES[str(role)], message))
        else:
            parts.append(_WRITERS[str(role)](message))
    parts.extend(extensions.get(len(messages), []))
    parts.append(f"---\n\n*Exported by {inline(document.generator)}.*")
    return "\n\n".join(parts) + "\n"


def _extensions_at(
    document: ExportDocument, width: int, registry: RendererRegistry | None
) -> dict[int, list[str]]:
    """The branch's extension entries drawn by the registry, by the message they come before."""
    out: dict[int, list[str]] = {}
    for before, raw, lines in draw_extensions(document.extensions, width=width, registry=registry):
        custom = raw.get("customType")
        title = inline(custom) if isinstance(custom, str) and custom else "custom"
        when = format_local_time(parse_iso_ms(raw.get("timestamp")), seconds=True)
        heading = " · ".join(
            [f"## {title}", "extension entry, not sent to the model", *([when] if when else [])]
        )
        out.setdefault(before, []).append(f"{heading}\n\n{fenced(lines_text(lines), 'text')}")
    return out
