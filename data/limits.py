"""The sizes a :class:`~.dataset.Dataset` takes: batch sizes, shuffle buffers, shard
counts.

>>> positive_count(64, "batch_size")
64
"""

import numpy as np

__all__ = ["AUTOTUNE", "MAX_ROWS", "check_parallel_calls", "positive_count"]

# TF's ``AUTOTUNE``: ``prefetch``, ``num_parallel_calls`` and ``cycle_length`` take it.
AUTOTUNE = -1

MAX_ROWS = (1 << 31) - 1
"""The largest batch, buffer or shard count a Dataset takes: Arrow reads at most this many
rows at once (a larger number overflowed deep inside pyarrow)."""


def positive_count(value, name: str) -> int:
    """``value`` if it is an int in ``[1, MAX_ROWS]``; else a ``ValueError`` naming
    ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if value > MAX_ROWS:
        raise ValueError(f"{name} must be at most {MAX_ROWS:,} (2^31 - 1), got {value:,}")
    return value


def check_parallel_calls(calls) -> None:
    """TF's ``num_parallel_calls``: None, ``AUTOTUNE`` (-1) or a positive count."""
    if calls is None or calls == AUTOTUNE:
        return
    if isinstance(calls, bool) or not isinstance(calls, (int, np.integer)) or calls < 1:
        raise ValueError(f"num_parallel_calls must be a positive count or AUTOTUNE, got {calls!r}")
