"""The writing commands (issue 10) on copies of the pi-written fixtures: rename, label, switch,
extract, rm, restore. After every write the core reads the file back and must find what pi would
find: leaf, branch path, labels, name, context."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import orjson

from pitui.core.context import build_session_context
from pitui.core.manager import SessionManager
from pitui.core.models import AssistantMessage, TextContent, UserMessage
from pitui.core.session import Session
from tests.conftest import Run, load_expected

EXPECTED = load_expected("pi-written")


def pi_custom_entry(entry_id: str, parent: str | None) -> dict[str, Any]:
    """An entry as pi's extension API appends it (what pi writes while it works)."""
    return {
        "type": "custom",
        "customType": "pi-ext",
        "data": {},
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
    }


def scenario(agent: Path, name: str) -> Path:
    rel: str = next(k for k, r in EXPECTED["sessions"].items() if r["scenario"] == name)
    return agent / rel


def record(name: str) -> dict[str, Any]:
    return next(r for r in EXPECTED["sessions"].values() if r["scenario"] == name)


def settle(path: Path) -> None:
    """Age a file we just wrote, so the next command does not take it for pi's."""
    past = time.time() - 3600
    os.utime(path, (past, past))


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().split(b"\n") if line]


def roles(session: Session, leaf: str | None = "default") -> list[Any]:
    return [m.get("role") for m in build_session_context(session, leaf).messages]


def tree_bytes(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# ------------------------------------------------------------------------------ rename


def test_rename_sets_and_clears_the_name(agent: Path, run: Run) -> None:
    path = scenario(agent, "branches")
    before = Session.open(path, final=True)
    old_leaf, old_branch = before.leaf_id, [m.uid for m in before.branch()]
    old_roles = roles(before)
    code, out, _ = run("rename", str(path), "  Release\nplanning  ", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["name"] == "Release planning" and report["path"] == str(path)
    after = Session.open(path, final=True)
    assert after.name == "Release planning"
    new = after.by_id[report["entryId"]]
    assert new.type == "session_info" and new.parent_id == old_leaf
    assert after.leaf_id == new.uid and [m.uid for m in after.branch()] == [*old_branch, new.uid]
    assert roles(after) == old_roles  # a name never enters the context
    settle(path)
    code, out, _ = run("rename", str(path), "")
    assert code == 0 and "cleared" in out
    assert Session.open(path, final=True).name is None


def test_rename_by_id_prefix_and_its_errors(agent: Path, run: Run) -> None:
    path = scenario(agent, "minimal")
    sid = record("minimal")["sessionId"]
    code, out, _ = run("rename", sid[:18], "By prefix")
    assert code == 0 and "By prefix" in out
    assert Session.open(path, final=True).name == "By prefix"
    # pitui's own write a moment ago does not count (chained commands), pi's does: pi may be
    # working in it
    leaf = Session.open(path, final=True).leaf_id
    with path.open("ab") as handle:
        handle.write(orjson.dumps(pi_custom_entry("pi000001", leaf)) + b"\n")
    before = path.read_bytes()
    code, _, err = run("rename", str(path), "again")
    assert code == 1 and "--force" in err and err.count("\n") == 1
    assert path.read_bytes() == before
    assert run("rename", str(path), "again", "--force")[0] == 0
    # a second session whose id shares all but the last character
    twin = agent / "sessions" / "--twin--" / "twin.jsonl"
    twin.parent.mkdir()
    twin.write_bytes(path.read_bytes().replace(sid.encode(), sid[:-1].encode() + b"x", 1))
    code, _, err = run("rename", sid[:-1], "x")
    assert code == 1 and "ambiguous" in err and sid in err and str(twin) in err
    code, _, err = run("rename", str(agent / "missing.jsonl"), "x")
    assert code == 1 and "no such session file" in err
    assert run("rename")[0] == 2


# ------------------------------------------------------------------------------ label


def test_label_set_and_clear(agent: Path, run: Run) -> None:
    path = scenario(agent, "branches")
    before = Session.open(path, final=True)
    target = before.entries[3]
    old_leaf, old_roles = before.leaf_id, roles(before)
    code, out, _ = run("label", str(path), target.uid[:6], "  milestone ", "--json")
    assert code == 0
    report = json.loads(out)
    assert report == {
        "path": str(path), "targetId": target.uid, "label": "milestone",
        "entryId": report["entryId"],
    }  # fmt: skip
    after = Session.open(path, final=True)
    entry = after.by_id[report["entryId"]]
    assert after.labels[target.uid] == "milestone"
    assert after.label_times[target.uid] == entry.timestamp
    assert entry.parent_id == old_leaf and after.leaf_id == entry.uid  # child of the leaf
    assert roles(after) == old_roles
    for name, value in before.labels.items():  # the others stay
        assert after.labels[name] == value
    settle(path)
    assert run("label", str(path), target.uid, "--clear")[0] == 0
    after = Session.open(path, final=True)
    assert target.uid not in after.labels
    assert "label" not in lines(path)[-1]  # pi's clear: no label key at all
    settle(path)
    labelled = next(iter(before.labels))
    assert run("label", str(path), labelled, "")[0] == 0  # an empty label clears too
    assert labelled not in Session.open(path, final=True).labels


def test_label_errors(agent: Path, run: Run) -> None:
    path = scenario(agent, "branches")
    before = path.read_bytes()
    code, _, err = run("label", str(path), "nothere", "x")
    assert code == 1 and "nothere" in err
    assert run("label", str(path), "abc")[0] == 2  # neither LABEL nor --clear
    assert run("label", str(path), "abc", "x", "--clear")[0] == 2
    assert path.read_bytes() == before


# ------------------------------------------------------------------------------ switch


def test_switch_to_another_branch_with_a_marker(agent: Path, run: Run) -> None:
    path = scenario(agent, "branches")
    before = Session.open(path, final=True)
    leaf = before.leaf
    assert leaf is not None
    on_path = {m.uid for m in before.branch()}
    target = next(
        m for m in before.entries
        if m.role == "assistant" and m.uid not in on_path and not m.children
    )  # fmt: skip
    expected_roles = roles(before, target.uid)
    code, out, _ = run("switch", str(path), target.uid, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["resumeAt"] == target.uid and report["written"] is True
    assert report["editorText"] is None
    after = Session.open(path, final=True)
    marker = after.by_id[report["entryId"]]
    assert marker.type == "custom" and marker.custom_type == "pitui.branch"
    assert after.leaf_id == marker.uid and marker.parent_id == target.uid
    assert [m.uid for m in after.branch()] == [*(m.uid for m in before.path_to(target)), marker.uid]
    assert roles(after) == expected_roles  # the marker is not in the context
    settle(path)
    # switching there again: pi already resumes there, nothing is written
    data = path.read_bytes()
    code, out, _ = run("switch", str(path), target.uid)
    assert code == 0 and "already" in out and path.read_bytes() == data


def test_switch_to_a_user_message_resumes_at_its_parent(agent: Path, run: Run) -> None:
    path = scenario(agent, "branches")
    before = Session.open(path, final=True)
    message = next(m for m in reversed(before.entries) if m.role == "user" and m.parent)
    assert message.parent is not None
    text = before.raw(message)["message"]["content"]
    code, out, _ = run("switch", str(path), message.uid, "--json", "--summary", "went elsewhere")
    assert code == 0
    report = json.loads(out)
    assert report["resumeAt"] == message.parent.uid
    assert report["editorText"] == (text if isinstance(text, str) else text[0]["text"])
    after = Session.open(path, final=True)
    summary = after.by_id[report["entryId"]]
    assert summary.type == "branch_summary" and summary.parent_id == message.parent.uid
    assert after.leaf_id == summary.uid
    assert roles(after) == [*roles(before, message.parent.uid), "branchSummary"]
    assert after.raw(summary)["summary"] == "went elsewhere"


def test_switch_to_a_root_user_message_starts_a_new_root(agent: Path, run: Run) -> None:
    path = scenario(agent, "opened-empty-then-continued")
    before = Session.open(path, final=True)
    root = before.roots[0]
    assert root.role == "user"
    code, out, _ = run("switch", str(path), root.uid)
    assert code == 0 and "new root" in out
    after = Session.open(path, final=True)
    assert after.leaf is not None and after.leaf.parent_id is None
    assert build_session_context(after).messages == []
    assert len(after.roots) == 2


def test_switch_errors(agent: Path, run: Run) -> None:
    path = scenario(agent, "branches")
    assert run("switch", str(path), "nothere")[0] == 1
    assert run("switch", str(path))[0] == 2


# ------------------------------------------------------------------------------ extract


def _f26_file(folder: Path) -> tuple[Path, dict[str, str]]:
    sm = SessionManager.create("/home/ana/proj", folder)

    def ask(text: str) -> str:
        return sm.append_message(UserMessage(role="user", content=text, timestamp=1))

    def answer(text: str) -> str:
        return sm.append_message(
            AssistantMessage(role="assistant", content=[TextContent(type="text", text=text)],
                             provider="p", model="m", stopReason="stop", timestamp=2)
        )  # fmt: skip

    ids = {"1": ask("one"), "2": answer("two"), "3": ask("three")}
    sm.branch(ids["2"])
    ids["4"] = ask("four")
    ids["5"] = answer("five")
    for key in ("1", "5", "3"):
        sm.append_label_change(ids[key], f"L{key}")
    path = Path(sm.get_session_file() or "")
    settle(path)
    return path, ids


def test_extract_f26(agent: Path, run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--home-ana-proj--"
    path, ids = _f26_file(folder)
    before = path.read_bytes()
    code, out, _ = run("extract", str(path), ids["5"], "--json")
    assert code == 0
    report = json.loads(out)
    new = Path(report["path"])
    assert new.parent == folder and new.name.endswith(f"_{report['id']}.jsonl")
    assert path.read_bytes() == before  # the source is not changed
    written = lines(new)
    assert written[0]["parentSession"] == str(path) and written[0]["cwd"] == "/home/ana/proj"
    assert [e["id"] for e in written[1:5]] == [ids["1"], ids["2"], ids["4"], ids["5"]]
    assert [e["targetId"] for e in written[5:]] == [ids["1"], ids["5"]]
    session = Session.open(new, final=True)
    assert session.labels == {ids["1"]: "L1", ids["5"]: "L5"}
    assert session.leaf_id == report["leafId"] == written[-1]["id"]
    assert roles(session) == ["user", "assistant", "user", "assistant"]
    assert report["entries"] == 6 and report["labels"] == 2
    # -o: exactly there, and never over an existing file
    target = tmp_path / "out.jsonl"
    assert run("extract", str(path), ids["5"], "-o", str(target))[0] == 0
    assert lines(target)[1:5] == written[1:5]
    data = target.read_bytes()
    code, _, err = run("extract", str(path), ids["5"], "-o", str(target))
    assert code == 1 and "exists" in err and target.read_bytes() == data


def test_extract_refuses_a_branch_without_assistant(agent: Path, run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "agent" / "sessions" / "--home-ana-proj--"
    path, ids = _f26_file(folder)
    files = sorted(folder.iterdir())
    code, _, err = run("extract", str(path), ids["1"])
    assert code == 1 and "no assistant message" in err
    assert sorted(folder.iterdir()) == files


def test_extract_a_pi_fixture_branch(agent: Path, run: Run) -> None:
    path = scenario(agent, "labels")
    source = Session.open(path, final=True)
    leaf = source.leaf
    assert leaf is not None
    code, out, _ = run("extract", str(path), leaf.uid, "--json")
    assert code == 0
    new = Session.open(json.loads(out)["path"], final=True)
    kept = [m.uid for m in source.branch() if m.type != "label"]
    assert [m.uid for m in new.entries][: len(kept)] == kept
    assert new.labels == {k: v for k, v in source.labels.items() if k in kept}
    assert roles(new) == [r for r in roles(source)]
    assert not new.problems


# ------------------------------------------------------------------------------ rm, restore


def test_rm_named_sessions_with_confirmation(agent: Path, run: Run) -> None:
    path = scenario(agent, "minimal")
    data = path.read_bytes()
    code, out, err = run("rm", str(path), stdin="n\n")
    assert code == 1 and "not confirmed" in err and "[y/N]" in out + err
    assert path.read_bytes() == data
    code, out, _ = run("rm", str(path), stdin="y\n")
    assert code == 0 and not path.exists()
    code, out, _ = run("restore", str(path), "--json")
    assert code == 0 and json.loads(out)["restored"] == str(path)
    assert path.read_bytes() == data


def test_rm_names_the_forks_of_a_parent(agent: Path, run: Run, tmp_path: Path) -> None:
    path = scenario(agent, "branches")
    leaf = Session.open(path, final=True).leaf
    assert leaf is not None
    code, out, _ = run("extract", str(path), leaf.uid, "--json")
    fork = json.loads(out)["path"]
    code, out, _ = run("rm", str(path), "--dry-run")
    assert code == 0 and "parent of 1 fork" in out and os.path.basename(fork) in out
    code, out, _ = run("rm", str(path), "--dry-run", "--json")
    report = json.loads(out)
    assert report["sessions"][0]["forks"] == [fork] and report["dryRun"] is True
    assert path.exists()


def test_rm_leaves_a_busy_session_alone(agent: Path, run: Run) -> None:
    path = scenario(agent, "minimal")
    os.utime(path)  # pi just wrote it
    code, _, err = run("rm", str(path), "--yes")
    assert code == 1 and "--force" in err and path.exists()
    code, out, _ = run("rm", "--cwd", "/home/alice/code/webapp", "--dry-run", "--json")
    report = json.loads(out)
    assert str(path) in [s["path"] for s in report["skipped"]]
    assert str(path) not in [s["path"] for s in report["sessions"]]
    assert run("rm", str(path), "--yes", "--force")[0] == 0 and not path.exists()


def test_rm_bulk_filters(agent: Path, run: Run) -> None:
    def selected(*args: str) -> set[str]:
        code, out, _ = run("rm", *args, "--dry-run", "--json")
        assert code == 0
        return {Path(s["path"]).relative_to(agent).as_posix() for s in json.loads(out)["sessions"]}

    every = set(EXPECTED["listAll"])
    assert selected("--all") == every
    webapp = "/home/alice/code/webapp"
    assert selected("--cwd", webapp) == set(EXPECTED["listByCwd"][webapp])
    assert selected("--all", "--older-than", "100000d") == set()
    assert selected("--all", "--older-than", "1d") == every  # every fixture is from 2025
    assert selected("--all", "--max-messages", "2") == {
        rel for rel, r in EXPECTED["sessions"].items() if r["list"]["messageCount"] <= 2
    }
    assert selected("--all", "--empty") == {
        rel for rel, r in EXPECTED["sessions"].items() if r["list"]["allMessagesTextLength"] == 0
    }
    found = selected("--all", "--match", '"parsePort accepting"')
    assert found == {
        rel for rel, r in EXPECTED["sessions"].items()
        if "parsePort accepting" in (r["list"]["name"] or "") + r["list"]["firstMessage"]
    }  # fmt: skip
    assert run("rm", "--all", "--match", "re:(")[0] == 2
    assert run("rm", "--empty")[0] == 2  # filters need --all or --cwd

    assert run("rm", "--all", "x")[0] == 2
    assert run("rm")[0] == 2
    assert run("rm", "--all", "--older-than", "soon")[0] == 2


def test_bulk_rm_then_restore_last_gives_back_the_same_store(agent: Path, run: Run) -> None:
    before = tree_bytes(agent)
    args = ("rm", "--all", "--max-messages", "6")
    code, out, _ = run(*args, "--dry-run", "--json")
    chosen = [s["path"] for s in json.loads(out)["sessions"]]
    assert code == 0 and len(chosen) > 3 and tree_bytes(agent) == before
    code, out, _ = run(*args, "--yes", "--json")
    assert code == 0
    report = json.loads(out)
    assert sorted(t["path"] for t in report["trashed"]) == sorted(chosen)
    assert not any(os.path.exists(p) for p in chosen)
    # one restore gives the whole batch back (issue 21 §3)
    code, out, _ = run("restore", "--last", "--json")
    assert code == 0
    restored = json.loads(out)
    assert sorted(restored["restored"]) == sorted(chosen) and restored["failed"] == []
    assert [i["restored"] for i in restored["items"]] == restored["restored"]
    assert tree_bytes(agent) == before  # bytes and modification times
    code, _, err = run("restore", "--last")
    assert code == 1 and "no session files" in err


def test_restore_last_gives_back_the_last_batch_only(agent: Path, run: Run) -> None:
    first, second, third = (scenario(agent, name) for name in ("minimal", "labels", "unicode"))
    assert run("rm", str(first), "--yes")[0] == 0
    assert run("rm", str(second), str(third), "--yes")[0] == 0
    code, out, _ = run("restore", "--last")
    assert code == 0 and out.count("restored") == 2
    assert second.exists() and third.exists() and not first.exists()
    code, out, _ = run("restore", "--last")
    assert code == 0 and first.exists()


def test_restore_refuses_when_something_else_lives_there(agent: Path, run: Run) -> None:
    path = scenario(agent, "minimal")
    assert run("rm", str(path), "--yes")[0] == 0
    path.write_bytes(b"new content\n")
    code, _, err = run("restore", str(path))
    assert code == 1 and "exists again" in err
    assert path.read_bytes() == b"new content\n"
    code, _, err = run("restore", str(agent / "never.jsonl"))
    assert code == 1 and "no trashed copy" in err
    assert run("restore")[0] == 2
    assert run("restore", str(path), "--last")[0] == 2


def test_rm_reads_a_session_outside_the_store_as_a_listing_would(tmp_path: Path) -> None:
    from pitui.cli.rm import _info_for
    from tests.core.sessiondata import jsonl, user

    path = tmp_path / "elsewhere.jsonl"
    # the last line has no newline yet but parses: a listing counts its text (pi does too)
    path.write_bytes(jsonl(user("u1", None, "first")) + orjson.dumps(user("u2", "u1", "cut")))
    old = time.time() - 60
    os.utime(path, (old, old))
    info = _info_for(str(path))
    assert info is not None and info.all_messages_text is not None
    assert "first" in info.all_messages_text and "cut" in info.all_messages_text
