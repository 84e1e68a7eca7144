"""Files of the disposable cache that are replaced whole: written beside, then renamed.

No fsync: the cache can be lost at any time (a torn file is only a cache miss). A process killed
between the write and the rename leaves its temporary file behind; the next replacement of the
same file removes such leftovers once they are an hour old (a younger one may still be written).
"""

from __future__ import annotations

import contextlib
import glob
import os
import time
from collections.abc import Iterable
from pathlib import Path

STALE_SECONDS = 3600.0


def replace_file(path: Path, parts: Iterable[bytes]) -> bool:
    """Replace ``path`` by the concatenation of ``parts``; readers see the old file or the new
    one, whole. False when it could not be written (the old file stays)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            for part in parts:
                handle.write(part)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
    _drop_leftovers(path)
    return True


def _drop_leftovers(path: Path) -> None:
    now = time.time()
    for leftover in glob.glob(glob.escape(str(path)) + ".*.tmp"):
        with contextlib.suppress(OSError):
            if now - os.stat(leftover).st_mtime > STALE_SECONDS:
                os.unlink(leftover)
