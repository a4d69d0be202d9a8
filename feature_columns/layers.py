"""Layers that hold the variables feature columns need: ``DenseFeatures``, ``LinearModel``
and ``SequenceFeatures``, and TF1's one-shot functional forms ``input_layer`` and
``linear_model``.

A layer creates its variables when it is constructed (every shape is known from the
columns), names them as TensorFlow does (``dense_features/x_embedding/embedding_weights``,
``linear_model/age_bucketized/weights``, ``linear_model/bias_weights``), and on each call
transforms the batch once (on up to two threads) and returns a differentiable
``colonnade.core.Tensor``. Columns are used in order of their names, as TensorFlow does.

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

import collections
import os

import numpy as np

from ..core import ops
from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_host
from ..core.checkpoint_format import load_variable
from ..core.fused import trained_variable
from ..core.variable_scope import current_store, unique_name
from ..core.variables import Variable
from . import fused_tables
from .base import CategoricalColumn, DenseColumn, FeatureColumn, VariableSpec
from .embedding_lookup import check_combiner, embedding_lookup
from .fused_tables import FusedColumns, fuse_linear_weights, plan_dense_output
from .named_initializers import call_initializer
from .transform_cache import TransformCache, transforms_of

__all__ = [
    "DenseFeatures",
    "LinearModel",
    "SequenceFeatures",
    "input_layer",
    "linear_model",
]


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


class _Layer:
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


# ---------------------------------------------------------------- DenseFeatures


class DenseFeatures(_Layer):
    """The dense input layer of a DNN: concatenates dense columns into ``(batch, dim)``.

    Columns are numeric, bucketized (one-hot), indicator and embedding columns; wrap a
    categorical column in ``indicator_column`` or ``embedding_column``. The embedding tables
    are created here (seeded by ``seed``), named ``<name>/<column>/embedding_weights`` (or
    ``<name>/<collection>/embedding_weights`` for shared embeddings).

    Neighbouring (in name order) trainable embedding columns of one dimension without
    ``max_norm`` keep their tables as rows of one fused table (see
    :mod:`colonnade.feature_columns.fused_tables`): one gather and one sparse update serve
    them all. ``trainable_variables`` lists the fused table (``<name>/fused_0``, ...) in
    place of the columns' tables, ``variables`` lists both; checkpoints and warm start
    see one table per column.

    >>> import colonnade as cn
    >>> fc = cn.feature_columns
    >>> ids = fc.categorical_column_with_identity("item", 5)
    >>> layer = fc.DenseFeatures([fc.numeric_column("price"), fc.embedding_column(ids, 3)],
    ...                          seed=0)
    >>> layer({"price": [1.0, 2.0], "item": [4, 0]}).shape
    (2, 4)
    """

    def __init__(self, feature_columns, trainable=True, name="dense_features", seed=None):
        super().__init__(feature_columns, name, trainable, seed)
        for c in self.feature_columns:
            if not isinstance(c, DenseColumn):
                raise ValueError(
                    f"{type(self).__name__} takes dense columns: Items of feature_columns must "
                    f"be a _DenseColumn or DenseColumn; {c.name!r} is a "
                    f"{type(c).__name__}. Wrap a categorical column with embedding_column or "
                    "indicator_column"
                )
            if c.is_sequence:
                raise ValueError(
                    f"column {c.name!r} is a sequence column; use SequenceFeatures for it"
                )
            for spec in c.variable_specs():
                self._add_variable(spec)
        self._plan = plan_dense_output(
            self.feature_columns, self._variables, self.name, self.trainable
        )
        self._fused = [p for p in self._plan if not isinstance(p, FeatureColumn)]

    @property
    def dimension(self) -> int:
        """Width of the output: the sum of the columns' dimensions."""
        return sum(c.dimension for c in self.feature_columns)

    def column_variables(self, column) -> list:
        """The variables ``column`` reads."""
        return [self._variables[s.name] for s in column.variable_specs()]

    def row_lookups(self) -> list:
        """As the base class's, with the embedding tables the columns read unfused."""
        out = super().row_lookups()
        for piece in self._plan:
            name = getattr(piece, "table_name", None)
            if not isinstance(piece, FusedColumns) and name in self._variables:
                out.append((self._variables[name], piece.categorical_column))
        return out

    def __call__(self, features, cols_to_output_tensors=None) -> Tensor:
        """``(batch, dimension)`` tensor of the columns, concatenated in name order.

        ``features`` is the batch (a mapping of feature names to values, a pyarrow table
        or record batch, a pandas DataFrame), or a :class:`TransformCache` of it, whose
        transforms other layers share. ``cols_to_output_tensors``, if a dict, is filled
        with each column's output."""
        cache = self._transforms(features)
        if cols_to_output_tensors is not None:  # column by column, to report each output
            outputs = [c.dense_output(cache, self._variables) for c in self.feature_columns]
            cols_to_output_tensors.update(zip(self.feature_columns, outputs))
        else:
            outputs = self.output_pieces(cache)
        return outputs[0] if len(outputs) == 1 else ops.concat(outputs, axis=1)

    def output_pieces(self, features) -> list:
        """The output as ``(batch, width)`` pieces that side by side make ``__call__``'s
        result (see :func:`~colonnade.feature_columns.fused_tables.output_pieces`): what
        the canned DNN feeds :func:`colonnade.core.dense` without the concatenation.

        >>> import colonnade as cn
        >>> fc = cn.feature_columns
        >>> layer = fc.DenseFeatures([fc.numeric_column("a"), fc.numeric_column("b")])
        >>> [p.shape for p in layer.output_pieces({"a": [1.0], "b": [2.0]})]  # numbers: one
        [(1, 2)]
        """
        return fused_tables.output_pieces(self._plan, self._transforms(features), self._variables)


def input_layer(
    features,
    feature_columns,
    weight_collections=None,
    trainable=True,
    cols_to_vars=None,
    cols_to_output_tensors=None,
    seed=None,
) -> Tensor:
    """TF1's ``input_layer``: ``(batch, dim)`` float tensor of dense columns in name order.

    Inside a ``model_fn`` (a :class:`~colonnade.core.VariableStore`), the layer is made
    on the first call and reused after, as TF1 builds it once in the graph: the idiom a
    ``model_fn`` should use. Elsewhere it is a one-shot convenience: each call builds a
    fresh :class:`DenseFeatures` named ``input_layer`` (new embedding tables, seeded by
    ``seed``); keep a ``DenseFeatures`` to train. ``cols_to_vars`` /
    ``cols_to_output_tensors``, if dicts, are filled per column; ``weight_collections``
    (TF's graph collections) is accepted and unused. ``.numpy()`` gives the array.

    >>> from colonnade.feature_columns import numeric_column
    >>> input_layer({"b": [1.0], "a": [2.0]}, [numeric_column("b"), numeric_column("a")]).numpy()
    array([[2., 1.]], dtype=float32)
    """
    store = current_store()
    if store is None:
        layer = DenseFeatures(feature_columns, trainable=trainable, name="input_layer", seed=seed)
    else:  # in a model_fn: made on the first call, reused by name after
        name = unique_name("input_layer")  # input_layer, input_layer_1, ... as TF1's graph
        layer = store.layer(
            name,
            lambda rng: DenseFeatures(
                feature_columns, trainable, name=name, seed=rng if seed is None else seed
            ),
        )
    if cols_to_vars is not None:
        for c in layer.feature_columns:
            cols_to_vars[c] = layer.column_variables(c)
    return layer(features, cols_to_output_tensors=cols_to_output_tensors)


# ---------------------------------------------------------------- LinearModel


class LinearModel(_Layer):
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
        )
    if cols_to_vars is not None:
        for c in model.feature_columns:
            cols_to_vars[c] = model.column_variables(c)
        cols_to_vars["bias"] = [model.bias]
    return model(features)


# ---------------------------------------------------------------- SequenceFeatures


class SequenceFeatures(_Layer):
    """Sequence input for RNNs: ``(batch, max_len, dim)`` padded tensor and lengths.

    Columns are ``sequence_numeric_column`` and ``embedding_column`` /
    ``indicator_column`` / shared embeddings over ``sequence_categorical_column_with_*``.
    Every column must give each example the same sequence length.

    >>> import colonnade as cn
    >>> fc = cn.feature_columns
    >>> layer = fc.SequenceFeatures([fc.sequence_numeric_column("temperature")])
    >>> values, lengths = layer({"temperature": [[1.0, 2.0, 3.0], [4.0]]})
    >>> values.shape, lengths.tolist()
    ((2, 3, 1), [3, 1])
    """

    def __init__(
        self,
        feature_columns,
        trainable=True,
        name="sequence_features",
        seed=None,
    ):
        super().__init__(feature_columns, name, trainable, seed)
        for c in self.feature_columns:
            if not c.is_sequence or not hasattr(c, "sequence_output"):
                raise ValueError(
                    f"SequenceFeatures takes sequence columns (sequence_numeric_column, or an "
                    f"embedding/indicator column of a sequence_categorical_column_with_*); "
                    f"{c.name!r} is not one"
                )
            specs = c.variable_specs() if isinstance(c, DenseColumn) else ()
            for spec in specs:
                self._add_variable(spec)

    def __call__(self, features):
        """``(Tensor of shape (batch, max_len, dim), lengths as an int64 numpy array)``;
        ``features`` is the batch, or a :class:`TransformCache` of it."""
        cache = self._transforms(features)
        outputs, lengths, first = [], None, None
        for c in self.feature_columns:
            out, seq_len = c.sequence_output(cache, self._variables)
            if lengths is None:
                lengths, first = seq_len, c.name
            elif not np.array_equal(lengths, seq_len):
                row = int(np.flatnonzero(lengths != seq_len)[0])
                raise ValueError(
                    f"sequence lengths differ between columns {first!r} and {c.name!r}: example "
                    f"{row} has {int(lengths[row])} and {int(seq_len[row])} steps"
                )
            outputs.append(out)
        if len(outputs) == 1:
            return outputs[0], lengths
        return ops.concat(outputs, axis=2), lengths
