"""The demo's tools: a project's files in memory, so that tool calls and their outputs agree.

A scenario's ``read``/``ls``/``grep``/``find``/``write``/``edit`` calls are answered by a
:class:`Workspace` the way pi's tools answer them (what an ``edit`` changed, a later ``read`` shows;
an ``edit`` result carries pi's display diff); ``bash`` outputs are given by the scenario.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass
from textwrap import dedent
from typing import Any


@dataclass(slots=True)
class Op:
    """One tool call and what the tool answered."""

    name: str
    args: dict[str, Any]
    output: str
    error: bool = False
    details: Any = None


def bash(command: str, output: str, code: int = 0, *, timeout: int | None = None) -> Op:
    """A ``bash`` tool call; a non-zero exit is reported the way pi's bash tool reports it."""
    args: dict[str, Any] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    # an output line ending in a backslash goes on with the next (terminal lines are long)
    body = re.sub(r"\\\n[ \t]*", "", dedented(output))
    text = body if body.strip() else "(no output)"
    if code:
        text += f"\n\nCommand exited with code {code}"
    return Op("bash", args, text, error=code != 0)


def dedented(value: str) -> str:
    """A block of text without common indentation and without blank lines around it (a data
    file's block closes on a line of its own)."""
    return dedent(value).strip("\n")


# A line that starts a Markdown block of its own: list item, heading, table row, quote, fence.
_BLOCK_LINE = re.compile(r"^\s*(?:[-*+] |\d+\. |#|\||>|```)")


def prose(value: str) -> str:
    """Like :func:`dedented`, and the lines of each paragraph or list item joined, as a model
    writes them (the scenarios wrap prose to fit the data file's line length). Code blocks and
    tables are kept line for line."""
    out: list[str] = []
    fenced = False
    for line in dedented(value).split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        previous = out[-1].strip() if out else ""
        if (
            fenced
            or not stripped
            or not previous
            or previous.startswith(("```", "|", "#"))
            or _BLOCK_LINE.match(line)
        ):
            out.append(line)
        else:
            out[-1] = out[-1].rstrip() + " " + stripped
    return "\n".join(out)


class Workspace:
    """A project's files in memory, so that tool outputs agree with each other: what ``edit``
    changed, a later ``read`` or ``grep`` shows."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files: dict[str, str] = {k: dedented(v) + "\n" for k, v in files.items()}

    def _children(self, folder: str) -> list[str]:
        prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
        found: set[str] = set()
        for name in self.files:
            if name.startswith(prefix):
                rest = name[len(prefix) :]
                head, sep, _ = rest.partition("/")
                found.add(head + "/" if sep else head)
        return sorted(found, key=lambda n: (n.lower().lstrip("."), n))

    def ls(self, folder: str = ".") -> Op:
        entries = self._children(folder)
        if not entries:
            return Op("ls", {"path": folder}, f"Path not found: {folder}", error=True)
        return Op("ls", {"path": folder}, "\n".join(entries))

    def read(self, path: str, offset: int | None = None, limit: int | None = None) -> Op:
        args: dict[str, Any] = {"path": path}
        if offset is not None:
            args["offset"] = offset
        if limit is not None:
            args["limit"] = limit
        content = self.files.get(path)
        if content is None:
            return Op("read", args, f"ENOENT: no such file or directory, open '{path}'", True)
        lines = content.rstrip("\n").split("\n")
        start = (offset or 1) - 1
        end = len(lines) if limit is None else min(len(lines), start + limit)
        text = "\n".join(lines[start:end])
        if end < len(lines):
            text += (
                f"\n\n[Showing lines {start + 1}-{end} of {len(lines)}. "
                f"Use offset={end + 1} to continue]"
            )
        return Op("read", args, text)

    def grep(self, pattern: str, path: str = ".", glob: str | None = None) -> Op:
        args: dict[str, Any] = {"pattern": pattern}
        if path != ".":
            args["path"] = path
        if glob is not None:
            args["glob"] = glob
        regex = re.compile(pattern)
        prefix = "" if path == "." else path.rstrip("/") + "/"
        hits: list[str] = []
        for name in sorted(self.files):
            if not (name.startswith(prefix) or name == path):
                continue
            if glob is not None and not fnmatch.fnmatch(name.rsplit("/", 1)[-1], glob):
                continue
            for number, line in enumerate(self.files[name].split("\n"), 1):
                if regex.search(line):
                    hits.append(f"{name}:{number}: {line}")
        return Op("grep", args, "\n".join(hits) if hits else "No matches found")

    def find(self, pattern: str, path: str = ".") -> Op:
        args: dict[str, Any] = {"pattern": pattern}
        if path != ".":
            args["path"] = path
        prefix = "" if path == "." else path.rstrip("/") + "/"
        hits = [
            name
            for name in sorted(self.files)
            if name.startswith(prefix) and fnmatch.fnmatch(name, pattern)
        ]
        return Op("find", args, "\n".join(hits) if hits else "No files found matching pattern")

    def write(self, path: str, content: str) -> Op:
        body = dedented(content) + "\n"
        self.files[path] = body
        return Op("write", {"path": path, "content": body}, f"Successfully wrote to {path}")

    def edit(self, path: str, old: str, new: str) -> Op:
        old_text, new_text = dedented(old), dedented(new)
        before = self.files.get(path)
        # The scenarios write blocks dedented; the tool call carries them with the indentation
        # they have in the file, as a model sends them.
        for indent in (" " * n for n in range(0, 17, 2)):
            if before is not None and ("\n" + before).count("\n" + _indent(old_text, indent)) == 1:
                old_text, new_text = _indent(old_text, indent), _indent(new_text, indent)
                break
        args = {"path": path, "oldText": old_text, "newText": new_text}
        if before is None:
            return Op("edit", args, f"File not found: {path}", error=True, details={})
        if before.count(old_text) != 1:
            return Op(
                "edit",
                args,
                f"Could not find the exact text in {path}. The old text must match exactly "
                "including all whitespace and newlines.",
                error=True,
                details={},
            )
        after = before.replace(old_text, new_text, 1)
        self.files[path] = after
        diff, first = _pi_diff(before, after)
        return Op(
            "edit",
            args,
            f"Successfully replaced 1 block(s) in {path}.",
            details={"diff": diff, "firstChangedLine": first},
        )


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.split("\n"))


def _pi_diff(before: str, after: str) -> tuple[str, int]:
    """The edit tool's display diff: numbered lines, ``-``/``+`` markers, 3 lines of context."""
    old, new = before.split("\n"), after.split("\n")
    width = len(str(max(len(old), len(new))))
    out: list[str] = []
    first = 0
    groups = list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3))
    for number, group in enumerate(groups):
        if number or group[0][1] > 0:
            out.append(" " * (width + 2) + "...")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(f" {j + 1:>{width}} {new[j]}" for j in range(j1, j2))
                continue
            if not first:
                first = j1 + 1
            out.extend(f"-{i + 1:>{width}} {old[i]}" for i in range(i1, i2))
            out.extend(f"+{j + 1:>{width}} {new[j]}" for j in range(j1, j2))
    if groups and groups[-1][-1][2] < len(old):
        out.append(" " * (width + 2) + "...")
    return "\n".join(out), first
