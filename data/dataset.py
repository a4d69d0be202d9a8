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
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.dataset as pads

from .arrow_inputs import csv_format, table_from_arrow, table_from_pandas
from .columns import as_expression, as_names, check_expression, check_names, split_label
from .dataset_cache import FileCache, MemoryCache
from .iterators import OneShotIterator
from .limits import MAX_ROWS, positive_count  # noqa: F401 (MAX_ROWS: cn.data.dataset's)
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
    push_down,
    scan_for_streamed_shuffle,
    scan_under,
)
from .shuffle import check_seed
from .sources import BATCH_READAHEAD, READ_BATCH_SIZE, FileSource, TableSource, open_files
from .tensor_slices import slices_table, table_from_columns

__all__ = ["AUTOTUNE", "INTERLEAVE_UNITS", "Dataset"]

if TYPE_CHECKING:
    import pandas as pd

Names = str | Sequence[str]
"""One column name or several."""
RowFilter = pads.Expression | list
"""Rows to keep: an Arrow expression (``pc.field("age") > 30``) or a list of ``(column,
op, value)`` tuples."""
Paths = str | os.PathLike | Sequence[str | os.PathLike]
"""A file, directory, glob or URL, or a list of them."""

# ``prefetch(AUTOTUNE)``, as in tf.data, asks for the default depth below.
AUTOTUNE = -1
DEFAULT_PREFETCH = 2


class Dataset:
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

    def __init__(self, node, label=None, batched=False):
        self._node = node
        self._label = None if label is None else as_names(label, "label")
        self._single_label = isinstance(label, str)
        self._batched = batched
        self._passes = itertools.count()

    # ------------------------------------------------------------------ sources

    @classmethod
    def _from_source(cls, source, columns, filter, label):
        scan = Scan(source)
        dataset = cls(scan)
        if filter is not None:
            dataset = dataset.filter(filter)
        if columns is not None:
            columns = as_names(columns, "columns")
            check_names(columns, source.schema, origin=lambda: schema_origin(source))
            dataset = cls(replace(dataset.plan, columns=columns))
        return dataset.with_label(label) if label is not None else dataset

    @classmethod
    def from_arrow(
        cls,
        data: pa.Table | pa.RecordBatch | list | pa.RecordBatchReader | pads.Dataset,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
    ) -> Dataset:
        """Rows of an Arrow Table, RecordBatch, list of RecordBatches, RecordBatchReader
        (read once, into memory) or ``pyarrow.dataset.Dataset`` (files stay on disk).

        >>> import pyarrow as pa
        >>> ds = Dataset.from_arrow(pa.table({"x": [1, 2, 3]}))
        >>> ds.to_table().num_rows
        3
        """
        if isinstance(data, pads.FileSystemDataset):
            return cls._from_source(
                FileSource(data, f"{len(data.files)} files"), columns, filter, label
            )
        return cls._from_source(TableSource(table_from_arrow(data)), columns, filter, label)

    @classmethod
    def from_pandas(
        cls,
        df: pd.DataFrame,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        preserve_index: bool = False,
    ) -> Dataset:
        """Rows of a pandas DataFrame ``df`` (converted to Arrow once); ``preserve_index``
        keeps its index as a column.

        >>> import pandas as pd
        >>> ds = Dataset.from_pandas(pd.DataFrame({"x": [1.0, 2.0], "y": [0, 1]}), label="y")
        >>> next(iter(ds))[1].tolist()
        [0, 1]
        """
        table = table_from_pandas(df, preserve_index)
        return cls._from_source(TableSource(table, "pandas DataFrame"), columns, filter, label)

    @classmethod
    def from_dict(
        cls,
        mapping: Mapping,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
    ) -> Dataset:
        """Rows of ``mapping``, a dict of column name to list or array; an array of rank
        2 or more gives each row its values flattened (see :mod:`.tensor_slices`).

        >>> Dataset.from_dict({"x": [1, 2, 3]}).to_table().column("x").to_pylist()
        [1, 2, 3]
        """
        table = table_from_columns(mapping, "from_dict")
        return cls._from_source(TableSource(table, "dict of columns"), columns, filter, label)

    @classmethod
    def from_tensor_slices(cls, tensors) -> Dataset:
        """TF's ``from_tensor_slices``: one example per entry along the first axis of a dict
        of arrays, or of a ``(features, labels)`` pair (labels then iterate beside the
        features, as from an ``input_fn``).

        >>> import numpy as np
        >>> ds = Dataset.from_tensor_slices(({"x": np.ones((4, 2))}, np.arange(4))).batch(2)
        >>> features, labels = next(iter(ds))
        >>> features["x"].type.list_size, labels.tolist()
        (2, [0, 1])
        """
        table, label = slices_table(tensors)
        return cls._from_source(TableSource(table, "tensor slices"), None, None, label)

    @classmethod
    def from_files(
        cls,
        path: Paths,
        format: str | pads.FileFormat | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        schema: pa.Schema | None = None,
        partitioning: str | None = "hive",
        filesystem=None,
        read_batch_size: int = READ_BATCH_SIZE,
        batch_readahead: int = BATCH_READAHEAD,
        strings_as_dictionary: bool = True,
        features: dict | None = None,
        compression_type: str | None = None,
    ) -> Dataset:
        """Rows of files read through ``pyarrow.dataset``, streamed a few batches at a time.

        ``path`` is a file, a directory (``key=value`` folders become hive partition
        columns), a glob such as ``"data/*.parquet"``, a filesystem URL
        (``s3://bucket/prefix``), or a list of those. ``format`` is ``"parquet"``,
        ``"csv"``, ``"ipc"`` (Feather/Arrow), a ``pyarrow.dataset.FileFormat``, or None to
        tell from the file names. ``columns`` and ``filter`` (an Arrow expression, or a
        list of ``(column, op, value)`` tuples) are pushed down to the reader: other
        columns are not read, and partitions and Parquet row groups the filter excludes
        are skipped. ``schema`` fixes the schema (otherwise taken from the first file);
        ``read_batch_size`` and ``batch_readahead`` bound how much the reader holds.
        Parquet string columns come as ``dictionary<string>`` (as Parquet stores them: no
        string is built per row when reading, and each distinct value is hashed once); pass
        ``strings_as_dictionary=False`` for plain strings. ``partitioning`` is
        ``pyarrow.dataset``'s (``"hive"``, the default, or None); ``filesystem`` a
        ``pyarrow.fs`` filesystem (default: from the path). ``format="tfrecord"`` reads
        TFRecord files instead, parsed by ``features`` with ``compression_type``
        (:meth:`from_tfrecord`).

        >>> import os, tempfile, pyarrow.parquet as pq
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> pq.write_table(pa.table({"x": [1, 2, 3], "y": [0, 1, 1]}), path)
        >>> import pyarrow.compute as pc
        >>> ds = Dataset.from_files(path, columns=["x"], filter=pc.field("y") == 1)
        >>> ds.to_table().column("x").to_pylist()
        [2, 3]
        """
        if format == "tfrecord":
            return cls.from_tfrecord(path, features, compression_type, label, columns, filter)
        source = open_files(
            path,
            format=format,
            schema=schema,
            partitioning=partitioning,
            filesystem=filesystem,
            read_batch_size=read_batch_size,
            batch_readahead=batch_readahead,
            strings_as_dictionary=strings_as_dictionary,
        )
        return cls._from_source(source, columns, filter, label)

    @classmethod
    def from_parquet(
        cls,
        path: Paths,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        **options,
    ) -> Dataset:
        """``from_files(path, format="parquet", ...)``; ``options`` are
        :meth:`from_files`' other arguments.

        >>> import os, tempfile, pyarrow.parquet as pq
        >>> path = os.path.join(tempfile.mkdtemp(), "t.parquet")
        >>> pq.write_table(pa.table({"x": [1, 2]}), path)
        >>> Dataset.from_parquet(path).to_table().num_rows
        2
        """
        return cls.from_files(
            path, format="parquet", columns=columns, filter=filter, label=label, **options
        )

    @classmethod
    def from_csv(
        cls,
        path: Paths,
        column_types: Mapping[str, pa.DataType | str] | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        delimiter: str = ",",
        column_names: Sequence[str] | None = None,
        null_values: Sequence[str] | None = None,
        skip_rows: int = 0,
        **options,
    ) -> Dataset:
        """CSV files at ``path`` (as in :meth:`from_files`) read by pyarrow's streaming CSV
        reader; fields split at ``delimiter``, the first ``skip_rows`` lines skipped, and
        ``options`` passed on to :meth:`from_files`.

        ``column_types`` maps column names to Arrow types (``pa.int64()`` or ``"int64"``);
        other columns' types are inferred. ``column_names`` names the columns of files
        without a header row; ``null_values`` lists the strings read as null (in string
        columns too).

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
        >>> _ = open(path, "w").write("id,score\\n1,2\\n3,4\\n")
        >>> ds = Dataset.from_csv(path, column_types={"score": "float32"})
        >>> ds.schema.field("score").type
        DataType(float)
        """
        fmt = csv_format(column_types, delimiter, column_names, null_values, skip_rows)
        return cls.from_files(
            path, format=fmt, columns=columns, filter=filter, label=label, **options
        )

    @classmethod
    def from_tfrecord(
        cls,
        paths: Paths,
        features: dict | pa.Schema,
        compression_type: str | None = None,
        label: Names | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
    ) -> Dataset:
        """Rows parsed from the ``tf.Example`` records of TFRecord files (TF's
        ``TFRecordDataset(...).map(parse_example)``), streamed a chunk of records at a time.

        ``paths``: a file, directory, glob or list of those. ``features``: a dict of
        ``cn.io`` parse specs, or the schema of ``make_parse_example_spec``.
        ``compression_type``: None, ``"GZIP"`` or ``"ZLIB"``. Also reached through
        ``from_files(paths, format="tfrecord", features=...)``.

        >>> import os, tempfile, pandas as pd, colonnade as cn
        >>> path = os.path.join(tempfile.mkdtemp(), "t.tfrecord")
        >>> _ = cn.io.write_tfrecord(pd.DataFrame({"x": [1.5, 2.5], "y": [0, 1]}), path)
        >>> spec = {"x": cn.io.FixedLenFeature([], "float32"),
        ...         "y": cn.io.FixedLenFeature([], "int64")}
        >>> features, labels = next(iter(Dataset.from_tfrecord(path, spec, label="y")))
        >>> features.column("x").to_pylist(), labels.tolist()
        ([1.5, 2.5], [0, 1])
        """
        from .tfrecord_source import TFRecordSource

        source = TFRecordSource(paths, features, compression_type)
        return cls._from_source(source, columns, filter, label)

    @classmethod
    def from_ray(
        cls,
        ray_dataset,
        label: Names | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
    ) -> Dataset:
        """Rows of a ``ray.data.Dataset``, streamed from Ray as Arrow batches (extra
        ``colonnade[ray]``).

        Ray runs the dataset's pipeline (reads, ``map_batches`` ...) lazily, a few blocks
        at a time, so memory stays bounded however many rows it has; each pass over this
        Dataset runs it again (``materialize()`` it in Ray first to compute it once).
        ``columns`` are pushed down to Ray (``select_columns``, which Ray passes on to its
        Parquet reads). Rows arrive in the order Ray yields them: the same on every run
        when nothing in the Ray pipeline runs in parallel (in-memory data, one read
        task) or ``ray.data.DataContext.get_current().execution_options.preserve_order``
        is set, so that seeded shuffles are reproducible. The Ray dataset is one stream:
        ``shard`` keeps every ``n``-th row of it, and a streamed ``shuffle`` mixes rows
        within its buffer only (shuffle in Ray with ``random_shuffle()`` for a full one).

        >>> import pandas as pd, ray  # doctest: +SKIP
        >>> df = pd.DataFrame({"x": [1.0, 2.0], "y": [0, 1]})  # doctest: +SKIP
        >>> ds = Dataset.from_ray(ray.data.from_pandas(df), label="y")  # doctest: +SKIP
        >>> next(iter(ds))[1].tolist()  # doctest: +SKIP
        [0, 1]
        """
        from .ray_source import RaySource, import_ray

        ray = import_ray("Dataset.from_ray")
        if not isinstance(ray_dataset, ray.data.Dataset):
            raise TypeError(
                f"from_ray takes a ray.data.Dataset; got {type(ray_dataset).__name__} (use "
                "from_pandas, from_arrow or from_files for local data)"
            )
        return cls._from_source(RaySource(ray_dataset), columns, filter, label)

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
        return Dataset(
            node, label=self.label, batched=self._batched if batched is None else batched
        )

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
            return Dataset(self._node, batched=self._batched)
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
        return Dataset(node, label=label, batched=self._batched)

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

    def map(self, fn: Callable) -> Dataset:
        """Apply ``fn`` to each RecordBatch of the stream, or to ``(features, labels)`` on a
        labelled dataset (returning a ``(features, labels)`` pair). ``fn`` may return a
        RecordBatch, Table, pandas DataFrame or dict of columns (on a
        :func:`~.text_lines.TextLineDataset`, also a ``(features, labels)`` pair). Before
        :meth:`batch` it sees the reader's batches, of any size.

        >>> import pyarrow.compute as pc
        >>> ds = Dataset.from_dict({"x": [1, 2]}).map(
        ...     lambda b: b.append_column("x2", pc.multiply(b.column("x"), 2)))
        >>> ds.to_table().column("x2").to_pylist()
        [2, 4]
        """
        if not callable(fn):
            raise TypeError(f"map needs a callable, got {type(fn).__name__}")
        return self.with_plan(Map(self._node, fn, self._label, self._single_label))

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


def schema_origin(source) -> str | None:
    """What a source says of where its schema comes from (files: the first one's)."""
    origin = getattr(source, "schema_origin", None)
    return origin() if origin is not None else None
