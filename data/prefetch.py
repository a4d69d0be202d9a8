"""A bounded background producer: what TF's QueueRunner and Coordinator did, in one function.

The producer thread fills a queue of at most ``size`` items, so ``size`` bounds the memory
that runs ahead (TF's queue ``capacity``). An exception in the producer is re-raised in
the consumer, with the producer's frames in its traceback. When the consumer stops early
(``break``, ``close()``, garbage collection) the producer is told to stop and joined, so
no thread outlives the iteration. The join waits at most :data:`JOIN_TIMEOUT_SECONDS`: a
producer stuck inside its source (a hung network read, a generator that never yields) is
left behind as a daemon thread, with a warning naming it, instead of hanging the consumer.
When the consumer stops because of Ctrl-C (a ``KeyboardInterrupt`` raised while it waits
for an item, or being handled where it closes the iterator) the wait is
:data:`INTERRUPTED_JOIN_SECONDS`: an interrupt stops the program promptly.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading

__all__ = ["prefetch"]

logger = logging.getLogger("colonnade")

# How long the consumer waits for a stopped producer to finish its current item. It stops
# between items, so this bounds one read/transform of the source, not the whole pass.
JOIN_TIMEOUT_SECONDS = 30.0
# The wait when the consumer is interrupted (Ctrl-C, or SIGTERM handled as it): long
# enough for a producer between items to notice, short enough to feel immediate.
INTERRUPTED_JOIN_SECONDS = 0.5

# How often a producer blocked on a full queue checks whether the consumer has gone.
_POLL_SECONDS = 0.05

_DONE = object()


class _Raised:
    """An exception travelling from the producer thread to the consumer."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def _put(q, item, stop):
    """Put ``item`` unless the consumer stopped; report whether it went in."""
    while not stop.is_set():
        try:
            q.put(item, timeout=_POLL_SECONDS)
            return True
        except queue.Full:
            continue
    return False


def prefetch(make_iterator, size):
    """Iterate ``make_iterator()`` in a daemon thread, at most ``size`` items ahead.

    >>> list(prefetch(lambda: iter(range(5)), size=2))
    [0, 1, 2, 3, 4]
    """
    q = queue.Queue(maxsize=size)
    stop = threading.Event()

    def produce():
        iterator = None
        try:
            iterator = make_iterator()
            for item in iterator:
                if not _put(q, item, stop):
                    return
            _put(q, _DONE, stop)
        except BaseException as err:  # noqa: B036 - everything must reach the consumer
            _put(q, _Raised(err), stop)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="colonnade-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = _get(q)
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                error = item.error
                if hasattr(error, "add_note"):
                    error.add_note("(raised in a colonnade.data prefetch thread)")
                raise error
            yield item
    finally:
        stop.set()
        _join(thread, INTERRUPTED_JOIN_SECONDS if _interrupted() else JOIN_TIMEOUT_SECONDS)


WAIT_SLICE_SECONDS = 0.1
"""How long the consumer blocks at a time waiting for an item (see :func:`_get`)."""


def _get(q):
    """The next item, waited for in slices of ``WAIT_SLICE_SECONDS``: Ctrl-C is then raised
    within a slice even where a library's signal handling makes interrupted waits resume
    rather than return (seen with polars imported), which an untimed wait never leaves."""
    while True:
        try:
            return q.get(timeout=WAIT_SLICE_SECONDS)
        except queue.Empty:
            continue


def _interrupted() -> bool:
    """Whether the consumer is leaving because of a ``KeyboardInterrupt``: raised in it,
    or being handled by the code that closes it (then it is the ``GeneratorExit``'s
    context)."""
    error = sys.exc_info()[1]
    return isinstance(error, KeyboardInterrupt) or isinstance(
        getattr(error, "__context__", None), KeyboardInterrupt
    )


def _join(thread, timeout) -> bool:
    """Join a stopped producer for at most ``timeout`` seconds; report whether it ended.
    One still running is a daemon (it cannot keep the process alive), so it is left
    behind with a warning rather than raised about: this runs while the consumer closes,
    often while an exception is already propagating."""
    thread.join(timeout)
    if not thread.is_alive():
        return True
    logger.warning(
        "the input thread %r did not stop within %.1f s of being asked to (its source is "
        "blocked inside a read or a transform); leaving it behind as a daemon thread",
        thread.name,
        timeout,
    )
    return False
