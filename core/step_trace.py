"""Spans of one training step, for ``ProfilerHook``'s Chrome traces.

While a step is recorded on this thread (:func:`recording`), each function decorated
with :func:`traced` (``gradients``, an optimizer's ``apply_gradients``) and each
:meth:`StepTrace.add` by the training loop (the wait for the input, the ``model_fn``
call) leaves one span; otherwise a decorated function costs one thread-local read.

>>> with recording() as trace:
...     trace.add("input", 0.0, 0.001)
>>> [(e["name"], e["ph"], e["dur"]) for e in trace.chrome_trace()["traceEvents"]]
[('input', 'X', 1000.0)]
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time

_local = threading.local()


class StepTrace:
    """The spans of one step: ``(name, start, end)`` in ``time.perf_counter`` seconds."""

    def __init__(self):
        self.spans: list = []

    def add(self, name: str, start: float, end: float) -> None:
        self.spans.append((name, start, end))

    def chrome_trace(self) -> dict:
        """The spans as Chrome's trace event format (``chrome://tracing``, Perfetto):
        complete events (``"ph": "X"``) in microseconds from the step's first span,
        nested spans inside the span that encloses them."""
        origin = min((start for _, start, _ in self.spans), default=0.0)
        events = [
            {
                "name": name,
                "cat": "step",
                "ph": "X",
                "ts": round((start - origin) * 1e6, 3),
                "dur": round((end - start) * 1e6, 3),
                "pid": 0,
                "tid": 0,
            }
            for name, start, end in self.spans
        ]
        return {"traceEvents": events, "displayTimeUnit": "ms"}


@contextlib.contextmanager
def recording():
    """Record the spans of what runs meanwhile on this thread into a new
    :class:`StepTrace` (the value of the ``with``)."""
    trace, before = StepTrace(), getattr(_local, "trace", None)
    _local.trace = trace
    try:
        yield trace
    finally:
        _local.trace = before


def current() -> StepTrace | None:
    """The trace being recorded on this thread, or None."""
    return getattr(_local, "trace", None)


def traced(name: str):
    """Decorate a function so that each call is a span ``name`` of the step recorded."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            trace = getattr(_local, "trace", None)
            if trace is None:
                return fn(*args, **kwargs)
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                trace.add(name, start, time.perf_counter())

        return wrapper

    return decorate
