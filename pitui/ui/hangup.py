"""Leave when the terminal goes away, whatever SIGHUP does.

A terminal that closes sends SIGHUP, and its default action ends pitui. Started with SIGHUP
ignored (``nohup``, ``trap '' HUP``, some ``su``/``runuser`` set-ups) pitui would stay, its input
thread reading the end of a dead terminal in a loop at full CPU. A daemon thread polls the
terminal's descriptors for a hang-up; when it sees one it asks the app to exit, and if the app has
not gone a moment later (its event loop stuck writing to the dead terminal), ends the process as
SIGHUP's default action would have.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
from collections.abc import Callable, Sequence

POLL_SECONDS = 0.5
GRACE_SECONDS = 2.0


def hung_up(fds: Sequence[int]) -> bool:
    """Whether any of ``fds`` reports a hang-up (or is no longer open)."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    try:
        events = poller.poll(0)
    except OSError:
        return True
    return any(event & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, event in events)


class HangupWatch:
    """Watches ``fds`` from a daemon thread; on a hang-up calls ``request_exit`` (it must not
    block: schedule the exit on the app's loop), then after ``grace`` seconds ends the process."""

    def __init__(
        self,
        fds: Sequence[int],
        request_exit: Callable[[], object],
        *,
        poll_seconds: float = POLL_SECONDS,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self.fds = tuple(fds)
        self.request_exit = request_exit
        self.poll_seconds = poll_seconds
        self.grace = grace
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pitui-hangup", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            if hung_up(self.fds):
                break
        else:
            return
        # (the loop may be gone or closing: then ending the process is all that is left)
        with contextlib.suppress(Exception):
            self.request_exit()
        # What SIGHUP's default action would have done, had it not been ignored: SIGTERM (whose
        # default ends the process), then SIGKILL should something handle SIGTERM.
        for end in (signal.SIGTERM, signal.SIGKILL):
            if self._stop.wait(self.grace):
                return
            os.kill(os.getpid(), end)
