"""How much of ``smear-web`` one kind of request may hold at once: a few per client and a few in all.

A request that would pass either bound is refused at once with 429 and ``Retry-After`` (never queued
behind the others), before it reads its body or takes a thread. The tables' moves, the explanations and
the file checks each have their own share and their own threads (``smear_apps.web.app.Workers``), so that no
kind of request waits behind another.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class BusyError(Exception):
    """A share is full: the HTTP status (429), a message naming whose bound, and the seconds to wait."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.status, self.retry_after = 429, retry_after


class Share:
    """At most ``per_client`` requests of one kind from one client address, and ``total`` from all, at once.

    Used from the event loop only (entered and left there), so its counts need no lock."""

    def __init__(self, what: str, per_client: int, total: int, retry_after: int = 2) -> None:
        if per_client < 1 or total < per_client:
            raise ValueError(f"share {what}: per_client={per_client} must be 1 or more and total={total} at least that")
        self.what, self.per_client, self.total, self.retry_after = what, per_client, total, retry_after
        self.held: dict[str, int] = {}

    @contextmanager
    def taken(self, client: str) -> Iterator[None]:
        """Hold one place for ``client`` while the block runs; a :class:`BusyError` if there is none."""
        if self.held.get(client, 0) >= self.per_client:
            raise BusyError(
                f"you have {self.per_client} {self.what} under way, this server's limit for one client: wait for one to finish",
                self.retry_after,
            )
        if sum(self.held.values()) >= self.total:
            raise BusyError(f"the server has {self.total} {self.what} under way, its limit: try again shortly", self.retry_after)
        self.held[client] = self.held.get(client, 0) + 1
        try:
            yield
        finally:
            self.held[client] -= 1
            if not self.held[client]:
                del self.held[client]
