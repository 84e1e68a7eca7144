"""Format versions 1 → 2 → 3, in memory only (format §4). Reading never writes.

The index migrates its entry records as it loads; :func:`patch_entry` applies the same changes to
an entry's JSON when it is re-read from the file, so every layer sees version 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pitui.core.session import EntryMeta

CURRENT_VERSION = 3


def header_version(header: dict[str, Any]) -> int:
    """The header's format version: absent means 1; a non-number means "current" (pi compares
    ``version < 2`` and a string never is)."""
    version = header.get("version")
    if version is None:
        return 1
    if type(version) in (int, float):
        return int(version)
    return CURRENT_VERSION


def needs_v1_ids(header: dict[str, Any]) -> bool:
    return header_version(header) < 2


def v1_id(line: int) -> str:
    """Deterministic id for an entry of a v1 file: 8 hex chars from its line number.

    pi draws random ids when it migrates, so ids of a v1 file differ between two pi opens anyway;
    deriving them from the line keeps pitui's view stable between reads. Unique within the file
    because line numbers are.
    """
    return f"{line:08x}"


def assign_v1_ids(
    entries: list[EntryMeta],
    ordinals: list[EntryMeta | None],
    first_kept_index: dict[str, int],
) -> None:
    """v1 → v2: one chain in file order; compaction ``firstKeptEntryIndex`` → ``firstKeptEntryId``.

    ``ordinals`` lists every parsed object in file order with ``None`` for header lines, so indexes
    count the header as 0, as pi does. ``first_kept_index`` maps an entry's old uid to its index.
    """
    previous: str | None = None
    position = {id(meta): i for i, meta in enumerate(ordinals) if meta is not None}
    old_uids = {id(meta): meta.uid for meta in entries}
    for meta in entries:
        new_id = v1_id(meta.line)
        meta.id = new_id
        meta.uid = new_id
        meta.parent_id = previous
        previous = new_id
    for meta in entries:
        index = first_kept_index.get(old_uids[id(meta)])
        if index is None:
            continue
        first_kept: str | None = None
        if 0 <= index < len(ordinals):
            target = ordinals[index]
            # a later object has no id yet at that point of pi's walk, so it yields none
            if target is not None and index <= position[id(meta)]:
                first_kept = target.id
        meta.info = (first_kept, *meta.info[1:])


def migrated_header(header: dict[str, Any]) -> dict[str, Any]:
    migrated = dict(header)
    migrated["version"] = CURRENT_VERSION
    return migrated


def patch_entry(obj: dict[str, Any], meta: EntryMeta, *, v1_chain: bool) -> None:
    """Bring one re-read entry JSON to version 3, consistent with the index's ``meta``.

    ``v1_chain``: the file was a v1 file whose entries got ids and one chain from the index.
    """
    if v1_chain:
        obj["id"] = meta.id
        obj["parentId"] = meta.parent_id
        index = obj.get("firstKeptEntryIndex")
        if obj.get("type") == "compaction" and type(index) in (int, float):
            del obj["firstKeptEntryIndex"]
            if meta.first_kept is not None:
                obj["firstKeptEntryId"] = meta.first_kept
            else:
                obj.pop("firstKeptEntryId", None)
    message = obj.get("message")
    if (
        obj.get("type") == "message"
        and type(message) is dict
        and message.get("role") == "hookMessage"
    ):
        message["role"] = "custom"
