"""Progress bars: shown on a terminal, silent in a pipe, never carriage returns in logs."""

import fcntl
import io
import os
import struct
import sys
import termios

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import colonnade as cn
from colonnade.estimators.hooks import progress

fc = cn.feature_columns
E = cn.estimators


def frame(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": (x > 0).astype(int)})


def estimator(tmp_path):
    config = E.RunConfig(tf_random_seed=1, log_step_count_steps=0)
    return E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path), config=config)


class Terminal(io.StringIO):
    def isatty(self):
        return True


def as_terminal(monkeypatch):
    """Make stderr a terminal (in the test body: pytest's capture resets sys.stderr
    between a fixture's setup and the test)."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def test_resolve_verbose(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert [progress.resolve_verbose(v) for v in ("auto", 0, 1, 2)] == [0, 0, 2, 2]
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert [progress.resolve_verbose(v) for v in ("auto", 0, 1, 2)] == [1, 0, 1, 2]
    with pytest.raises(ValueError, match="verbose must be 'auto', 0, 1 or 2"):
        progress.resolve_verbose("yes")


def test_fit_in_a_pipe_prints_nothing_by_default(tmp_path, capsys):
    est = estimator(tmp_path)
    est.fit(frame(), label="y", epochs=2, batch_size=8)
    est.evaluate(frame(), label="y")
    est.predict(frame())
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_fit_verbose_1_in_a_pipe_prints_a_line_per_epoch(tmp_path, capsys):
    estimator(tmp_path).fit(frame(), label="y", epochs=2, batch_size=8, verbose=1)
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in out.splitlines()] == ["epoch 1/2", "epoch 2/2"]
    assert "\r" not in out + err


def test_fit_on_a_terminal_shows_rows_rate_loss_and_total(tmp_path, monkeypatch):
    terminal = as_terminal(monkeypatch)
    validation = frame(32, seed=1)
    estimator(tmp_path).fit(frame(), label="y", epochs=2, batch_size=8, validation_data=validation)
    text = terminal.getvalue()
    assert "epoch 1/2" in text and "epoch 2/2" in text
    assert "64/64" in text  # the DataFrame's size is known: a total, hence an ETA
    assert "rows/s" in text and "loss=" in text and "val_accuracy=" in text


def test_train_evaluate_predict_bars_and_verbose_0(tmp_path, monkeypatch):
    terminal = as_terminal(monkeypatch)
    est = estimator(tmp_path)
    ds = cn.data.Dataset.from_pandas(frame(), label="y").batch(8)
    est.train(ds)
    est.evaluate(frame(), label="y")
    est.predict(frame())
    list(est.predict(cn.data.Dataset.from_pandas(frame()).batch(16)))
    text = terminal.getvalue()
    assert "train" in text and "evaluate" in text and text.count("predict") >= 2
    assert "64/64" in text
    terminal.seek(0)
    terminal.truncate()
    est.train(ds, verbose=0)
    est.evaluate(frame(), label="y", verbose=0)
    est.predict(frame(), verbose=0)
    assert terminal.getvalue() == ""


def test_train_with_steps_counts_steps(tmp_path, monkeypatch):
    terminal = as_terminal(monkeypatch)
    ds = cn.data.Dataset.from_pandas(frame(), label="y").batch(8).repeat()
    estimator(tmp_path).train(ds, steps=5)
    assert "5/5" in terminal.getvalue() and "steps/s" in terminal.getvalue()


def test_known_rows(tmp_path):
    table = pa.table({"x": [1.0, 2.0, 3.0], "y": [0, 1, 0]})
    pq.write_table(table, tmp_path / "a.parquet")
    pq.write_table(table, tmp_path / "b.parquet")
    Dataset = cn.data.Dataset
    assert progress.known_rows(table) == 3
    assert progress.known_rows(Dataset.from_arrow(table).shuffle(None, seed=1).batch(2)) == 3
    assert progress.known_rows(Dataset.from_parquet(str(tmp_path / "*.parquet")).batch(2)) == 6
    assert progress.known_rows(Dataset.from_arrow(table).batch(2).repeat()) is None
    assert progress.known_rows(Dataset.from_arrow(table).filter([("x", ">", 1)]).batch(2)) is None
    assert progress.known_rows(lambda: table) is None


def test_bar_redraws_at_most_every_tenth_of_a_second(monkeypatch):
    as_terminal(monkeypatch)
    bar = progress.progress_bar(total=10)
    assert progress.MIN_INTERVAL == 0.1 and bar.mininterval == progress.MIN_INTERVAL


def test_validation_metrics_leave_the_bar_its_width(tmp_path, monkeypatch):
    """On an 80-column terminal the closing bar keeps its bar; the validation metrics
    follow on a line of their own (they used to squeeze the bar to one character)."""
    terminal = as_terminal(monkeypatch)
    master, tty = os.openpty()  # a real terminal of 80 columns, for tqdm to measure
    fcntl.ioctl(tty, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    monkeypatch.setattr(terminal, "fileno", lambda: tty, raising=False)
    estimator(tmp_path).fit(frame(), label="y", epochs=1, batch_size=8, validation_data=frame(32))
    lines = terminal.getvalue().split("\n")
    bar = lines[0].split("\r")[-1]
    assert len(bar) < 80 and "loss=" in bar and "|" + "#" * 10 in bar, bar
    metrics = lines[1]
    assert metrics.startswith("epoch 1/1: ")
    assert "val_loss=" in metrics and "val_accuracy=" in metrics
    os.close(tty)
    os.close(master)
