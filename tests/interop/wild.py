"""The files from the wild (``tests/fixtures/wild/``) and what both pi releases report for them.

``expected.json`` beside the files is recorded by this module from pi's own library:

    PYTHONPATH=. python -m tests.interop.wild --record

Reports are recorded as the oracle gives them (``pi_oracle.PiOracle.report``), with two things
made stable: the ids and the session id pi makes up when it migrates or re-initialises a file
(random on every open) become ``<id:N>`` / ``<session>`` in order of first use, and the header
pi 0.73.1 writes over a file it cannot read keeps only its keys' shape.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, cast

from tests.interop.pi_oracle import RELEASES, PiOracle, ensure_pi

WILD = Path(__file__).resolve().parents[1] / "fixtures" / "wild"
EXPECTED = WILD / "expected.json"

JsonDict = dict[str, Any]


def wild_files() -> list[Path]:
    return sorted(WILD.glob("*.jsonl"))


def _ids_in_file(path: Path) -> set[str]:
    ids: set[str] = set()
    for line in path.read_bytes().split(b"\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("id"), str):
            ids.add(obj["id"])
    return ids


def _made_up_ids(report: JsonDict, known: set[str]) -> dict[str, str]:
    """pi's fresh ids (not in the file) -> stable names, in tree order."""
    names: dict[str, str] = {}
    order = [entry_id for entry_id, _ in report.get("treePreorder") or []]
    for entry_id in order:
        if isinstance(entry_id, str) and entry_id not in known and entry_id not in names:
            names[entry_id] = f"<id:{len(names) + 1}>"
    session_id = report.get("sessionId")
    if isinstance(session_id, str) and session_id not in known:
        names[session_id] = "<session>"
    return names


def _rename(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): _rename(v, names) for k, v in value.items()}
    return value


_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def stable(report: JsonDict, path: Path) -> JsonDict:
    """The report without what changes from one run to the next (see the module doc)."""
    out = {k: v for k, v in report.items() if k != "path"}
    out["file"] = path.name
    if "error" in out:
        # the private copy's temp path is part of pi's message
        out["error"] = out["error"].replace(str(Path(report["path"]).parent), "<dir>")
        out["error"] = re.sub(r"/tmp/pi-oracle-[^/]+/\d+/", "<copy>/", out["error"])
        return out
    names = _made_up_ids(out, _ids_in_file(path))
    out = cast(JsonDict, _rename(out, names))
    header = out.get("header")
    if isinstance(header, dict) and header.get("id") == "<session>":
        # a fresh header: its time is the moment of the open, its cwd the oracle's own
        out["header"] = {
            k: ("<now>" if k == "timestamp" and _ISO.match(str(v)) else v)
            for k, v in header.items()
            if k != "cwd"
        }
        out.pop("cwd", None)
    return out


def report_all(oracle: PiOracle) -> list[JsonDict]:
    files = wild_files()
    return [stable(r, f) for r, f in zip(oracle.report(files), files, strict=True)]


def load_expected() -> dict[str, dict[str, JsonDict]]:
    """``{version: {file name: stable report}}``."""
    data: dict[str, dict[str, JsonDict]] = json.loads(EXPECTED.read_text(encoding="utf-8"))
    return data


def record() -> None:
    out: dict[str, dict[str, JsonDict]] = {}
    for release in RELEASES:
        oracle, reason = ensure_pi(release)
        if oracle is None:
            raise SystemExit(f"{release.label} unavailable: {reason}")
        out[release.version] = {r["file"]: r for r in report_all(oracle)}
    text = json.dumps(out, indent=1, ensure_ascii=False, sort_keys=True)
    EXPECTED.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit("usage: python -m tests.interop.wild --record")
    record()
