"""Heads: how logits become a loss, predictions, metrics and an ``EstimatorSpec`` (TF's
``binary_classification_head``, ``multi_class_head``, ``multi_label_head``, the regression
heads).

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
