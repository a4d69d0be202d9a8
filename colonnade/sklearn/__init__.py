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

try:
    import sklearn  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised without scikit-learn only
    raise ImportError(
        "colonnade.sklearn needs scikit-learn, which is not installed: "
        "pip install scikit-learn (colonnade.estimators works without it)",
        name="sklearn",
    ) from err

from .. import core
from ..estimators import canned, tabular
from .adapters import Classifier, Regressor, TabularTrain
from .documentation import document

__all__ = [
    "expected_failed_checks",
    "DNNClassifier",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearRegressor",
    "TabularClassifier",
    "TabularRegressor",
]

# The adapters' defaults, chosen for scikit-learn users (see the module docstring for the
# measurements); the canned estimators keep TF's.
EPOCHS = 10
BATCH_SIZE = 32
LINEAR_OPTIMIZER = "Adam"
LINEAR_LEARNING_RATE = 0.01
DNN_OPTIMIZER = "Adam"
DNN_LEARNING_RATE = 0.001
HIDDEN_UNITS = (64, 32)
_SUM_OVER_BATCH_SIZE = core.Reduction.SUM_OVER_BATCH_SIZE


@document
class LinearClassifier(Classifier):
    _canned = canned.LinearClassifier
    _column_arguments = {"feature_columns": 0}
    _rate_arguments = {"learning_rate": "optimizer"}

    def __init__(
        self,
        feature_columns=None,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer=LINEAR_OPTIMIZER,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
        learning_rate=LINEAR_LEARNING_RATE,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        random_state=None,
        verbose=0,
    ):
        self._keep(locals())


@document
class LinearRegressor(Regressor):
    _canned = canned.LinearRegressor
    _column_arguments = {"feature_columns": 0}
    _rate_arguments = {"learning_rate": "optimizer"}

    def __init__(
        self,
        feature_columns=None,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer=LINEAR_OPTIMIZER,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
        learning_rate=LINEAR_LEARNING_RATE,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        random_state=None,
        verbose=0,
    ):
        self._keep(locals())


@document
class DNNClassifier(Classifier):
    _canned = canned.DNNClassifier
    _column_arguments = {"feature_columns": 1}
    _rate_arguments = {"learning_rate": "optimizer"}

    def __init__(
        self,
        hidden_units=HIDDEN_UNITS,
        feature_columns=None,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer=DNN_OPTIMIZER,
        activation_fn="relu",
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        learning_rate=DNN_LEARNING_RATE,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        random_state=None,
        verbose=0,
    ):
        self._keep(locals())


@document
class DNNRegressor(Regressor):
    _canned = canned.DNNRegressor
    _column_arguments = {"feature_columns": 1}
    _rate_arguments = {"learning_rate": "optimizer"}

    def __init__(
        self,
        hidden_units=HIDDEN_UNITS,
        feature_columns=None,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer=DNN_OPTIMIZER,
        activation_fn="relu",
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        learning_rate=DNN_LEARNING_RATE,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        random_state=None,
        verbose=0,
    ):
        self._keep(locals())


@document
class DNNLinearCombinedClassifier(Classifier):
    _canned = canned.DNNLinearCombinedClassifier
    _column_arguments = {"linear_feature_columns": 0, "dnn_feature_columns": 1}
    _rate_arguments = {
        "linear_learning_rate": "linear_optimizer",
        "dnn_learning_rate": "dnn_optimizer",
    }

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer=LINEAR_OPTIMIZER,
        dnn_feature_columns=None,
        dnn_optimizer=DNN_OPTIMIZER,
        dnn_hidden_units=HIDDEN_UNITS,
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
        linear_learning_rate=LINEAR_LEARNING_RATE,
        dnn_learning_rate=DNN_LEARNING_RATE,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        random_state=None,
        verbose=0,
    ):
        self._keep(locals())


@document
class DNNLinearCombinedRegressor(Regressor):
    _canned = canned.DNNLinearCombinedRegressor
    _column_arguments = {"linear_feature_columns": 0, "dnn_feature_columns": 1}
    _rate_arguments = {
        "linear_learning_rate": "linear_optimizer",
        "dnn_learning_rate": "dnn_optimizer",
    }

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer=LINEAR_OPTIMIZER,
        dnn_feature_columns=None,
        dnn_optimizer=DNN_OPTIMIZER,
        dnn_hidden_units=HIDDEN_UNITS,
        dnn_activation_fn="relu",
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        config=None,
        warm_start_from=None,
        loss_reduction=_SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
        linear_learning_rate=LINEAR_LEARNING_RATE,
        dnn_learning_rate=DNN_LEARNING_RATE,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        random_state=None,
        verbose=0,
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


class TabularClassifier(TabularTrain, Classifier):
    __doc__ = _TABULAR_DOC.format(name="TabularClassifier")
    _canned = tabular.TabularClassifier
    # The classes are always y's own (sorted), as when a canned adapter has neither.
    label_vocabulary = None
    n_classes = 2

    def __init__(self, model_dir=None, seed=None, columns=None, verbose=0):
        self._keep(locals())


class TabularRegressor(TabularTrain, Regressor):
    __doc__ = _TABULAR_DOC.format(name="TabularRegressor")
    _canned = tabular.TabularRegressor

    def __init__(self, model_dir=None, seed=None, columns=None, verbose=0):
        self._keep(locals())


# The scikit-learn estimator checks an adapter does not pass, and why.
_ROW_ORDER = (
    "float32 arithmetic: a row's prediction can change in its last bits (about 1e-7 "
    "relative) with the other rows of its batch, as BLAS blocks a matrix product by the "
    "batch's shape; the check asks for rtol=1e-7"
)
_EXPECTED_FAILED_CHECKS = {
    "DNNClassifier": {"check_methods_sample_order_invariance": _ROW_ORDER},
    "DNNRegressor": {"check_methods_sample_order_invariance": _ROW_ORDER},
    "DNNLinearCombinedClassifier": {"check_methods_sample_order_invariance": _ROW_ORDER},
    "DNNLinearCombinedRegressor": {"check_methods_sample_order_invariance": _ROW_ORDER},
    "TabularClassifier": {"check_methods_sample_order_invariance": _ROW_ORDER},
    "TabularRegressor": {"check_methods_sample_order_invariance": _ROW_ORDER},
}


def expected_failed_checks(estimator) -> dict:
    """The scikit-learn estimator checks ``estimator`` (an adapter) is known not to pass,
    ``{check name: reason}``: the ``expected_failed_checks`` argument of scikit-learn's
    ``parametrize_with_checks`` and ``check_estimator``.

    >>> list(expected_failed_checks(DNNRegressor()))
    ['check_methods_sample_order_invariance']
    """
    return dict(_EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))
