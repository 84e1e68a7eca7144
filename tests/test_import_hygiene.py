"""pitui.core and pitui.render never pull in Textual; the core doesn't pull in Rich either."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def _modules_after_import(module: str) -> set[str]:
    code = f"import sys, {module}, pkgutil, importlib\n"
    code += f"pkg = importlib.import_module({module!r})\n"
    code += "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
    code += "    importlib.import_module(m.name)\n"
    code += "print('\\n'.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    return set(out.stdout.split())


def test_core_imports_neither_textual_nor_rich() -> None:
    loaded = _modules_after_import("pitui.core")
    assert not {m for m in loaded if m.split(".")[0] in ("textual", "rich")}


@pytest.mark.parametrize("module", ["pitui.render"])
def test_render_does_not_import_textual(module: str) -> None:
    try:
        loaded = _modules_after_import(module)
    except subprocess.CalledProcessError as exc:
        pytest.fail(exc.stderr)
    assert not {m for m in loaded if m.split(".")[0] == "textual"}


def test_the_app_and_default_settings_do_not_import_pydantic(tmp_path: Path) -> None:
    # pydantic (and the entry models built on it) cost a tenth of a second or more: the
    # picker's first frame must not wait for them when no config file needs validating
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "import pitui.ui.app, pitui.cli.app\n"
        "from pitui.config import load_settings\n"
        f"load_settings(Path({str(tmp_path)!r}) / 'missing.toml')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'"
        " or m == 'pitui.core.models'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert out.stdout.strip() == "[]"
