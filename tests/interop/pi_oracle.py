"""Ask pi's own library what it reads from files: pi 0.73.1 and pi 1.6.0.

pi 0.73.1 is npm ``@mariozechner/pi-coding-agent``; pi 1.6.0 is ``@earendil-works/pi-coding-agent``.
Each is installed once per machine into ``${XDG_CACHE_HOME:-~/.cache}/pitui-test/pi-<version>``
(under a lock, so concurrent pytest processes do not race) and driven through ``pi_oracle.mjs``,
which only ever hands pi private copies of the files (pi rewrites files while reading them).

pi 1.6.0's package index needs node >= 22.19 (it loads the whole TUI); its session modules
(``dist/core/session-manager.js``, ``dist/core/messages.js``) run on node 20, so on an older node
the oracle imports those two modules directly and the public-entry check is skipped.
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


@dataclass(frozen=True)
class PiRelease:
    """One published pi whose SessionManager the tests ask."""

    package: str
    version: str
    # Siblings declared with ^ ranges, pinned so that the oracle is exactly this release.
    pinned_siblings: tuple[str, ...]
    # The oldest node that runs the session modules (for 0.73.1 its package.json "engines").
    min_node: tuple[int, int]
    # The oldest node that loads the package's public entry point (its "engines").
    public_entry_node: tuple[int, int]

    @property
    def label(self) -> str:
        return f"pi {self.version}"


PI_0_73 = PiRelease(
    package="@mariozechner/pi-coding-agent",
    version="0.73.1",
    pinned_siblings=("@mariozechner/pi-agent-core", "@mariozechner/pi-ai", "@mariozechner/pi-tui"),
    min_node=(20, 6),
    public_entry_node=(20, 6),
)
# 1.6.0 pins its siblings exactly itself; its "engines" say node >= 22.19 for the whole package.
PI_1_6 = PiRelease(
    package="@earendil-works/pi-coding-agent",
    version="1.6.0",
    pinned_siblings=(),
    min_node=(20, 6),
    public_entry_node=(22, 19),
)
RELEASES = (PI_0_73, PI_1_6)
# The names older tests import: the first oracle, 0.73.1.
PI_PACKAGE = PI_0_73.package
PI_VERSION = PI_0_73.version
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
_CACHE_BASE = (
    os.environ.get("PITUI_TEST_CACHE")
    or os.environ.get("XDG_CACHE_HOME")
    or str(Path.home() / ".cache")
)


def install_dir(release: PiRelease = PI_0_73) -> Path:
    """Where the package is installed (npm ``--prefix``)."""
    return Path(_CACHE_BASE) / "pitui-test" / f"pi-{release.version}"


def package_dir(prefix: Path | None = None, release: PiRelease = PI_0_73) -> Path:
    return (prefix or install_dir(release)) / "node_modules" / release.package


def _installed_version(prefix: Path, release: PiRelease) -> str | None:
    try:
        path = package_dir(prefix, release) / "package.json"
        data = json.loads(path.read_text(encoding="utf-8"))
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
    release: PiRelease = PI_0_73
    # False when this node cannot load the package's index (pi 1.6.0 on node < 22.19).
    public_entry: bool = True

    def _run(self, args: Sequence[str], env_extra: dict[str, str] | None = None) -> list[JsonDict]:
        env = dict(os.environ)
        env["PI_ORACLE_PACKAGE_DIR"] = str(self.package_dir)
        if not self.public_entry:
            env["PI_ORACLE_IMPORT"] = "fast"
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


def _npm_install(npm: str, prefix: Path, release: PiRelease) -> str | None:
    """Fresh install into ``prefix``; returns a failure reason or None."""
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    manifest: JsonDict = {
        "name": "pitui-pi-oracle",
        "private": True,
        "dependencies": {release.package: release.version},
    }
    if release.pinned_siblings:
        manifest["overrides"] = dict.fromkeys(release.pinned_siblings, release.version)
    (prefix / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    # --ignore-scripts: only native extras (clipboard, koffi) have install scripts, and the
    # session code needs none of them.
    spec = f"{release.package}@{release.version}"
    cmd = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--ignore-scripts"]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return f"npm install of {spec} timed out after {INSTALL_TIMEOUT}s"
    except OSError as exc:
        return f"cannot run npm: {exc}"
    if proc.returncode != 0:
        # npm's first error lines name the cause (code, syscall, message); the rest is a trace.
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        cause = "; ".join([ln for ln in lines if ln.startswith("npm error")][:4] or lines[-4:])
        return f"npm install of {spec} failed ({proc.returncode}): {cause}"
    return None


def _install(oracle: PiOracle, npm: str, prefix: Path) -> str | None:
    """Install and verify under the lock; returns a failure reason or None."""
    release = oracle.release
    marker = prefix / _MARKER
    if marker.is_file() and _installed_version(prefix, release) == release.version:
        return None
    reason = _npm_install(npm, prefix, release)
    if reason is not None:
        return reason
    installed = _installed_version(prefix, release)
    if installed != release.version:
        return f"npm installed {release.package} {installed!r}, wanted {release.version}"
    try:
        info = oracle.version()
    except PiOracleError as exc:
        return f"cannot load {release.package} with node: {exc}"
    if not info.get("fastExports"):
        return f"{release.package} does not export SessionManager/convertToLlm as expected: {info}"
    if oracle.public_entry and not (info.get("publicExports") and info.get("fastImportMatches")):
        return f"{release.package}'s entry point does not give the session modules' API: {info}"
    marker.write_text(json.dumps(info) + "\n", encoding="utf-8")
    return None


_states: dict[PiRelease, tuple[PiOracle | None, str]] = {}


def _ensure(release: PiRelease) -> tuple[PiOracle | None, str]:
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        return None, "node and npm are needed for the pi oracle (not on PATH)"
    version = _node_version(node)
    if version is None or version < release.min_node:
        want = ".".join(map(str, release.min_node))
        return None, f"{release.label} needs node >= {want}, found {version}"
    prefix = install_dir(release)
    oracle = PiOracle(
        node,
        package_dir(prefix, release),
        release=release,
        public_entry=version >= release.public_entry_node,
    )
    try:
        with _install_lock(prefix):
            reason = _install(oracle, npm, prefix)
    except OSError as exc:
        reason = f"cannot install into {prefix}: {exc}"
    return (None, reason) if reason else (oracle, "")


def ensure_pi(release: PiRelease = PI_0_73) -> tuple[PiOracle | None, str]:
    """Install the release if needed (once per process) and return ``(oracle, "")``.

    Returns ``(None, reason)`` if node or npm is missing, node is too old, or the install fails.
    """
    if release not in _states:
        _states[release] = _ensure(release)
    return _states[release]


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
