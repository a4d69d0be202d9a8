"""``cn.data.experimental``: ``tf.data.experimental``'s names that estimator programs use.

>>> import colonnade as cn
>>> cn.data.experimental.make_csv_dataset is cn.data.make_csv_dataset
True
"""

from .csv_dataset import make_csv_dataset
from .dataset import AUTOTUNE, check_parallel_calls

__all__ = ["AUTOTUNE", "make_csv_dataset", "map_and_batch"]


def map_and_batch(
    map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None
):
    """TF's fused ``map`` then ``batch``, for ``dataset.apply(map_and_batch(...))``: the
    dataset mapped by ``map_func`` and batched by ``batch_size``. A map here runs on a
    batch of elements at once already, so there is nothing to fuse; TF's arguments are
    checked as TF checks them (one of ``num_parallel_batches`` and
    ``num_parallel_calls`` at most).

    >>> import colonnade as cn
    >>> ds = cn.data.Dataset.from_tensor_slices({"x": [1, 2, 3]})
    >>> [b.column("y").to_pylist() for b in ds.apply(map_and_batch(lambda f: {"y": f["x"] * 2}, 2))]
    [[2, 4], [6]]
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "map_and_batch allows only one of num_parallel_batches and num_parallel_calls to "
            f"be set, got num_parallel_batches={num_parallel_batches!r} and "
            f"num_parallel_calls={num_parallel_calls!r}"
        )
    check_parallel_calls(num_parallel_calls)
    if num_parallel_batches is not None:
        check_parallel_calls(num_parallel_batches)

    def apply(dataset):
        return dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)

    return apply
