"""The steps of a dataset: immutable nodes, each iterating its rows for one pass.

``node.iterate(key)`` returns a fresh iterator of RecordBatches for the pass ``key`` (a
tuple of ints: the pass number, then one repetition index per enclosing ``repeat``), so
seeded randomness differs per pass yet is the same on every run. ``node.schema`` is the
output schema when it is known without reading data (not after ``map``), else None.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, replace

import pyarrow as pa
import pyarrow.compute as pc

from . import batches as B
from .columns import join_label, project, split_label
from .prefetch import prefetch
from .shuffle import (
    BUFFER,
    UNIT_ORDER,
    interleave,
    pass_rng,
    permute_elements,
    permute_rows,
    shuffle_elements,
    shuffle_rows,
)

__all__ = [
    "INTERLEAVE_UNITS",
    "SameSchema",
    "Batch",
    "Cache",
    "Filter",
    "Map",
    "Prefetch",
    "Repeat",
    "Scan",
    "Select",
    "Shard",
    "Shuffle",
    "in_memory",
    "push_down",
    "scan_for_streamed_shuffle",
    "scan_under",
]

logger = logging.getLogger(__name__)

# A streamed shuffle reads this many files / row groups / table slices at once, their rows
# alternating in slices of ``buffer_size // INTERLEAVE_UNITS`` rows (at least
# MIN_INTERLEAVE_ROWS), so the buffer always holds rows of several of them.
INTERLEAVE_UNITS = 4
MIN_INTERLEAVE_ROWS = 256


class SameSchema:
    """A step whose rows have its child's columns (all but projection and ``map``)."""

    @property
    def schema(self):
        return self.child.schema


@dataclass(frozen=True, eq=False)
class Scan:
    """Read a source with pushed-down projection, filter, unit order and unit shard.

    Sharding is by unit (file, row group, table slice) when there are at least
    ``num_shards`` units, else by row; either way it is applied to the canonical list of
    units, so shards are disjoint and complete whatever order each worker visits them in.
    With ``interleave = (cycle_length, block_rows)`` that many units are read at once and
    their rows alternate in ``block_rows`` slices (what a shuffle buffer after it needs).
    """

    source: object
    columns: tuple | None = None
    filter: pc.Expression | None = None
    order: tuple | None = None  # (seed, reshuffle) to visit units in a random order
    shard: tuple | None = None
    interleave: tuple | None = None  # (cycle_length, block_rows)

    @property
    def schema(self):
        schema = self.source.schema
        return schema if self.columns is None else project(schema, self.columns)

    def describe(self):
        steps = [self.source.describe()]
        if self.columns is not None:
            steps.append(f"select({list(self.columns)})")
        if self.filter is not None:
            steps.append(f"filter({self.filter})")
        if self.shard is not None:
            steps.append("shard({}, {})".format(*self.shard))
        return steps

    def iterate(self, key):
        split = self.order is not None or self.shard is not None
        units = self.source.units(self.filter, split=split)
        indexed = list(enumerate(units))
        row_shard = None
        if self.shard is not None:
            num_shards, index = self.shard
            if len(units) >= num_shards:
                indexed = indexed[index::num_shards]
            else:
                row_shard = self.shard
        if self.order is not None:
            seed, reshuffle = self.order
            rng = pass_rng(seed, key if reshuffle else (), UNIT_ORDER)
            indexed = [indexed[i] for i in rng.permutation(len(indexed))]
        read_rows = None
        if self.interleave is not None:
            # Each open unit reads smaller batches, so the cycle holds about what one
            # unit read alone would.
            cycle_length, block_rows = self.interleave
            read_rows = max(block_rows, self.source.read_rows // cycle_length)

        def unit_streams():
            for position, unit in indexed:
                batches = self.source.read(unit, self.columns, self.filter, read_rows)
                if row_shard is not None:
                    # Offsetting by the unit's canonical position spreads small units evenly.
                    batches = B.shard_rows(batches, *row_shard, start=position)
                yield batches

        if self.interleave is None:
            for batches in unit_streams():
                yield from batches
        else:
            yield from interleave(unit_streams(), *self.interleave)


@dataclass(frozen=True, eq=False)
class Select:
    child: object
    columns: tuple

    @property
    def schema(self):
        schema = self.child.schema
        return None if schema is None else project(schema, self.columns)

    def describe(self):
        return [*self.child.describe(), f"select({list(self.columns)})"]

    def iterate(self, key):
        columns = list(self.columns)
        for batch in self.child.iterate(key):
            yield batch.select(columns)


@dataclass(frozen=True, eq=False)
class Filter(SameSchema):
    child: object
    expression: pc.Expression

    def describe(self):
        return [*self.child.describe(), f"filter({self.expression})"]

    def iterate(self, key):
        for batch in self.child.iterate(key):
            try:
                kept = batch.filter(self.expression)
            except pa.ArrowException as e:
                raise ValueError(
                    f"Dataset.filter({self.expression}) cannot be applied to rows of columns "
                    f"{batch.schema}: {e}"
                ) from None
            if kept.num_rows:
                yield kept


@dataclass(frozen=True, eq=False)
class Map:
    """Apply ``fn`` to each batch, or to ``(features, labels)`` when ``label`` is set."""

    child: object
    fn: object
    label: tuple | None = None
    single_label: bool = True

    schema = None

    def describe(self):
        return [*self.child.describe(), f"map({getattr(self.fn, '__name__', self.fn)})"]

    def call(self, *args):
        """``fn(*args)``; a pyarrow error in it is a ``ValueError`` naming the function."""
        try:
            return self.fn(*args)
        except pa.ArrowException as e:
            name = getattr(self.fn, "__name__", repr(self.fn))
            raise ValueError(f"Dataset.map: the function {name} failed in pyarrow: {e}") from e

    def iterate(self, key):
        for batch in self.child.iterate(key):
            if self.label is None:
                yield B.to_record_batch(self.call(batch))
                continue
            result = self.call(*split_label(batch, self.label, self.single_label))
            if not (isinstance(result, tuple) and len(result) == 2):
                raise TypeError(
                    "Dataset.map: on a labelled dataset the map function takes (features, "
                    "labels) and must return a (features, labels) tuple; got "
                    f"{type(result).__name__}"
                )
            features = B.to_record_batch(result[0])
            yield join_label(features, result[1], self.label, self.single_label)


@dataclass(frozen=True, eq=False)
class Batch(SameSchema):
    child: object
    batch_size: int
    drop_remainder: bool = False

    def describe(self):
        return [*self.child.describe(), f"batch({self.batch_size}, {self.drop_remainder})"]

    def iterate(self, key):
        return B.rebatch(self.child.iterate(key), self.batch_size, self.drop_remainder)


@dataclass(frozen=True, eq=False)
class Shuffle(SameSchema):
    """Shuffle rows with a streaming buffer, or whole batches when ``elements``; a
    ``buffer_size`` of None is a full permutation of each pass."""

    child: object
    buffer_size: int
    seed: int | None = None
    reshuffle: bool = True
    elements: bool = False

    def describe(self):
        return [*self.child.describe(), f"shuffle({self.buffer_size}, seed={self.seed})"]

    def iterate(self, key):
        rng = pass_rng(self.seed, key if self.reshuffle else (), BUFFER)
        stream = self.child.iterate(key)
        if self.buffer_size is None:
            return permute_elements(stream, rng) if self.elements else permute_rows(stream, rng)
        shuffle = shuffle_elements if self.elements else shuffle_rows
        return shuffle(stream, self.buffer_size, rng)


@dataclass(frozen=True, eq=False)
class Repeat(SameSchema):
    """Passes over the child one after another: ``count`` of them, or forever if None."""

    child: object
    count: int | None = None

    def describe(self):
        return [*self.child.describe(), f"repeat({self.count})"]

    def iterate(self, key):
        repetitions = itertools.count() if self.count is None else range(self.count)
        for repetition in repetitions:
            produced = False
            for batch in self.child.iterate((*key, repetition)):
                produced = True
                yield batch
            if not produced:  # an empty dataset repeated forever is empty, not a hang
                return


@dataclass(frozen=True, eq=False)
class Shard(SameSchema):
    """Row-level (or, when ``elements``, batch-level) shard of a stream."""

    child: object
    num_shards: int
    index: int
    elements: bool = False

    def describe(self):
        return [*self.child.describe(), f"shard({self.num_shards}, {self.index})"]

    def iterate(self, key):
        stream = self.child.iterate(key)
        if self.elements:
            return B.shard_elements(stream, self.num_shards, self.index)
        return B.shard_rows(stream, self.num_shards, self.index)


@dataclass(frozen=True, eq=False)
class Window(SameSchema):
    """Rows (or, when ``elements``, batches) ``start`` to ``start + count`` of each pass
    over the child (``count`` None: to the end): TF's ``skip`` and ``take``."""

    child: object
    start: int
    count: int | None
    elements: bool = False

    def describe(self):
        return [*self.child.describe(), f"window({self.start}, {self.count})"]

    def iterate(self, key):
        skip, left = self.start, self.count
        for batch in self.child.iterate(key):
            if left is not None and left <= 0:
                return
            size = 1 if self.elements else batch.num_rows
            if skip >= size:
                skip -= size
                continue
            if not self.elements:
                batch = batch.slice(skip, None if left is None else left)
                skip = 0
                if left is not None:
                    left -= batch.num_rows
            else:
                skip = 0
                if left is not None:
                    left -= 1
            if self.elements or batch.num_rows:
                yield batch
            if left == 0:
                return  # taken: read no further batch of the child


@dataclass(frozen=True, eq=False)
class Prefetch(SameSchema):
    child: object
    size: int

    def describe(self):
        return [*self.child.describe(), f"prefetch({self.size})"]

    def iterate(self, key):
        return prefetch(lambda: self.child.iterate(key), self.size)


@dataclass(frozen=True, eq=False)
class Cache(SameSchema):
    """Fill ``store`` on the first complete pass; replay it on the later ones."""

    child: object
    store: object

    def describe(self):
        return [*self.child.describe(), self.store.describe()]

    def iterate(self, key):
        replay = self.store.replay()
        if replay is not None:
            yield from replay
            return
        writer = self.store.writer(self.child.schema)
        if writer is None:  # another pass is filling the cache: just read through
            yield from self.child.iterate(key)
            return
        complete = False
        try:
            for batch in self.child.iterate(key):
                writer.write(batch)
                yield batch
            complete = True
        finally:
            writer.finish(complete)


def in_memory(node):
    """Whether every pass of ``node`` is finite and its rows are held in memory (or in a
    cache file) already: an in-memory table, or a :class:`Cache`, under steps that keep
    rows. Such a stream can be permuted whole at no extra cost in memory."""
    while True:
        if isinstance(node, Cache):
            return True
        if isinstance(node, Scan):
            return hasattr(node.source, "table")
        if isinstance(node, Repeat) and node.count is None:
            return False
        child = getattr(node, "child", None)
        if child is None:
            return False
        node = child


def scan_under(node):
    """The Scan that steps added after ``node`` may change: ``node`` itself, or the Scan
    right under a row shuffle (filtering, projecting or sharding commute with shuffling
    rows). None when there is none."""
    if isinstance(node, Scan):
        return node
    if isinstance(node, Shuffle) and not node.elements and isinstance(node.child, Scan):
        return node.child
    return None


def push_down(node, change):
    """``node`` with ``change`` applied to :func:`scan_under` it, or None if there is none."""
    if isinstance(node, Scan):
        return change(node)
    if scan_under(node) is not None:
        return replace(node, child=change(node.child))
    return None


def scan_for_streamed_shuffle(scan, buffer_size, seed, reshuffle):
    """``scan`` read as a shuffle buffer of ``buffer_size`` rows right above it needs:
    its units visited in a seeded order and :data:`INTERLEAVE_UNITS` of them read at once
    (unless an order is set already). Logs a warning when the buffer cannot hold the
    source, whose rows then mix only locally."""
    if scan.order is None:
        block = max(MIN_INTERLEAVE_ROWS, buffer_size // INTERLEAVE_UNITS)
        scan = replace(scan, order=(seed, reshuffle), interleave=(INTERLEAVE_UNITS, block))
    rows = scan.source.num_rows()
    if rows is not None and rows > buffer_size:
        logger.warning(
            "shuffle buffer of %d rows is smaller than the %d rows of %s: rows are mixed "
            "only within about %d rows of each other in a shuffled order of files, row "
            "groups or slices, not uniformly. Use shuffle(None) on in-memory or cached "
            "data for a full permutation, or a larger buffer",
            buffer_size,
            rows,
            scan.source.describe(),
            buffer_size,
        )
    return scan
