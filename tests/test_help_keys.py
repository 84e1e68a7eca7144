"""``pitui --help-keys``: every command with its keys, its [keymap] id and what it does, and the
user's overrides with the file that set them (the config, pi's keybindings.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.cli.main import main
from pitui.config import CONFIG_ENV
from pitui.core.paths import AGENT_DIR_ENV
from pitui.ui.commands import COMMANDS


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    config, agent = tmp_path / "config.toml", tmp_path / "agent"
    agent.mkdir()
    monkeypatch.setenv(CONFIG_ENV, str(config))
    monkeypatch.setenv(AGENT_DIR_ENV, str(agent))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return config, agent


def listing(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code = main(["--help-keys"])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def row(lines: list[str], command_id: str) -> list[str]:
    """The command's lines: its row (keys, id, description) and the lines under it."""
    start = next(i for i, line in enumerate(lines) if f" {command_id} " in f"{line} ")
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" " * 20)),
               len(lines))  # fmt: skip
    return lines[start:end]


def test_every_command_with_its_default_keys(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines, err = listing(capsys)
    assert code == 0 and err == ""
    for command in COMMANDS:
        first, *rest = row(lines, command.id)
        assert first.split()[:2] == [command.keys, command.id], first
        assert first.endswith(command.description)
        assert rest == [" " * 29 + command.help]  # no override: no "default … set in"
    assert "Session view" in lines and "Session tree" in lines


def test_overrides_say_their_default_and_their_file(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config, agent = folders
    config.write_text('[keymap]\n"picker.sort" = "alt+s"\n"session.show_all" = "alt+u"\n')
    (agent / "keybindings.json").write_text(
        json.dumps({"app.tree.foldOrUp": ["ctrl+left", "ctrl+k"]})
    )
    code, lines, _ = listing(capsys)
    assert code == 0
    sort = row(lines, "picker.sort")
    assert sort[0].split()[:2] == ["alt+s", "picker.sort"]
    assert sort[1].split() == ["default", "ctrl+s;", "set", "in", str(config)]
    assert row(lines, "session.show_all")[0].split()[0] == "alt+u"
    fold = row(lines, "tree.fold_or_up")
    assert fold[0].split()[:2] == ["ctrl+left,ctrl+k", "tree.fold_or_up"]
    assert fold[1].endswith(f"set in {agent / 'keybindings.json'}")
    assert row(lines, "picker.named")[0].split()[0] == "ctrl+n"  # untouched


def test_a_config_with_mistakes_is_reported_and_the_defaults_listed(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config, _ = folders
    config.write_text('[keymap]\n"picker.sort" = "ctrl+y"\n"tree.nope" = "x"\n')
    code, lines, err = listing(capsys)
    assert code == 1
    assert f"{config}: keymap.tree.nope: no such command" in err
    assert f"{config}: keymap.picker.sort: ctrl+y is also the key of picker.copy_path" in err
    assert row(lines, "picker.sort")[0].split()[0] == "ctrl+s"
    assert any("has mistakes" in line for line in lines)
