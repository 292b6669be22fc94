"""Writing result files: atomically, and readable by others like any file the user writes."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    with _UMASK_LOCK:  # the only way to read the umask is to set it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[Any]], object], binary: bool = False) -> Path:
    """Write a file whole or not at all: ``write(f)`` fills a temporary file in the same folder, which
    then replaces ``path`` (a crash leaves the previous file, never half of one). The file gets the
    permissions of any new file of the user's (``0666`` less the umask), not ``mkstemp``'s 0600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb" if binary else "w") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
