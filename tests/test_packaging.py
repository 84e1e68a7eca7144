"""The wheel carries the stylesheets and type marker, and the installed command runs."""

from __future__ import annotations

import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(REPO)],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        pytest.fail(f"building the wheel failed: {built.stderr[-2000:]}")
    return next(out.glob("pitui-*.whl"))


def test_wheel_contains_styles_and_marker(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    styles = {Path(n).name for n in names if n.startswith("pitui/styles/")}
    assert {"base.tcss", "picker.tcss", "session.tcss", "modals.tcss", "diff.tcss"} <= styles
    assert "pitui/py.typed" in names
    # the demo's conversations are data files of the package
    scenarios = [n for n in names if n.startswith("pitui/demo/scenarios/") and n.endswith(".toml")]
    assert len(scenarios) == len(list((REPO / "pitui/demo/scenarios").glob("*.toml"))) >= 25
    assert {"pitui/demo/workspaces/webapp.toml", "pitui/demo/images/favicon.png"} <= names
    assert not any(n.startswith("tests/") for n in names)


def _dependency_folders() -> list[str]:
    paths = sysconfig.get_paths()
    folders = [paths["purelib"], paths["platlib"]]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return sorted(set(folders))


def test_installed_command_runs(
    wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a PYTHONPATH naming a checkout would make the venv import pitui from there, not the wheel
    monkeypatch.delenv("PYTHONPATH", raising=False)
    env_dir = tmp_path / "venv"
    # The dependencies come from this interpreter's environment (a venv or not: a nested venv's
    # "system site packages" would be the base interpreter's, without them); only pitui itself
    # is installed from the wheel. The folders are listed in a .pth file, whose own .pth files
    # (the editable install of this checkout) are not read.
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    nested_site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(nested_site) / "outer-environment.pth").write_text(
        "\n".join(_dependency_folders()) + "\n", encoding="utf-8"
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet",
         str(wheel)],
        check=True,
    )  # fmt: skip
    command = env_dir / "bin" / "pitui"
    version = subprocess.run(
        [str(command), "--version"], capture_output=True, text=True, cwd=tmp_path
    )
    assert version.returncode == 0 and version.stdout.startswith("pitui ")
    demo_help = subprocess.run(
        [str(command), "--demo", "--help"], capture_output=True, text=True, cwd=tmp_path
    )
    assert demo_help.returncode == 0 and "--demo" in demo_help.stdout
    # the stylesheets are found inside the installed package, not in this checkout
    probe = "from pitui.ui.app import stylesheets; print(stylesheets()[0])"
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert str(env_dir) in found.stdout
    # the demo store is built from the installed package's data files
    probe = (
        "import sys, pitui.demo; from pathlib import Path; "
        "print(pitui.demo.__file__, pitui.demo.write_demo_store(Path(sys.argv[1]), 1.7e9).sessions)"
    )
    built = subprocess.run(
        [str(python), "-c", probe, str(tmp_path / "agent")], capture_output=True, text=True,
        cwd=tmp_path,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    module, sessions = built.stdout.split()
    assert module.startswith(str(env_dir)) and int(sessions) >= 25
