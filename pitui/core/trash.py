"""Deleting to the trash (send2trash) and restoring from it (freedesktop.org trash, Linux).

Restoring puts a trashed file back at its exact original path and refuses when something else
lives there now. Permanent deletion is a separate function that callers reach only after a second,
explicit confirmation.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from pitui.core.jsonl import has_session_header


class TrashError(Exception):
    """The trash did not take the file, or cannot give it back; ``str(exc)`` is one line."""


@dataclass(frozen=True, slots=True)
class TrashedItem:
    original: str  # absolute path the file had
    stored: str  # where it is inside the trash (``…/Trash/files/<name>``)
    info: str  # its ``.trashinfo`` file
    deleted_at: str  # DeletionDate as written (local time, ISO without zone)


def restore_supported() -> bool:
    """Undo and ``pitui restore`` need the freedesktop trash layout (Linux and other Unixes)."""
    return sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd"))


def _home_trash() -> Path:
    from send2trash import plat_other

    return Path(os.fsdecode(plat_other.HOMETRASH_B))


def _home_trash_topdir() -> Path:
    from send2trash import plat_other

    return Path(os.fsdecode(plat_other.XDG_DATA_HOME))


def _mount_point(path: Path) -> Path:
    path = path.resolve()
    while not os.path.ismount(path) and path.parent != path:
        path = path.parent
    return path


def _trash_dirs(original: str) -> list[tuple[Path, Path | None]]:
    """Candidate trash dirs for a file, with the topdir their relative paths are based on."""
    dirs: list[tuple[Path, Path | None]] = [(_home_trash(), None)]
    try:
        top = _mount_point(Path(original).parent)
    except OSError:
        return dirs
    uid = str(os.getuid())
    dirs.append((top / ".Trash" / uid, top))
    dirs.append((top / f".Trash-{uid}", top))
    return dirs


def _parse_info(info: Path, topdir: Path | None) -> tuple[str, str] | None:
    try:
        text = info.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    path = date = None
    for line in text.splitlines():
        if line.startswith("Path="):
            path = unquote(line[5:])
        elif line.startswith("DeletionDate="):
            date = line[len("DeletionDate=") :]
    if path is None:
        return None
    if not os.path.isabs(path):
        if topdir is None:
            return None  # the home trash records absolute paths only (freedesktop spec)
        path = str(topdir / path)
    return path, date or ""


def _trash_records(path: str) -> Iterator[tuple[Path, Path, str, str]]:
    """``(record, stored file, original path, deletion date)`` of every readable record in the
    trash directories that would take ``path``, each record once."""
    seen: set[str] = set()
    for folder, topdir in _trash_dirs(path):
        info_dir = folder / "info"
        try:
            names = os.listdir(info_dir)
        except OSError:
            continue
        for name in names:
            info = info_dir / name
            if not name.endswith(".trashinfo") or str(info) in seen:
                continue
            seen.add(str(info))
            parsed = _parse_info(info, topdir)
            if parsed is not None:
                yield info, folder / "files" / name[: -len(".trashinfo")], parsed[0], parsed[1]


def find_trashed(original: str) -> list[TrashedItem]:
    """Every trashed copy of ``original``, newest deletion first."""
    original = os.path.abspath(original)
    items: list[TrashedItem] = []
    for info, stored, origin, deleted_at in _trash_records(original):
        if os.path.abspath(origin) == original and os.path.lexists(stored):
            items.append(TrashedItem(original, str(stored), str(info), deleted_at))
    items.sort(key=lambda item: item.deleted_at, reverse=True)
    return items


def trash(path: str) -> TrashedItem | None:
    """Move ``path`` to the trash. Returns where it went (``None`` where that cannot be known)."""
    from send2trash import send2trash
    from send2trash.exceptions import TrashPermissionError

    path = os.path.abspath(path)
    before = {item.info for item in find_trashed(path)} if restore_supported() else set()
    try:
        send2trash(path)
    except TrashPermissionError as exc:
        raise TrashError(f"the trash cannot take {path}: {exc}") from exc
    except OSError as exc:
        if not os.path.lexists(path):
            return None  # pi's rule: gone afterwards counts as done
        raise TrashError(f"the trash cannot take {path}: {exc.strerror or exc}") from exc
    if os.path.lexists(path):
        raise TrashError(f"the trash did not take {path}")
    if not restore_supported():
        return None
    fresh = [item for item in find_trashed(path) if item.info not in before]
    return fresh[0] if fresh else None


def restore(item: TrashedItem) -> None:
    """Put a trashed file back at its exact path; refuse if something else lives there now."""
    if os.path.lexists(item.original):
        raise TrashError(
            f"cannot restore: {item.original} exists again (something else lives there)"
        )
    folder = os.path.dirname(item.original)
    if not os.path.isdir(folder):
        raise TrashError(f"cannot restore: its folder {folder} no longer exists")
    try:
        os.rename(item.stored, item.original)
    except OSError as exc:
        raise TrashError(f"cannot restore {item.original}: {exc.strerror or exc}") from exc
    with suppress(OSError):
        os.unlink(item.info)  # the file is back; a stale .trashinfo is harmless


def restore_path(original: str) -> TrashedItem:
    """Restore the most recently trashed copy of ``original``."""
    if not restore_supported():
        raise TrashError("restoring from the trash is only available on Linux (freedesktop trash)")
    items = find_trashed(original)
    if not items:
        raise TrashError(f"no trashed copy of {original} was found")
    restore(items[0])
    return items[0]


def delete_permanently(path: str) -> None:
    """Unlink for good. Callers ask twice before they come here."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise TrashError(f"cannot delete {path}: {exc.strerror or exc}") from exc


def _is_session_file(path: str) -> bool:
    """A regular file, not a link, whose first line is a pi session header (what pi or pitui
    trashed)."""
    return not os.path.islink(path) and has_session_header(path)


def _inside(path: str, folder: Path) -> bool:
    try:
        return os.path.commonpath([os.path.realpath(path), os.path.realpath(folder)]) == (
            os.path.realpath(folder)
        )
    except ValueError:
        return False


def trashed_sessions(sessions_dir: Path, also: Iterable[str] = ()) -> list[TrashedItem]:
    """The sessions in the trash that ``restore --last`` may give back, most recently trashed
    first (by the trash record's write time: its ``DeletionDate`` only has seconds, and a bulk
    ``rm`` trashes many files in one second).

    Only what pi or pitui trashed: a record with an absolute path inside ``sessions_dir``, or one
    of the records in ``also`` (pitui's trash log: a custom session directory), whose stored file
    is a session file. The home trash and the sessions dir's volume trash are looked at."""
    logged = set(also)
    found: list[tuple[int, str, TrashedItem]] = []
    # a file name under the sessions dir picks that volume's trash directories
    for info, stored, origin, deleted_at in _trash_records(str(sessions_dir / "x.jsonl")):
        if not origin.endswith(".jsonl"):
            continue
        original = os.path.normpath(origin)
        if str(info) not in logged and not _inside(original, sessions_dir):
            continue
        try:
            stamp = os.stat(info).st_mtime_ns
        except OSError:
            continue
        if _is_session_file(str(stored)):
            item = TrashedItem(original, str(stored), str(info), deleted_at)
            found.append((stamp, deleted_at, item))
    found.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [item for _, _, item in found]
