"""The fake `pi` executable records what it was started with."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fakes.fake_pi import FAKE_PI, install_fake_pi, read_fake_pi_log


def test_fake_pi_is_executable() -> None:
    assert os.access(FAKE_PI, os.X_OK)
    assert FAKE_PI.read_text(encoding="utf-8").startswith("#!/usr/bin/env python3\n")


def test_fake_pi_logs_argv_and_cwd(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = install_fake_pi(monkeypatch, tmp_path)
    assert read_fake_pi_log(log) == []
    exe = shutil.which("pi")
    assert exe is not None and Path(exe) == FAKE_PI
    work = tmp_path / "proj dir"
    work.mkdir()
    session = "/home/a/.pi/agent/sessions/--x--/2025 \u2028 é.jsonl"
    assert subprocess.run(["pi", "--session", session], cwd=work, check=False).returncode == 0
    assert subprocess.run(["pi"], cwd=tmp_path, check=False).returncode == 0
    assert read_fake_pi_log(log) == [
        {"argv": ["--session", session], "cwd": str(work)},
        {"argv": [], "cwd": str(tmp_path)},
    ]


def test_fake_pi_exit_code(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = install_fake_pi(monkeypatch, tmp_path)
    monkeypatch.setenv("PITUI_FAKE_PI_EXIT", "3")
    assert subprocess.run(["pi", "-c"], check=False).returncode == 3
    assert [run["argv"] for run in read_fake_pi_log(log)] == [["-c"]]


def test_fake_pi_without_log_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PITUI_FAKE_PI_LOG", raising=False)
    assert subprocess.run([str(FAKE_PI)], capture_output=True, check=False).returncode == 97
