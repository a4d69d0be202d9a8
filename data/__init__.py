"""colonnade.data: queue-free input pipelines over Arrow record batches.

A :class:`Dataset` is a lazy, re-iterable description (sources, then transformations)
that yields ``pyarrow.RecordBatch`` es, or ``(features, labels)`` pairs when built with
``label=``; it replaces TF 1.x's input queues (``batch``, ``shuffle_batch``,
``limit_epochs``, ``QueueRunner``...), and feature columns consume its batches directly.

>>> import colonnade as cn
>>> import pandas as pd
>>> df = pd.DataFrame({"age": [20, 30, 40, 50], "label": [0, 1, 0, 1]})
>>> ds = cn.data.Dataset.from_pandas(df, label="label").shuffle(100, seed=0).batch(2)
>>> [labels.shape for _, labels in ds]
[(2,), (2,)]
"""

from . import experimental
from .columns import required_columns
from .csv_dataset import make_csv_dataset
from .dataset import AUTOTUNE, Dataset
from .iterators import make_one_shot_iterator
from .text_lines import TextLineDataset
from .tfrecord_dataset import TFRecordDataset

__all__ = [
    "AUTOTUNE",
    "Dataset",
    "TFRecordDataset",
    "TextLineDataset",
    "experimental",
    "make_csv_dataset",
    "make_one_shot_iterator",
    "required_columns",
]
