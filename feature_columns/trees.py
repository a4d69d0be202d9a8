"""A dense column whose value is a gradient-boosted tree model's raw scores: the tree
member of a zero-configuration model (``TabularClassifier`` / ``TabularRegressor``),
blended into its wide part as a column whose weights are the blend's. Not in TensorFlow.

The trees are a LightGBM text model file (``trees_file``), read and evaluated by
colonnade's own numpy code (:mod:`.tree_model`), so predicting, exporting and serving
need no LightGBM. The column reads its raw inputs as the trees were trained on them
(:func:`tree_inputs`): a ``"number"`` as float32 (a ``"number64"`` as float64), as the
plan's numeric column of the same input reads it, with a null as NaN, LightGBM's
missing value; a ``"time"`` as seconds since 1970; a
``"category"`` as its index in the column's ``vocabulary`` (the training rows' values),
a null or a value not in it as -1, which LightGBM sends down the missing side.

>>> import pyarrow as pa
>>> tree_inputs({"k": pa.array(["b", None, "z"])}, [("k", "category", ("a", "b"))]).tolist()
[[1.0], [-1.0], [-1.0]]
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import DenseColumn, check_key
from .tree_model import TreeModel, TreeModelError, parse_tree_model

__all__ = ["KINDS", "MAX_FILE_BYTES", "TreeEnsembleColumn", "tree_ensemble_column", "tree_inputs"]

KINDS = ("number", "number64", "time", "category")
MAX_FILE_BYTES = 512 * 2**20
"""The largest tree model file read (a file that size is refused before it is read)."""
_SPECS = {
    "number": pa.float32(),
    "number64": pa.float64(),
    "time": pa.list_(pa.string()),
    "category": pa.list_(pa.string()),
}


def _one_value(array, key: str):
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
        lengths = pc.fill_null(pc.list_value_length(array), 1).to_numpy(zero_copy_only=False)
        if (lengths != 1).any():
            raise ValueError(f"tree input {key!r}: expected one value a row, got a list")
        array = pc.list_flatten(array)
    return array


def tree_inputs(features, inputs) -> np.ndarray:
    """``(rows, len(inputs))`` float64: the trees' view of ``features`` (a mapping or
    table of raw columns), one column per ``(key, kind, vocabulary)`` of ``inputs``."""
    out = []
    for key, kind, vocabulary in inputs:
        array = _one_value(
            pa.array(features[key]) if isinstance(features, dict) else features[key], key
        )
        if kind in ("number", "number64"):
            if not (
                pa.types.is_integer(array.type)
                or pa.types.is_floating(array.type)
                or pa.types.is_boolean(array.type)
                or pa.types.is_null(array.type)
            ):
                raise ValueError(
                    f"tree input {key!r}: expected numbers, got values of type {array.type}"
                )
            wanted = pa.float32() if kind == "number" else pa.float64()
            values = pc.cast(array, wanted, safe=False).to_numpy(zero_copy_only=False)
            out.append(np.where(array.is_null().to_numpy(zero_copy_only=False), np.nan, values))
        elif kind == "time":
            if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
                array = pc.cast(array, pa.timestamp("s"))
            if pa.types.is_date(array.type):
                array = pc.cast(array, pa.timestamp("s"))
            if not (pa.types.is_timestamp(array.type) or pa.types.is_null(array.type)):
                raise ValueError(f"tree input {key!r}: expected times, got type {array.type}")
            seconds = pc.cast(pc.cast(array, pa.timestamp("s")), pa.int64())
            values = pc.cast(seconds, pa.float64()).to_numpy(zero_copy_only=False)
            out.append(np.where(array.is_null().to_numpy(zero_copy_only=False), np.nan, values))
        else:
            index = pc.index_in(
                pc.cast(array, pa.string()), value_set=pa.array(vocabulary, pa.string())
            )
            out.append(pc.fill_null(index, -1).to_numpy(zero_copy_only=False).astype(np.float64))
    return np.stack(out, axis=1) if out else np.zeros((0, 0))


@dataclass(frozen=True)
class TreeEnsembleColumn(DenseColumn):
    """The raw scores of a tree model file; see :func:`tree_ensemble_column`."""

    column_name: str
    trees_file: str
    inputs: tuple
    model: TreeModel = field(compare=False, hash=False, repr=False)

    @property
    def name(self) -> str:
        return self.column_name

    @property
    def input_keys(self) -> tuple:
        return tuple(key for key, _, _ in self.inputs)

    @property
    def dimension(self) -> int:
        return self.model.n_outputs

    @property
    def variable_shape(self) -> tuple:
        return (self.dimension,)

    def parse_spec(self) -> dict:
        return {key: _SPECS[kind] for key, kind, _ in self.inputs}

    def transform(self, cache) -> np.ndarray:
        """``(batch, outputs)``: the trees' raw scores of the batch's rows."""
        raw = {key: cache.raw(key, self.name) for key in self.input_keys}
        values = tree_inputs(raw, self.inputs)
        return self.model.raw_scores(values).astype(DEFAULT_DTYPE)

    def dense_output(self, cache, variables) -> Tensor:
        return Tensor(to_device(cache.get(self)))

    def to_config(self) -> dict:
        return {
            "type": "tree_ensemble_column",
            "name": self.column_name,
            "trees_file": self.trees_file,
            "inputs": [
                {"key": key, "kind": kind, **({"vocabulary": list(vocab)} if vocab else {})}
                for key, kind, vocab in self.inputs
            ],
        }


def _checked_inputs(name: str, inputs) -> tuple:
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(f"column {name!r}: inputs must be a non-empty list, got {inputs!r:.80}")
    out = []
    for i, item in enumerate(inputs):
        if isinstance(item, dict):
            item = (item.get("key"), item.get("kind"), item.get("vocabulary"))
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            raise ValueError(
                f"column {name!r}: inputs[{i}] must be (key, kind, vocabulary), got {item!r:.80}"
            )
        key, kind, vocabulary = item
        check_key(key, f"inputs[{i}] key")
        if kind not in KINDS:
            raise ValueError(
                f"column {name!r}: inputs[{i}] kind must be one of {KINDS}, got {kind!r}"
            )
        if kind == "category":
            if not isinstance(vocabulary, (list, tuple)) or not all(
                isinstance(v, str) for v in vocabulary
            ):
                raise ValueError(
                    f"column {name!r}: inputs[{i}] ({key!r}), a category, needs a vocabulary "
                    f"(a list of strings), got {vocabulary!r:.80}"
                )
            vocabulary = tuple(vocabulary)
        elif vocabulary is not None:
            raise ValueError(
                f"column {name!r}: inputs[{i}] ({key!r}), a {kind}, takes no vocabulary"
            )
        out.append((key, kind, vocabulary))
    return tuple(out)


def tree_ensemble_column(name: str, trees_file: str, inputs) -> TreeEnsembleColumn:
    """A column giving the raw scores (one per class of a multi-class model, else one)
    of the LightGBM text model in ``trees_file``, whose features are ``inputs``: a list
    of ``(key, kind, vocabulary)`` (or dicts of those), ``kind`` one of :data:`KINDS`,
    ``vocabulary`` the categories in code order for a ``"category"``, else None. The
    file is read and checked now (:mod:`.tree_model`); a defect raises ``ValueError``
    naming it. No TensorFlow counterpart."""
    check_key(name, "name")
    inputs = _checked_inputs(name, inputs)
    if not isinstance(trees_file, str):
        raise ValueError(f"column {name!r}: trees_file must be a path, got {trees_file!r:.80}")
    try:
        size = os.path.getsize(trees_file)
    except OSError as e:
        raise ValueError(f"column {name!r}: cannot read trees_file {trees_file!r}: {e}") from None
    if size > MAX_FILE_BYTES:
        raise TreeModelError(
            f"{trees_file}: {size} bytes, more than the {MAX_FILE_BYTES} a tree model may hold"
        )
    with open(trees_file, encoding="utf-8", errors="strict") as f:
        try:
            text = f.read()
        except UnicodeDecodeError as e:
            raise TreeModelError(f"{trees_file}: not UTF-8 text: {e}") from None
    model = parse_tree_model(text, trees_file)
    if model.n_features != len(inputs):
        raise TreeModelError(
            f"{trees_file}: the trees read {model.n_features} features, the column names "
            f"{len(inputs)} inputs"
        )
    return TreeEnsembleColumn(name, trees_file, inputs, model)
