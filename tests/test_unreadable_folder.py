"""A project folder that cannot be read (chmod 000) is named, never skipped silently (24.16).

Run for real as an unprivileged user: as root, permissions do not stop reading, so each command
runs in a forked child that drops to uid/gid 65534 (``nobody``) first — after running the same
command once as root, so that every module it imports lazily is loaded while ``/root`` (where
the interpreter lives) is still readable. As any other user the child runs the command as it is.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pitui.cli import main
from pitui.core.paths import session_dir_for
from pitui.ui.catalog import StoreCatalog
from tests.core.sessiondata import user
from tests.ui.picker_kit import MINUTE, FakeCatalog, FakeItem, aged, fake_app, picker, settle

NOBODY = 65534


@dataclass
class Store:
    root: Path
    agent: Path
    readable_cwd: Path
    locked_cwd: Path
    locked: Path  # the session folder of locked_cwd, chmod 000


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def store() -> Iterator[Store]:
    """Two project folders, one readable, one chmod 000; all under a folder ``nobody`` can
    reach (pytest's own temp folders are private to their owner)."""
    from tests.ui.picker_kit import write_session

    root = Path(tempfile.mkdtemp(prefix="pitui-unreadable-"))
    try:
        agent = root / "agent"
        readable_cwd, locked_cwd = root / "readable", root / "locked"
        for folder in (readable_cwd, locked_cwd):
            folder.mkdir()
        write_session(agent, str(readable_cwd), "r1", [user("m1", None, "a readable one", t=1)])
        write_session(agent, str(locked_cwd), "l1", [user("m1", None, "a locked one", t=2)])
        (root / "cache").mkdir()
        for path in [root, *root.rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)
        locked = session_dir_for(str(locked_cwd), agent)
        locked.chmod(0)
        yield Store(root, agent, readable_cwd, locked_cwd, locked)
    finally:
        for path in [root, *root.rglob("*")]:  # (as a user, the locked folder blocks rmtree)
            if path.is_dir():
                path.chmod(stat.S_IRWXU)
        shutil.rmtree(root, ignore_errors=True)


def run_unprivileged(store: Store, argv: Sequence[str], cwd: Path) -> Result:
    """``pitui ARGV`` in a forked child, unprivileged (see the module's docstring)."""
    return call_unprivileged(store, lambda: main(list(argv)), cwd)


def call_unprivileged(store: Store, call: Callable[[], int], cwd: Path) -> Result:
    """``call()`` in a forked child, unprivileged: its exit code, what it printed."""
    out_path, err_path = store.root / "out.txt", store.root / "err.txt"
    env = {
        "HOME": str(store.root),
        "PI_CODING_AGENT_DIR": str(store.agent),
        "XDG_CACHE_HOME": str(store.root / "cache"),
        "XDG_CONFIG_HOME": str(store.root / "config"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "COLUMNS": "120",
    }
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 3
        try:
            os.environ.clear()
            os.environ.update(env)
            os.chdir(cwd)
            if os.geteuid() == 0:
                warm = tempfile.mkdtemp()
                os.environ["XDG_CACHE_HOME"] = warm  # (root's index would lock nobody out)
                sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
                call()
                os.environ["XDG_CACHE_HOME"] = env["XDG_CACHE_HOME"]
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            assert not os.access(store.locked, os.R_OK), "the folder is readable: no test"
            with open(out_path, "w") as out, open(err_path, "w") as err:
                sys.stdout, sys.stderr = out, err
                try:
                    code = call()
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                except BaseException:
                    traceback.print_exc(file=err)
                    code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return Result(
        os.waitstatus_to_exitcode(status),
        out_path.read_text() if out_path.exists() else "",
        err_path.read_text() if err_path.exists() else "",
    )


def assert_named(result: Result, store: Store) -> None:
    assert "Traceback" not in result.err
    assert f"cannot read the folder {store.locked} (Permission denied)" in result.err


def test_list_all_lists_the_rest_and_names_the_folder_it_cannot_read(store: Store) -> None:
    result = run_unprivileged(store, ["list", "--all"], store.readable_cwd)
    assert "a readable one" in result.out
    assert_named(result, store)
    assert result.code == 1  # the listing is incomplete


def test_list_all_json_too(store: Store) -> None:
    result = run_unprivileged(store, ["list", "--all", "--json"], store.readable_cwd)
    assert [item["firstMessage"] for item in json.loads(result.out)] == ["a readable one"]
    assert_named(result, store)
    assert result.code == 1


def test_the_current_folder_unreadable_is_not_no_sessions(store: Store) -> None:
    result = run_unprivileged(store, ["list"], store.locked_cwd)
    assert_named(result, store)
    assert result.code == 1


def test_stats_and_doctor_say_so_too(store: Store) -> None:
    stats = run_unprivileged(store, ["stats", "--all"], store.readable_cwd)
    assert_named(stats, store)
    assert stats.code == 1
    doctor = run_unprivileged(store, ["doctor", "--all", "--json"], store.readable_cwd)
    report = json.loads(doctor.out)
    assert report["unreadableFolders"] == [
        {"path": str(store.locked), "reason": "Permission denied"}
    ]
    assert report["healthy"] is False and doctor.code == 1
    text = run_unprivileged(store, ["doctor", "--all"], store.readable_cwd)
    assert f"{store.locked}: cannot read the folder (Permission denied)" in text.out


def test_a_missing_folder_is_no_warning(store: Store) -> None:
    nowhere = store.root / "never-ran-pi-here"
    nowhere.mkdir()
    nowhere.chmod(0o777)
    result = run_unprivileged(store, ["list"], nowhere)
    assert result.err == "" and result.code == 0
    assert "No sessions in current folder." in result.out


def test_the_pickers_catalog_has_them_after_a_load(store: Store) -> None:
    from pitui.core.store import Store as CoreStore

    def load() -> int:
        catalog = StoreCatalog(CoreStore(cwd=str(store.readable_cwd), agent=store.agent))
        items = catalog.load("all", lambda done, total: None)
        print(json.dumps([[item.first_message for item in items], catalog.unreadable_folders()]))
        return 0

    result = call_unprivileged(store, load, store.readable_cwd)
    assert json.loads(result.out) == [["a readable one"], {str(store.locked): "Permission denied"}]


async def test_the_picker_tells_which_folders_it_cannot_read() -> None:
    catalog = FakeCatalog(
        scopes={"current": [FakeItem("/s/a.jsonl", "a", "hello", aged(MINUTE))]},
        unreadable={"/home/ana/.pi/agent/sessions/--locked--": "Permission denied"},
    )
    app = fake_app(catalog)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        picker(app).reload_visible()  # a reload finding the same folders does not tell again
        await settle(pilot)
        assert len(catalog.loads) == 2
        told = [notice.message for notice in app._notifications]
    assert told == [
        "Cannot read this folder; its sessions are not listed:\n"
        "/home/ana/.pi/agent/sessions/--locked-- (Permission denied)"
    ]
