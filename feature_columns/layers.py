"""The dense input layers feature columns feed: ``DenseFeatures`` (a DNN's input) and
``SequenceFeatures`` (an RNN's), and TF1's one-shot functional form ``input_layer``; the
linear model's layer is :mod:`.linear_layer`, what they share :mod:`.layer_base`.

A layer creates its variables when it is constructed, names them as TensorFlow does
(``dense_features/x_embedding/embedding_weights``), and on each call transforms the batch
once (on up to two threads) and returns a differentiable ``colonnade.core.Tensor``.
Columns are used in order of their names, as TensorFlow does.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> x = fc.numeric_column("x")
>>> fc.DenseFeatures([x])({"x": [10.0, 30.0]}).numpy().tolist()
[[10.0], [30.0]]
"""

from __future__ import annotations

import numpy as np

from ..core import ops
from ..core.autodiff import Tensor
from ..core.variable_scope import current_store, unique_name
from . import fused_tables
from .base import DenseColumn, FeatureColumn
from .fused_tables import FusedColumns, plan_dense_output
from .layer_base import FeatureLayer, planned_columns

__all__ = ["DenseFeatures", "SequenceFeatures", "input_layer"]


class DenseFeatures(FeatureLayer):
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
        if not isinstance(feature_columns, (FeatureColumn, list, tuple, dict, str)):
            feature_columns = list(feature_columns)  # planned, then made: read it once
        layer = store.layer(
            name,
            lambda rng: DenseFeatures(
                feature_columns, trainable, name=name, seed=rng if seed is None else seed
            ),
            shapes=lambda: _dense_shapes(feature_columns),
        )
    if cols_to_vars is not None:
        for c in layer.feature_columns:
            cols_to_vars[c] = layer.column_variables(c)
    return layer(features, cols_to_output_tensors=cols_to_output_tensors)


def _dense_shapes(feature_columns) -> dict:
    """``{variable name: shape}`` that ``DenseFeatures(feature_columns)`` will make, from
    the columns alone (nothing allocated)."""
    columns = [c for c in planned_columns(feature_columns) if isinstance(c, DenseColumn)]
    return {s.name: tuple(s.shape) for c in columns for s in c.variable_specs()}


class SequenceFeatures(FeatureLayer):
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
