"""A Dataset cut into one shard per worker of a distributed training run.

:func:`worker_shards` gives each of ``num_workers`` workers a Dataset of its own to read,
each under the same steps (shuffle buffer, batching, label) as the one given: whole files
or row groups of files, sharded under the batching so that each worker opens only its
own files; of in-memory data, every ``num_workers``-th batch (so that two workers in
lockstep see together what one process sees at twice the batch size); of a Ray dataset,
its own part of Ray's split (:meth:`~.ray_source.RaySource.split`).
"""

from __future__ import annotations

from dataclasses import replace

from .dataset import Dataset
from .plan import Batch, Repeat, Scan, in_memory, scan_under
from .ray_source import RaySource

__all__ = ["reads_streamed_split", "worker_shards"]


def worker_shards(dataset: Dataset, num_workers: int, lockstep: bool) -> list:
    """``num_workers`` Datasets that together read ``dataset`` once per pass (see the
    module docstring). ``lockstep``: whether the workers step together (sync training);
    several passes (``repeat``) over a lazy Ray dataset's streaming split need that, and
    no row filter, as every part must start its next pass at the same time: otherwise
    they are refused here, before a worker could wait forever."""
    node = dataset.plan
    scan = _scan_of(node)
    if scan is not None and isinstance(scan.source, RaySource):
        _check_passes_over_streamed_split(node, scan, lockstep)
        parts = scan.source.split(num_workers, scan.columns)
        return [dataset.with_plan(_with_scan_source(node, p)) for p in parts]
    if dataset.batched and isinstance(node, Batch) and not in_memory(node.child):
        if scan_under(node.child) is not None:  # files: shard them under the batching
            rows = dataset.with_plan(node.child, batched=False)
            shards = [rows.shard(num_workers, i) for i in range(num_workers)]
            return [
                shard.with_plan(Batch(shard.plan, node.batch_size, node.drop_remainder), True)
                for shard in shards
            ]
    return [dataset.shard(num_workers, i) for i in range(num_workers)]


def reads_streamed_split(shard: Dataset) -> bool:
    """Whether ``shard`` reads a part of a lazy Ray dataset's ``streaming_split``: such a
    part cannot be handed to a new reader mid-pass (Ray starts a pass of a split only
    when every part starts it), so a failed worker cannot be replaced."""
    scan = _scan_of(shard.plan)
    return scan is not None and isinstance(scan.source, RaySource) and scan.source.is_split_part


def _check_passes_over_streamed_split(node, scan, lockstep: bool) -> None:
    repeats = [n for n in _chain(node) if isinstance(n, Repeat) and n.count != 1]
    if not repeats or scan.source.is_materialized or (lockstep and scan.filter is None):
        return
    why = "a row filter (applied after the split)" if lockstep else 'mode="async"'
    raise ValueError(
        f"repeat() over a Ray dataset with {why}: the workers' parts of its "
        "streaming_split would end at different steps, and Ray starts the next pass only "
        "when every part starts it, so a worker would wait forever. Read it once per "
        "train call (fit(..., epochs=n) or train in a loop), filter in Ray "
        "(ray_dataset.filter), use mode='sync', or materialize the dataset "
        "(ray_dataset.materialize(): its parts are then row ranges read at any pace)"
    )


def _chain(node):
    while node is not None:
        yield node
        node = getattr(node, "child", None)


def _scan_of(node):
    """The Scan at the bottom of ``node``'s chain of steps, or None."""
    return next((n for n in _chain(node) if isinstance(n, Scan)), None)


def _with_scan_source(node, source):
    """``node`` with its Scan reading ``source`` instead."""
    if isinstance(node, Scan):
        return replace(node, source=source)
    return replace(node, child=_with_scan_source(node.child, source))
