"""The sizes a :class:`~.dataset.Dataset` takes: batch sizes, shuffle buffers, shard
counts.

>>> positive_count(64, "batch_size")
64
"""

__all__ = ["MAX_ROWS", "positive_count"]

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
