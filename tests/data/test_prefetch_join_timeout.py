"""prefetch never hangs its consumer on a producer that does not stop: the join is bounded."""

import logging
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
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


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt here even when the test runner was started with
    SIGINT ignored (a command put in the background by a shell, ``nohup cmd &``), where
    Python leaves it ignored: the tests are about colonnade's handling of Ctrl-C."""
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, previous)


def _interrupt_when(event, seconds=10):
    """Send this process SIGINT (Ctrl-C) 0.3 s after ``event`` is set (the main thread is
    then waiting for input); a list that gets the time it was sent."""
    sent = []

    def wait_then_interrupt():
        if event.wait(seconds):
            time.sleep(0.3)
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=wait_then_interrupt, daemon=True).start()
    return sent


def test_ctrl_c_while_the_consumer_waits_for_a_blocked_source_stops_promptly():
    """Issue 29: Ctrl-C while the input blocked took the whole join timeout (30 s) to
    stop; an interrupted consumer waits INTERRUPTED_JOIN_SECONDS for its producer."""
    blocked, release = threading.Event(), threading.Event()

    def source():
        yield 1
        blocked.set()
        release.wait(60)
        yield 2

    iterator = prefetch_mod.prefetch(source, 1)
    assert next(iterator) == 1
    sent = _interrupt_when(blocked)
    try:
        with pytest.raises(KeyboardInterrupt):
            next(iterator)
        assert time.monotonic() - sent[0] < 2.0
    finally:
        release.set()


def test_ctrl_c_during_training_on_a_blocked_input_stops_promptly_and_saves(tmp_path):
    """The same through ``train``: the steps run are saved and Ctrl-C returns at once
    (the iterator is closed while the KeyboardInterrupt is handled)."""
    import colonnade as cn

    blocked, release = threading.Event(), threading.Event()
    rng = np.random.default_rng(0)

    def batches():
        for _ in range(3):
            yield {"x": rng.normal(size=8)}, rng.normal(size=8)
        blocked.set()
        release.wait(60)

    est = cn.estimators.LinearRegressor(
        [cn.feature_columns.numeric_column("x")],
        config=cn.estimators.RunConfig(model_dir=str(tmp_path), log_step_count_steps=0),
    )
    sent = _interrupt_when(blocked)
    try:
        with pytest.raises(KeyboardInterrupt):
            est.train(batches, verbose=0)
        assert time.monotonic() - sent[0] < 2.0
    finally:
        release.set()
    assert cn.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-3")


def test_ctrl_c_stops_promptly_with_polars_imported():
    """polars' signal handling makes an interrupted wait resume rather than return; the
    consumer's sliced wait still raises Ctrl-C at once (run in a process of its own, in
    which polars is imported first)."""
    pytest.importorskip("polars")
    code = (
        "import sys, polars, pytest\n"
        "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', sys.argv[1], "
        "'-k', 'consumer_waits_for_a_blocked_source']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, __file__], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
