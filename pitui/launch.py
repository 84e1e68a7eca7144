"""Handing over to pi: run the resume command for a session, in the session's own folder.

The app only decides *what* to resume (a :class:`ResumeRequest`); this module runs it after the app
has left the terminal, so pi gets a clean screen.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ResumeRequest:
    """Resume ``path`` with ``argv`` in ``cwd`` (checked to exist, or chosen by the user)."""

    path: str
    cwd: str
    argv: tuple[str, ...]


_PLACEHOLDER = re.compile(r"\{(path|id|cwd)\}")


def resume_argv(template: list[str], *, path: str, session_id: str, cwd: str) -> tuple[str, ...]:
    """The configured command with ``{path}``, ``{id}`` and ``{cwd}`` filled in, in one pass over
    the template: a value is never searched for placeholders (a file named ``x_{id}.jsonl``
    stays that name)."""
    values = {"path": path, "id": session_id, "cwd": cwd}
    return tuple(_PLACEHOLDER.sub(lambda m: values[m.group(1)], part) for part in template)


def shell_command(request: ResumeRequest) -> str:
    """The exact command a user can paste to do the same by hand."""
    return f"cd {shlex.quote(request.cwd)} && {shlex.join(request.argv)}"


def run_resume(request: ResumeRequest, *, replace_process: bool = True) -> int:
    """Start pi on the session. With ``replace_process`` pitui becomes pi (exec), as a shell would.

    If the program is not on PATH, print the command to run instead and return 1.
    """
    program = request.argv[0]
    if shutil.which(program) is None:
        sys.stderr.write(
            f"pitui: {program!r} is not on PATH; to resume this session run:\n"
            f"  {shell_command(request)}\n"
        )
        return 1
    if not os.path.isdir(request.cwd):
        sys.stderr.write(f"pitui: folder {request.cwd!r} does not exist any more\n")
        return 1
    if replace_process:
        os.chdir(request.cwd)
        os.execvp(program, list(request.argv))
    completed = subprocess.run(list(request.argv), cwd=request.cwd, check=False)
    return completed.returncode
