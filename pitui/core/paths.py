"""Where pi keeps sessions (format §1) and where pitui keeps its own cache and config (XDG).

Nothing here creates a directory: pi creates session directories whenever it computes them, even
to list them; pitui only looks.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from pathlib import Path
from urllib.parse import unquote, urlparse

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:[\\/]|[A-Za-z]:$|\\\\)")


def home() -> str:
    return os.path.expanduser("~")


def agent_dir(environ: dict[str, str] | None = None) -> Path:
    """``PI_CODING_AGENT_DIR`` with pi's ``~`` rules (empty = unset), default ``~/.pi/agent``."""
    env = os.environ if environ is None else environ
    value = env.get(AGENT_DIR_ENV, "")
    if not value:
        return Path(home()) / ".pi" / "agent"
    if value == "~":
        return Path(home())
    if value.startswith("~/"):
        return Path(home()) / value[2:]
    return Path(os.path.abspath(value))


def sessions_root(agent: Path | None = None) -> Path:
    return (agent if agent is not None else agent_dir()) / "sessions"


def normalize_cwd(cwd: str) -> str:
    """pi [new]'s normalisation before naming a folder: ``~`` expanded, ``file://`` URLs converted,
    then resolved lexically (``.``/``..`` collapsed, duplicate and trailing separators removed)."""
    if cwd.startswith("file://"):
        cwd = unquote(urlparse(cwd).path)
    if cwd == "~":
        cwd = home()
    elif cwd.startswith("~/"):
        cwd = os.path.join(home(), cwd[2:])
    if _WINDOWS_PATH.match(cwd):
        return cwd  # a Windows path read on a POSIX machine: nothing to resolve against
    resolved = os.path.normpath(os.path.abspath(cwd))
    if resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")  # Node's path.resolve keeps one leading slash
    return resolved


def encode_cwd(cwd: str) -> str:
    """The ``--<path>--`` directory name of a cwd (format §1.2); not reversible."""
    if cwd[:1] in ("/", "\\"):
        cwd = cwd[1:]
    return "--" + cwd.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def session_dir_for(cwd: str, agent: Path | None = None) -> Path:
    return sessions_root(agent) / encode_cwd(normalize_cwd(cwd))


def session_file_name(created_iso: str, session_id: str) -> str:
    """``<T>_<id>.jsonl`` where ``<T>`` is the ISO creation time with ``:`` and ``.`` → ``-``."""
    return created_iso.replace(":", "-").replace(".", "-") + "_" + session_id + ".jsonl"


def real_path(path: str) -> str:
    """Normalized absolute real path (the path itself if it cannot be resolved)."""
    try:
        return os.path.realpath(os.path.abspath(path))
    except (OSError, ValueError):
        return path


_cached_real_path = functools.lru_cache(maxsize=65536)(real_path)


def default_normalize_path(path: str) -> str:
    """Normalized absolute real path (cached): how pitui links a fork to its parent session."""
    return _cached_real_path(path)


def normalize_session_path(path: str) -> str:
    """Absolute, real path: how pitui compares ``parentSession`` with listed paths (§14)."""
    expanded = os.path.expanduser(path)
    try:
        return os.path.realpath(os.path.abspath(expanded))
    except (OSError, ValueError):
        return os.path.normpath(os.path.abspath(expanded))


def _xdg(var: str, default: str) -> Path:
    value = os.environ.get(var, "")
    return Path(value) if value and os.path.isabs(value) else Path(home()) / default


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/pitui`` (default ``~/.cache/pitui``): the disposable index lives here."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "pitui"


def config_dir() -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config") / "pitui"


def data_dir() -> Path:
    """``$XDG_DATA_HOME/pitui`` (default ``~/.local/share/pitui``): what pitui remembers of its
    own writes (the last write to each file, the batches it moved to the trash)."""
    return _xdg("XDG_DATA_HOME", ".local/share") / "pitui"


def shorten_home(path: str, home_dir: str | None = None) -> str:
    """``/home/ana/x`` → ``~/x``; only a whole leading path component is replaced (ui §2.2)."""
    base = (home_dir if home_dir is not None else home()).rstrip("/")
    if not base:
        return path
    if path == base:
        return "~"
    if path.startswith(base + "/"):
        return "~" + path[len(base) :]
    return path


NOT_REGULAR = "not a regular file (a FIFO, a device or a socket); pitui reads only session files"


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of ``path``, which must be a regular file. Opened without
    blocking, so a FIFO named ``*.jsonl`` is refused at once instead of waiting for a writer
    for ever; raises ``OSError`` (``IsADirectoryError`` for a folder)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, os.fspath(path))
        os.set_blocking(fd, True)  # (regular files never block; keep the usual semantics)
    except BaseException:
        os.close(fd)
        raise
    return fd
