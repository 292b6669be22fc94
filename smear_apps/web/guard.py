"""The door of ``smear-web``: which requests reach the app at all, and the headers every answer carries.

A browser visiting any other site must not be able to drive this server: a page elsewhere can send
requests to ``127.0.0.1`` (a simple cross-origin POST needs no permission), and a host name of its own
that resolves to ``127.0.0.1`` makes the browser treat the server as that site (DNS rebinding). So:

* the ``Host`` header must be one the owner serves under (by default the loopback names with the
  port; ``--allowed-host`` adds more), else 421 (a rebound name never matches);
* an API request that says it comes from another site (an ``Origin`` that is not this server's, or
  ``Sec-Fetch-Site`` other than ``same-origin`` or ``none``) is refused with 403;
* every answer forbids framing and sniffing and allows scripts from this server only (a
  ``Content-Security-Policy`` with no inline script).

Scripts and command-line clients send no ``Origin`` and are served as before.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("smear-web")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
"""The names a loopback server answers to (each with its port)."""
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        b"form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def split_host(host: str) -> tuple[str, str | None]:
    """A ``Host`` value's name and port (None: not given), lower case: ``[::1]:8000`` -> ``("[::1]", "8000")``."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else None
    name, colon, port = host.partition(":")
    return name, port if colon else None


def host_matches(host: str, allowed: Sequence[str]) -> bool:
    """Whether a ``Host`` value is one of ``allowed``: each ``name`` (any port) or ``name:port``."""
    if not host or any(c in host for c in "/@\\ \t,"):
        return False
    name, port = split_host(host)
    return any(name == a_name and a_port in (None, port) for a_name, a_port in map(split_host, allowed))


class Guard:
    """ASGI middleware: the checks of the module docstring, then the app, its answers given the headers."""

    def __init__(self, app: App, hosts: Sequence[str]) -> None:
        self.app, self.hosts = app, list(hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        refusal = None
        if not host_matches(host, self.hosts):
            refusal = (421, f"this server does not answer to the host {host[:100]!r} (smear-web --allowed-host adds one)")
        elif scope["path"].startswith("/api/"):
            origin, site = headers.get("origin"), headers.get("sec-fetch-site")
            if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
                refusal = (403, f"requests from another site ({origin[:100]}) are refused: use this server's own pages")
            elif site is not None and site not in ("same-origin", "none"):
                refusal = (
                    403,
                    f"requests from another site (Sec-Fetch-Site: {site[:40]}) are refused: use this server's own pages",
                )
        if refusal is not None:
            await _refuse(send, *refusal)
            return

        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            # Answered here, not by the server's own handler outside this door: a 500 carries the headers too.
            log.exception("smear-web failed on %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            await _refuse(send, 500, "the server failed on this request (its log says why); the game is unchanged")


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *HEADERS]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def http_protocol() -> type:
    """uvicorn's h11 protocol, its own 400 for a request it cannot parse (a request line of 200 kB, say) given the
    headers of every answer: that answer is made before any app, so this door alone never sees it. The pure-Python
    h11 protocol always, so that what answers does not depend on whether httptools is installed."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            body = json.dumps({"error": f"not an HTTP request this server reads ({msg[:100]})"}).encode()
            headers = [(b"content-type", b"application/json"), (b"connection", b"close"), *HEADERS]
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
                self.transport.write(self.conn.send(event))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
            self.transport.close()

    return GuardedH11Protocol
