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
