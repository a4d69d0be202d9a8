"""prefetch never hangs its consumer on a producer that does not stop: the join is bounded."""

import logging
import threading
import time

import pytest

from colonnade.data import prefetch as prefetch_mod


def _close_in_thread(iterator, wait=5.0) -> bool:
    """Close ``iterator`` from a helper thread; report whether close() returned in time."""
    closer = threading.Thread(target=iterator.close, daemon=True)
    closer.start()
    closer.join(wait)
    return not closer.is_alive()


def test_close_returns_and_warns_when_the_producer_is_stuck(monkeypatch, caplog):
    monkeypatch.setattr(prefetch_mod, "JOIN_TIMEOUT_SECONDS", 0.2)
    release, blocked = threading.Event(), threading.Event()

    def source():
        yield 1
        blocked.set()
        release.wait(30)  # stuck inside its source, deaf to the stop request
        yield 2

    iterator = prefetch_mod.prefetch(source, 1)
    try:
        assert next(iterator) == 1
        assert blocked.wait(5)
        with caplog.at_level(logging.WARNING, logger="colonnade"):
            assert _close_in_thread(iterator), "close() hung on the stuck producer"
        assert "did not stop within 0.2 s" in caplog.text
        assert "colonnade-prefetch" in caplog.text
    finally:
        release.set()


def test_a_producer_that_stops_is_joined_without_a_warning(caplog):
    iterator = prefetch_mod.prefetch(lambda: iter(range(1000)), 2)
    assert next(iterator) == 0
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        start = time.monotonic()
        iterator.close()
    assert time.monotonic() - start < prefetch_mod.JOIN_TIMEOUT_SECONDS
    assert "did not stop" not in caplog.text
    assert not [t for t in threading.enumerate() if t.name == "colonnade-prefetch"]


def test_an_input_error_arrives_at_the_item_that_raised_it():
    def source():
        yield from (0, 1, 2)
        raise ValueError("bad item 3")

    iterator = prefetch_mod.prefetch(source, 8)
    assert [next(iterator) for _ in range(3)] == [0, 1, 2]  # the good items come first
    with pytest.raises(ValueError, match="bad item 3"):
        next(iterator)
