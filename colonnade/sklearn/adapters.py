"""What the adapters share: fit a new colonnade estimator from ``get_params()``, predict
labels or values, check inputs as scikit-learn does, and pickle through an export.

Pickling a fitted adapter (``pickle``, ``joblib``, ``copy.deepcopy``) carries the fitted
model as the bytes of its export (``export_saved_model``: a declarative spec and the
weights, no pickle inside) and loads it back with ``cn.load`` on unpickling, so the
predictions are the same; ``estimator_`` is then the loaded
:class:`~colonnade.estimators.Predictor` (it predicts; refit to train again). The export's
files are written only inside the adapter's own temporary folder: a state naming ``../``
or an absolute path is refused with a ``ValueError``.

Unpickling runs whatever code the pickle names (that is how ``pickle`` works, for every
object), so **load adapter pickles only from sources you trust**. To share a model with
someone who should not have to trust you, send its export instead:
``clf.estimator_.export_saved_model(folder)`` writes a declarative spec and the weights,
read back with ``cn.load(path)`` without unpickling anything.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
import warnings
import weakref

import numpy as np
import pyarrow as pa
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..estimators import Predictor, RunConfig
from ..estimators.loading import load
from ..estimators.tabular.best_epoch import fold_label_scale
from ..feature_columns import infer
from .inputs import build_columns, checked_classes, checked_targets, tabular_input

__all__ = ["Adapter", "Classifier", "Regressor", "TabularTrain", "adapter_init"]

# The largest seed drawn for random_state=None or a RandomState (RunConfig takes ints).
_MAX_SEED = 2**31 - 1
# The state key holding a fitted adapter's export: {relative path: bytes}.
_EXPORT_STATE = "_export_files"


def _remove_dir(path):
    shutil.rmtree(path, ignore_errors=True)


def _read_tree(root: str) -> dict:
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def _inside_path(root: str, relative) -> str:
    """``root/relative`` for a pickled state's file name, refused (``ValueError`` naming
    it) unless it is a plain relative path that stays inside ``root``: no absolute path,
    drive, ``..``, empty or ``.`` part, no NUL. A pickle may have been altered; nothing it
    names is written outside the adapter's own temporary folder."""
    if not isinstance(relative, str):
        raise ValueError(
            f"unpickling an adapter: its export lists a file name of type "
            f"{type(relative).__name__} ({relative!r}); expected a relative path"
        )
    parts = relative.replace("\\", "/").split("/")
    bad = (
        not relative
        or "\0" in relative
        or os.path.isabs(relative)
        or os.path.splitdrive(relative)[0]
        or any(part in ("", ".", "..") for part in parts)
    )
    path = os.path.join(root, *parts)
    real_root = os.path.realpath(root)
    if bad or os.path.commonpath([os.path.realpath(path), real_root]) != real_root:
        raise ValueError(
            f"unpickling an adapter: its export lists the file {relative!r}, which is not a "
            "plain relative path inside the export; nothing is written outside the "
            "adapter's temporary folder (was the pickle altered? load only pickles you trust)"
        )
    return path


def _write_tree(root: str, files: dict) -> None:
    """Write a pickled export's ``{relative path: bytes}`` below ``root`` (a fresh temporary
    folder): every name is checked first (:func:`_inside_path`), then each file is
    created new, never through a link."""
    if not isinstance(files, dict):
        raise ValueError(
            f"unpickling an adapter: its export is a {type(files).__name__}, expected a dict "
            "of {relative path: bytes}"
        )
    paths = {}
    for relative, data in files.items():
        paths[relative] = _inside_path(root, relative)
        if not isinstance(data, (bytes, bytearray)):
            raise ValueError(
                f"unpickling an adapter: its export's file {relative!r} holds a "
                f"{type(data).__name__}, expected bytes"
            )
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for relative, path in paths.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _inside_path(root, relative)  # a folder just made is a folder, not a link
        with os.fdopen(os.open(path, flags, 0o600), "wb") as f:
            f.write(files[relative])


def export_files(estimator) -> dict:
    """The files of ``estimator``'s export, ``{relative path: bytes}``: a fitted colonnade
    estimator is exported to a temporary directory, a loaded one read from its own."""
    if not hasattr(estimator, "export_saved_model"):
        return _read_tree(estimator.path)
    with tempfile.TemporaryDirectory(prefix="colonnade_sklearn_pickle_") as base:
        return _read_tree(estimator.export_saved_model(base))


def adapter_init(canned_class, defaults: dict, added: dict):
    """An ``__init__`` taking ``canned_class``'s constructor arguments, in its order, with
    ``defaults`` replacing some of their defaults, then the ``added`` arguments
    (``{name: default}``); it only stores each argument under its own name, all a
    scikit-learn ``__init__`` may do. Its ``__signature__`` is what ``get_params``,
    ``clone`` and ``help`` read: the canned arguments stay in step by construction."""
    canned = inspect.signature(canned_class.__init__)
    parameters = [
        p.replace(default=defaults.get(name, p.default)) if name in defaults else p
        for name, p in canned.parameters.items()
    ]
    parameters += [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)
        for name, default in added.items()
    ]
    signature = canned.replace(parameters=parameters, return_annotation=None)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature
    __init__.__qualname__ = f"{canned_class.__name__}.__init__"
    return __init__


class Adapter(BaseEstimator):
    """The base of the adapters: build the colonnade estimator, fit, predict frames."""

    _canned = None  # the colonnade estimator class, set by each adapter
    # Constructor arguments that are feature columns, and which of the columns built
    # from X (0: the wide/linear ones, 1: the deep ones) each gets when all are None.
    _column_arguments: dict = {}
    # Constructor arguments that are learning rates, and the optimizer each is for.
    _rate_arguments: dict = {}

    def _keep(self, arguments: dict) -> None:
        """Store each ``__init__`` argument unchanged under its own name: all a scikit-learn
        ``__init__`` may do (``get_params`` reads them back by the signature's names)."""
        for name, value in arguments.items():
            if name != "self":
                setattr(self, name, value)

    # ---------------------------------------------------------------- fit

    def _fresh_model_dir(self, params):
        """A new directory for this fit, and ``params`` set to use it (see the package)."""
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
        return path

    def _seed(self) -> int:
        """The run's seed: ``random_state`` (an int as is; a RandomState or None draws
        one from it or numpy's global state), unless None with a config that has one."""
        config = getattr(self, "config", None)
        if self.random_state is None and config is not None:
            if config.tf_random_seed is not None:
                return config.tf_random_seed
        if isinstance(self.random_state, (int, np.integer)):
            return int(self.random_state)
        return int(check_random_state(self.random_state).randint(_MAX_SEED))

    def _fit_table(self, table: pa.Table, label, task: str):
        """Train a new colonnade estimator on ``table`` and the encoded ``label``."""
        params = self.get_params(deep=False)
        for name in ("epochs", "batch_size", "random_state", "verbose", *self._rate_arguments):
            params.pop(name)
        self.model_dir_ = self._fresh_model_dir(params)
        seed = self._seed()
        config = params.get("config") or RunConfig(log_step_count_steps=0)
        params["config"] = config.replace(model_dir=self.model_dir_, tf_random_seed=seed)
        for rate_name, optimizer_name in self._rate_arguments.items():
            params[optimizer_name] = self._named_rate(params[optimizer_name], rate_name)
        given = [params[name] for name in self._column_arguments]
        if all(columns is None for columns in given):
            built = build_columns(table, label, task, seed)
            for name, which in self._column_arguments.items():
                params[name] = built[which] if self._wants_columns(which) else None
        for name in self._column_arguments:
            setattr(self, name + "_", params[name])
        params.update(self._canned_overrides())
        self.estimator_ = self._canned(**params)
        self._train(table, label, seed)
        return self

    def _train(self, table: pa.Table, label, seed: int) -> None:
        self.estimator_.fit(
            table,
            label=label,
            epochs=self.epochs,
            batch_size=self.batch_size,
            seed=seed,
            verbose=self.verbose,
        )

    def _wants_columns(self, which: int) -> bool:
        """Whether the columns built from X of kind ``which`` are used (wide&deep without
        ``dnn_hidden_units`` is linear only)."""
        return which == 0 or getattr(self, "dnn_hidden_units", True) is not None

    def _named_rate(self, optimizer, rate_name: str):
        """``optimizer`` with the adapter's learning rate when given by name."""
        rate = getattr(self, rate_name)
        if rate is None:
            return optimizer
        if isinstance(optimizer, str):
            return {"name": optimizer, "learning_rate": rate}
        if isinstance(optimizer, dict) and "learning_rate" not in optimizer:
            return {**optimizer, "learning_rate": rate}
        return optimizer

    def _canned_overrides(self) -> dict:
        return {}

    # ---------------------------------------------------------------- predict

    def _predictions(self, X, key) -> np.ndarray:
        """The ``(n, k)`` array of prediction ``key`` (its one or ``key_i`` columns)."""
        check_is_fitted(self, "estimator_")
        table = tabular_input(self, X, reset=False)
        quiet = {} if isinstance(self.estimator_, Predictor) else {"verbose": 0}
        frame = self.estimator_.predict(table, predict_keys=[key], **quiet)
        columns = [key] if key in frame.columns else [c for c in frame.columns if c != key]
        return frame[columns].to_numpy()

    # ---------------------------------------------------------------- pickle

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: object.__getstate__ gives __dict__
        state.pop("_own_tmp_dir", None)  # a finalizer does not pickle
        estimator = state.pop("estimator_", None)
        if estimator is not None:
            state[_EXPORT_STATE] = export_files(estimator)
        return state

    def __setstate__(self, state):
        files = state.pop(_EXPORT_STATE, None)
        super().__setstate__(state)
        if files is not None:
            path = tempfile.mkdtemp(prefix="colonnade_sklearn_unpickled_")
            self._own_tmp_dir = weakref.finalize(self, _remove_dir, path)
            _write_tree(path, files)
            self.estimator_ = load(path)


class Classifier(ClassifierMixin, Adapter):
    """The classifiers' ``fit``, ``predict`` and ``predict_proba``."""

    def fit(self, X, y):
        """Train a new classifier on ``X`` (see the package) and labels ``y``; returns
        self."""
        table = tabular_input(self, X, reset=True)
        y = checked_classes(self, y, table.num_rows)
        if self.label_vocabulary is not None:
            self.classes_ = np.asarray(list(self.label_vocabulary))
            label = y.astype(str)
        else:
            self.classes_ = np.unique(y)
            if len(self.classes_) < 2:
                raise ValueError(
                    f"y has 1 class ({self.classes_.tolist()}); a classifier needs at least 2"
                )
            if self.n_classes not in (2, len(self.classes_)):
                warnings.warn(
                    f"n_classes={self.n_classes} is ignored: y has {len(self.classes_)} "
                    "classes (pass label_vocabulary to fix the classes up front)",
                    UserWarning,
                    stacklevel=2,
                )
            label = np.searchsorted(self.classes_, y)
        task = "binary" if len(self.classes_) == 2 else "multiclass"
        return self._fit_table(table, label, task)

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


class Regressor(RegressorMixin, Adapter):
    """The regressors' ``fit`` and ``predict``."""

    def fit(self, X, y):
        """Train a new regressor on ``X`` (see the package) and targets ``y`` (shape
        ``(n,)``, or ``(n, label_dimension)``); returns self."""
        table = tabular_input(self, X, reset=True)
        dimension = getattr(self, "label_dimension", 1)
        y = checked_targets(self, y, table.num_rows, dimension)
        return self._fit_table(table, y, "regression")

    def _train(self, table: pa.Table, label, seed: int) -> None:
        """Train on the targets standardized (per column), so that one learning rate
        suits targets of any unit, then fold the scale into the output layer: the model,
        its checkpoint and its exports predict in ``y``'s units."""
        mean = label.mean(axis=0, dtype=np.float64)
        std = label.std(axis=0, dtype=np.float64)
        std = np.where(std > 0, std, 1.0)
        super()._train(table, ((label - mean) / std).astype(np.float32), seed)
        fold_label_scale(self.estimator_, mean, std)
        # the newest checkpoint holds the folded weights
        self.estimator_.train_state.save_replacing_this_step()

    def predict(self, X) -> np.ndarray:
        """Predicted values: ``(n,)``, or ``(n, label_dimension)`` when that is above 1."""
        values = self._predictions(X, "predictions").astype(np.float64)
        return values[:, 0] if values.shape[1] == 1 else values


class TabularTrain:
    """``_fit_table`` for the zero-configuration models: ``y`` becomes a label column,
    the columns are inferred for the adapter's task (unless ``columns`` is given), and
    the model picks its training settings itself."""

    def _fit_table(self, table: pa.Table, label, task: str):
        if table.num_rows < 2:
            raise ValueError(
                f"{type(self).__name__} infers its columns and holds out rows from the "
                f"data: it needs at least 2 rows; got {table.num_rows} sample"
            )
        params = self.get_params(deep=False)
        self.model_dir_ = self._fresh_model_dir(params)
        name = "label"
        while name in table.column_names:
            name = "_" + name
        data = table.append_column(name, pa.array(label))
        if params["columns"] is None:
            seed = 0 if self.seed is None else int(self.seed)
            params["columns"] = infer(data, name, task=task, seed=seed)
        self.estimator_ = self._canned(name, **params).fit(data)
        self.columns_ = self.estimator_.columns_
        return self
