"""The scikit-learn-shaped methods of :class:`~.models.TabularClassifier` and
``TabularRegressor``: ``predict_proba``, ``score`` and ``classes_``; a regressor's
``evaluate`` with MAE and R² beside RMSE; permutation ``feature_importances``; and a
short ``describe()``. Each takes data as ``predict`` and ``evaluate`` do (a DataFrame,
Arrow table, file path/glob or ``cn.data.Dataset``, holding the label column where a
score needs it; streamed data is scored batch by batch) and computes its scores from the
model's predictions (:mod:`.scoring`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import importance, summary
from .scoring import (
    RegressionTotals,
    checked_class_ids,
    classes_of,
    labelled_batches,
    probabilities,
    with_labels,
)
from .tree_blend import tree_line

__all__ = ["ClassifierMethods", "RegressorMethods"]


class _Methods:
    def describe(self, verbose: bool = False) -> str:
        """One short line per column: what each input became and the feature columns built
        from it (a binary classifier's label line names the positive class), and how many
        notes on training there are; ``verbose=True``: every column's full reasons and the
        notes (``columns_.describe()``, with the positive class); a line on the tree
        member and its blend weight where one trained."""
        self._fitted()
        trees = tree_line(getattr(self, "tree_weight_", 0.0), getattr(self, "tree_members_", []))
        return summary.describe(self.columns_, self._classes_or_none(), verbose, trees)

    def _classes_or_none(self):
        return None

    def feature_importances(
        self, data, n_repeats: int = 5, seed: int = 0, max_rows: int = importance.MAX_ROWS
    ) -> pd.DataFrame:
        """Permutation importance of each raw input column the model reads, on labelled
        ``data``: a DataFrame with ``feature``, ``importance_mean`` and ``importance_std``
        (over ``n_repeats`` shuffles), most important first. The importance is the drop
        of :meth:`score` (a classifier's accuracy, a regressor's R²) when that column's
        values are shuffled across the rows; near 0 for a column the model does not use,
        below 0 by chance. Scored on a seeded sample of at most ``max_rows`` labelled rows
        (:mod:`.importance`); ``seed`` draws the sample and the shuffles. Drawn as bars
        by :func:`~.importance.plot_importances` (``colonnade[plot]``)."""
        self._fitted()
        return importance.feature_importances(
            self, data, n_repeats, seed, max_rows, self._stacked_scores
        )

    def _stacked_scores(self, table, repeats: int) -> list:
        """The score of each of the ``repeats`` stacked copies in ``table``."""
        n = table.num_rows // repeats
        predicted = self._predicted(table)
        labels = self._labels(table)
        return [
            self._score_of(labels[k * n : (k + 1) * n], predicted[k * n : (k + 1) * n])
            for k in range(repeats)
        ]


class ClassifierMethods(_Methods):
    """``classes_``, ``predict_proba`` and ``score`` (accuracy) of a classifier."""

    @property
    def classes_(self) -> np.ndarray:
        """The label values in class-id order, the order of :meth:`predict_proba`'s
        columns: the sorted strings of a string label, ``[False, True]`` for a boolean
        label, ``0..n_classes-1`` for an integer label. Unfitted: AttributeError (so
        ``hasattr(model, "classes_")`` tells whether it is fitted, as scikit-learn's)."""
        if not hasattr(self, "columns_"):
            raise AttributeError(
                f"this {type(self).__name__} is not fitted yet: classes_ are known after fit"
            )
        return classes_of(self.columns_, self.label_type_)

    def _classes_or_none(self):
        return self.classes_

    def predict_proba(self, data) -> np.ndarray:
        """Class probabilities of ``data``'s rows, an ``(n, n_classes)`` float64 array
        whose columns follow :attr:`classes_` (nulls read as in ``predict``)."""
        frame = self.predict(data, predict_keys=["probabilities"])
        return probabilities(frame, self.columns_.n_classes)

    def score(self, data, y=None) -> float:
        """Accuracy, as scikit-learn's ``ClassifierMixin.score``: the share of rows whose
        most probable class is their label. ``data`` holds the label column (rows without
        a label are skipped, as training skips them), or ``y`` gives one label per row of
        in-memory ``data``. A label that is not one of :attr:`classes_` is refused."""
        self._fitted()
        right = total = 0
        for table in labelled_batches(with_labels(data, self.label, y, "score"), self.label):
            ids = self._labels(table)
            right += int((self._predicted(table) == ids).sum())
            total += len(ids)
        if not total:
            raise ValueError(f"no rows with a label {self.label!r} to score")
        return right / total

    def _labels(self, table) -> np.ndarray:
        return checked_class_ids(self.columns_, table.column(self.label), self.classes_)

    def _predicted(self, table) -> np.ndarray:
        return np.argmax(self.predict_proba(table), axis=1)

    @staticmethod
    def _score_of(labels, predicted) -> float:
        return float(np.mean(labels == predicted))


class RegressorMethods(_Methods):
    """``score`` (R²) and ``evaluate`` with MAE and R² of a regressor."""

    def evaluate(self, data, **kwargs) -> dict:
        """The canned regressor's metrics (``loss``, ``average_loss``, ``rmse``, ...) plus
        ``mae`` (mean absolute error) and ``r2`` (R², scikit-learn's ``r2_score``), both
        from a second pass that predicts every labelled row of ``data``
        (``checkpoint_path`` applies to both passes; with ``steps`` given, only the
        canned metrics cover just those batches)."""
        metrics = super().evaluate(data, **kwargs)
        extra = self._totals(data, kwargs.get("checkpoint_path")).summary()
        metrics.update(mae=extra["mae"], r2=extra["r2"])
        return metrics

    def score(self, data, y=None) -> float:
        """R², as scikit-learn's ``RegressorMixin.score`` (``r2_score``): 1 minus the
        squared error over the labels' squared deviation from their mean. ``data`` holds
        the label column (rows without a label are skipped), or ``y`` gives one label per
        row of in-memory ``data``."""
        self._fitted()
        return self._totals(with_labels(data, self.label, y, "score"), None).summary()["r2"]

    def _totals(self, data, checkpoint_path) -> RegressionTotals:
        totals = RegressionTotals()
        for table in labelled_batches(data, self.label):
            totals.add(self._labels(table), self._predicted(table, checkpoint_path))
        return totals

    def _labels(self, table) -> np.ndarray:
        return np.asarray(table.column(self.label).to_numpy(zero_copy_only=False), np.float64)

    def _predicted(self, table, checkpoint_path=None) -> np.ndarray:
        frame = self.predict(table, predict_keys=["predictions"], checkpoint_path=checkpoint_path)
        return frame["predictions"].to_numpy(np.float64)

    @staticmethod
    def _score_of(labels, predicted) -> float:
        totals = RegressionTotals()
        totals.add(labels, predicted)
        return totals.summary()["r2"]
