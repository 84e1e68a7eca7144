"""pitui.core and pitui.render never pull in Textual; the core doesn't pull in Rich either."""

from __future__ import annotations

import subprocess
import sys

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
