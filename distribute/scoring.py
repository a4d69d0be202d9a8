"""Batch scoring of an export over a ``ray.data.Dataset``: :func:`predict_dataset`.

Ray Data runs the scoring: a pool of actors, each loading the export once (``cn.load``)
and predicting the Arrow batches ``map_batches`` hands it, so an export is scored over a
cluster as Ray streams the data, with no cluster code of ours. Everything that can be
checked on the driver (the arguments, the export, the columns) is checked before any
actor starts: a bad call fails at once with the reason, not in a remote traceback.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pyarrow as pa

from ..data.ray_source import arrow_schema, import_ray
from ..estimators.export.directory import no_predictions_frame, resolve_export_dir
from ..estimators.loading import load

__all__ = ["DEFAULT_BATCH_SIZE", "predict_dataset"]

# Rows per map_batches call: large enough that the per-call costs (Arrow hand-over,
# feature transforms, one forward pass) are spread over many rows, small enough that a
# batch of a wide table stays a few MB in the object store.
DEFAULT_BATCH_SIZE = 4096


def predict_dataset(
    export_dir: str | os.PathLike,
    ray_dataset,
    batch_size: int = DEFAULT_BATCH_SIZE,
    concurrency: int | tuple[int, int] | None = None,
    *,
    predict_keys: Sequence[str] | None = None,
    forward_features: str | Sequence[str] | None = None,
    model_fns: dict | None = None,
):
    """Score the export at ``export_dir`` over ``ray_dataset`` with Ray Data; returns a
    lazy ``ray.data.Dataset`` of predictions (extra ``colonnade[ray]``).

    Each output row holds the predictions of one input row, with the columns
    ``cn.load(export_dir).predict(rows)`` gives (``logits``, ``probabilities_0``, ...,
    ``classes`` for a classifier; ``predictions`` for a regressor), as TF's
    ``Estimator.predict`` yields only predictions. Input columns you need beside them
    (an id to join on) are carried over with ``forward_features``, as TF's
    ``tf.estimator.forward_features`` does: they come first, unchanged. Ray Data may
    reorder rows between blocks (unless its ``execution_options.preserve_order`` is
    set), so join on a forwarded key rather than on position.

    Args:
        export_dir: an export directory, or a base directory of numbered exports (the
            newest is scored; it is chosen once, here). Every node of the Ray cluster
            must be able to read it at this path (a shared filesystem on a cluster).
        ray_dataset: the rows to score; it holds at least the columns the model reads.
        batch_size: rows per ``map_batches`` call (default 4096).
        concurrency: actors scoring at once: an int for a fixed pool, ``(min, max)`` for
            an autoscaling one, or None (default) for one that grows from 1 as far as
            the cluster's CPUs allow. Each actor takes one CPU and loads the export once.
        predict_keys: the predictions to keep, e.g. ``["probabilities"]`` (default
            ``None``: all of the head's).
        forward_features: input column name(s) to copy into the output.
        model_fns: ``{name: model_fn}`` for an export of a custom ``Estimator``, as
            ``cn.load`` takes it. Ray pickles them to the actors: a function of a module
            must be importable there too; one defined in the driver script (or inside a
            function) travels by value.

    Raises (before any actor starts): ``ValueError`` for a bad ``batch_size`` or
    ``concurrency``, ``FileNotFoundError`` / ``ExportError`` for a missing or invalid
    export, ``KeyError`` for unknown ``predict_keys``, ``ValueError`` when the dataset
    lacks a column the model reads or a forwarded column, or a forwarded column is also
    a prediction's name, ``TypeError`` when ``ray_dataset`` is not a Ray dataset.

    >>> import colonnade as cn, ray  # doctest: +SKIP
    >>> scored = cn.distribute.predict_dataset("exports/ctr", ray.data.read_parquet(
    ...     "s3://bucket/clicks/"), forward_features="request_id")  # doctest: +SKIP
    >>> scored.write_parquet("s3://bucket/scores/")  # doctest: +SKIP
    """
    ray = import_ray("cn.distribute.predict_dataset")
    if not isinstance(ray_dataset, ray.data.Dataset):
        raise TypeError(
            f"predict_dataset scores a ray.data.Dataset; got {type(ray_dataset).__name__} "
            "(for local data, use cn.load(export_dir).predict(rows))"
        )
    _check_positive("batch_size", batch_size)
    compute = _actor_pool(ray, concurrency)
    forward = _names(forward_features, "forward_features")
    path = os.path.abspath(resolve_export_dir(export_dir))
    predictor = load(path, model_fns)  # validates the whole export, here on the driver
    reads = _check_columns(predictor, predict_keys, forward, arrow_schema(ray_dataset))
    if reads is not None:
        ray_dataset = ray_dataset.select_columns(reads)
    return ray_dataset.map_batches(
        _Scorer,
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=compute,
        fn_constructor_kwargs={
            "path": path,
            "model_fns": model_fns,
            "predict_keys": None if predict_keys is None else list(predict_keys),
            "forward": forward,
            "batch_size": batch_size,
        },
    )


class _Scorer:
    """One Ray actor's scorer: the export loaded once, then called on each Arrow batch."""

    def __init__(self, path, model_fns, predict_keys, forward, batch_size):
        from .hosts import use_assigned_cpus  # imports Ray, which this module leaves lazy

        use_assigned_cpus()
        self.predictor = load(path, model_fns)
        self.predict_keys, self.forward, self.batch_size = predict_keys, forward, batch_size

    def __call__(self, batch: pa.Table) -> pa.Table:
        frame = self.predictor.predict(
            batch, predict_keys=self.predict_keys, batch_size=self.batch_size
        )
        clash = sorted(set(self.forward) & set(frame.columns))
        if clash:
            raise ValueError(
                f"forward_features {clash} are also names of prediction columns; rename "
                "them in the dataset (rename_columns) before scoring"
            )
        predictions = pa.Table.from_pandas(frame, preserve_index=False)
        columns = [batch.column(name) for name in self.forward] + predictions.columns
        names = self.forward + predictions.column_names
        return pa.Table.from_arrays(columns, names=names)


def _check_positive(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _actor_pool(ray, concurrency):
    """The ``ActorPoolStrategy`` for ``concurrency`` (see :func:`predict_dataset`)."""
    if concurrency is None:
        return ray.data.ActorPoolStrategy(min_size=1, max_size=None)
    if isinstance(concurrency, tuple) and len(concurrency) == 2:
        low, high = concurrency
        _check_positive("concurrency's min", low)
        _check_positive("concurrency's max", high)
        if low > high:
            raise ValueError(f"concurrency (min, max) needs min <= max, got {concurrency}")
        return ray.data.ActorPoolStrategy(min_size=low, max_size=high)
    if isinstance(concurrency, int) and not isinstance(concurrency, bool):
        _check_positive("concurrency", concurrency)
        return ray.data.ActorPoolStrategy(size=concurrency)
    raise ValueError(
        f"concurrency must be None, a positive int or a (min, max) tuple, got {concurrency!r}"
    )


def _names(value, what) -> list:
    if value is None:
        return []
    names = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"{what} must be a column name or a list of names, got {value!r}")
    return names


def _check_columns(predictor, predict_keys, forward, schema):
    """Check the dataset's ``schema`` against what scoring reads and writes; return the
    columns to read (None: all, when the export does not say which it reads)."""
    missing = [n for n in forward if n not in schema.names]
    if missing:
        raise ValueError(
            f"forward_features {missing} are not columns of the Ray dataset; it has {schema.names}"
        )
    head = getattr(predictor, "head", None)
    if head is not None:  # a canned export: its prediction columns are known here
        outputs = no_predictions_frame(head, predict_keys).columns
        clash = sorted(set(forward) & set(outputs))
        if clash:
            raise ValueError(
                f"forward_features {clash} are also names of prediction columns "
                f"{list(outputs)}; rename them in the dataset (rename_columns) before scoring"
            )
    inputs = getattr(predictor, "input_columns", None)
    if inputs is None:
        return None
    lacking = [n for n in inputs if n not in schema.names]
    if lacking:
        raise ValueError(
            f"the Ray dataset lacks column(s) {lacking} that the export {predictor.path!r} "
            f"reads; it has {schema.names}"
        )
    reads = list(dict.fromkeys([*forward, *inputs]))
    return None if reads == schema.names else reads
