"""The HTTP protocol the server runs: uvicorn's httptools protocol, with connection
guards, answering a client that half-closes its connection after its request.

Guards (issue 41: 1,100 connections sending their headers a byte every 2 s locked every
other client out). Each is a :class:`~.limits.Limits` field:

- a request's headers must end within ``header_seconds`` of its first byte (of the
  connection's start, for the first request): else ``408`` and the connection is
  closed. A client sending its headers byte by byte (slowloris) is cut off;
- headers over ``max_header_bytes`` get ``431`` and the connection is closed;
- a body must arrive within ``body_seconds`` of its headers (``408``, closed);
- an idle keep-alive connection is closed after ``keep_alive_seconds``;
- at most ``max_connections`` connections are open (further capped by the process's
  open-file limit, less :data:`SPARE_FILES`). A connection past the cap takes the place
  of the one stalled longest: waiting for its headers or body, or idle between
  requests, oldest first; it is refused (``503``, closed) only when every other
  connection has a request in work. So slow and idle connections cannot keep a good
  client out.

Half-close: a client may send its request and then shut down its side for writing
(``shutdown(fd, SHUT_WR)``, what ``curl --no-keepalive`` pipelines and some load
balancers do): the request is whole, and the client still reads. asyncio closes a
transport whose protocol does not ask to keep it open on end-of-file, so uvicorn's
protocol dropped the answer. This one keeps the connection open for writing while a
complete request is being answered, and closes it once the answer is sent.
"""

from __future__ import annotations

import json
import os
import resource

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .limits import WORKER_SETTINGS_ENV, Limits

__all__ = ["GuardedHttpProtocol", "HalfCloseHttpProtocol", "guarded_protocol", "uvicorn_options"]

SPARE_FILES = 64
"""Open files kept free of connections under the open-file limit: the model's files,
the parse processes' pipes, the log."""

_REASONS = {
    408: b"Request Timeout",
    431: b"Request Header Fields Too Large",
    503: b"Service Unavailable",
}


class HalfCloseHttpProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that answers a request whose client half-closed."""

    half_closed = False

    def eof_received(self) -> bool | None:
        cycle = self.cycle
        if cycle is not None and not cycle.more_body and not cycle.response_complete:
            self.half_closed = True
            return True  # keep the transport open to write the answer
        return None  # nothing in flight: close, as before

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)  # requests sent before the end-of-file: answered too
        super().on_response_complete()
        if self.half_closed and not pipelined and not self.transport.is_closing():
            self.transport.close()


def connection_cap(limits: Limits) -> int:
    """The open connections a server takes: ``limits.max_connections``, at most the
    open-file limit less :data:`SPARE_FILES` (past it, ``accept`` itself fails)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.max_connections
    return max(1, min(limits.max_connections, soft - SPARE_FILES))


class GuardedHttpProtocol(HalfCloseHttpProtocol):
    """:class:`HalfCloseHttpProtocol` with the guards of the module docstring.

    A connection is in one phase: ``headers`` (from its start, or a request's first
    byte, to the end of the headers), ``body`` (until the request is whole), ``work``
    (the app answers it) or ``idle`` (between requests on a kept-alive connection).
    ``limits`` is the class's :class:`Limits`: set by :func:`guarded_protocol`, or, in
    a worker process of ``serve(..., workers=N)``, read from the settings ``serve``
    left in the environment (a class made at run time does not reach a spawned worker).
    """

    limits: Limits | None = None
    phase = "headers"
    since = 0.0

    @classmethod
    def guards(cls) -> Limits:
        if cls.limits is None:
            settings = os.environ.get(WORKER_SETTINGS_ENV)
            limits = json.loads(settings)["limits"] if settings else {}
            cls.limits = Limits(**limits)
            cls._cap = connection_cap(cls.limits)
        return cls.limits

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._guards = self.guards()
        self._timer = None
        self._header_bytes = self._head_size = 0
        self._refused = False
        self._enter("headers", self._guards.header_seconds)
        self._make_room()

    def _enter(self, phase: str, seconds: float | None = None) -> None:
        self.phase, self.since = phase, self.loop.time()
        stalled = self._stalled()
        stalled.pop(self, None)
        if phase != "work":
            stalled[self] = None  # the newest stalled: last in insertion order
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if seconds is not None:
            self._timer = self.loop.call_later(seconds, self._timed_out, phase)

    def _stalled(self) -> dict:
        """The server's connections waiting on their client (headers, body, idle),
        longest-waiting first: a dict used as an ordered set, so the one to close to
        make room is found in constant time."""
        stalled = getattr(self.server_state, "colonnade_stalled", None)
        if stalled is None:
            stalled = self.server_state.colonnade_stalled = {}
        return stalled

    def _timed_out(self, phase: str) -> None:
        self._timer = None
        if self.phase != phase or self.transport.is_closing():
            return
        if phase == "headers":
            silent = self._header_bytes == 0 and self.cycle is None  # never sent a byte
            wait = self._guards.header_seconds
            self._refuse(408, None if silent else f"request headers not received within {wait:g} s")
        elif self.cycle is not None and not self.cycle.response_started:
            wait = self._guards.body_seconds
            self._refuse(408, f"request body not received within {wait:g} s of its headers")
        else:  # an idle keep-alive connection, or a body the app answered early
            self.transport.close()

    def _refuse(self, status: int, message: str | None) -> None:
        """Answer ``status`` with ``{"error": message}`` (nothing for ``None``), close."""
        self._refused = True
        if self.cycle is not None:
            self.cycle.keep_alive = False
        if message is not None and not self.transport.is_closing():
            body = json.dumps({"error": message}).encode()
            head = (
                b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n"
                % (status, _REASONS[status], len(body))
            )
            self.transport.write(head + body)
        self.transport.close()

    def _make_room(self) -> None:
        """Past the cap: close the connection stalled longest, or refuse this one."""
        if len(self.connections) <= type(self)._cap:
            return
        for oldest in self._stalled():
            if oldest is not self:
                oldest.transport.close()
                self._stalled().pop(oldest, None)
                return
        busy = len(self.connections) - 1
        self._refuse(503, f"the server has {busy} connections in work, its limit")

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self.phase == "idle":
            self._header_bytes = self._head_size = 0
            self._enter("headers", self._guards.header_seconds)
        if self.phase == "headers":
            self._header_bytes += len(data)
        super().data_received(data)
        if self.phase == "headers" and self._header_bytes > self._guards.max_header_bytes:
            self._refuse(431, self._too_large())

    def _too_large(self) -> str:
        return f"request headers are over the {self._guards.max_header_bytes:,}-byte limit"

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        if self._head_size > self._guards.max_header_bytes:  # whole in one read
            self._refuse(431, self._too_large())
            return
        super().on_headers_complete()
        self._enter("body", self._guards.body_seconds)

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
        super().on_message_complete()
        if self.cycle.response_complete:  # answered before its body ended (a 413)
            self._enter("idle", self._guards.keep_alive_seconds)
        else:
            self._enter("work")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.pipeline or (self.cycle is not None and not self.cycle.response_complete):
            return
        if self.phase == "work":
            self._enter("idle", self._guards.keep_alive_seconds)

    def connection_lost(self, exc) -> None:
        if getattr(self, "_timer", None) is not None:
            self._timer.cancel()
            self._timer = None
        self._stalled().pop(self, None)
        super().connection_lost(exc)


def guarded_protocol(limits: Limits | None) -> type:
    """The protocol class guarding connections with ``limits`` (its defaults: ``None``)."""
    limits = limits or Limits()
    attrs = {"limits": limits, "_cap": connection_cap(limits)}
    return type("GuardedHttpProtocol", (GuardedHttpProtocol,), attrs)


def uvicorn_options(limits: Limits | None = None, workers: bool = False) -> dict:
    """The ``uvicorn.Config`` options every colonnade server uses; ``workers``: for
    worker processes, which read their limits from ``serve``'s settings."""
    limits = limits or Limits()
    http = GuardedHttpProtocol if workers else guarded_protocol(limits)
    return {
        "http": http,
        "access_log": False,
        "log_level": "warning",
        "timeout_keep_alive": limits.keep_alive_seconds,
    }
