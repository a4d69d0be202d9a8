"""The linear model's layer: ``LinearModel``, a weighted sum of feature columns plus a bias,
and TF1's one-shot functional form ``linear_model``.

Variables are named as TensorFlow does (``linear_model/age_bucketized/weights``,
``linear_model/bias_weights``) and start at zero, as TF's.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> age = fc.bucketized_column(fc.numeric_column("age"), [18.0, 65.0])
>>> model = fc.LinearModel([age])
>>> [v.name for v in model.variables]
['linear_model/age_bucketized/weights', 'linear_model/bias_weights']
>>> model({"age": [10.0, 30.0]}).numpy().tolist()
[[0.0], [0.0]]
"""

from __future__ import annotations

import numpy as np

from ..core import ops
from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE
from ..core.variable_scope import current_store, unique_name
from ..core.variables import Variable
from .base import CategoricalColumn, DenseColumn, FeatureColumn, VariableSpec
from .embedding_lookup import check_combiner, embedding_lookup
from .fused_tables import fuse_linear_weights
from .layer_base import FeatureLayer, planned_columns

__all__ = ["LinearModel", "linear_model"]


class LinearModel(FeatureLayer):
    """A linear model over feature columns: ``sum over columns of x_c @ w_c + bias``.

    Categorical columns (including bucketized and crossed ones) act as multi-hot vectors:
    their weights ``(num_buckets, units)`` are looked up with ``gather`` (sparse
    ``IndexedRows`` gradients) and combined per example with ``sparse_combiner`` (``sum``,
    ``mean`` or ``sqrtn``). Dense columns multiply ``(dimension, units)`` weights. All
    weights and the bias start at zero, as TF's; they are named
    ``<name>/<column>/weights`` and ``<name>/bias_weights``. The categorical columns'
    weights are rows of one fused table, trained with one gather and one sparse update
    (``trainable_variables`` lists ``<name>/fused_weights`` in place of them, ``variables``
    lists both; checkpoints keep one variable per column).

    >>> import colonnade as cn
    >>> fc = cn.feature_columns
    >>> model = fc.LinearModel([fc.numeric_column("x")], units=2)
    >>> model.bias.shape, model({"x": [1.0]}).shape
    ((2,), (1, 2))
    """

    def __init__(
        self,
        feature_columns,
        units=1,
        sparse_combiner="sum",
        trainable=True,
        name="linear_model",
        seed=None,
    ):
        super().__init__(feature_columns, name, trainable, seed)
        if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units < 1:
            raise ValueError(f"units must be a positive integer, got {units!r}")
        self.units = int(units)
        self.sparse_combiner = check_combiner(sparse_combiner, "sparse_combiner")
        zeros = _zeros  # TF initializes linear weights and bias to zero
        for c in self.feature_columns:
            if c.is_sequence:
                raise ValueError(f"column {c.name!r} is a sequence column, not for LinearModel")
            if isinstance(c, CategoricalColumn):
                first = c.num_buckets
            elif isinstance(c, DenseColumn):
                first = c.dimension
                for spec in c.variable_specs():
                    self._add_variable(spec)
            else:
                raise ValueError(
                    f"LinearModel takes categorical or dense columns; {c.name!r} is "
                    f"{type(c).__name__}"
                )
            self._add_variable(VariableSpec(f"{c.name}/weights", (first, self.units), zeros))
        self._add_variable(VariableSpec("bias_weights", (self.units,), zeros))
        categorical = [c for c in self.feature_columns if isinstance(c, CategoricalColumn)]
        weights = [self.column_weights(c) for c in categorical]
        fused = fuse_linear_weights(categorical, weights, self.name, self.sparse_combiner)
        self._fused = [fused] if fused is not None else []
        summed = set(fused.columns if fused is not None else ())
        self._unfused = [c for c in self.feature_columns if c not in summed]

    @property
    def bias(self) -> Variable:
        """The ``(units,)`` bias."""
        return self._variables["bias_weights"]

    def column_weights(self, column) -> Variable:
        """The ``(num_buckets or dimension, units)`` weights of ``column``."""
        return self._variables[f"{column.name}/weights"]

    def row_lookups(self) -> list:
        """As the base class's, with the weights of the categorical columns not fused."""
        out = super().row_lookups()
        for c in self._unfused:
            if isinstance(c, CategoricalColumn):
                out.append((self.column_weights(c), c))
        return out

    def column_variables(self, column) -> list:
        """Every variable ``column`` reads (its weights, and its embedding table if any)."""
        extra = []
        if not isinstance(column, CategoricalColumn):
            extra = [self._variables[s.name] for s in column.variable_specs()]
        return extra + [self.column_weights(column)]

    def __call__(self, features) -> Tensor:
        """``(batch, units)`` predictions (logits). ``features`` is the batch, or a
        :class:`TransformCache` of it (as for :class:`DenseFeatures`)."""
        cache = self._transforms(features)
        terms = [fused.lookup(cache) for fused in self._fused]
        for c in self._unfused:
            w = self.column_weights(c)
            if isinstance(c, CategoricalColumn):
                term = embedding_lookup(w, cache.get(c), self.sparse_combiner)
            else:
                term = ops.matmul(c.dense_output(cache, self._variables), w)
            terms.append(term)
        total = terms[0]
        for term in terms[1:]:
            total = ops.add(total, term)
        return ops.add(total, self.bias)


def _linear_shapes(feature_columns, units) -> dict:
    """``{variable name: shape}`` that ``LinearModel(feature_columns, units)`` will make,
    from the columns alone (nothing allocated); an invalid ``units`` is left to it."""
    if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units < 1:
        return {}
    shapes = {}
    for c in planned_columns(feature_columns):
        if isinstance(c, CategoricalColumn):
            shapes[f"{c.name}/weights"] = (c.num_buckets, int(units))
        elif isinstance(c, DenseColumn):
            shapes.update({s.name: tuple(s.shape) for s in c.variable_specs()})
            shapes[f"{c.name}/weights"] = (c.dimension, int(units))
    shapes["bias_weights"] = (int(units),)
    return shapes


def _zeros(shape, dtype=DEFAULT_DTYPE, rng=None):
    return np.zeros(shape, dtype)


def linear_model(
    features,
    feature_columns,
    units=1,
    sparse_combiner="sum",
    weight_collections=None,
    trainable=True,
    cols_to_vars=None,
    seed=None,
) -> Tensor:
    """TF1's ``linear_model``: ``(batch, units)`` weighted sum of the columns plus a bias.
    ``weight_collections`` (TF's graph collections to add the variables to) is accepted
    and unused: there are no collections; ``cols_to_vars`` gives the variables.

    Inside a ``model_fn``, made on the first call and reused after (as
    :func:`input_layer`); elsewhere each call builds a fresh :class:`LinearModel` (weights
    zero); keep a ``LinearModel`` to train. ``cols_to_vars``, if a dict, is filled with each
    column's variables and ``'bias'``.

    >>> from colonnade.feature_columns import numeric_column
    >>> linear_model({"x": [1.0, 2.0]}, [numeric_column("x")]).numpy().tolist()
    [[0.0], [0.0]]
    """
    store = current_store()
    if store is None:
        model = LinearModel(feature_columns, units, sparse_combiner, trainable, seed=seed)
    else:  # in a model_fn: made on the first call, reused by name after
        name = unique_name("linear_model")  # linear_model, linear_model_1, ... as TF1's graph
        if not isinstance(feature_columns, (FeatureColumn, list, tuple, dict, str)):
            feature_columns = list(feature_columns)  # planned, then made: read it once
        model = store.layer(
            name,
            lambda rng: LinearModel(
                feature_columns,
                units,
                sparse_combiner,
                trainable,
                name=name,
                seed=rng if seed is None else seed,
            ),
            shapes=lambda: _linear_shapes(feature_columns, units),
        )
    if cols_to_vars is not None:
        for c in model.feature_columns:
            cols_to_vars[c] = model.column_variables(c)
        cols_to_vars["bias"] = [model.bias]
    return model(features)
