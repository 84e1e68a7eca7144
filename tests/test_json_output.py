"""Every JSON pitui prints is terminal-safe: DEL, C1, separators and bidi controls are written as
``\\u`` escapes (issue 24.16: ``pitui list --json`` wrote a raw DEL byte)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pitui.cli import main
from pitui.core.safejson import dumps, escape_unsafe, escape_unsafe_bytes
from tests.core.sessiondata import assistant, entry, jsonl, user

UNSAFE = "\x7f\x85\x9b\u061c\u200e\u2028\u202e\u2066"


def test_each_unsafe_character_is_escaped_in_text_and_bytes() -> None:
    text = json.dumps({"v": f"a{UNSAFE}b"}, ensure_ascii=False)
    for escaped in (escape_unsafe(text), escape_unsafe_bytes(text.encode()).decode()):
        assert not any(char in escaped for char in UNSAFE)
        assert json.loads(escaped) == {"v": f"a{UNSAFE}b"}
    assert json.loads(dumps({"v": "\ud800" + UNSAFE})) == {"v": "\ud800" + UNSAFE}


def test_list_and_inspect_json_hold_no_raw_unsafe_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    folder = tmp_path / "agent" / "sessions" / "--home-ana-proj--"
    folder.mkdir(parents=True)
    path = folder / "2025-01-01T00-00-00-000Z_0195aaaa-0000-7000-8000-000000000001.jsonl"
    name = f"na\x7fme{UNSAFE}"
    path.write_bytes(
        jsonl(user("u1", None, f"hi{UNSAFE}"), assistant("a1", "u1"),
              entry("session_info", "s1", "a1", 3, name=name))
    )  # fmt: skip
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    for argv in (["list", "--all", "--json"], ["list", "--all", "--json", "--search", "hi"],
                 ["inspect", "--json", str(path)]):  # fmt: skip
        assert main(argv) == 0
        out = capsysbinary.readouterr().out
        assert not any(char.encode() in out for char in UNSAFE), (argv, out)
        assert b"\\u007f" in out, argv  # (the DEL is there, escaped)
        json.loads(out)
    assert os.path.exists(path)
