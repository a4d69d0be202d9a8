"""The six canned estimators and the zero-configuration ``TabularClassifier`` and
``TabularRegressor`` as scikit-learn estimators: ``clone``, ``Pipeline``,
``cross_val_score`` and ``GridSearchCV`` work with them.

Each class takes the constructor arguments of the canned estimator of the same name in
:mod:`colonnade.estimators` (see its docstring for what they mean; their defaults are
the same), plus ``epochs`` and ``batch_size``, which its ``fit`` passes to the canned
estimator's ``fit``. ``TabularClassifier`` and ``TabularRegressor`` take those of
:class:`colonnade.estimators.TabularClassifier` but ``label`` (``y`` becomes the label
column) and pick their own epochs and batch size. As scikit-learn asks, ``__init__``
only stores its arguments; each ``fit(X, y)`` builds a new colonnade estimator from
``get_params()`` (kept as ``estimator_``) and trains it from scratch:

- ``model_dir=None`` (the default) trains each fit in a new temporary directory, removed
  when the scikit-learn estimator is refit or garbage collected; so clones, folds and
  refits never resume from one another's checkpoints.
- a ``model_dir`` given gets a new sub-directory per fit (``model_dir/fit-<random>``, kept;
  ``model_dir_`` says which): a scikit-learn ``fit`` starts over, it never resumes.

``X`` is a pandas DataFrame or a pyarrow Table, since feature columns read columns by
name (in a ``Pipeline``, ``set_output(transform="pandas")`` keeps transformers' output a
DataFrame). ``y`` is an array, list or Series, one label per row. Classifiers predict
the labels themselves: ``classes_`` is ``label_vocabulary`` when given, otherwise the
sorted distinct values of ``y`` (as every scikit-learn classifier; ``n_classes`` then
follows them). Regressors predict an ``(n,)`` array, ``(n, label_dimension)`` for
``label_dimension > 1``.

scikit-learn is needed (``pip install scikit-learn``); the rest of colonnade does not
depend on it.

>>> import pandas as pd
>>> import colonnade as cn
>>> from colonnade.sklearn import LinearClassifier
>>> X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
>>> clf = LinearClassifier([cn.feature_columns.numeric_column("x")], epochs=30)
>>> clf.fit(X, ["no", "no", "yes", "yes"]).predict(X).tolist()
['no', 'no', 'yes', 'yes']
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
import textwrap
import warnings
import weakref

import numpy as np
import pandas as pd
import pyarrow as pa

from . import core
from .estimators import canned, tabular

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.utils.validation import check_is_fitted
except ImportError as err:  # pragma: no cover - exercised without scikit-learn only
    raise ImportError(
        "colonnade.sklearn needs scikit-learn, which is not installed: "
        "pip install scikit-learn (colonnade.estimators works without it)",
        name="sklearn",
    ) from err

__all__ = [
    "DNNClassifier",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearRegressor",
    "TabularClassifier",
    "TabularRegressor",
]

# The defaults of the canned estimators' own fit (Keras' epochs and batch size).
DEFAULT_EPOCHS = 1
DEFAULT_BATCH_SIZE = 32
_SUM_OVER_BATCH_SIZE = core.Reduction.SUM_OVER_BATCH_SIZE


def _check_X(X, what="X"):
    """``X`` when it is a DataFrame or an Arrow table; a TypeError saying why otherwise."""
    if isinstance(X, (pd.DataFrame, pa.Table)):
        return X
    if isinstance(X, pa.RecordBatch):
        return pa.Table.from_batches([X])
    raise TypeError(
        f"{what} must be a pandas DataFrame or a pyarrow Table, because feature columns "
        f"read columns by name; got {type(X).__name__}. Wrap an array as "
        "pd.DataFrame(X, columns=[...]) with the names the feature columns use, or call "
        "set_output(transform='pandas') on the transformers before this estimator"
    )


def _column_names(X) -> list:
    return [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else list(X.schema.names)


def _check_y(y, X):
    """``y`` as a numpy array with one label per row of ``X``."""
    if y is None:
        raise ValueError("fit needs y, the labels: one per row of X")
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if len(values) != len(X):
        raise ValueError(f"y has {len(values)} labels but X has {len(X)} rows")
    return values


def _remove_dir(path):
    shutil.rmtree(path, ignore_errors=True)


class _Adapter(BaseEstimator):
    """What the six adapters share: build the canned estimator, fit, predict frames."""

    _canned = None  # the canned estimator class, set by each subclass

    def _keep(self, arguments: dict) -> None:
        """Store each ``__init__`` argument unchanged under its own name: all a scikit-learn
        ``__init__`` may do (``get_params`` reads them back by the signature's names)."""
        for name, value in arguments.items():
            if name != "self":
                setattr(self, name, value)

    def _fresh_model_dir(self, params):
        """A new directory for this fit, and ``params`` set to use it (see the module)."""
        config = params.get("config")
        base = params.get("model_dir") or (config.model_dir if config is not None else None)
        old = getattr(self, "_own_tmp_dir", None)
        if old is not None:  # this object's temporary directory from a previous fit
            old()  # removes it now, once
            self._own_tmp_dir = None
        if base is None:
            path = tempfile.mkdtemp(prefix="colonnade_sklearn_")
            self._own_tmp_dir = weakref.finalize(self, _remove_dir, path)
        else:
            os.makedirs(base, exist_ok=True)
            path = tempfile.mkdtemp(prefix="fit-", dir=base)
        params["model_dir"] = path
        if config is not None and config.model_dir is not None:
            params["config"] = config.replace(model_dir=path)
        return path

    def _fit_canned(self, X, label):
        params = self.get_params(deep=False)
        self.model_dir_ = self._fresh_model_dir(params)
        self.estimator_ = self._train(params, X, label)
        self.n_features_in_ = len(_column_names(X))
        self.feature_names_in_ = np.asarray(_column_names(X), dtype=object)
        return self

    def _train(self, params, X, label):
        """A new canned estimator from ``params`` (``model_dir`` set), trained on ``X``."""
        epochs, batch_size = params.pop("epochs"), params.pop("batch_size")
        params.update(self._canned_overrides())
        estimator = self._canned(**params)
        estimator.fit(X, label=label, epochs=epochs, batch_size=batch_size)
        return estimator

    def _canned_overrides(self) -> dict:
        return {}

    def _predictions(self, X, key) -> np.ndarray:
        """The ``(n, k)`` array of prediction ``key`` (its one or ``key_i`` columns)."""
        check_is_fitted(self, "estimator_")
        frame = self.estimator_.predict(_check_X(X), predict_keys=[key])
        columns = [key] if key in frame.columns else [c for c in frame.columns if c != key]
        return frame[columns].to_numpy()

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_own_tmp_dir", None)  # a finalizer does not pickle
        return state


class _Classifier(ClassifierMixin, _Adapter):
    def fit(self, X, y):
        """Train a new canned classifier on ``X`` (DataFrame or Arrow table) and labels
        ``y``; returns self."""
        X = _check_X(X)
        y = _check_y(y, X)
        if y.ndim != 1:
            raise ValueError(f"y must be one label per row, shape (n,); got {y.shape}")
        if self.label_vocabulary is not None:
            self.classes_ = np.asarray(list(self.label_vocabulary))
            return self._fit_canned(X, y.astype(str))
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"y has a single class {self.classes_.tolist()}; a classifier needs at least 2"
            )
        if self.n_classes not in (2, len(self.classes_)):
            warnings.warn(
                f"n_classes={self.n_classes} is ignored: y has {len(self.classes_)} classes "
                "(pass label_vocabulary to fix the classes up front)",
                UserWarning,
                stacklevel=2,
            )
        return self._fit_canned(X, np.searchsorted(self.classes_, y))

    def _canned_overrides(self) -> dict:
        if self.label_vocabulary is None:
            return {"n_classes": len(self.classes_)}
        return {"label_vocabulary": [str(v) for v in self.label_vocabulary]}

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape ``(n, len(classes_))``, columns in ``classes_`` order."""
        return self._predictions(X, "probabilities").astype(np.float64)

    def predict(self, X) -> np.ndarray:
        """The predicted labels, values of ``classes_``."""
        ids = self._predictions(X, "class_ids")[:, 0].astype(np.int64)
        return self.classes_[ids]


class _Regressor(RegressorMixin, _Adapter):
    def fit(self, X, y):
        """Train a new canned regressor on ``X`` (DataFrame or Arrow table) and targets
        ``y`` (shape ``(n,)``, or ``(n, label_dimension)``); returns self."""
        X = _check_X(X)
        y = _check_y(y, X).astype(np.float32)
        return self._fit_canned(X, y)

    def predict(self, X) -> np.ndarray:
        """Predicted values: ``(n,)``, or ``(n, label_dimension)`` when that is above 1."""
        values = self._predictions(X, "predictions").astype(np.float64)
        return values[:, 0] if values.shape[1] == 1 else values


def _label_name(X) -> str:
    """A name for the label column that none of ``X``'s columns has."""
    names = set(_column_names(X))
    name = "label"
    while name in names:
        name = "_" + name
    return name


class _TabularTrain:
    """``_train`` for the zero-configuration models: ``y`` becomes a label column of
    ``X``, and the model infers its feature columns and training settings itself."""

    def _train(self, params, X, label):
        table = X if isinstance(X, pa.Table) else pa.Table.from_pandas(X, preserve_index=False)
        name = _label_name(X)
        model = self._canned(name, **params)
        model.fit(table.append_column(name, pa.array(label)))
        self.columns_ = model.columns_
        return model


# What the adapters add to the canned estimators' arguments. The canned ones are described
# once, in the canned estimators' own ``Args:`` sections, which ``_document`` copies.
_FIT_ARGUMENTS = {
    "epochs": f"passes over the data in each ``fit`` (default {DEFAULT_EPOCHS}).",
    "batch_size": f"rows per training step (default {DEFAULT_BATCH_SIZE}).",
}
# Where an adapter's meaning differs from the canned estimator's (see the module).
_ADAPTER_ARGUMENTS = {
    "model_dir": (
        "``None`` (the default): each fit trains in a new temporary directory, removed "
        "when refit or garbage collected; a directory: each fit gets a new sub-directory "
        "``model_dir/fit-<random>`` (``model_dir_``). A fit never resumes."
    ),
    "n_classes": (
        "ignored, with a warning, when ``y`` has another number of classes: the classes "
        "are ``label_vocabulary``, else the sorted distinct values of ``y`` (``classes_``)."
    ),
    "label_vocabulary": (
        "the classes, in order (``classes_``); default ``None``: the sorted distinct values "
        "of ``y``, which may be any labels."
    ),
}


def _args_section(doc: str) -> list[str]:
    """The entries of a Google-style docstring's ``Args:`` section, as indented lines, with
    the adapters' own meaning of :data:`_ADAPTER_ARGUMENTS` in place of the canned one."""
    lines = inspect.cleandoc(doc).splitlines()
    if "Args:" not in lines:
        raise ValueError("the canned estimator's docstring has no Args: section to copy")
    entries, skipping = [], False
    for line in lines[lines.index("Args:") + 1 :]:
        if not line.startswith(" "):  # a blank line or the next section ends it
            break
        if not line.startswith("     "):  # a new entry: "    name: text"
            name = line.strip().split(":", 1)[0]
            skipping = name in _ADAPTER_ARGUMENTS
            if skipping:
                text = f"{name}: {_ADAPTER_ARGUMENTS[name]}"
                entries += textwrap.wrap(
                    text, width=88, initial_indent="    ", subsequent_indent="        "
                )
        if not skipping:
            entries.append(line)
    return entries


def _document(cls):
    """Give an adapter its docstring: what it is, and an ``Args:`` section made of the
    canned estimator's entries and those of ``_FIT_ARGUMENTS``."""
    names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    canned_names = ", ".join(f"``{p}``" for p in names if p not in _FIT_ARGUMENTS)
    summary = textwrap.fill(
        f"Arguments: those of :class:`colonnade.estimators.{cls.__name__}`, with the same "
        f"defaults and meaning ({canned_names}), plus ``epochs`` and ``batch_size``, which "
        "each ``fit`` passes to the canned estimator's ``fit``.",
        width=88,
    )
    fit_entries = [f"    {name}: {text}" for name, text in _FIT_ARGUMENTS.items()]
    cls.__doc__ = "\n".join(
        [
            f"{cls.__name__} as a scikit-learn estimator (see :mod:`colonnade.sklearn`).",
            "",
            summary,
            "",
            "Args:",
            *_args_section(cls._canned.__doc__ or ""),
            *fit_entries,
        ]
    )
    return cls


@_document
class LinearClassifier(_Classifier):
    _canned = canned.LinearClassifier

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
        epochs=DEFAULT_EPOCHS,
        batch_size=DEFAULT_BATCH_SIZE,
    ):
        self._keep(locals())


@_document
class LinearRegressor(_Regressor):
    _canned = canned.LinearRegressor

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
        epochs=DEFAULT_EPOCHS,
        batch_size=DEFAULT_BATCH_SIZE,
    ):
        self._keep(locals())


@_document
class DNNClassifier(_Classifier):
    _canned = canned.DNNClassifier

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn="relu",
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        epochs=DEFAULT_EPOCHS,
        batch_size=DEFAULT_BATCH_SIZE,
    ):
        self._keep(locals())


@_document
class DNNRegressor(_Regressor):
    _canned = canned.DNNRegressor

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn="relu",
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        epochs=DEFAULT_EPOCHS,
        batch_size=DEFAULT_BATCH_SIZE,
    ):
        self._keep(locals())


@_document
class DNNLinearCombinedClassifier(_Classifier):
    _canned = canned.DNNLinearCombinedClassifier

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn="relu",
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
        epochs=DEFAULT_EPOCHS,
        batch_size=DEFAULT_BATCH_SIZE,
    ):
        self._keep(locals())


@_document
class DNNLinearCombinedRegressor(_Regressor):
    _canned = canned.DNNLinearCombinedRegressor

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn="relu",
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
        epochs=DEFAULT_EPOCHS,
        batch_size=DEFAULT_BATCH_SIZE,
    ):
        self._keep(locals())


_TABULAR_DOC = """{name} as a scikit-learn estimator (see :mod:`colonnade.sklearn`).

    Arguments: those of :class:`colonnade.estimators.{name}` but ``label`` (``fit`` takes
    ``y`` instead), with the same defaults and meaning: ``model_dir``, ``seed``,
    ``columns``, ``verbose``. Each ``fit`` infers the feature columns (unless
    ``columns`` is given), holds out a seeded validation split and stops early, as
    :class:`colonnade.estimators.{name}` does. After ``fit``: ``estimator_`` (the
    fitted :class:`colonnade.estimators.{name}`) and ``columns_`` (its
    :class:`~colonnade.feature_columns.infer.ColumnPlan`).
    """


class TabularClassifier(_TabularTrain, _Classifier):
    __doc__ = _TABULAR_DOC.format(name="TabularClassifier")
    _canned = tabular.TabularClassifier
    # The classes are always y's own (sorted), as when a canned adapter has neither.
    label_vocabulary = None
    n_classes = 2

    def __init__(self, model_dir=None, seed=None, columns=None, verbose=0):
        self._keep(locals())


class TabularRegressor(_TabularTrain, _Regressor):
    __doc__ = _TABULAR_DOC.format(name="TabularRegressor")
    _canned = tabular.TabularRegressor

    def __init__(self, model_dir=None, seed=None, columns=None, verbose=0):
        self._keep(locals())
