"""What a reader found wrong with a file: reported, never raised."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ProblemKind(StrEnum):
    MALFORMED = "malformed"  # a line that is not JSON (or not a JSON object)
    TRUNCATED = "truncated"  # unterminated last line that does not parse, file no longer growing
    BOM = "bom"  # UTF-8 byte order mark at the start of the file
    INVALID_UTF8 = "invalid-utf8"  # bytes replaced by U+FFFD before parsing
    DUPLICATE_HEADER = "duplicate-header"  # a second `type: session` line
    DUPLICATE_ID = "duplicate-id"
    MISSING_ID = "missing-id"  # entry without a string id
    ORPHAN = "orphan"  # parentId names an id that is not in the file
    SELF_PARENT = "self-parent"
    CYCLE = "cycle"
    LABEL_TARGET_MISSING = "label-target-missing"
    VERSION_TRAP = "version-trap"  # no version, but entries already form a tree
    MIGRATED = "migrated"  # an old format version, migrated in memory
    # Found by the doctor (pitui.core.doctor), not by the reader. Session.open raises the
    # file-level ones (empty, not a session, unsupported, unreadable) as SessionError; the doctor
    # reports them at the line where they show, or at line 0 (the whole file: unreadable, a
    # leftover temp file).
    PARENT_AFTER_CHILD = "parent-after-child"  # pi always writes a parent before its children
    PENDING = "pending"  # unterminated last line of a file written seconds ago (pi mid-write)
    EMPTY = "empty"  # 0 bytes or only blank lines: pi does not list it
    NOT_A_SESSION = "not-a-session"  # first JSON value is not a session header
    UNSUPPORTED_FORMAT = "unsupported-format"  # v4 harness file (`kind: header`)
    UNREADABLE = "unreadable"  # cannot be opened or read (permissions, a directory, gone)
    STALE_TEMP = "stale-temp"  # a `.name.*.tmp` left by an interrupted atomic rewrite
    NO_MESSAGE = "no-message"  # a message entry whose message is null or missing: pi throws


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing skipped or repaired while reading, with where it is in the file.

    ``line`` is 1-based; ``offset`` is the byte offset of the line's first byte.
    """

    kind: ProblemKind
    line: int
    offset: int
    reason: str

    def format(self, path: str | None = None) -> str:
        where = f"{path}:{self.line}" if path else f"line {self.line}"
        return f"{where} (byte {self.offset}): {self.reason}"
