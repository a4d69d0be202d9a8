"""Seeded randomness per pass, and the two streaming shuffle buffers.

Every random choice of a pass draws from ``numpy.random.SeedSequence([seed, purpose,
*pass_key])``: the same seed gives the same orders on every run, each pass (each
``iter()`` of a dataset, each repetition of ``repeat``) gets its own order, and the file
order and the buffer draw from independent streams. ``seed=None`` draws fresh entropy.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .batches import table_to_batch

__all__ = [
    "check_seed",
    "interleave",
    "pass_rng",
    "permute_elements",
    "permute_rows",
    "shuffle_elements",
    "shuffle_rows",
]

# Purposes: independent random streams of one seed.
BUFFER = 0
UNIT_ORDER = 1

# The row buffer works in blocks: once it holds ``buffer_size + block`` rows it emits a
# random ``block`` of them. A block of at least this many rows keeps the work per row
# constant (each row is copied at most about three times) however small the buffer.
MIN_BLOCK_ROWS = 1024

# A full permutation is emitted in gathers of this many rows, so the shuffled copy is never
# made whole: it costs one extra batch of memory beyond the data held.
PERMUTE_CHUNK_ROWS = 65_536


def check_seed(seed):
    """``seed`` as given when it is None or a non-negative integer; else TypeError."""
    if seed is None or (isinstance(seed, (int, np.integer)) and seed >= 0):
        return seed
    raise TypeError(f"seed must be None or a non-negative integer, got {seed!r}")


def pass_rng(seed, key, purpose):
    """The numpy Generator for one pass (``key``, a tuple of ints) and one purpose."""
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng(np.random.SeedSequence([int(seed), purpose, *key]))


def shuffle_rows(batches, buffer_size, rng):
    """Shuffle the rows of a stream of RecordBatches with a buffer of ``buffer_size`` rows.

    Like TF's ``shuffle_batch(min_after_dequeue=buffer_size)``, in blocks: the buffer
    fills to ``buffer_size + block`` rows (``block = max(buffer_size // 2, 1024)``), emits
    a uniformly random ``block`` of them, keeps the rest, and fills again; at the end the
    rest is emitted in random order. So every row is drawn from a window of at least
    ``buffer_size + 1`` rows, at most ``buffer_size + block`` rows are held (memory is
    bounded by the buffer however long the stream or large the input batches), and the
    output depends only on the rows and the generator, not on how the input was chunked.
    A buffer at least as large as the data gives a uniform permutation.
    """
    block = max(buffer_size // 2, MIN_BLOCK_ROWS)
    full = buffer_size + block
    pool, pooled = [], 0
    for batch in batches:
        while batch.num_rows:
            piece, batch = batch.slice(0, full - pooled), batch.slice(full - pooled)
            pool.append(piece)
            pooled += piece.num_rows
            if pooled == full:
                table = pa.Table.from_batches(pool)
                order = rng.permutation(full)
                out = table_to_batch(table.take(order[:block]))
                pool = [table_to_batch(table.take(order[block:]))]
                pooled = buffer_size
                del table
                yield out
    if pooled:
        table = pa.Table.from_batches(pool)
        yield table_to_batch(table.take(rng.permutation(pooled)))


def shuffle_elements(items, buffer_size, rng):
    """TF's element shuffle, for streams of batches: keep ``buffer_size`` elements and
    emit a random one as each new one arrives; emit the rest in random order at the end."""
    buffer = []
    for item in items:
        if len(buffer) < buffer_size:
            buffer.append(item)
            continue
        i = int(rng.integers(len(buffer)))
        out, buffer[i] = buffer[i], item
        yield out
    for i in rng.permutation(len(buffer)):
        yield buffer[i]


def permute_rows(batches, rng, chunk_rows=PERMUTE_CHUNK_ROWS):
    """A uniformly random permutation of all the rows of ``batches`` (Keras' shuffle of
    in-memory data): every row is held (for in-memory or cached data they already are:
    the batches are referenced, not copied), one ``rng.permutation`` orders them, and the
    output is gathered ``chunk_rows`` rows at a time with ``Table.take``."""
    pieces = [b for b in batches if b.num_rows]
    if not pieces:
        return
    table = pa.Table.from_batches(pieces)
    order = rng.permutation(table.num_rows)
    for start in range(0, order.shape[0], chunk_rows):
        yield table_to_batch(table.take(order[start : start + chunk_rows]))


def permute_elements(items, rng):
    """All ``items`` (whole batches) in a uniformly random order."""
    items = list(items)
    for i in rng.permutation(len(items)):
        yield items[i]


def interleave(streams, cycle_length, block_rows):
    """Round-robin ``block_rows``-row slices from ``cycle_length`` open streams at a time
    (TF's ``interleave``): when one stream ends the next of ``streams`` opens in its place.
    A shuffle buffer after it then holds rows of several files or row groups at once
    instead of a run of one. Slicing is zero-copy."""
    streams = iter(streams)
    active = []
    for stream in streams:
        active.append([stream, None])
        if len(active) == cycle_length:
            break
    position = 0
    while active:
        position %= len(active)
        entry = active[position]
        pending = entry[1]
        while pending is None or pending.num_rows == 0:
            pending = next(entry[0], None)
            if pending is None:
                break
        if pending is None:
            replacement = next(streams, None)
            if replacement is None:
                del active[position]
            else:
                active[position] = [replacement, None]
            continue
        entry[1] = pending.slice(block_rows)
        position += 1
        yield pending.slice(0, block_rows)
