"""Progress bars for ``fit``, ``train``, ``evaluate`` and ``predict`` (tqdm).

``verbose`` follows Keras: ``0`` silent, ``1`` a progress bar, ``2`` one line per epoch
(``fit`` only), and ``"auto"`` (the default) is ``1`` when stderr is a terminal, else
``0``. A bar is only ever drawn on a terminal: asked for in a pipe or a log file
(``verbose=1``), it becomes ``fit``'s plain line per epoch, so logs hold no carriage
returns. The bar redraws at most every :data:`MIN_INTERVAL` seconds; between redraws a
step costs a counter increment.

>>> resolve_verbose(0), resolve_verbose(2)
(0, 2)
>>> import pandas as pd
>>> known_rows(pd.DataFrame({"x": [1, 2, 3]}))
3
"""

from __future__ import annotations

import sys
import time

import pandas as pd
import pyarrow as pa

from .runner import SessionRunArgs, SessionRunHook

__all__ = [
    "BAR_KEYS",
    "MIN_INTERVAL",
    "ProgressHook",
    "known_rows",
    "progress_bar",
    "resolve_verbose",
]

# Seconds between redraws of a bar (tqdm's ``mininterval``): frequent enough to look live,
# rare enough that drawing never shows in a step's time.
MIN_INTERVAL = 0.1

# What a closing bar shows; the other values (metrics, validation) get a line below it.
BAR_KEYS = ("loss",)


def resolve_verbose(verbose) -> int:
    """``verbose`` as Keras' level: 0 (silent), 1 (a bar, on a terminal) or 2 (a line
    per epoch). ``"auto"`` is 1 on a terminal, else 0; 1 off a terminal is 2."""
    tty = _stderr_is_tty()
    if verbose == "auto":
        return 1 if tty else 0
    if verbose is None or verbose is False or verbose == 0:
        return 0
    if verbose is True or verbose == 1:
        return 1 if tty else 2
    if verbose == 2:
        return 2
    raise ValueError(f"verbose must be 'auto', 0, 1 or 2, got {verbose!r}")


def _stderr_is_tty() -> bool:
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def known_rows(data):
    """Rows of ``data`` when known without reading it: a DataFrame's or Arrow table's
    length, or a Dataset's in-memory table or Parquet footers (unless filtered, sharded or
    repeated); else None."""
    if isinstance(data, (pd.DataFrame, pa.Table, pa.RecordBatch)):
        return len(data)
    from ...data import plan

    node = getattr(data, "plan", None)
    while isinstance(node, (plan.Batch, plan.Shuffle, plan.Select, plan.Prefetch, plan.Cache)):
        node = node.child
    if isinstance(node, plan.Scan) and node.filter is None and node.shard is None:
        return node.source.num_rows()
    return None


def progress_bar(total=None, desc=None, unit="rows", verbose="auto"):
    """A tqdm bar on stderr, disabled (every call a no-op) unless ``verbose`` asks for
    one on a terminal."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        mininterval=MIN_INTERVAL,
        file=sys.stderr,
        dynamic_ncols=True,
        disable=resolve_verbose(verbose) != 1,
    )


class ProgressHook(SessionRunHook):
    """A training bar: rows done (of ``total_rows`` when known, with an ETA), rows/s and
    the running mean loss. With ``total_steps`` it counts steps instead.

    ``close_at_end=False`` leaves closing to the caller (``fit`` adds the validation
    metrics to the bar's last line)."""

    def __init__(
        self, total_rows=None, total_steps=None, desc="train", verbose="auto", close_at_end=True
    ):
        self.total_rows, self.total_steps = total_rows, total_steps
        self.desc, self.verbose, self.close_at_end = desc, verbose, close_at_end
        self.bar = None

    def begin(self) -> None:
        by_steps = self.total_steps is not None
        self.bar = progress_bar(
            self.total_steps if by_steps else self.total_rows,
            self.desc,
            "steps" if by_steps else "rows",
            self.verbose,
        )
        self.loss_total, self.steps, self._shown_at = 0.0, 0, 0.0

    def before_run(self, run_context):
        return None if self.bar.disable else self._fetches

    _fetches = SessionRunArgs({"loss": "loss", "rows": "rows"})

    def after_run(self, run_context, run_values) -> None:
        if self.bar.disable:  # nothing shown: nothing fetched
            return
        self.loss_total += float(run_values.results["loss"])
        self.steps += 1
        self.bar.update(1 if self.total_steps is not None else int(run_values.results["rows"]))
        now = time.monotonic()
        if now - self._shown_at >= MIN_INTERVAL:
            self._shown_at = now
            self.bar.set_postfix(loss=f"{self.mean_loss():.4g}", refresh=False)

    def mean_loss(self) -> float:
        return self.loss_total / self.steps if self.steps else float("nan")

    def end(self, session) -> None:
        if self.close_at_end:
            self.close()

    def close(self, logs=None) -> None:
        """Close the bar with the final loss on its last line; the other
        ``logs`` (the metrics) follow on a line of their own, so however many there are,
        the bar keeps its width."""
        if self.bar is None:
            return
        bar, self.bar = self.bar, None
        shown = logs if logs is not None else {"loss": self.mean_loss()}
        visible = not bar.disable  # closing disables it
        if visible:
            bar.set_postfix({k: f"{v:.4g}" for k, v in shown.items() if k in BAR_KEYS}, False)
        bar.close()
        rest = [f"{k}={v:.4g}" for k, v in shown.items() if k not in BAR_KEYS]
        if visible and rest:
            bar.fp.write(f"{bar.desc}: {', '.join(rest)}\n")
