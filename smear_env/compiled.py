"""Keeping numba's on-disk cache honest for the compiled modules (the fast core, the batched kernels).

numba keys a cached compilation on the file that defines the function alone, so after an
edit of a module whose functions or constants it uses (a rule in ``core.py``, an offset in
``observer.py``) it would silently load the old machine code. :func:`forget_stale` is
called by each compiled module at import, before anything is compiled or loaded: it drops
that module's cached compilations when any file it depends on has changed since.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def forget_stale(module_file: str, *dependencies: str) -> None:
    """Delete ``module_file``'s numba cache files if ``dependencies`` (file paths) changed since they were written."""
    module = Path(module_file)
    cache = module.parent / "__pycache__"
    digest = hashlib.sha1()
    for path in (module_file, *dependencies):
        digest.update(Path(path).read_bytes())
    stamp = cache / f"{module.stem}.dependencies"
    try:
        if stamp.read_text() == digest.hexdigest():
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for old in [*cache.glob(f"{module.stem}.*.nbi"), *cache.glob(f"{module.stem}.*.nbc")]:
            old.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass  # a read-only install: numba then keeps its cache elsewhere, keyed the same way
