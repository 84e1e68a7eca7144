"""Crash test (issue 8): a rewrite killed at a random point leaves the complete old file or the
complete new one, never a mix, and nothing but ``.<name>.<8 chars>.tmp`` leftovers.

A helper process (a fresh interpreter: no threads, safe to fork) imports pitui once and forks a
worker per round; the worker rewrites the session file in a loop (``edit.atomic_write`` between
two contents, or ``edit.migrate_file`` of a v1 file and back) until the test kills it with
SIGKILL after a random delay. After every kill the file must be byte for byte one of the two
contents, with its mode kept.

Leftovers: a kill between the temp file's creation and the rename leaves the temp file behind
(the session file is then still the old one). Nothing removes it; ``pitui doctor`` reports it
for the folder once it is a minute old (``ProblemKind.STALE_TEMP``).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.core import edit
from pitui.core.doctor import diagnose_file
from pitui.core.problems import ProblemKind
from pitui.core.session import Session
from tests.conftest import FIXTURES, REPO

NAME = "s.jsonl"
# The documented pattern of atomic_write's temp files (tempfile.mkstemp's 8 random characters).
LEFTOVER = re.compile(r"^\.s\.jsonl\.[a-z0-9_]{8}\.tmp$")
ROUNDS = 60
MIGRATE_ROUNDS = 30

HELPER = r"""
import os, sys, time
from pitui.core import edit
from pitui.core.session import Session

path, first, second = sys.argv[1:4]

def lines(name):
    data = open(name, "rb").read()
    return [line + b"\n" for line in data.split(b"\n")[:-1]]

A, B = lines(first), lines(second)

def work(mode):
    if mode == "rewrite":  # the other content first: every finished write changes the file
        order = [B, A] if open(path, "rb").read() == b"".join(A) else [A, B]
        i = 0
        while True:
            edit.atomic_write(path, order[i % 2])
            i += 1
    elif mode == "migrate":  # `first` is a v1 file: migrate it, put it back, again
        while True:
            session = Session.open(path, final=True)
            edit.migrate_file(session)
            session.close()
            edit.atomic_write(path, A)
    elif mode == "stuck":  # stop for good after the temp file is written, before the rename
        os.fsync = lambda fd: time.sleep(3600)
        edit.atomic_write(path, B)

for command in sys.stdin:
    verb, arg = command.split()
    if verb == "go":
        pid = os.fork()
        if pid == 0:
            try:
                work(arg)
            except BaseException:
                os._exit(3)
            os._exit(0)
        print(pid, flush=True)
    elif verb == "reap":
        print(os.waitpid(int(arg), 0)[1], flush=True)
"""


class Helper:
    def __init__(self, folder: Path, first: Path, second: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HELPER, str(folder / NAME), str(first), str(second)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )
        self.running: set[int] = set()

    def ask(self, line: str) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def start(self, mode: str) -> int:
        pid = self.ask(f"go {mode}")
        self.running.add(pid)
        return pid

    def kill(self, pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        self.running.discard(pid)
        status = self.ask(f"reap {pid}")
        # killed by us, not ended by an error of its own
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status

    def close(self) -> None:
        """End the helper, and any worker a failed test left running."""
        for pid in self.running:
            os.kill(pid, signal.SIGKILL)
        assert self.proc.stdin is not None
        self.proc.stdin.close()  # the helper's loop ends; its killed workers die with it
        self.proc.wait(timeout=10)


@pytest.fixture
def helper_for() -> Iterator[list[Helper]]:
    helpers: list[Helper] = []
    yield helpers
    for helper in helpers:
        helper.close()


def _content(lines: int, width: int, tag: bytes) -> bytes:
    """A session-like file of about lines × width bytes."""
    header = b'{"type":"session","version":3,"id":"%s","timestamp":"2025-01-01T00:00:00.000Z"}\n'
    body = b"".join(
        b'{"type":"custom","id":"%08x","parentId":null,"data":"%s"}\n' % (i, tag * width)
        for i in range(lines)
    )
    return header % tag + body


def _leftovers(folder: Path) -> list[str]:
    names = sorted(p.name for p in folder.iterdir() if p.name != NAME)
    assert all(LEFTOVER.match(n) for n in names), names  # nothing beyond the documented pattern
    return names


def _age(folder: Path, names: list[str]) -> None:
    past = time.time() - 3600
    for name in names:
        os.utime(folder / name, (past, past))


def _timed_write(path: Path, data: bytes) -> float:
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]]
    start = time.perf_counter()
    edit.atomic_write(str(path), lines)
    return time.perf_counter() - start


def _adapted(window: float, seen: Counter[str], done: int, *, inside: str, after: str) -> float:
    """The window the next kill lands in: twice as long while no kill has come after a finished
    write yet, half while none has come inside one (a write's time varies with the disk: in
    one CI run every worker outlasted the window measured once in this process)."""
    if done >= 5 and not seen[after]:
        return window * 2
    if done >= 5 and not seen[inside]:
        return window / 2
    return window


def test_killed_rewrites_leave_old_or_new_never_a_mix(
    tmp_path: Path, helper_for: list[Helper]
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    old, new = _content(1500, 400, b"A"), _content(2500, 300, b"B")
    (tmp_path / "old").write_bytes(old)
    (tmp_path / "new").write_bytes(new)
    path = folder / NAME
    # one write of each, to size the window the kills land in
    window = 3 * (_timed_write(path, new) + _timed_write(path, old)) / 2
    path.chmod(0o640)
    helper = Helper(folder, tmp_path / "old", tmp_path / "new")
    helper_for.append(helper)
    rng = random.Random(8)
    seen: Counter[str] = Counter()
    for done in range(1, ROUNDS + 1):
        before = path.read_bytes()
        pid = helper.start("rewrite")
        time.sleep(rng.uniform(0, window))
        helper.kill(pid)
        data = path.read_bytes()
        assert data in (old, new), f"a mixed file of {len(data)} bytes"
        seen["unchanged" if data == before else "rewritten"] += 1
        assert path.stat().st_mode & 0o777 == 0o640
        window = _adapted(window, seen, done, inside="unchanged", after="rewritten")
    # the kills landed both inside the first rewrite and after it
    assert seen["unchanged"] and seen["rewritten"], seen
    leftovers = _leftovers(folder)
    # the doctor names each leftover once it is old enough not to be a rewrite running now
    _age(folder, leftovers)
    report = diagnose_file(path)
    stale = [p for p in report.problems if p.kind is ProblemKind.STALE_TEMP]
    assert len(stale) == len(leftovers)
    assert sorted(os.path.basename(t.path) for t in report.temp_files) == leftovers
    assert report.status == ("problems" if leftovers else "ok")


def test_a_rewrite_killed_after_writing_its_temp_file_leaves_it_behind(
    tmp_path: Path, helper_for: list[Helper]
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    old, new = _content(10, 50, b"A"), _content(20, 50, b"B")
    (tmp_path / "old").write_bytes(old)
    (tmp_path / "new").write_bytes(new)
    path = folder / NAME
    path.write_bytes(old)
    helper = Helper(folder, tmp_path / "old", tmp_path / "new")
    helper_for.append(helper)
    pid = helper.start("stuck")
    deadline = time.monotonic() + 10
    while not any(p.name != NAME and p.stat().st_size == len(new) for p in folder.iterdir()):
        assert time.monotonic() < deadline, "the worker never wrote its temp file"
        time.sleep(0.01)
    helper.kill(pid)
    assert path.read_bytes() == old
    (leftover,) = _leftovers(folder)
    report = diagnose_file(path)
    assert report.healthy and not report.temp_files[0].stale  # seconds old: maybe running
    _age(folder, [leftover])
    report = diagnose_file(path)
    assert [p.kind for p in report.problems] == [ProblemKind.STALE_TEMP]
    assert leftover in report.problems[0].reason


def test_killed_migrations_leave_the_v1_file_or_the_whole_v3_file(
    tmp_path: Path, helper_for: list[Helper]
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    source = FIXTURES / "pi-legacy" / "large-session.jsonl"
    v1 = source.read_bytes()
    path = folder / NAME
    shutil.copy(source, path)
    path.chmod(0o600)
    start = time.perf_counter()
    session = Session.open(path, final=True)
    edit.migrate_file(session)
    session.close()
    window = 2 * (time.perf_counter() - start)
    v3 = path.read_bytes()
    assert v3 != v1 and Session.open(path, final=True).original_version == 3
    path.write_bytes(v1)
    helper = Helper(folder, source, source)
    helper_for.append(helper)
    rng = random.Random(9)
    seen: Counter[str] = Counter()
    for done in range(1, MIGRATE_ROUNDS + 1):
        pid = helper.start("migrate")
        time.sleep(rng.uniform(0, window))
        helper.kill(pid)
        data = path.read_bytes()
        assert data in (v1, v3), f"a mixed file of {len(data)} bytes"
        seen["v1" if data == v1 else "v3"] += 1
        assert path.stat().st_mode & 0o777 == 0o600
        window = _adapted(window, seen, done, inside="v1", after="v3")
    assert seen["v1"] and seen["v3"], seen
    _leftovers(folder)
