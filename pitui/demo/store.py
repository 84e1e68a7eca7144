"""The demo store on disk: where it lives, its marker file, building it and renaming it into place.

The store is built in a temp folder beside its place and renamed into it, so a reader never sees
half a store; a marker file (``pitui-demo.json``) says which generator version built it and for
which base time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from pitui.core import edit, paths
from pitui.demo.builder import write_sessions

# Bump whenever the generated content changes: an existing store with another version is rebuilt.
GENERATOR_VERSION = 1
MARKER_NAME = "pitui-demo.json"
# A store built for "now" (no base_time) is rebuilt after a day, so that its ages stay believable.
REFRESH_AFTER = 24 * 3600.0

# The folders of the scenarios' sessions (none exists on disk), in the order the marker lists them.
PROJECTS: tuple[str, ...] = (
    "/home/demo/code/webapp",
    "/home/demo/code/cli-tool",
    "/home/demo/code/infra",
    "/home/demo/notes",
    "/home/demo/code/data-pipeline",
)
CURRENT = PROJECTS[0]  # the folder the demo opens in: its Current Folder scope is the fullest


class DemoStoreError(Exception):
    """The demo store could not be written; ``str(exc)`` is one line."""


@dataclass(frozen=True, slots=True)
class DemoStore:
    """A demo agent directory: point ``PI_CODING_AGENT_DIR`` (or ``Store(agent=...)``) at
    ``agent_dir`` and open the picker in ``cwd``. ``base_time`` is the moment the content is
    dated against (epoch seconds); ``sessions`` the number of session files."""

    agent_dir: Path
    cwd: str
    projects: list[str]
    base_time: float
    sessions: int


# ------------------------------------------------------------------------------------- the store


def demo_agent_dir() -> Path:
    """Where :func:`ensure_demo_store` keeps the store: ``<cache dir>/demo/agent``."""
    return paths.cache_dir() / "demo" / "agent"


def read_demo_store(agent: Path) -> DemoStore | None:
    """The store described by the marker file in ``agent``; ``None`` if there is none, it is
    damaged, or it was made by another generator version."""
    try:
        marker = orjson.loads((agent / MARKER_NAME).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(marker, dict) or marker.get("generator") != GENERATOR_VERSION:
        return None
    base = marker.get("baseTime")
    cwd = marker.get("cwd")
    projects = marker.get("projects")
    count = marker.get("sessions")
    if (
        not isinstance(base, int | float)
        or not isinstance(cwd, str)
        or not isinstance(projects, list)
        or not all(isinstance(p, str) for p in projects)
        or not isinstance(count, int)
    ):
        return None
    return DemoStore(agent, cwd, list(projects), float(base), count)


def ensure_demo_store(*, base_time: float | None = None, force: bool = False) -> DemoStore:
    """The demo store in the cache dir, built if missing.

    An existing store is reused when its marker names this generator version and, with an
    explicit ``base_time``, the same base time; without one, when it is less than a day old.
    ``force`` rebuilds. Building takes well under two seconds; it happens in a temp folder that
    is then renamed into place, so concurrent callers never see a partial store. Raises
    :class:`DemoStoreError`.
    """
    target = demo_agent_dir()
    if not force:
        existing = read_demo_store(target)
        if existing is not None and _reusable(existing, base_time):
            return existing
    moment = time.time() if base_time is None else float(base_time)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".agent-", dir=target.parent))
    except OSError as exc:
        raise DemoStoreError(f"{target.parent}: cannot write the demo store ({exc})") from exc
    try:
        write_demo_store(building, moment, installed_at=target)
        _install(building, target)
    except (OSError, edit.WriteError) as exc:
        raise DemoStoreError(f"{target}: cannot write the demo store ({exc})") from exc
    finally:
        shutil.rmtree(building, ignore_errors=True)
    store = read_demo_store(target)
    if store is None:
        raise DemoStoreError(f"{target}: the demo store vanished while it was installed")
    return store


def _reusable(store: DemoStore, base_time: float | None) -> bool:
    if base_time is not None:
        return store.base_time == float(base_time)
    return 0.0 <= time.time() - store.base_time < REFRESH_AFTER


def _install(building: Path, target: Path) -> None:
    """Rename the finished store into place; an older store is moved aside first, then deleted.
    If another process installed a store in between, theirs is kept (ours is discarded)."""
    aside: Path | None = None
    if target.exists() or target.is_symlink():
        aside = Path(tempfile.mkdtemp(prefix=".old-", dir=target.parent))
        with contextlib.suppress(FileNotFoundError):  # another process moved it first
            os.rename(target, aside / "agent")
    try:
        os.rename(building, target)
    except OSError:
        if read_demo_store(target) is None:
            raise
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)


def write_demo_store(
    agent: Path, base_time: float, *, installed_at: Path | None = None
) -> DemoStore:
    """Write the demo sessions into ``agent`` (an empty or missing folder) as of ``base_time``.

    ``installed_at``: where the folder will be renamed to; the ``parentSession`` paths of forks
    name the files there. Used by :func:`ensure_demo_store`; tests and benchmarks call it
    directly.
    """
    final = installed_at if installed_at is not None else agent
    files = write_sessions(agent, base_time, final)
    marker = {
        "generator": GENERATOR_VERSION,
        "baseTime": base_time,
        "cwd": CURRENT,
        "projects": list(PROJECTS),
        "sessions": len(files),
    }
    (agent / MARKER_NAME).write_bytes(orjson.dumps(marker, option=orjson.OPT_INDENT_2) + b"\n")
    return DemoStore(final, CURRENT, list(PROJECTS), base_time, len(files))
