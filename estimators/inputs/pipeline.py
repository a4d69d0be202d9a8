"""The input pipeline of training and inference: batches read, transformed by the
network's feature columns, and prepared for the step on a background thread, a chunk of
consecutive batches at a time, so that input overlaps the model's work.
"""

from __future__ import annotations

import itertools

import pyarrow as pa

from ...data.prefetch import prefetch
from .advice import located_error
from .input_fn import batches

# Rows of consecutive small batches transformed together (see transformed_batches):
# 16 training batches of 1,024 rows, enough that the transforms' per-call costs (about 40
# columns, several array calls each) are small next to their per-row work.
CHUNK_ROWS = 16_384
# Batches the input thread may hold ready: two chunks of 1k-row batches.
READY_BATCHES = 32
# Threads transforming a chunk: the input thread alone, as it already is the second core's
# work; a pool of two more only contends with training for the two cores.
INPUT_THREADS = 1


def transformed_batches(network, input_fn, repeat_single=False, limit=None, training=False):
    """``(features, labels, transforms)`` per batch: each feature column computed once per
    batch for the whole network, and what the layers can prepare from it (for
    ``training``: the rows of fused tables grouped for the gradient); at most ``limit``
    batches are read.

    Consecutive Arrow batches are transformed together, :data:`CHUNK_ROWS` rows at a
    time, and each batch gets its cut of the result: the transforms' per-call costs
    (about 40 columns, several array calls each) are then paid once per chunk instead of
    once per 1k-row batch, and a chunk is large enough for the transform thread pool.
    Batches are the same, and come in the same order, as without chunking.

    Reading and transforming run on a background thread, up to two chunks ahead of the
    consumer, so they overlap training on the second core: at 16k rows the transforms
    spend their time in Arrow and numpy with the GIL released. An error in the input
    reaches the consumer at the batch that caused it.
    """

    def produce():
        for features, labels, cache in _chunked(network, input_fn, repeat_single, limit):
            yield features, labels, network.prepare(cache, training)

    return prefetch(produce, READY_BATCHES)


class _Transform:
    """``network.transform`` of one batch; a refused batch's error says where its bad
    value is in the input (:func:`~.advice.located_error`), which is the Dataset given or
    the one ``input_fn`` returned."""

    def __init__(self, network, input_fn):
        self.network, self.dataset = network, input_fn
        if callable(input_fn) and not hasattr(input_fn, "__iter__"):
            self.input_fn = self._recording(input_fn)
        else:
            self.input_fn = input_fn

    def _recording(self, input_fn):
        def call():
            self.dataset = input_fn()
            return self.dataset

        return call

    def __call__(self, features):
        try:
            return self.network.transform(features, num_threads=INPUT_THREADS)
        except (TypeError, ValueError) as err:
            located = located_error(err, self.network, features, self.dataset)
            if located is None:
                raise
            raise located from err


def _chunked(network, input_fn, repeat_single, limit):
    """Transformed batches; small Arrow batches are transformed a chunk at a time."""
    transform = _Transform(network, input_fn)
    source = itertools.islice(batches(transform.input_fn, repeat_single), limit)
    previous, pending, rows = None, [], 0  # previous: the last chunk's transforms

    def flush():
        nonlocal previous, pending, rows
        items, chunk = _transform_chunk(network, pending, previous, transform)
        previous = chunk or previous
        pending, rows = [], 0
        return items

    for features, labels in source:
        if isinstance(features, pa.RecordBatch) and features.num_rows < CHUNK_ROWS:
            if pending and features.schema != pending[0][0].schema:
                yield from flush()
            pending.append((features, labels))
            rows += features.num_rows
            if rows >= CHUNK_ROWS:
                yield from flush()
            continue
        yield from flush()
        yield features, labels, transform(features)
    yield from flush()


def _transform_chunk(network, pending, previous, transform):
    """``(items, chunk)``: each ``(features, labels, transforms)`` of ``pending``, and the
    transforms of the whole chunk (None when it had to go batch by batch, lazily)."""
    if len(pending) > 1:
        chunk, cuts = _chunk_cuts(network, pending, previous)
        if cuts is not None:
            return [(f, y, cache) for (f, y), cache in zip(pending, cuts)], chunk
    return ((f, y, transform(f)) for f, y in pending), None


def _chunk_cuts(network, pending, previous):
    """The transforms of all ``pending`` batches done at once, and each batch's cut of
    them; ``(None, None)`` if they cannot be cut or the input is bad somewhere (then batch
    by batch, so the batches before a bad one still train and its error comes at its own
    step)."""
    try:
        table = pa.Table.from_batches([f for f, _ in pending]).combine_chunks()
        chunk = network.transform(table, previous, INPUT_THREADS)
    except Exception:
        return None, None
    cuts, start = [], 0
    for features, _ in pending:
        cut = chunk.rows(start, start + features.num_rows, features)
        if cut is None:
            return None, None
        cuts.append(cut)
        start += features.num_rows
    return chunk, cuts
