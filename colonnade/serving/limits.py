"""A request's budgets (:class:`Limits`), importable without the ``serve`` extra (the
command line shows their defaults).

>>> Limits().max_rows
65536
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


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
