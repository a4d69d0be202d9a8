"""``Dataset``: a lazy, re-iterable input pipeline over Arrow record batches.

It replaces TF 1.x's queue machinery. What those functions did maps onto methods:

================================================  ===========================================
TF 1.x                                            colonnade
================================================  ===========================================
``input_producer``/``string_input_producer``      ``Dataset.from_files(paths)``
``slice_input_producer``                          ``Dataset.from_dict`` / ``from_arrow``
``limit_epochs(t, num_epochs)``                   ``.repeat(num_epochs)``
``batch(..., allow_smaller_final_batch=False)``   ``.batch(n, drop_remainder=True)``
``shuffle_batch(capacity, min_after_dequeue)``    ``.shuffle(min_after_dequeue).batch(n)``
``batch_join`` / ``shuffle_batch_join``           ``from_files([...])`` (files are interleaved
                                                  in a seeded order when shuffled)
``QueueRunner`` + ``Coordinator``, ``capacity``   ``.prefetch(capacity)``: one bounded thread
                                                  that stops with the consumer and passes its
                                                  errors on
================================================  ===========================================

The ``from_*`` constructors are in :mod:`.dataset_constructors`; this module holds the
transformations and the iteration.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial

import numpy as np
import pyarrow as pa

from .columns import as_expression, as_names, check_expression, check_names, split_label
from .dataset_cache import FileCache, MemoryCache
from .dataset_constructors import DatasetConstructors, Names, RowFilter, schema_origin
from .dataset_tf_steps import TFSteps
from .element_streams import element_map
from .iterators import OneShotIterator
from .limits import (  # noqa: F401 (MAX_ROWS and check_parallel_calls: cn.data.dataset's)
    AUTOTUNE,
    MAX_ROWS,
    check_parallel_calls,
    positive_count,
)
from .plan import (
    INTERLEAVE_UNITS,
    Batch,
    Cache,
    Filter,
    Map,
    Prefetch,
    Repeat,
    Scan,
    Select,
    Shard,
    Shuffle,
    Window,
    push_down,
    scan_for_streamed_shuffle,
    scan_under,
)
from .shuffle import check_seed

__all__ = ["AUTOTUNE", "INTERLEAVE_UNITS", "Dataset"]

# ``prefetch(AUTOTUNE)``, as in tf.data, asks for the default depth below.
DEFAULT_PREFETCH = 2


class Dataset(DatasetConstructors, TFSteps):
    """A lazy description of an input pipeline; iterating it reads one pass (an epoch).

    Build one with a ``from_*`` constructor; every method returns a new Dataset. Iterating
    yields :class:`pyarrow.RecordBatch` es, or ``(features, labels)`` pairs when the dataset
    has a label (``label=`` on a constructor, or :meth:`with_label`): ``features`` is the
    batch without the label column(s), ``labels`` a numpy array for one label name or a
    RecordBatch for a list of names.

    Rows are the elements until :meth:`batch`; after it, whole batches are, so
    ``shuffle``/``shard`` after ``batch`` move whole batches, as in tf.data. Each
    ``iter(ds)`` is a new pass: a seeded shuffle gives pass ``k`` the ``k``-th order of its
    seed, the same on every run (:meth:`iterate` picks a pass explicitly).

    Every ``from_*`` constructor also takes ``columns`` (the columns to keep, default all;
    files read only these), ``filter`` (the rows to keep, as :meth:`filter` takes it;
    default all) and ``label`` (a label column name or list of names, as
    :meth:`with_label`; default none).

    >>> import colonnade as cn
    >>> ds = cn.data.Dataset.from_dict({"x": [1, 2, 3, 4, 5], "y": [0, 1, 0, 1, 0]}, label="y")
    >>> for features, labels in ds.batch(2, drop_remainder=True):
    ...     print(features.column("x").to_pylist(), labels.tolist())
    [1, 2] [0, 1]
    [3, 4] [0, 1]
    """

    def __init__(self, node, label=None, batched=False, view=None):
        self._node = node
        self._view = view  # TF's element view for map (see .element_streams), or None
        self._label = None if label is None else as_names(label, "label")
        self._single_label = isinstance(label, str)
        self._batched = batched
        self._passes = itertools.count()

    # ------------------------------------------------------------------ properties

    @property
    def schema(self):
        """The rows' :class:`pyarrow.Schema` (label columns included), or None after
        :meth:`map`, whose output is known only by running it.

        >>> Dataset.from_dict({"x": [1]}).schema.names
        ['x']
        """
        return self._node.schema

    @property
    def label(self):
        """The label column name (or list of names), or None.

        >>> Dataset.from_dict({"x": [1], "y": [0]}, label="y").label
        'y'
        """
        if self._label is None:
            return None
        return self._label[0] if self._single_label else list(self._label)

    @property
    def batched(self) -> bool:
        """Whether :meth:`batch` was applied: the elements are then whole batches, which
        ``shuffle`` and ``shard`` move as units (how callers size a shuffle buffer).

        >>> Dataset.from_dict({"x": [1]}).batch(1).batched
        True
        """
        return self._batched

    @property
    def plan(self):
        """The last step of this dataset's plan (a node of :mod:`.plan`; each step's
        ``child`` leads down to the source ``Scan``). Internal to colonnade: what worker
        sharding, the choice of a shuffle buffer and the progress bar's row count read
        and rebuild; its form may change between versions.

        >>> Dataset.from_dict({"x": [1]}).batch(1).plan.batch_size
        1
        """
        return self._node

    def with_plan(self, node, batched: bool | None = None) -> Dataset:
        """A Dataset with this one's label over the plan ``node`` (see :attr:`plan`),
        batched as this one unless ``batched`` says otherwise: how a pipeline's steps are
        rebuilt over another source or shard.

        >>> ds = Dataset.from_dict({"x": [1, 2], "y": [0, 1]}, label="y").batch(1)
        >>> ds.with_plan(ds.plan.child, batched=False).label
        'y'
        """
        batched = self._batched if batched is None else batched
        return Dataset(node, label=self.label, batched=batched, view=self._view)

    def __repr__(self):
        steps = " -> ".join(self._node.describe())
        label = "" if self._label is None else f", label={self.label!r}"
        return f"Dataset({steps}{label})"

    # ------------------------------------------------------------------ transformations

    def with_label(self, label: Names | None) -> Dataset:
        """The same rows, yielded as ``(features, labels)`` split off ``label`` (a column
        name or a list of names); ``None`` yields plain batches again.

        >>> ds = Dataset.from_dict({"x": [1, 2], "y": [0, 1]}).with_label("y")
        >>> features, labels = next(iter(ds))
        >>> features.schema.names, labels.tolist()
        (['x'], [0, 1])
        """
        if label is None:
            return Dataset(self._node, batched=self._batched, view=self._view)
        names = as_names(label, "label")
        node = self._node
        if isinstance(node, Scan) and node.columns is not None:
            # A projected scan also reads the label columns it would otherwise drop.
            origin = partial(schema_origin, node.source)
            check_names(names, node.source.schema, what="label column", origin=origin)
            extra = tuple(n for n in names if n not in node.columns)
            node = replace(node, columns=node.columns + extra)
        origin = partial(schema_origin, node.source) if isinstance(node, Scan) else None
        check_names(names, node.schema, what="label column", origin=origin)
        return Dataset(node, label=label, batched=self._batched, view=self._view)

    def select(self, columns: Names) -> Dataset:
        """Keep only ``columns`` (label columns are kept too); pushed down to the reader.

        >>> Dataset.from_dict({"a": [1], "b": [2], "c": [3]}).select(["c", "a"]).schema.names
        ['c', 'a']
        """
        names = as_names(columns, "columns")
        names += tuple(n for n in self._label or () if n not in names)
        check_names(names, self.schema)
        node = push_down(self._node, lambda scan: replace(scan, columns=names))
        return self.with_plan(node if node is not None else Select(self._node, names))

    def filter(self, predicate: RowFilter) -> Dataset:
        """Keep the rows where ``predicate`` holds: an Arrow expression such as
        ``pc.field("age") > 30``, or a list of ``(column, op, value)`` tuples. Pushed down to
        the reader (skipping partitions and row groups) when it directly follows a source.

        >>> import pyarrow.compute as pc
        >>> ds = Dataset.from_dict({"x": [1, 5, 2, 7]}).filter(pc.field("x") > 1)
        >>> ds.to_table().column("x").to_pylist()
        [5, 2, 7]
        """
        expression = as_expression(predicate)
        check_expression(expression, self.schema)

        def add(scan):
            combined = expression if scan.filter is None else scan.filter & expression
            return replace(scan, filter=combined)

        node = push_down(self._node, add)
        return self.with_plan(node if node is not None else Filter(self._node, expression))

    def map(self, fn: Callable, num_parallel_calls=None, deterministic=None) -> Dataset:
        """Apply ``fn`` to each RecordBatch of the stream, or to ``(features, labels)`` on a
        labelled dataset (returning a ``(features, labels)`` pair). ``fn`` may return a
        RecordBatch, Table, pandas DataFrame or dict of columns (arrays of any rank,
        colonnade Tensors). Before :meth:`batch` it sees the reader's batches, of any size.
        On datasets made as TF programs make them (``from_tensor_slices``,
        ``from_generator``, ``list_files``, ``TextLineDataset``, ``TFRecordDataset``) it
        takes TF's element functions instead: a dict of arrays in, a dict, an array or a
        ``(features, labels)`` pair out (see :mod:`.element_streams`).

        >>> import pyarrow.compute as pc
        >>> ds = Dataset.from_dict({"x": [1, 2]}).map(
        ...     lambda b: b.append_column("x2", pc.multiply(b.column("x"), 2)))
        >>> ds.to_table().column("x2").to_pylist()
        [2, 4]
        """
        if not callable(fn):
            raise TypeError(f"Dataset.map needs a callable, got {type(fn).__name__}")
        check_parallel_calls(num_parallel_calls)
        if self._view is None:
            return self.with_plan(Map(self._node, fn, self._label, self._single_label))
        node, label, view = element_map(self._node, fn, self._view, self._label, self._single_label)
        label = self.label if self._label is not None else label
        return Dataset(node, batched=self._batched, view=view).with_label(label)

    def map_batches(self, fn: Callable) -> Dataset:
        """Apply ``fn`` to each RecordBatch (label columns included), whatever the dataset
        was made from: colonnade's batch map, for code that handles batches of any
        dataset (:meth:`map` on a TF-made dataset takes TF's element functions instead).

        >>> ds = Dataset.from_tensor_slices({"x": [1, 2]}).map_batches(lambda b: b.slice(1))
        >>> ds.to_table().column("x").to_pylist()
        [2]
        """
        if not callable(fn):
            raise TypeError(f"Dataset.map_batches needs a callable, got {type(fn).__name__}")
        return Dataset(Map(self._node, fn), batched=self._batched).with_label(self.label)

    def make_one_shot_iterator(self):
        """TF 1's one-shot iterator: ``get_next()`` stands for every batch, for an
        ``input_fn`` that returns it (see :mod:`.iterators`).

        >>> Dataset.from_dict({"x": [1]}).make_one_shot_iterator().get_next().part
        'features'
        """
        return OneShotIterator(self)

    def shuffle(
        self,
        buffer_size: int | None,
        seed: int | None = None,
        reshuffle_each_iteration: bool = True,
    ) -> Dataset:
        """Shuffle the rows: ``buffer_size=None`` permutes each pass whole; an integer
        shuffles a stream through a buffer of that many rows (TF's ``min_after_dequeue``).

        With a ``seed`` every run gives the same orders; each pass (and each repetition of
        a later ``repeat``) gets a different one unless ``reshuffle_each_iteration=False``.

        **Full permutation** (``None``): every row is equally likely at every position,
        as Keras shuffles in-memory data. The pass is held whole, so use it for in-memory
        tables and after :meth:`cache` (their rows are held already, and are only
        referenced); on a file source it reads the whole pass into memory first.

        **Streamed** (an integer): memory is bounded by the buffer (see
        :func:`shuffle_rows`). Files, Parquet row groups or table slices are visited in a
        new seeded order each pass, :data:`INTERLEAVE_UNITS` of them are read at once with
        their rows alternating in small slices, and the buffer mixes what arrives. What
        it can mix: rows of any units, in any order, when the buffer is at least the data;
        otherwise a row can move only about ``buffer_size`` rows from where the unit
        order put it, so rows are mixed across the few units open at a time but a
        file sorted by label stays partly sorted within each unit-sized stretch. What it
        cannot: make a uniform permutation of data larger than the buffer, or undo order
        *inside* a row group larger than the buffer. Write files in random order (or in
        many small row groups) when that matters. A warning is logged when the buffer is
        smaller than a source whose size is known (a table, Parquet footers).

        After :meth:`batch` it shuffles whole batches, with a buffer of that many batches
        (None: all of them).

        >>> ds = Dataset.from_dict({"id": list(range(6))}).shuffle(10, seed=0)
        >>> sorted(ds.to_table().column("id").to_pylist())
        [0, 1, 2, 3, 4, 5]
        >>> ds = Dataset.from_dict({"id": list(range(6))}).shuffle(None, seed=0)
        >>> sorted(ds.to_table().column("id").to_pylist())
        [0, 1, 2, 3, 4, 5]
        """
        if buffer_size is not None:
            positive_count(buffer_size, "buffer_size")
        check_seed(seed)
        reshuffle = bool(reshuffle_each_iteration)
        node = self._node
        if buffer_size is not None and not self._batched and isinstance(node, Scan):
            node = scan_for_streamed_shuffle(node, buffer_size, seed, reshuffle)
        return self.with_plan(Shuffle(node, buffer_size, seed, reshuffle, self._batched))

    def batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset:
        """Group rows into RecordBatches of ``batch_size`` rows, by zero-copy slicing and
        concatenation. The last batch of each pass is smaller unless ``drop_remainder``
        (TF's ``allow_smaller_final_batch=False``). Calling it again regroups the rows.

        >>> ds = Dataset.from_dict({"x": list(range(5))}).batch(2)
        >>> [b.num_rows for b in ds]
        [2, 2, 1]
        """
        positive_count(batch_size, "batch_size")
        return self.with_plan(Batch(self._node, batch_size, bool(drop_remainder)), batched=True)

    def repeat(self, count: int | None = None) -> Dataset:
        """Repeat the passes ``count`` times (TF's ``num_epochs``), forever when None or -1.
        A seeded shuffle before it gives each repetition its own order.

        >>> Dataset.from_dict({"x": [1, 2]}).repeat(2).to_table().column("x").to_pylist()
        [1, 2, 1, 2]
        """
        if count == -1:
            count = None
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
            raise ValueError(f"count must be None, -1 or a non-negative integer, got {count!r}")
        if count is not None and count < 0:
            raise ValueError(f"count must be None, -1 or a non-negative integer, got {count}")
        return self.with_plan(Repeat(self._node, count))

    def shard(self, num_shards: int, index: int) -> Dataset:
        """Keep the ``index``-th of ``num_shards`` disjoint parts that together hold every
        row: whole files or row groups when there are at least ``num_shards`` of them,
        else every ``num_shards``-th row. Shard before shuffling (or shuffle with a seed)
        so the workers' parts stay disjoint. After :meth:`batch` it keeps whole batches.

        >>> Dataset.from_dict({"x": list(range(5))}).shard(2, 1).to_table()["x"].to_pylist()
        [1, 3]
        """
        positive_count(num_shards, "num_shards")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < num_shards:
            raise ValueError(f"index must be in [0, {num_shards}), got {index!r}")
        scan = None if self._batched else scan_under(self._node)
        if scan is not None and scan.shard is None:
            node = push_down(self._node, lambda scan: replace(scan, shard=(num_shards, index)))
            return self.with_plan(node)
        return self.with_plan(Shard(self._node, num_shards, index, self._batched))

    def skip(self, count: int) -> Dataset:
        """Drop the first ``count`` rows of each pass (batches, after :meth:`batch`);
        -1 drops them all (TF's ``Dataset.skip``).

        >>> Dataset.from_dict({"x": [1, 2, 3]}).skip(1).to_table()["x"].to_pylist()
        [2, 3]
        """
        count = _element_count(count, "skip")
        return self.with_plan(
            Window(self._node, count if count >= 0 else 2**62, None, self._batched)
        )

    def take(self, count: int) -> Dataset:
        """Keep the first ``count`` rows of each pass (batches, after :meth:`batch`);
        -1 keeps them all (TF's ``Dataset.take``).

        >>> Dataset.from_dict({"x": [1, 2, 3]}).batch(1).take(2).to_table()["x"].to_pylist()
        [1, 2]
        """
        count = _element_count(count, "take")
        return self.with_plan(Window(self._node, 0, None if count < 0 else count, self._batched))

    def prefetch(self, buffer_size: int = AUTOTUNE) -> Dataset:
        """Run everything before this step in a background thread, at most ``buffer_size``
        elements ahead (TF's queue ``capacity``, a bound on memory). The thread stops when
        iteration stops, and an exception in it is raised in the consumer.

        >>> [b.num_rows for b in Dataset.from_dict({"x": [1, 2, 3]}).batch(2).prefetch(1)]
        [2, 1]
        """
        if buffer_size == AUTOTUNE:
            buffer_size = DEFAULT_PREFETCH
        positive_count(buffer_size, "buffer_size")
        return self.with_plan(Prefetch(self._node, buffer_size))

    def cache(self, filename: str | os.PathLike | None = None) -> Dataset:
        """Keep the rows of the first complete pass, in memory or, with ``filename``, in a
        local Arrow IPC file (reused by later runs if it exists); later passes read the
        cache instead of the steps before it.

        >>> ds = Dataset.from_dict({"x": [1, 2]}).cache()
        >>> [b.num_rows for b in ds] == [b.num_rows for b in ds]
        True
        """
        store = MemoryCache() if filename is None else FileCache(filename)
        return self.with_plan(Cache(self._node, store))

    # ------------------------------------------------------------------ iteration

    def iterate(self, epoch: int = 0) -> Iterator:
        """A fresh iterator over pass number ``epoch`` (what the ``epoch``-th ``iter()``
        of this dataset reads).

        >>> ds = Dataset.from_dict({"x": list(range(4))}).shuffle(4, seed=3)
        >>> a = next(ds.iterate(1)).column("x").to_pylist()
        >>> a == next(ds.iterate(1)).column("x").to_pylist()
        True
        """
        stream = self.record_batches(epoch)
        if self._label is None:
            return stream
        return (split_label(batch, self._label, self._single_label) for batch in stream)

    def record_batches(self, epoch: int = 0) -> Iterator[pa.RecordBatch]:
        """The RecordBatches of pass number ``epoch`` with the label columns kept among
        the others (not split off): for readers that treat every column alike, such as
        column inference and TFRecord writing.

        >>> ds = Dataset.from_dict({"x": [1], "y": [0]}, label="y")
        >>> next(ds.record_batches()).schema.names
        ['x', 'y']
        """
        return self._node.iterate((int(epoch),))

    def __iter__(self):
        return self.iterate(next(self._passes))

    def to_table(self) -> pa.Table:
        """Read one pass into a :class:`pyarrow.Table` (label columns included).

        >>> Dataset.from_dict({"x": [1, 2]}).to_table().num_rows
        2
        """
        batches = list(self.record_batches(next(self._passes)))
        if batches:
            return pa.Table.from_batches(batches)
        schema = self.schema if self.schema is not None else pa.schema([])
        return schema.empty_table()


def _element_count(count, op: str) -> int:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < -1:
        raise ValueError(f"{op} count must be an integer >= -1, got {count!r}")
    return int(count)
