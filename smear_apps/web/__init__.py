"""``smear-web``: the browser table (``agents``' agents at a table kept on the server) and the replay.

The server itself is :mod:`smear_apps.web.app`; this entry point imports it only when it runs, so that a
missing ``web`` extra is one line that says so."""

from __future__ import annotations

from smear_apps.command import command


@command("smear-web")
def main(argv: list[str] | None = None) -> int:
    """``smear-web``: :func:`smear_apps.web.app.main`."""
    from .app import main as serve

    return serve(argv)
