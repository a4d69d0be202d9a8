"""``cn.data.experimental``: ``tf.data.experimental``'s names that estimator programs use."""

from .csv_dataset import make_csv_dataset
from .dataset import AUTOTUNE

__all__ = ["AUTOTUNE", "make_csv_dataset"]
