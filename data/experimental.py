"""``cn.data.experimental``: ``tf.data.experimental``'s names that estimator programs use.

>>> import colonnade as cn
>>> cn.data.experimental.make_csv_dataset is cn.data.make_csv_dataset
True
"""

from .csv_dataset import make_csv_dataset
from .dataset import AUTOTUNE

__all__ = ["AUTOTUNE", "make_csv_dataset"]
