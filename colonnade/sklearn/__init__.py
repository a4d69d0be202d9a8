"""The six canned estimators and the zero-configuration ``TabularClassifier`` and
``TabularRegressor`` as scikit-learn estimators: ``clone``, ``Pipeline``,
``cross_val_score``, ``GridSearchCV``, ``pickle`` and ``joblib`` work with them, and they
pass scikit-learn's estimator checks (:func:`expected_failed_checks` lists the few they
do not, and why).

Each canned adapter takes the constructor arguments of the canned estimator of the same
name in :mod:`colonnade.estimators` (see its docstring for what they mean), plus the
learning rate(s), ``epochs``, ``batch_size``, ``random_state`` and ``verbose``.
``TabularClassifier`` and ``TabularRegressor`` take those of
:class:`colonnade.estimators.TabularClassifier` but ``label`` (``y`` becomes the label
column) and pick their own epochs and batch size. As scikit-learn asks, ``__init__``
only stores its arguments; each ``fit(X, y)`` builds a new colonnade estimator from
``get_params()`` (kept as ``estimator_``) and trains it from scratch:

- ``model_dir=None`` (the default) trains each fit in a new temporary directory, removed
  when the scikit-learn estimator is refit or garbage collected; so clones, folds and
  refits never resume from one another's checkpoints.
- a ``model_dir`` given gets a new sub-directory per fit (``model_dir/fit-<random>``, kept;
  ``model_dir_`` says which): a scikit-learn ``fit`` starts over, it never resumes.

``X`` is what scikit-learn's ``check_array`` takes (an array, memmap, list of rows or
DataFrame) or an Arrow table; an unnamed ``X``'s columns are ``x0``, ``x1``, ... (or
``feature_names_in_``'s names when fitted on a DataFrame): see
:mod:`colonnade.sklearn.inputs`. With ``feature_columns=None`` (the default) each fit
builds the columns from ``X``: standardized numeric columns for numeric ``X``,
colonnade's zero-configuration rules otherwise. ``y`` is an array, list or Series, one
label per row. Classifiers predict the labels themselves: ``classes_`` is
``label_vocabulary`` when given, otherwise the sorted distinct values of ``y`` (as every
scikit-learn classifier; ``n_classes`` then follows them). Regressors predict an
``(n,)`` array, ``(n, label_dimension)`` for ``label_dimension > 1``.

The adapters' defaults are their own, not TF's (the canned estimators keep TF's): TF's
DNN default (Adagrad at 0.001) and one epoch leave a model at the majority class on
small tables. Measured by ``benchmarks/sklearn_defaults.py`` (3-fold cross-validation,
random_state=0; R² on scikit-learn's diabetes data, accuracy on its breast cancer data,
R² on the regression set of its estimator checks, accuracy on 3,000 census rows with
five deep columns (the wide&deep tour's), where the majority class scores 0.76):

=============================  ========  ======  =======  ======  =======
setting (default: 10 epochs)   diabetes  cancer  checks   census  seconds
=============================  ========  ======  =======  ======  =======
linear: Ftrl 0.2 (default)     0.472     0.975   0.778    0.829   71
linear: Ftrl 0.2, 5 epochs     0.424     0.979   0.734    0.824   28
linear: Ftrl 0.05              0.485     0.979   0.609    0.787   71
linear: Ftrl 0.01              0.413     0.947   0.169    0.774   59
linear: Adam 0.01, 5 epochs    0.485     0.974   0.301    0.826   27
DNN: Adagrad 0.05 (default)    0.458     0.972   0.713    0.821   35
DNN: Adagrad 0.05, 20 epochs   0.420     0.972   0.683    0.821   53
DNN: Adagrad 0.001 (TF 2's)    0.192     0.596   -0.184   0.774   42
DNN: Adagrad 0.01              0.492     0.956   0.640    0.816   45
DNN: Adam 0.001                0.494     0.968   0.565    0.822   43
DNN: Adam 0.01                 0.435     0.974   0.698    0.813   53
DNN: Adam 0.01, 5 epochs       0.485     0.965   0.699    0.819   22
=============================  ========  ======  =======  ======  =======

(seconds: the four cross-validations together, on 2 busy cores.) Ftrl at 0.2 and
Adagrad at 0.05 are the best or near it on every set; TF 2's DNN default does not
learn the breast cancer data in ten epochs. Regressors also train on ``y`` standardized
(per column) and fold the scale into the output layer afterwards, as
``TabularRegressor`` does, so these learning rates suit targets in any unit.

A pickled fitted adapter carries its model as the bytes of its export (see
:mod:`colonnade.sklearn.adapters`): the export format stays pickle-free. A pickle runs
code when loaded, so load adapter pickles only from sources you trust; to share a model
safely, send ``clf.estimator_.export_saved_model(folder)``'s export, which ``cn.load``
reads without unpickling.

scikit-learn is needed (``pip install scikit-learn``); the rest of colonnade does not
depend on it.

>>> from colonnade.sklearn import LinearClassifier
>>> X = [[0.0], [1.0], [2.0], [3.0]]
>>> clf = LinearClassifier(epochs=30, random_state=0)
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

from ..estimators.canned import estimators as canned
from ..estimators.tabular import models as tabular
from .adapters import Classifier, Regressor, TabularTrain, adapter_init
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

# The adapters' defaults, chosen for scikit-learn users by benchmarks/sklearn_defaults.py
# (the module docstring gives the measurements); the canned estimators keep TF's.
# Ten passes over the data: enough on a few hundred rows, where one pass is 10-20 steps.
EPOCHS = 10
BATCH_SIZE = 32
# Ftrl at 0.2: what TF gives the name "Ftrl", and the best linear setting measured.
LINEAR_OPTIMIZER = "Ftrl"
LINEAR_LEARNING_RATE = 0.2
# Adagrad at 0.05 (TF 1's DNN default): TF 2's 0.001 barely moves in ten epochs.
DNN_OPTIMIZER = "Adagrad"
DNN_LEARNING_RATE = 0.05
HIDDEN_UNITS = (64, 32)
# What every canned adapter adds to its canned estimator's arguments, after them.
_FIT_ARGUMENTS = {"epochs": EPOCHS, "batch_size": BATCH_SIZE, "random_state": None, "verbose": 0}
# Per kind of canned estimator: the defaults the adapters change, their learning rates
# ({argument: (the optimizer argument it is for, default)}), and which columns built
# from X each feature-column argument gets (0: the wide ones, 1: the deep ones).
_LINEAR = (
    {"feature_columns": None, "optimizer": LINEAR_OPTIMIZER},
    {"learning_rate": ("optimizer", LINEAR_LEARNING_RATE)},
    {"feature_columns": 0},
)
_DNN = (
    {"hidden_units": HIDDEN_UNITS, "feature_columns": None, "optimizer": DNN_OPTIMIZER},
    {"learning_rate": ("optimizer", DNN_LEARNING_RATE)},
    {"feature_columns": 1},
)
_COMBINED = (
    {
        "linear_optimizer": LINEAR_OPTIMIZER,
        "dnn_optimizer": DNN_OPTIMIZER,
        "dnn_hidden_units": HIDDEN_UNITS,
    },
    {
        "linear_learning_rate": ("linear_optimizer", LINEAR_LEARNING_RATE),
        "dnn_learning_rate": ("dnn_optimizer", DNN_LEARNING_RATE),
    },
    {"linear_feature_columns": 0, "dnn_feature_columns": 1},
)


def _adapter(base, canned_class, defaults: dict, rates: dict, columns: dict):
    """The adapter of ``canned_class``: ``base`` (:class:`Classifier` or
    :class:`Regressor`) whose ``__init__`` takes the canned estimator's arguments
    (``defaults`` replacing some of their defaults), then the learning rates and
    :data:`_FIT_ARGUMENTS`; its docstring made by :func:`document`."""
    added = {name: default for name, (_, default) in rates.items()} | _FIT_ARGUMENTS
    attributes = {
        "_canned": canned_class,
        "_column_arguments": columns,
        "_rate_arguments": {name: optimizer for name, (optimizer, _) in rates.items()},
        "__init__": adapter_init(canned_class, defaults, added),
        "__module__": __name__,
        "__qualname__": canned_class.__name__,
    }
    return document(type(canned_class.__name__, (base,), attributes))


LinearClassifier = _adapter(Classifier, canned.LinearClassifier, *_LINEAR)
LinearRegressor = _adapter(Regressor, canned.LinearRegressor, *_LINEAR)
DNNClassifier = _adapter(Classifier, canned.DNNClassifier, *_DNN)
DNNRegressor = _adapter(Regressor, canned.DNNRegressor, *_DNN)
DNNLinearCombinedClassifier = _adapter(Classifier, canned.DNNLinearCombinedClassifier, *_COMBINED)
DNNLinearCombinedRegressor = _adapter(Regressor, canned.DNNLinearCombinedRegressor, *_COMBINED)


_TABULAR_DOC = """{name} as a scikit-learn estimator (see :mod:`colonnade.sklearn`).

    Arguments: those of :class:`colonnade.estimators.{name}` but ``label`` (``fit`` takes
    ``y`` instead), with the same defaults and meaning: ``model_dir``, ``seed``,
    ``columns``, ``verbose``, ``members``. Each ``fit`` infers the feature columns (unless
    ``columns`` is given), holds out a seeded validation split and stops early, as
    :class:`colonnade.estimators.{name}` does (the columns inferred for the adapter's
    task: a classifier's ``y`` is always classes). After ``fit``: ``estimator_`` (the
    fitted :class:`colonnade.estimators.{name}`; after unpickling, its loaded export)
    and ``columns_`` (its :class:`~colonnade.feature_columns.infer.ColumnPlan`).

    Pickles run code when loaded: load only pickles you trust, and share a model as its
    pickle-free export (``estimator_.export_saved_model(folder)``, read by ``cn.load``).
    """


class TabularClassifier(TabularTrain, Classifier):
    __doc__ = _TABULAR_DOC.format(name="TabularClassifier")
    _canned = tabular.TabularClassifier
    # The classes are always y's own (sorted), as when a canned adapter has neither.
    label_vocabulary = None
    n_classes = 2

    def __init__(self, model_dir=None, seed=None, columns=None, verbose=0, members=None):
        self._keep(locals())


class TabularRegressor(TabularTrain, Regressor):
    __doc__ = _TABULAR_DOC.format(name="TabularRegressor")
    _canned = tabular.TabularRegressor

    def __init__(self, model_dir=None, seed=None, columns=None, verbose=0, members=None):
        self._keep(locals())


# The scikit-learn estimator checks an adapter does not pass, and why.
_ROW_ORDER = (
    "float32 arithmetic: a row's prediction can change in its last bit (about 1e-7 "
    "relative) with the other rows of its batch, as BLAS blocks a matrix product by the "
    "batch's shape; the check asks for rtol=1e-7"
)
_FLOAT32_ROWS = {
    "check_methods_sample_order_invariance": _ROW_ORDER,
    "check_methods_subset_invariance": _ROW_ORDER,
}
_EXPECTED_FAILED_CHECKS = {
    "DNNClassifier": _FLOAT32_ROWS,
    "DNNRegressor": _FLOAT32_ROWS,
    "DNNLinearCombinedClassifier": _FLOAT32_ROWS,
    "DNNLinearCombinedRegressor": _FLOAT32_ROWS,
    "TabularClassifier": _FLOAT32_ROWS,
    "TabularRegressor": _FLOAT32_ROWS,
}


def expected_failed_checks(estimator) -> dict:
    """The scikit-learn estimator checks ``estimator`` (an adapter) is known not to pass,
    ``{check name: reason}``: the ``expected_failed_checks`` argument of scikit-learn's
    ``parametrize_with_checks`` and ``check_estimator``.

    >>> sorted(expected_failed_checks(DNNRegressor()))
    ['check_methods_sample_order_invariance', 'check_methods_subset_invariance']
    """
    return dict(_EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))
