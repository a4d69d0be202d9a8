"""A :class:`Dataset` source over a ``ray.data.Dataset``, streamed as Arrow batches.

Ray is an optional dependency (extra ``colonnade[ray]``): nothing here imports it at
module level. :func:`is_ray_dataset` recognises a Ray dataset without importing Ray (if
``ray.data`` was never imported, the object cannot be one), and :func:`import_ray` is
the one place that imports it, with an error naming the extra when it is missing.

The Ray dataset is read as one stream (one unit) through
``iter_batches(batch_format="pyarrow")``: Ray executes its pipeline lazily and streams
blocks, holding a bounded number of them in flight, so memory stays a few batches however
large the dataset. Each pass re-executes the Ray pipeline (or re-reads its blocks when it
is materialized). Sharding a single stream keeps every ``num_shards``-th row; to spread a
Ray dataset over workers, :meth:`RaySource.split` gives each one a part: a row range of a
materialized dataset, or a part of a lazy one's ``streaming_split``, read the same way.
"""

from __future__ import annotations

import sys

import pyarrow as pa

from .columns import project
from .sources import READ_BATCH_SIZE, Unit

__all__ = ["RAY_EXTRA", "RaySource", "arrow_schema", "import_ray", "is_ray_dataset", "mix_blocks"]

RAY_EXTRA = 'pip install "colonnade[ray]"'
"""The command that installs what Ray Data support needs."""

# Batches Ray decodes ahead of the consumer (iter_batches' own default): with the blocks
# Ray's streaming executor keeps in flight, this bounds the memory of a read.
PREFETCH_BATCHES = 1


def import_ray(feature: str = "Ray Data support"):
    """The ``ray`` module (with ``ray.data`` loaded), or an ImportError naming the extra.

    >>> import_ray().data.Dataset.__name__  # doctest: +SKIP
    'Dataset'
    """
    try:
        import ray
        import ray.data  # noqa: F401 - the submodule is what every caller uses
    except ImportError as err:
        raise ImportError(f"{feature} needs Ray, which is not installed: {RAY_EXTRA}") from err
    return ray


def is_ray_dataset(obj) -> bool:
    """True for a ``ray.data.Dataset``, checked without importing Ray.

    >>> is_ray_dataset([1, 2])
    False
    """
    ray_data = sys.modules.get("ray.data")
    return ray_data is not None and isinstance(obj, ray_data.Dataset)


def mix_blocks(dataset, seed=None):
    """``dataset`` with its blocks in a seeded random order when it is materialized, as
    ``fit(shuffle=True)`` visits files and row groups in a new order each epoch: the
    blocks are in Ray's object store already, so only their references move. A lazy
    dataset is returned as it is (ordering its blocks would compute them all first)."""
    from ray.data.dataset import MaterializedDataset  # Ray is loaded: we hold its dataset

    if not isinstance(dataset, MaterializedDataset) or dataset.num_blocks() < 2:
        return dataset
    return dataset.randomize_block_order(seed=seed).materialize()


def arrow_schema(dataset) -> pa.Schema:
    """The Arrow schema of the batches ``dataset`` yields, without pandas metadata.

    Ray reports its own ``Schema`` (an Arrow schema inside for Arrow blocks); for pandas
    blocks, or when the schema is unknown without running the pipeline, the first batch
    is read to learn it.
    """
    try:
        schema = dataset.schema()
    except pa.ArrowException as err:  # Ray unifies its blocks' schemas, which may clash
        raise ValueError(f"the blocks of the Ray dataset disagree on column types: {err}") from err
    base = getattr(schema, "base_schema", schema)
    if isinstance(base, pa.Schema):
        return base.remove_metadata()
    for batch in dataset.limit(1).iter_batches(batch_format="pyarrow", batch_size=1):
        return batch.schema.remove_metadata()
    raise ValueError(
        "the Ray dataset has no rows and Ray reports no schema for it (Ray drops the "
        "schema of empty blocks), so its columns are unknown: read empty data with "
        "Dataset.from_pandas or from_arrow instead"
    )


class RaySource:
    """Rows of a ``ray.data.Dataset``, read as one stream of Arrow batches.

    The column projection is pushed down to Ray (``select_columns``: Ray's optimizer
    passes it on to Parquet reads); the row filter is applied to each Arrow batch. Every
    batch is checked against the schema the dataset reported, and cast to it where Ray's
    blocks differ (an ``int64`` block in a ``double`` column); a batch that cannot be
    cast raises an error naming the column.

    ``dataset`` may also be one part of ``streaming_split`` (a Ray ``DataIterator``, made
    by :meth:`split`, with the ``schema`` of the dataset it came from): it is read the same
    way, with the projection applied before the split.
    """

    def __init__(self, dataset, read_rows=READ_BATCH_SIZE, schema=None, description="Ray dataset"):
        self.dataset = dataset
        self.schema = arrow_schema(dataset) if schema is None else schema
        self.read_rows = read_rows
        self.description = description

    @property
    def is_split_part(self) -> bool:
        """Whether this reads one part of a ``streaming_split`` (see :meth:`split`): a
        part that only the reader it was given to can finish, once per pass."""
        return not is_ray_dataset(self.dataset)

    @property
    def is_materialized(self) -> bool:
        """Whether the dataset's blocks are in Ray's object store already
        (``ray_dataset.materialize()``): then it can be split into parts that any reader
        can read again from the start (see :meth:`split`)."""
        from ray.data.dataset import MaterializedDataset  # Ray is loaded: we hold its dataset

        return isinstance(self.dataset, MaterializedDataset)

    def split(self, num_splits: int, columns=None) -> list:
        """``num_splits`` sources that together hold every row once per pass, one for each
        worker, each with the same number of rows (at most ``num_splits - 1`` rows of a
        pass are dropped to even them, so synchronous workers run the same number of
        steps). ``columns`` are selected in Ray (before a streaming split; by each read
        of a materialized part).

        A materialized dataset is cut into ``num_splits`` consecutive row ranges
        (``split(equal=True)``, which moves only block references): each part is itself a
        materialized dataset, read from its start by whoever reads it, so a worker that
        replaces a failed one reads its part again and skips what was trained on, and
        each worker passes over its part at its own pace. A lazy dataset is never
        computed here: its parts come from ``streaming_split(num_splits, equal=True)``,
        which streams the blocks to the readers as Ray computes them (no worker holds the
        whole dataset), but a part can be read only by the worker it was given to, and
        every part must start its next pass together.
        """
        dataset, schema = self.dataset, self.schema
        rows = self.num_rows()
        if rows is not None and rows < num_splits:
            raise ValueError(
                f"the Ray dataset has {rows} rows, fewer than the {num_splits} workers "
                "reading it: a worker would get no rows; use fewer workers or more data"
            )
        if self.is_materialized:  # each part's reads select the columns (see read)
            parts = dataset.split(num_splits, equal=True)
        else:
            if columns is not None and list(columns) != schema.names:
                dataset, schema = dataset.select_columns(list(columns)), project(schema, columns)
            parts = dataset.streaming_split(num_splits, equal=True)
        return [
            RaySource(part, self.read_rows, schema, f"{self.description}, part {i} of {num_splits}")
            for i, part in enumerate(parts)
        ]

    def describe(self):
        rows = self.num_rows()
        return self.description if rows is None else f"{self.description}: {rows} rows"

    def units(self, filter=None, split=False):
        return [Unit(self.description, None)]

    def num_rows(self):
        """Rows of a materialized Ray dataset (known without running anything), else None:
        counting a lazy one would execute its whole pipeline."""
        return self.dataset.count() if self.is_materialized else None

    def read(self, unit, columns=None, filter=None, batch_rows=None):
        dataset = self.dataset
        # Without a filter the projection goes to Ray; a filter may read other columns,
        # so then the rows are filtered first and projected here.
        pushed = (
            columns is not None
            and filter is None
            and list(columns) != self.schema.names
            and hasattr(dataset, "select_columns")  # a part of streaming_split has none
        )
        if pushed:
            dataset = dataset.select_columns(list(columns))
        schema = project(self.schema, columns) if pushed else self.schema
        stream = dataset.iter_batches(
            batch_format="pyarrow",
            batch_size=batch_rows or self.read_rows,
            prefetch_batches=PREFETCH_BATCHES,
        )
        for table in stream:
            table = self._conform(table, schema)
            if filter is not None:
                table = table.filter(filter)
            if columns is not None and not pushed:
                table = table.select(list(columns))
            yield from table.to_batches()

    def _conform(self, table, schema):
        """``table`` with ``schema`` (columns in its order, metadata dropped, types cast)."""
        table = table.replace_schema_metadata(None)
        if table.schema.names != schema.names:
            missing = [n for n in schema.names if n not in table.schema.names]
            if missing:
                raise ValueError(
                    f"a batch of the Ray dataset lacks column(s) {missing}: expected the "
                    f"columns {schema.names} of its schema, got {table.schema.names}"
                )
            table = table.select(schema.names)
        if table.schema.equals(schema):
            return table
        try:
            return table.cast(schema)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as err:
            name = next(
                (f.name for f in schema if table.schema.field(f.name).type != f.type),
                schema.names[0],
            )
            raise ValueError(
                f"a batch of the Ray dataset has column {name!r} as "
                f"{table.schema.field(name).type}, but the dataset's schema says "
                f"{schema.field(name).type}, and it cannot be cast ({err}); make the blocks "
                "agree, e.g. with a map_batches that casts the column"
            ) from err
