"""Ask pi's own library (npm `@mariozechner/pi-coding-agent` 0.73.1) what it reads from files.

The package is installed once per machine into ``${XDG_CACHE_HOME:-~/.cache}/pitui-test/pi-0.73.1``
(under a lock, so concurrent pytest processes do not race) and driven through ``pi_oracle.mjs``,
which only ever hands pi private copies of the files (pi rewrites files while reading them).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PI_PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = "0.73.1"
# pi declares its sibling packages with ^ ranges; pin them so the oracle is exactly 0.73.1.
_PINNED_SIBLINGS = ("@mariozechner/pi-agent-core", "@mariozechner/pi-ai", "@mariozechner/pi-tui")
_MIN_NODE = (20, 6)  # pi's package.json "engines"
ORACLE_SCRIPT = Path(__file__).with_name("pi_oracle.mjs")
_MARKER = ".pitui-oracle-ok"
INSTALL_TIMEOUT = 900.0
RUN_TIMEOUT = 300.0
# Keeps each node command line far below the kernel's argument size limit.
_BATCH = 500

JsonDict = dict[str, Any]


class PiOracleError(RuntimeError):
    """The oracle is unavailable or the node process failed."""


# Read once at import (test collection), before the suite points XDG_CACHE_HOME at a temp dir for
# each test: the package is installed once per machine, not once per test session.
_CACHE_BASE = os.environ.get("PITUI_TEST_CACHE") or os.environ.get("XDG_CACHE_HOME") or str(
    Path.home() / ".cache"
)


def install_dir() -> Path:
    """Where the package is installed (npm ``--prefix``)."""
    return Path(_CACHE_BASE) / "pitui-test" / f"pi-{PI_VERSION}"


def package_dir(prefix: Path | None = None) -> Path:
    return (prefix or install_dir()) / "node_modules" / PI_PACKAGE


def _installed_version(prefix: Path) -> str | None:
    try:
        data = json.loads((package_dir(prefix) / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


@dataclass(frozen=True)
class PiOracle:
    """A ready-to-run oracle: a node binary and an installed pi package."""

    node: str
    package_dir: Path
    timeout: float = RUN_TIMEOUT

    def _run(self, args: Sequence[str], env_extra: dict[str, str] | None = None) -> list[JsonDict]:
        env = dict(os.environ)
        env["PI_ORACLE_PACKAGE_DIR"] = str(self.package_dir)
        env.update(env_extra or {})
        try:
            proc = subprocess.run(
                [self.node, str(ORACLE_SCRIPT), *args],
                env=env,
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise PiOracleError(f"pi oracle timed out after {self.timeout}s: {args[:3]}") from exc
        if proc.returncode != 0:
            stderr = proc.stderr.decode("utf-8", "replace").strip()
            raise PiOracleError(f"pi oracle exited {proc.returncode}: {stderr[-2000:]}")
        # Split on b"\n" only: JSON.stringify leaves U+2028/U+2029/U+0085 raw, which
        # str.splitlines() would split on. Lone surrogates come out escaped, so this is UTF-8.
        return [json.loads(line.decode("utf-8")) for line in proc.stdout.split(b"\n") if line]

    def version(self) -> JsonDict:
        """Package name/version, node version, and whether both import routes agree."""
        return self._run(["version"])[0]

    def report(self, paths: Sequence[str | os.PathLike[str]]) -> list[JsonDict]:
        """What pi's ``SessionManager.open()`` reads from each file, in the order given.

        Each dict has the keys of the fixtures' ``expected.json`` (sessionId, cwd, name, leafId,
        branchIds, rootIds, entryCount, entryTypeCounts, labels, labelTimestamps, treePreorder,
        context, llm, header) plus ``path``, ``openRewrote`` (pi rewrote the file on open: a
        migration, or a fresh header over an empty/invalid file) and ``pathCycle`` (the leaf's
        parent chain loops; pi would hang, so branchIds/context/llm are None). A file pi could not
        open at all gives ``{"path": ..., "error": ...}``. The files themselves are never touched.
        """
        out: list[JsonDict] = []
        names = [os.fspath(p) for p in paths]
        for start in range(0, len(names), _BATCH):
            out.extend(self._run(["report", *names[start : start + _BATCH]]))
        return out

    def list_sessions(
        self, agent_dir: str | os.PathLike[str], cwd: str | None = None
    ) -> list[JsonDict]:
        """pi's ``SessionManager.list(cwd)`` (or ``listAll()`` when cwd is None), in pi's order.

        ``agent_dir`` plays ``PI_CODING_AGENT_DIR``; it is copied first, since pi creates
        directories while listing. Records: path (inside ``agent_dir``), id, cwd, name,
        parentSessionPath, created, modified (ISO or None), messageCount, firstMessage,
        allMessagesTextLength (UTF-16 units), allMessagesTextSha256.
        """
        args = ["list", os.fspath(agent_dir)]
        if cwd is not None:
            args.append(cwd)
        return self._run(args)


def _node_version(node: str) -> tuple[int, int] | None:
    try:
        proc = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)", proc.stdout.strip())
    return (int(match[1]), int(match[2])) if match else None


@contextmanager
def _install_lock(prefix: Path) -> Iterator[None]:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    lock_path = prefix.parent / f"{prefix.name}.lock"
    with lock_path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _npm_install(npm: str, prefix: Path) -> str | None:
    """Fresh install into ``prefix``; returns a failure reason or None."""
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    manifest = {
        "name": "pitui-pi-oracle",
        "private": True,
        "dependencies": {PI_PACKAGE: PI_VERSION},
        "overrides": dict.fromkeys(_PINNED_SIBLINGS, PI_VERSION),
    }
    (prefix / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    # --ignore-scripts: only native extras (clipboard, koffi) have install scripts, and the
    # session code needs none of them.
    cmd = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--ignore-scripts"]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return f"npm install of {PI_PACKAGE}@{PI_VERSION} timed out after {INSTALL_TIMEOUT}s"
    except OSError as exc:
        return f"cannot run npm: {exc}"
    if proc.returncode != 0:
        # npm's first error lines name the cause (code, syscall, message); the rest is a trace.
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        cause = "; ".join([ln for ln in lines if ln.startswith("npm error")][:4] or lines[-4:])
        return f"npm install of {PI_PACKAGE}@{PI_VERSION} failed ({proc.returncode}): {cause}"
    return None


def _install(node: str, npm: str, prefix: Path) -> str | None:
    """Install and verify under the lock; returns a failure reason or None."""
    marker = prefix / _MARKER
    if marker.is_file() and _installed_version(prefix) == PI_VERSION:
        return None
    reason = _npm_install(npm, prefix)
    if reason is not None:
        return reason
    installed = _installed_version(prefix)
    if installed != PI_VERSION:
        return f"npm installed {PI_PACKAGE} {installed!r}, wanted {PI_VERSION}"
    try:
        info = PiOracle(node, package_dir(prefix)).version()
    except PiOracleError as exc:
        return f"cannot load {PI_PACKAGE} with node: {exc}"
    if not info.get("publicExports") or not info.get("fastImportMatches"):
        return f"{PI_PACKAGE} does not export SessionManager/convertToLlm as expected: {info}"
    marker.write_text(json.dumps(info) + "\n", encoding="utf-8")
    return None


_state: tuple[PiOracle | None, str] | None = None


def ensure_pi() -> tuple[PiOracle | None, str]:
    """Install the package if needed (once per process) and return ``(oracle, "")``.

    Returns ``(None, reason)`` if node or npm is missing, node is too old, or the install fails.
    """
    global _state
    if _state is not None:
        return _state
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        _state = (None, "node and npm are needed for the pi oracle (not on PATH)")
        return _state
    version = _node_version(node)
    if version is None or version < _MIN_NODE:
        want = ".".join(map(str, _MIN_NODE))
        _state = (None, f"pi {PI_VERSION} needs node >= {want}, found {version}")
        return _state
    prefix = install_dir()
    try:
        with _install_lock(prefix):
            reason = _install(node, npm, prefix)
    except OSError as exc:
        reason = f"cannot install into {prefix}: {exc}"
    _state = (None, reason) if reason else (PiOracle(node, package_dir(prefix)), "")
    return _state


def _require() -> PiOracle:
    oracle, reason = ensure_pi()
    if oracle is None:
        raise PiOracleError(reason)
    return oracle


def report(paths: Sequence[str | os.PathLike[str]]) -> list[JsonDict]:
    """See :meth:`PiOracle.report`; raises PiOracleError when the oracle is unavailable."""
    return _require().report(paths)


def list_sessions(agent_dir: str | os.PathLike[str], cwd: str | None = None) -> list[JsonDict]:
    """See :meth:`PiOracle.list_sessions`; raises PiOracleError when unavailable."""
    return _require().list_sessions(agent_dir, cwd)
