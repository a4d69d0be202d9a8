"""A request's budgets (:class:`Limits`), importable without the ``serve`` extra (the
command line shows their defaults).

>>> Limits().max_rows
65536
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["WORKER_SETTINGS_ENV", "Limits"]

WORKER_SETTINGS_ENV = "COLONNADE_SERVE_WORKER"
"""The environment variable in which ``serve(..., workers=N)`` hands its settings (the
export, the limits...) to its worker processes."""


@dataclass(frozen=True)
class Limits:
    """A request's budgets; each is documented in ``docs/serving.md``.

    ``max_body_bytes``: the largest body read (413 past it, by Content-Length before
    reading). ``max_rows``: rows (instances, examples) a request (413). ``max_values``:
    scalar values a request, list elements counted one by one (413).
    ``parse_memory_bytes``: the memory a parse process may take beyond its start (413
    past it). ``request_seconds``: the time from a request's arrival to its answer
    (503 past it). ``inline_body_bytes``: bodies up to this size are decoded on a
    thread, bigger ones in a parse process. ``threads``, ``parse_processes``: the pools'
    sizes. ``max_pending``: requests in work at once (503 past it).

    The connection guards (:mod:`.protocol`): ``header_seconds``, the time a request's
    headers may take from its first byte (or from the connection's start) to their end
    (408 and closed past it); ``max_header_bytes``, their size (431 and closed);
    ``body_seconds``, the time its body may take after them (408 and closed);
    ``keep_alive_seconds``, how long an idle keep-alive connection stays open;
    ``max_connections``, the open connections (uvicorn's ``limit_concurrency``, capped
    by the open-file limit): past it a new connection takes the place of the one
    stalled longest (waiting for headers or a body, or idle), so a good client is
    answered while slow or idle ones fill the server, and is refused with 503 only when
    every connection has a request in work.
    """

    max_body_bytes: int = 16 << 20
    max_rows: int = 65_536
    max_values: int = 1 << 22
    parse_memory_bytes: int = 1 << 30
    request_seconds: float = 10.0
    inline_body_bytes: int = 64 << 10
    threads: int = 2
    parse_processes: int = 1
    max_pending: int = 256
    header_seconds: float = 10.0
    max_header_bytes: int = 64 << 10
    body_seconds: float = 30.0
    keep_alive_seconds: float = 5.0
    max_connections: int = 1000

    def __post_init__(self):
        for name in ("header_seconds", "body_seconds", "keep_alive_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(
                    f"Limits.{name} must be a positive number of seconds, got {value!r}"
                )
        for name in ("max_header_bytes", "max_connections"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limits.{name} must be a whole number >= 1, got {value!r}")
