"""The config file (validation, defaults, PITUI_CONFIG), keymap overrides in the running app, and
pi's own keybindings.json."""

from __future__ import annotations

import dataclasses
import json
import string
from pathlib import Path

import pytest
from pydantic import ValidationError
from textual.keys import _character_to_key

from pitui.config import (
    CONFIG_ENV,
    PI_ACTIONS_FOR_COMMAND,
    PI_DEFAULT_KEYS,
    ConfigError,
    Settings,
    config_path,
    load_pi_keybindings,
    load_settings,
    merge_keymaps,
    pi_key_to_textual,
    validate_settings,
)
from pitui.ui.app import PituiApp
from pitui.ui.commands import COMMANDS, command_ids, drop_taken_keys
from tests.ui.picker_kit import MINUTE, FakeCatalog, FakeItem, aged, fake_app, picker, settle

SIZE = (100, 30)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def config_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    return str(caught.value)


# ------------------------------------------------------------------------------- the file


def test_no_file_means_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "missing.toml")
    assert settings == Settings()
    assert settings.theme == "pi-dark"
    assert settings.resume_command == ["pi", "--session", "{path}"]
    assert (settings.default_scope, settings.default_sort) == ("current", "threaded")
    assert settings.named_only is False and settings.show_path is False
    assert settings.tree_filter == "default"
    assert settings.watch is True and settings.watch_debounce_ms == 150
    assert settings.keymap == {}


def test_default_path_is_under_xdg_config_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    assert config_path() == tmp_path / "xdg" / "pitui" / "config.toml"
    write(config_path(), 'theme = "nord"\n')
    assert load_settings().theme == "nord"


def test_pitui_config_env_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = write(
        tmp_path / "somewhere" / "my.toml",
        'default_scope = "all"\nwatch_debounce_ms = 400\n[keymap]\n"picker.sort" = "ctrl+y"\n',
    )
    monkeypatch.setenv(CONFIG_ENV, str(elsewhere))
    assert config_path() == elsewhere
    settings = load_settings()
    assert settings.default_scope == "all"
    assert settings.watch_debounce_ms == 400
    assert settings.keymap == {"picker.sort": "ctrl+y"}
    # an empty PITUI_CONFIG is "not set"
    monkeypatch.setenv(CONFIG_ENV, "")
    assert config_path().name == "config.toml"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('default_sort = "sideways"\n', "default_sort"),
        ("watch_debounce_ms = 1\n", "watch_debounce_ms"),
        ('watch = "sometimes"\n', "watch"),
        ("resume_command = []\n", "resume_command"),
        ('resume_command = ["  "]\n', "resume_command"),
        ('[keymap]\n"picker.sort" = 3\n', "keymap.picker.sort"),
        ('tree_filter = "everything"\n', "tree_filter"),
    ],
)
def test_validation_errors_name_the_file_and_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path / "config.toml", text)
    message = config_error(path)
    assert message.startswith(f"{path}: {key}: "), message
    assert "\n" not in message


def test_unknown_keys_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", 'theme = "nord"\ncolour = "red"\n')
    message = config_error(path)
    assert message.startswith(f"{path}: colour: ")
    assert "Unexpected keyword argument" in message  # pydantic's words for an unknown field
    with pytest.raises(ValidationError):
        validate_settings({"sort": "recent"})


def test_every_error_is_reported_at_once(tmp_path: Path) -> None:
    # Issue 21 §3: errors were reported one at a time ("(and 2 more)").
    path = write(tmp_path / "config.toml", 'default_sort = "x"\nnamed_only = "maybe"\ncolour = 1\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    keys = [problem.removeprefix(f"{path}: ").split(":")[0] for problem in caught.value.problems]
    assert sorted(keys) == ["colour", "default_sort", "named_only"]


def test_what_validation_cannot_know_is_checked_with_it(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", 'default_sort = "x"\ntheme = "nope"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path, check=lambda data: [f"theme: no theme {data['theme']!r}"])
    assert caught.value.problems == [
        f"{path}: default_sort: Input should be 'threaded', 'recent' or 'relevance'",
        f"{path}: theme: no theme 'nope'",
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ('theme = "nope"\n', ["theme: no theme 'nope'"]),
        ('[keymap]\n"picker.nope" = "a"\n', ["keymap.picker.nope: no such command"]),
        ('[keymap]\n"picker.sort" = "ctrl+yy"\n', ["keymap.picker.sort: 'ctrl+yy' is not a key"]),
        ('[keymap]\n"picker.sort" = "hyp+a"\n', ["keymap.picker.sort: 'hyp+a': 'hyp' is not a"]),
        # the README's old example took copy-path's key
        ('[keymap]\n"picker.sort" = "ctrl+y"\n', ["keymap.picker.sort: ctrl+y is also the key of"]),
        (
            '[keymap]\n"picker.rename" = "ctrl+d"\n',
            ["keymap.picker.rename: ctrl+d is also the key of picker.delete"],
        ),
        # the tree is inside the session view: their keys collide too; the picker's do not
        ('[keymap]\n"tree.label" = "ctrl+e"\n', ["keymap.tree.label: ctrl+e is also the key of"]),
        ('[keymap]\n"picker.sort" = "ctrl+e"\n"tree.label" = "M,shift+m"\n', []),
        ('theme = "nord"\n[keymap]\n"picker.sort" = "alt+s,f5"\n', []),
        # pi's alt+← fold key is pitui's Back: taking it back means moving Back too
        (
            '[keymap]\n"tree.fold_or_up" = "ctrl+left,alt+left"\n',
            ["keymap.tree.fold_or_up: alt+left is also the key of session.back (Back)"],
        ),
        ('[keymap]\n"tree.fold_or_up" = "alt+left"\n"session.back" = "shift+left"\n', []),
        ('[keymap]\n"session.leaf" = "home"\n', ["keymap.session.leaf: home is also the key"]),
    ],
)
def test_themes_keys_and_collisions_are_reported_with_the_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str,
    wanted: list[str],
) -> None:
    from pitui.cli import main

    path = write(tmp_path / "config.toml", text)
    monkeypatch.setenv("PITUI_CONFIG", str(path))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    if not wanted:  # a valid config: pitui goes on (here, to ask about the demo store)
        with pytest.raises(SystemExit):
            main(["--no-watch"])
        assert str(path) not in capsys.readouterr().err
        return
    assert main(["--no-watch"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(wanted)
    for line, start in zip(lines, wanted, strict=True):
        assert line.startswith(f"pitui: {path}: {start}"), line


def test_bad_toml_and_unreadable_files(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.toml", 'theme = "unterminated\n')
    assert config_error(bad).startswith(f"{bad}: not valid TOML")
    binary = write(tmp_path / "binary.toml", b"theme = '\xff'\n")
    assert config_error(binary).startswith(f"{binary}: not valid TOML")
    folder = tmp_path / "a-folder.toml"
    folder.mkdir()
    assert config_error(folder).startswith(f"{folder}: cannot read")


def test_settings_are_frozen() -> None:
    settings = Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.theme = "nord"  # type: ignore[misc]


# ---------------------------------------------------------------- keymap in the running app


def catalog() -> FakeCatalog:
    items = [
        FakeItem(f"/s/{n}.jsonl", f"id-{n}", f"message {n}", aged((i + 1) * MINUTE))
        for i, n in enumerate("abc")
    ]
    return FakeCatalog(scopes={"current": items, "all": items})


def sort_mode(app: PituiApp) -> str:
    return picker(app).state.sort


async def test_keymap_override_changes_the_binding() -> None:
    app = fake_app(catalog(), settings=Settings(keymap={"picker.sort": "ctrl+y"}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert sort_mode(app) == "threaded"
        await pilot.press("ctrl+s")  # the default key no longer sorts
        await settle(pilot)
        assert sort_mode(app) == "threaded"
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert sort_mode(app) == "recent"
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert sort_mode(app) == "relevance"


async def test_pi_keybindings_apply_under_the_users_keymap(tmp_path: Path) -> None:
    write(
        tmp_path / "keybindings.json",
        json.dumps({"toggleSessionSort": "ctrl+y", "app.session.toggleNamedFilter": "ctrl+k"}),
    )
    pi = load_pi_keybindings(tmp_path)
    keymap = merge_keymaps(pi, {"picker.named": "ctrl+g"})
    assert keymap == {"picker.sort": "ctrl+y", "picker.named": "ctrl+g"}
    app = fake_app(catalog(), settings=Settings(keymap=keymap))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        await pilot.press("ctrl+y")  # pi's binding
        await settle(pilot)
        assert screen.state.sort == "recent"
        await pilot.press("ctrl+k")  # pi's, but pitui's own config set another key
        await settle(pilot)
        assert screen.state.named_only is False
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert screen.state.named_only is True


# ------------------------------------------------------------------------ keybindings.json


def load(tmp_path: Path, data: object) -> tuple[dict[str, str], list[str]]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    write(tmp_path / "keybindings.json", raw)
    warnings: list[str] = []
    return load_pi_keybindings(tmp_path, warnings.append), warnings


def test_no_keybindings_file(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert load_pi_keybindings(tmp_path, warnings.append) == {}
    assert warnings == []


def test_new_names(tmp_path: Path) -> None:
    keymap, warnings = load(
        tmp_path,
        {
            "app.session.toggleSort": "ctrl+y",
            "app.tree.editLabel": ["shift+e"],
            "tui.select.up": ["up", "ctrl+k"],
            "app.tree.filter.cycleBackward": "shift+ctrl+p",
            "app.session.delete": "ctrl+]",
            "tui.select.cancel": ["esc"],
            "app.model.select": "ctrl+m",  # pi's main view: nothing of pitui's
        },
    )
    assert warnings == []
    assert keymap == {
        "picker.sort": "ctrl+y",
        "tree.label": "E,shift+e",
        "picker.up": "up,ctrl+k",
        "tree.up": "up,ctrl+k",
        "tree.filter.cycle_back": "ctrl+shift+p",
        "picker.delete": "ctrl+right_square_bracket",
        "picker.quit": "escape",
        "tree.escape": "escape",
    }


def test_old_names_and_which_wins(tmp_path: Path) -> None:
    keymap, _ = load(
        tmp_path,
        {
            "toggleSessionSort": "alt+s",
            "treeFoldOrUp": ["ctrl+h"],
            "deleteSession": "ctrl+x",
            "app.session.delete": "ctrl+q",  # both names: pi keeps the new one
        },
    )
    assert keymap == {
        "picker.sort": "alt+s",
        "tree.fold_or_up": "ctrl+h",
        "picker.delete": "ctrl+q",
    }


def test_a_command_of_several_actions_keeps_the_other_defaults(tmp_path: Path) -> None:
    keymap, _ = load(tmp_path, {"tui.select.pageUp": "ctrl+u"})
    assert keymap == {"picker.page_up": "ctrl+u", "tree.page_up": "left,ctrl+b,ctrl+u"}


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"\xff\xfe", b"[1, 2]", b'"ctrl+y"', b"null"],
    ids=["syntax", "encoding", "array", "string", "null"],
)
def test_malformed_files_warn_and_change_nothing(tmp_path: Path, raw: bytes) -> None:
    keymap, warnings = load(tmp_path, raw)
    assert keymap == {}
    assert len(warnings) == 1 and str(tmp_path / "keybindings.json") in warnings[0]


def test_malformed_values_are_skipped(tmp_path: Path) -> None:
    keymap, warnings = load(
        tmp_path,
        {
            "app.session.toggleSort": 3,
            "app.session.rename": ["ctrl+r", 4],
            "app.session.togglePath": "hyper+p",
            "app.session.toggleNamedFilter": ["ctrl+", "ctrl+n"],
            "treeEditLabel\x1b[2J": "x",  # not an action (and never printed raw)
        },
    )
    assert keymap == {"picker.named": "ctrl+n"}
    # two bad values, two unknown keys, and a command left without keys
    assert len(warnings) == 5, warnings
    assert all("\x1b" not in warning for warning in warnings)
    assert any("no keys left for picker.path" in warning for warning in warnings)


def test_default_warning_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "keybindings.json", "{oops")
    assert load_pi_keybindings(tmp_path) == {}
    assert capsys.readouterr().err.startswith("pitui: warning: ")


def test_the_mapping_matches_pitui_commands_and_pi_defaults() -> None:
    ids = command_ids()
    assert set(PI_ACTIONS_FOR_COMMAND) <= ids
    by_id = {command.id: command for command in COMMANDS}
    for command_id, actions in PI_ACTIONS_FOR_COMMAND.items():
        pi_keys: set[str] = set()
        for action in actions:
            for key in PI_DEFAULT_KEYS[action]:
                converted = pi_key_to_textual(key)
                assert converted is not None, key
                pi_keys.update(converted)
        # pitui's default keys are pi's (honouring keybindings.json changes only what it sets),
        # but for pi's alt+←/→ fold keys, which are pitui's back/forward
        given_away = PITUI_TAKES_FROM_PI.get(command_id, {})
        for key, other in given_away.items():
            assert key in by_id[other].keys.split(","), (command_id, key)
        assert pi_keys - set(given_away) == set(by_id[command_id].keys.split(",")), command_id


PITUI_TAKES_FROM_PI = {
    "tree.fold_or_up": {"alt+left": "session.back"},
    "tree.unfold_or_down": {"alt+right": "session.forward"},
}


def test_key_names_are_textuals() -> None:
    for char in string.punctuation:
        if char == "+":
            continue  # pi splits on "+": the key is written "plus"
        assert pi_key_to_textual(char) == [_character_to_key(char)], char
        assert pi_key_to_textual(f"ctrl+{char}") == [f"ctrl+{_character_to_key(char)}"]
    assert pi_key_to_textual("pageUp") == ["pageup"]
    assert pi_key_to_textual("shift+ctrl+o") == ["ctrl+shift+o"]
    assert pi_key_to_textual("super+alt+x") == ["alt+super+x"]
    assert pi_key_to_textual("shift+l") == ["L", "shift+l"]
    assert pi_key_to_textual("return") == ["enter"]
    assert pi_key_to_textual("ctrl+") is None
    assert pi_key_to_textual("meta+x") is None  # pi knows ctrl, shift, alt and super only
    assert pi_key_to_textual("ctrl+ctrl+x") is None


def test_keys_of_pis_file_that_pitui_gives_elsewhere_are_left_out() -> None:
    imported = {
        "tree.fold_or_up": "ctrl+left,alt+left",  # pi's own default, written out
        "tree.unfold_or_down": "alt+right",
        "picker.sort": "ctrl+y",  # copy-path's key in the picker
        "tree.label": "E,shift+e",
    }
    kept, dropped = drop_taken_keys(imported, imported)
    assert ("tree.fold_or_up", "alt+left", "session.back") in dropped
    assert ("tree.unfold_or_down", "alt+right", "session.forward") in dropped
    assert ("picker.sort", "ctrl+y", "picker.copy_path") in dropped
    assert kept == {"tree.fold_or_up": "ctrl+left", "tree.label": "E,shift+e"}
    # a command the user's [keymap] sets is the user's: the import does not count for it
    final = {**imported, "tree.fold_or_up": "ctrl+h"}
    kept, dropped = drop_taken_keys(imported, final)
    assert "tree.fold_or_up" not in kept
    assert all(command != "tree.fold_or_up" for command, _key, _other in dropped)


def test_pis_file_with_its_fold_defaults_starts_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pitui.cli.app import _settings

    agent = tmp_path / "agent"
    write(agent / "keybindings.json", json.dumps({
        "app.tree.foldOrUp": ["ctrl+left", "alt+left"],  # pi's defaults: alt+left is Back here
        "app.session.toggleSort": "ctrl+y",  # not a default: said once, left out
    }))  # fmt: skip
    monkeypatch.setenv("PITUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    settings = _settings()
    assert settings.keymap == {"tree.fold_or_up": "ctrl+left"}
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "'ctrl+y' to picker.sort" in err[0] and "picker.copy_path" in err[0]
