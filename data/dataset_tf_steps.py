"""The steps of ``tf.data`` that TF programs use beside the core ones: ``padded_batch``,
``interleave`` and ``apply`` (a mixin of :class:`~.dataset.Dataset`; each a method that
builds a plan node of :mod:`.padding` or :mod:`.interleaves`).

>>> from colonnade.data import Dataset
>>> Dataset.from_dict({"x": [1, 2, 3]}).apply(lambda ds: ds.batch(2)).batched
True
"""

from __future__ import annotations

from collections.abc import Callable

from .element_streams import as_dict
from .interleaves import Interleave, check_dataset, cycle_of, input_elements
from .limits import check_parallel_calls, positive_count
from .padding import PaddedBatch, per_column
from .plan import Batch

__all__ = ["TFSteps"]


class TFSteps:
    """``padded_batch``, ``interleave`` and ``apply`` of :class:`~.dataset.Dataset`."""

    def padded_batch(
        self, batch_size: int, padded_shapes=None, padding_values=None, drop_remainder=False
    ) -> TFSteps:
        """:meth:`batch`, with each variable-length list column padded to the batch's
        longest element (or to its ``padded_shapes`` entry) with its ``padding_values``
        entry (0, or ``""`` for strings): a fixed-size list column, as TF's dense padded
        component (see :mod:`.padding`). Both are dicts of column -> entry, or
        ``(features, labels)`` pairs on a labelled dataset, as TF's structures.

        >>> import pyarrow as pa
        >>> from colonnade.data import Dataset
        >>> ds = Dataset.from_arrow(pa.table({"v": [[1], [2, 3], [4]]})).padded_batch(2)
        >>> [b.column("v").to_pylist() for b in ds]
        [[[1, 0], [2, 3]], [[4]]]
        """
        positive_count(batch_size, "batch_size")
        shapes = per_column(padded_shapes, self.label, self._single_label, "padded_shapes")
        values = per_column(padding_values, self.label, self._single_label, "padding_values")
        batched = Batch(self._node, batch_size, bool(drop_remainder))
        return self.with_plan(PaddedBatch(batched, shapes, values), batched=True)

    def interleave(
        self,
        map_func: Callable,
        cycle_length=None,
        block_length=None,
        num_parallel_calls=None,
        deterministic=None,
    ) -> TFSteps:
        """The elements of the datasets ``map_func`` returns for each element (a dict of
        one row's values; the value itself on a one-column stream of lines or records),
        ``block_length`` (default 1) at a time from ``cycle_length`` of them in turn, in
        TF's deterministic order (see :mod:`.interleaves`). ``cycle_length`` None is
        the number of CPUs, as TF's default. ``map_func`` is called once on the first
        element here to learn the label and batching of what it returns.

        >>> from colonnade.data import Dataset
        >>> ds = Dataset.from_dict({"k": [1, 2]}).interleave(
        ...     lambda e: Dataset.from_dict({"v": [e["k"]] * 2}), cycle_length=2)
        >>> ds.to_table().column("v").to_pylist()
        [1, 2, 1, 2]
        """
        if not callable(map_func):
            raise TypeError(f"Dataset.interleave needs a callable, got {type(map_func).__name__}")
        check_parallel_calls(num_parallel_calls)
        cycle = cycle_of(cycle_length)
        block = 1 if block_length is None else block_length
        positive_count(block, "block_length")
        scalar = self.interleaves_scalars
        first = next(iter(self.record_batches()), None)
        probe = None
        if first is not None and first.num_rows:
            probe = check_dataset(map_func(input_elements(first.slice(0, 1), scalar)[0]), map_func)
        node = Interleave(self._node, map_func, cycle, int(block), scalar)
        if probe is None:  # no input elements: nothing to interleave
            return self.with_label(None).with_plan(node, batched=False)
        return probe.with_plan(node, batched=probe.batched)

    @property
    def interleaves_scalars(self) -> bool:
        """Whether :meth:`interleave` hands its function a one-column stream's values
        themselves (lines, records) rather than a dict per row.

        >>> from colonnade.data import Dataset
        >>> Dataset.from_dict({"x": [1]}).interleaves_scalars
        False
        """
        return self._view not in (None, as_dict)

    def apply(self, transformation_func: Callable) -> TFSteps:
        """``transformation_func(self)``, which must return a Dataset (TF's ``apply``, as
        ``cn.data.experimental.map_and_batch`` is used).

        >>> from colonnade.data import Dataset
        >>> Dataset.from_dict({"x": [1, 2, 3]}).apply(lambda ds: ds.take(2)).to_table().num_rows
        2
        """
        result = transformation_func(self)
        if not isinstance(result, TFSteps):
            raise TypeError(
                "Dataset.apply: transformation_func must return a Dataset, got "
                f"{type(result).__name__}"
            )
        return result
