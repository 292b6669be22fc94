"""Which kit made a thing: the git commit of the checkout the kit runs from, for a run's record of its legs."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kit_commit(root: Path = ROOT) -> str | None:
    """The commit the kit at ``root`` is checked out at, with ``+changes`` when its tracked files differ from it;
    None where the kit is not a git checkout (an installed wheel) or git is missing."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        changed = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+changes" if changed.stdout.strip() else "")
