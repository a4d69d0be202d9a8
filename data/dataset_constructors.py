"""The ``Dataset.from_*`` constructors: a pipeline's source (in-memory data, files,
TFRecords, Ray), with the columns, filter and label every constructor takes.

:class:`DatasetConstructors` holds them as class methods; :class:`.dataset.Dataset`
inherits them, and its own module holds the transformations (``batch``, ``shuffle``,
...) and the iteration.

>>> from colonnade.data import Dataset
>>> Dataset.from_dict({"x": [1, 2]}).to_table().num_rows
2
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

import pyarrow as pa
import pyarrow.dataset as pads

from .arrow_inputs import csv_format, table_from_arrow, table_from_pandas
from .columns import as_names, check_names
from .element_streams import as_dict, as_values
from .generators import generator_source
from .plan import Scan
from .sources import (
    BATCH_READAHEAD,
    READ_BATCH_SIZE,
    FileSource,
    TableSource,
    open_files,
    resolve_paths,
)
from .tensor_slices import slices_table, table_from_columns

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DatasetConstructors", "Names", "Paths", "RowFilter", "schema_origin"]

Names = str | Sequence[str]
"""One column name or several."""
RowFilter = pads.Expression | list
"""Rows to keep: an Arrow expression (``pc.field("age") > 30``) or a list of ``(column,
op, value)`` tuples."""
Paths = str | os.PathLike | Sequence[str | os.PathLike]
"""A file, directory, glob or URL, or a list of them."""
DatasetT = TypeVar("DatasetT", bound="DatasetConstructors")
"""The class a constructor is called on (``Dataset``)."""


class DatasetConstructors:
    """The ``from_*`` class methods of :class:`.dataset.Dataset` (see its docstring for
    the ``columns``, ``filter`` and ``label`` each takes).

    >>> from colonnade.data import Dataset
    >>> Dataset.from_dict({"x": [1], "y": [0]}, label="y").label
    'y'
    """

    @classmethod
    def _from_source(cls: type[DatasetT], source, columns, filter, label, view=None) -> DatasetT:
        scan = Scan(source)
        dataset = cls(scan, view=view)
        if filter is not None:
            dataset = dataset.filter(filter)
        if columns is not None:
            columns = as_names(columns, "columns")
            check_names(columns, source.schema, origin=lambda: schema_origin(source))
            dataset = cls(replace(dataset.plan, columns=columns), view=view)
        return dataset.with_label(label) if label is not None else dataset

    @classmethod
    def from_arrow(
        cls: type[DatasetT],
        data: pa.Table | pa.RecordBatch | list | pa.RecordBatchReader | pads.Dataset,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
    ) -> DatasetT:
        """Rows of an Arrow Table, RecordBatch, list of RecordBatches, RecordBatchReader
        (read once, into memory) or ``pyarrow.dataset.Dataset`` (files stay on disk).

        >>> from colonnade.data import Dataset
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
        cls: type[DatasetT],
        df: pd.DataFrame,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        preserve_index: bool = False,
    ) -> DatasetT:
        """Rows of a pandas DataFrame ``df`` (converted to Arrow once); ``preserve_index``
        keeps its index as a column.

        >>> from colonnade.data import Dataset
        >>> import pandas as pd
        >>> ds = Dataset.from_pandas(pd.DataFrame({"x": [1.0, 2.0], "y": [0, 1]}), label="y")
        >>> next(iter(ds))[1].tolist()
        [0, 1]
        """
        table = table_from_pandas(df, preserve_index)
        return cls._from_source(TableSource(table, "pandas DataFrame"), columns, filter, label)

    @classmethod
    def from_dict(
        cls: type[DatasetT],
        mapping: Mapping,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
    ) -> DatasetT:
        """Rows of ``mapping``, a dict of column name to list or array; an array of rank
        2 or more gives each row its values flattened (see :mod:`.tensor_slices`).

        >>> from colonnade.data import Dataset
        >>> Dataset.from_dict({"x": [1, 2, 3]}).to_table().column("x").to_pylist()
        [1, 2, 3]
        """
        table = table_from_columns(mapping, "from_dict")
        return cls._from_source(TableSource(table, "dict of columns"), columns, filter, label)

    @classmethod
    def from_tensor_slices(cls: type[DatasetT], tensors) -> DatasetT:
        """TF's ``from_tensor_slices``: one example per entry along the first axis of a dict
        of arrays, or of a ``(features, labels)`` pair (labels then iterate beside the
        features, as from an ``input_fn``). Features may also be one array (TF's single
        tensor), which a ``model_fn`` then gets as its ``features``. Its ``map`` takes
        TF's element functions (dicts, or that one array, in; dicts or pairs out: see
        :mod:`.element_streams`).

        >>> from colonnade.data import Dataset
        >>> import numpy as np
        >>> ds = Dataset.from_tensor_slices(({"x": np.ones((4, 2))}, np.arange(4))).batch(2)
        >>> features, labels = next(iter(ds))
        >>> features["x"].type.list_size, labels.tolist()
        (2, [0, 1])
        """
        table, label = slices_table(tensors)
        source = TableSource(table, "tensor slices")
        return cls._from_source(source, None, None, label, view=as_dict)

    @classmethod
    def from_generator(
        cls,
        generator,
        output_types=None,
        output_shapes=None,
        args=None,
        output_signature=None,
        name=None,
    ):
        """TF's ``from_generator``: the elements ``generator(*args)`` yields, called again
        each pass; each a dict of features or a ``(features, labels)`` pair, converted to
        ``output_types`` and checked against ``output_shapes`` (or ``output_signature``:
        the same structure of objects with ``dtype`` and ``shape``, such as TF's
        ``TensorSpec``). See :mod:`.generators`; ``name`` is accepted and unused.

        >>> from colonnade.data import Dataset
        >>> ds = Dataset.from_generator(lambda: ({"x": [i, i]} for i in range(2)),
        ...                             {"x": "int64"}, {"x": [2]})
        >>> ds.to_table().column("x").to_pylist()
        [[0, 0], [1, 1]]
        """
        source, label = generator_source(
            generator, output_types, output_shapes, args, output_signature
        )
        return cls._from_source(source, None, None, label, view=as_dict)

    @classmethod
    def list_files(cls, file_pattern, shuffle=None, seed=None, name=None):
        """TF's ``list_files``: the names of the files matching ``file_pattern`` (a glob
        or a list of them), one string column ``filename``, sorted, and in a new order
        each pass unless ``shuffle=False`` (TF's default shuffles; ``seed`` fixes the
        orders). :meth:`interleave` and ``TFRecordDataset`` take it as TF's
        ``list_files(...).interleave(tf.data.TFRecordDataset, ...)``; a pattern matching
        nothing is a ``FileNotFoundError`` naming it. ``name`` is accepted and unused.

        >>> import os, tempfile
        >>> from colonnade.data import Dataset
        >>> folder = tempfile.mkdtemp()
        >>> for n in "ba":
        ...     _ = open(os.path.join(folder, n + ".txt"), "w").write(n)
        >>> ds = Dataset.list_files(os.path.join(folder, "*.txt"), shuffle=False)
        >>> [os.path.basename(f) for f in ds.to_table().column("filename").to_pylist()]
        ['a.txt', 'b.txt']
        """
        patterns = [file_pattern] if isinstance(file_pattern, (str, os.PathLike)) else file_pattern
        files = sorted({f for pattern in patterns for f in resolve_paths(pattern)[2]})
        source = TableSource(pa.table({"filename": files}), "list_files")
        dataset = cls(Scan(source), view=as_values)
        if shuffle is False:
            return dataset
        return dataset.shuffle(None, seed=seed)

    @classmethod
    def from_files(
        cls: type[DatasetT],
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
    ) -> DatasetT:
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

        >>> from colonnade.data import Dataset
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
        cls: type[DatasetT],
        path: Paths,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        **options,
    ) -> DatasetT:
        """``from_files(path, format="parquet", ...)``; ``options`` are
        :meth:`from_files`' other arguments.

        >>> from colonnade.data import Dataset
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
        cls: type[DatasetT],
        path: Paths,
        column_types: Mapping[str, pa.DataType | str] | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
        label: Names | None = None,
        delimiter: str = ",",
        column_names: Sequence[str] | None = None,
        null_values: Sequence[str] | None = None,
        skip_rows: int = 0,
        encoding: str = "utf-8",
        **options,
    ) -> DatasetT:
        """CSV files at ``path`` (as in :meth:`from_files`) read by pyarrow's streaming CSV
        reader; fields split at ``delimiter`` (one character), the first ``skip_rows``
        lines skipped, the bytes decoded as ``encoding`` (a Python codec name:
        ``"latin-1"``, ``"cp1252"``), and ``options`` passed on to :meth:`from_files`.
        The limits and errors of CSV input are in ``docs/csv.md``.

        ``column_types`` maps column names to Arrow types (``pa.int64()`` or ``"int64"``);
        other columns' types are inferred. ``column_names`` names the columns of files
        without a header row; ``null_values`` lists the strings read as null (in string
        columns too).

        >>> from colonnade.data import Dataset
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
        >>> _ = open(path, "w").write("id,score\\n1,2\\n3,4\\n")
        >>> ds = Dataset.from_csv(path, column_types={"score": "float32"})
        >>> ds.schema.field("score").type
        DataType(float)
        """
        fmt = csv_format(
            column_types, delimiter, column_names, null_values, skip_rows, encoding=encoding
        )
        return cls.from_files(
            path, format=fmt, columns=columns, filter=filter, label=label, **options
        )

    @classmethod
    def from_tfrecord(
        cls: type[DatasetT],
        paths: Paths,
        features: dict | pa.Schema,
        compression_type: str | None = None,
        label: Names | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
    ) -> DatasetT:
        """Rows parsed from the ``tf.Example`` records of TFRecord files (TF's
        ``TFRecordDataset(...).map(parse_example)``), streamed a chunk of records at a time.

        ``paths``: a file, directory, glob or list of those. ``features``: a dict of
        ``cn.io`` parse specs, or the schema of ``make_parse_example_spec``.
        ``compression_type``: None, ``"GZIP"`` or ``"ZLIB"``. Also reached through
        ``from_files(paths, format="tfrecord", features=...)``.

        >>> from colonnade.data import Dataset
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
        cls: type[DatasetT],
        ray_dataset,
        label: Names | None = None,
        columns: Names | None = None,
        filter: RowFilter | None = None,
    ) -> DatasetT:
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

        >>> from colonnade.data import Dataset  # doctest: +SKIP
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


def schema_origin(source) -> str | None:
    """What a source says of where its schema comes from (files: the first one's)."""
    origin = getattr(source, "schema_origin", None)
    return origin() if origin is not None else None
