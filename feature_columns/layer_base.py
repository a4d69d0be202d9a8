"""What the feature-column layers share (:mod:`.layers`' ``DenseFeatures`` and
``SequenceFeatures``, :mod:`.linear_layer`'s ``LinearModel``): their columns sorted by name
and validated, and their variables created when the layer is constructed (every shape is
known from the columns), named as TensorFlow does, initialized or loaded from a column's
``ckpt_to_load_from``.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> layer = fc.DenseFeatures([fc.numeric_column("b"), fc.numeric_column("a")])
>>> [c.name for c in layer.feature_columns]
['a', 'b']
"""

from __future__ import annotations

import collections
import os

import numpy as np

from ..core.backend import DEFAULT_DTYPE, to_host
from ..core.checkpoint_format import load_variable
from ..core.fused import trained_variable
from ..core.variables import Variable
from .base import FeatureColumn, VariableSpec
from .named_initializers import call_initializer
from .transform_cache import TransformCache, transforms_of

__all__ = ["FeatureLayer", "planned_columns"]


def planned_columns(feature_columns) -> list:
    """The feature columns of a layer's ``feature_columns`` argument, for planning its
    variables before it is made: a list or tuple's columns (anything else in it is left
    to the layer's own checks), a lone column, or nothing."""
    if isinstance(feature_columns, FeatureColumn):
        return [feature_columns]
    if isinstance(feature_columns, (list, tuple)):
        return [c for c in feature_columns if isinstance(c, FeatureColumn)]
    return []


def _exists(checkpoint: str) -> bool:
    """Whether a checkpoint (a directory, or a TF prefix with its ``.index``) is there."""
    return os.path.exists(checkpoint) or os.path.exists(f"{checkpoint}.index")


def _load_from_checkpoint(spec: VariableSpec, layer: str):
    """The initial value of ``spec`` read from its checkpoint."""
    where = f"{layer}/{spec.name}"
    try:
        value = load_variable(spec.ckpt_to_load_from, spec.tensor_name_in_ckpt)
    except Exception as e:
        raise ValueError(
            f"variable {where!r}: cannot load {spec.tensor_name_in_ckpt!r} from checkpoint "
            f"{spec.ckpt_to_load_from!r}: {e}"
        ) from e
    value = np.asarray(to_host(value))
    if tuple(value.shape) != tuple(spec.shape):
        raise ValueError(
            f"variable {where!r} has shape {tuple(spec.shape)} but {spec.tensor_name_in_ckpt!r} "
            f"in checkpoint {spec.ckpt_to_load_from!r} has shape {tuple(value.shape)}"
        )
    return value.astype(DEFAULT_DTYPE, copy=False)


class FeatureLayer:
    """What the layers share: sorted, validated columns and named variables."""

    def __init__(self, feature_columns, name: str, trainable: bool, seed):
        if isinstance(feature_columns, FeatureColumn):
            feature_columns = [feature_columns]
        if isinstance(feature_columns, dict):
            raise ValueError(
                "Expected feature_columns to be iterable, found dict. Give "
                f"{type(self).__name__} a list of feature columns"
            )
        if isinstance(feature_columns, str):
            raise ValueError(
                f"Items of feature_columns must be a FeatureColumn; {type(self).__name__} got "
                f"the string {feature_columns!r}"
            )
        columns = list(feature_columns)
        if not columns:
            raise ValueError(
                f"feature_columns must not be empty: {type(self).__name__} needs a column"
            )
        for c in columns:
            if not isinstance(c, FeatureColumn):
                raise ValueError(
                    f"Items of feature_columns must be a FeatureColumn; {type(self).__name__} "
                    f"got {type(c).__name__}: {c!r}"
                )
        names = [c.name for c in columns]
        dup = sorted(n for n, k in collections.Counter(names).items() if k > 1)
        if dup:
            raise ValueError(
                f"Duplicate feature column name found for columns: {dup} in "
                f"{type(self).__name__}; each column of a layer needs its own name"
            )
        self.name = name
        self.trainable = bool(trainable)
        self.feature_columns = sorted(columns, key=lambda c: c.name)
        self._rng = np.random.default_rng(seed)
        self._variables: dict = {}
        self._specs: dict = {}
        self._fused: list = []  # FusedColumns: columns whose tables are rows of one table
        self._unloaded: dict = {}  # variable name -> error: its ckpt_to_load_from is gone

    def _add_variable(self, spec: VariableSpec) -> Variable:
        known = self._specs.get(spec.name)
        if known is not None:
            if known != spec:
                raise ValueError(
                    f"two columns of {self.name!r} define variable {spec.name!r} differently: "
                    f"{known} and {spec}"
                )
            return self._variables[spec.name]
        if spec.ckpt_to_load_from is not None and not _exists(spec.ckpt_to_load_from):
            # Fatal only if no checkpoint of the model restores the variable first.
            value = np.zeros(tuple(spec.shape), DEFAULT_DTYPE)
            self._unloaded[spec.name] = FileNotFoundError(
                f"variable '{self.name}/{spec.name}': its ckpt_to_load_from "
                f"{spec.ckpt_to_load_from!r} does not exist, and no checkpoint of the model "
                "was restored in its place"
            )
        elif spec.ckpt_to_load_from is not None:
            value = _load_from_checkpoint(spec, self.name)
        else:
            value = call_initializer(spec.initializer, tuple(spec.shape), DEFAULT_DTYPE, self._rng)
            got = tuple(np.shape(value))
            if got != tuple(spec.shape):
                raise ValueError(
                    f"the initializer of variable '{self.name}/{spec.name}' returned shape {got}; "
                    f"expected {tuple(spec.shape)}"
                )
        var = Variable(
            value, name=f"{self.name}/{spec.name}", trainable=spec.trainable and self.trainable
        )
        self._specs[spec.name] = spec
        self._variables[spec.name] = var
        return var

    @property
    def variables(self) -> list:
        """Every variable of the layer: one per column as TensorFlow names them (what
        checkpoints hold), in creation order, then the fused tables that hold some of
        them as their rows (see :mod:`colonnade.feature_columns.fused_tables`)."""
        return list(self._variables.values()) + [f.table for f in self._fused]

    @property
    def trainable_variables(self) -> list:
        """The trainable variables an optimizer updates: a fused table in place of the
        columns' variables that are its rows (their gradient is the table's), so one
        update serves them all."""
        out = {}
        for v in self._variables.values():
            if v.trainable:
                owner = trained_variable(v)
                out.setdefault(id(owner), owner)
        return list(out.values())

    def checkpoint_children(self) -> dict:
        """Variables by name relative to the layer (``x_embedding/embedding_weights``)."""
        return dict(self._variables)

    @property
    def fused_groups(self) -> list:
        """The :class:`FusedColumns` of the layer: columns whose tables are rows of one."""
        return list(self._fused)

    def row_lookups(self) -> list:
        """``[(variable, reader), ...]``: each variable the layer reads by row (a
        gather), with what picks its rows: a :class:`FusedColumns` (the variable is
        its fused table) or the categorical column whose ids are the rows. For code
        that holds a table's rows elsewhere (a distributed worker's compact buffers)."""
        return [(f.table, f) for f in self._fused]

    def prepare(self, cache: TransformCache, training: bool = True) -> None:
        """Compute ahead what a call on this batch will need besides the transforms (the
        rows its fused tables read, grouped for the gradient when ``training``), so that
        the estimators' input thread does it while the previous step trains.

        >>> import colonnade as cn
        >>> fc = cn.feature_columns
        >>> layer = fc.DenseFeatures([fc.numeric_column("x")])
        >>> layer.prepare(fc.TransformCache({"x": [1.0]}))  # nothing fused: nothing to do
        """
        for fused in self._fused:
            fused.ids(cache, training)

    def restored(self) -> None:
        """Say that every variable was just assigned from a checkpoint (an estimator
        resuming from its model_dir): initial values that ``ckpt_to_load_from`` could not
        read no longer matter, as in TF, where initializers run only without a checkpoint
        to restore."""
        self._unloaded.clear()

    def _transforms(self, features) -> TransformCache:
        """The transforms of the batch ``features`` for this layer's columns;
        ``features`` may be a :class:`TransformCache` already holding some or all. Refuses
        while a variable lacks the initial value its ``ckpt_to_load_from`` should give."""
        if self._unloaded:
            raise next(iter(self._unloaded.values()))
        cache = transforms_of(features)
        cache.compute(self.feature_columns)
        return cache
