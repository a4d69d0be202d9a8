"""Gradient-boosted trees read from LightGBM's text model format and evaluated in numpy.

A zero-configuration model's tree member is trained by LightGBM and saved in its text
format (``Booster.model_to_string``); serving reads it back here, so it needs no
LightGBM. The text is treated as hostile: every count is checked against what was parsed
before anything is allocated by it, every child index against its tree's arrays, every
split feature against the inputs, and each tree is walked from its root once, so a cycle,
a node no split reaches or a tree deeper than :data:`MAX_DEPTH` is refused with a
:class:`TreeModelError` naming the file and tree.

Prediction (:meth:`TreeModel.raw_scores`) is LightGBM's ``predict(raw_score=True)``:
all rows and all trees at once, one level of every tree per step. A numerical split sends
a value left when ``value <= threshold``; a missing value (NaN) goes the split's default
way when the split learnt one for NaN (missing type NaN), else it is read as 0 (missing
type None; with type Zero, 0 and NaN both go the default way). A categorical split sends a
category code left when its bit is set in the split's bitset; NaN or a negative code
(a category the training never saw) goes right, as in LightGBM.

>>> text = "\\n".join(["tree", "version=v4", "num_class=1", "num_tree_per_iteration=1",
...     "max_feature_idx=0", "feature_names=x", "", "Tree=0", "num_leaves=2", "num_cat=0",
...     "split_feature=0", "threshold=0.5", "decision_type=2", "left_child=-1",
...     "right_child=-2", "leaf_value=-1 1", "", "end of trees"])
>>> model = parse_tree_model(text, "model.txt")
>>> model.raw_scores(np.array([[0.0], [1.0], [np.nan]])).ravel().tolist()
[-1.0, 1.0, -1.0]
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MAX_DEPTH", "MAX_NODES", "TreeModel", "TreeModelError", "parse_tree_model"]

MAX_DEPTH = 256
"""The deepest tree read (LightGBM's ``num_leaves=31`` trees are at most 30 deep)."""
MAX_NODES = 50_000_000
"""At most this many leaves in all trees together: more is refused before parsing them."""
MAX_CLASSES = 10_000
_ROW_CELLS = 4_000_000  # rows x trees evaluated at once: memory bounded for any batch
_ZERO = 1e-35  # LightGBM's kZeroThreshold
_CATEGORICAL, _DEFAULT_LEFT = 1, 2
_MISSING_ZERO, _MISSING_NAN = 1, 2


class TreeModelError(ValueError):
    """A tree model file that cannot be read: the message names the file, the tree and
    the field."""


def _fields(lines: list, where: str) -> dict:
    out = {}
    for line in lines:
        if "=" in line:
            key, value = line.split("=", 1)
            out[key.strip()] = value.strip()
        elif line.strip():
            out[line.strip()] = ""
    return out


def _ints(fields: dict, key: str, count: int, where: str) -> np.ndarray:
    return _numbers(fields, key, count, where, np.int64)


def _numbers(fields: dict, key: str, count: int, where: str, dtype=np.float64) -> np.ndarray:
    text = fields.get(key)
    if text is None:
        if count == 0:
            return np.zeros(0, dtype)
        raise TreeModelError(f"{where}: field {key} is missing (expected {count} values)")
    parts = text.split()
    if len(parts) != count:
        raise TreeModelError(f"{where}: field {key}: expected {count} values, got {len(parts)}")
    try:
        values = np.array([float(p) for p in parts], np.float64)
    except ValueError:
        raise TreeModelError(f"{where}: field {key}: not numbers: {text[:80]!r}") from None
    if dtype is np.int64:
        if not (np.isfinite(values).all() and (values == np.round(values)).all()):
            raise TreeModelError(f"{where}: field {key}: expected integers, got {text[:80]!r}")
        if (np.abs(values) > 2**53).any():
            raise TreeModelError(f"{where}: field {key}: an integer out of range")
        return values.astype(np.int64)
    return values


def _int_field(fields: dict, key: str, where: str, low: int, high: int) -> int:
    text = fields.get(key)
    if text is None or not text.lstrip("-").isdigit() or len(text) > 12:
        raise TreeModelError(f"{where}: field {key}: expected an integer, got {text!r:.40}")
    value = int(text)
    if not low <= value <= high:
        raise TreeModelError(f"{where}: field {key}: expected {low} to {high}, got {value}")
    return value


class _Tree:
    """One tree's arrays, checked: ``(feature, threshold, decision, left, right,
    leaf_value, cat_boundaries, cat_bits, depth)``; children < 0 are leaves ``~child``."""

    def __init__(self, fields: dict, where: str, n_features: int, leaves_left: int):
        leaves = _int_field(fields, "num_leaves", where, 1, max(1, leaves_left))
        if fields.get("is_linear", "0") != "0":
            raise TreeModelError(f"{where}: linear trees (is_linear=1) are not read")
        inner = leaves - 1
        n_cat = _int_field(fields, "num_cat", where, 0, inner)
        self.leaf_value = _numbers(fields, "leaf_value", leaves, where)
        if not np.isfinite(self.leaf_value).all():
            raise TreeModelError(f"{where}: field leaf_value: a value is not finite")
        self.feature = _ints(fields, "split_feature", inner, where)
        self.threshold = _numbers(fields, "threshold", inner, where)
        self.decision = _ints(fields, "decision_type", inner, where)
        self.left = _ints(fields, "left_child", inner, where)
        self.right = _ints(fields, "right_child", inner, where)
        if ((self.feature < 0) | (self.feature >= n_features)).any():
            raise TreeModelError(
                f"{where}: field split_feature: a feature outside 0..{n_features - 1}"
            )
        if ((self.decision < 0) | (self.decision > 15)).any() or np.isnan(self.threshold).any():
            raise TreeModelError(f"{where}: field decision_type or threshold: invalid values")
        self.cat_boundaries = np.zeros(1, np.int64)
        self.cat_bits = np.zeros(0, np.int64)
        if n_cat:
            self.cat_boundaries = _ints(fields, "cat_boundaries", n_cat + 1, where)
            steps = np.diff(self.cat_boundaries)
            if self.cat_boundaries[0] != 0 or (steps < 0).any():
                raise TreeModelError(f"{where}: field cat_boundaries: not increasing from 0")
            words = int(self.cat_boundaries[-1])
            if words > 64 * leaves_left:
                raise TreeModelError(f"{where}: field cat_boundaries: {words} words, too many")
            self.cat_bits = _ints(fields, "cat_threshold", words, where)
            if ((self.cat_bits < 0) | (self.cat_bits >= 2**32)).any():
                raise TreeModelError(f"{where}: field cat_threshold: not 32-bit words")
        categorical = (self.decision & _CATEGORICAL) != 0
        cat_index = np.where(categorical, self.threshold, 0)
        if categorical.any() and not (
            (cat_index >= 0).all() and (cat_index < n_cat).all() and (cat_index % 1 == 0).all()
        ):
            raise TreeModelError(f"{where}: field threshold: a categorical split outside num_cat")
        self.depth = self._walk(where, inner, leaves)

    def _walk(self, where: str, inner: int, leaves: int) -> int:
        """The tree's depth, after checking every child index is inside the arrays and
        that walking from the root reaches each node and leaf exactly once."""
        if inner == 0:
            return 0
        children = np.concatenate([self.left, self.right])
        if ((children >= inner) | (children < -leaves)).any():
            raise TreeModelError(
                f"{where}: field left_child/right_child: an index outside the tree's "
                f"{inner} nodes and {leaves} leaves"
            )
        seen_nodes = np.zeros(inner, bool)
        seen_leaves = np.zeros(leaves, bool)
        level, depth = np.array([0]), 0
        seen_nodes[0] = True
        while level.size:
            depth += 1
            if depth > MAX_DEPTH:
                raise TreeModelError(f"{where}: deeper than {MAX_DEPTH} levels (or a cycle)")
            nxt = np.concatenate([self.left[level], self.right[level]])
            leaf = ~nxt[nxt < 0]
            node = nxt[nxt >= 0]
            if seen_leaves[leaf].any() or seen_nodes[node].any() or len(set(nxt)) != len(nxt):
                raise TreeModelError(f"{where}: a node or leaf is the child of two splits")
            seen_leaves[leaf] = True
            seen_nodes[node] = True
            level = node
        if not (seen_nodes.all() and seen_leaves.all()):
            raise TreeModelError(f"{where}: a node or leaf that no split reaches")
        return depth


class TreeModel:
    """A parsed tree model: ``n_features`` inputs, ``n_outputs`` raw scores per row (the
    classes of a multi-class model, else 1), ``n_trees`` trees, ``max_depth``; its trees'
    arrays laid end to end so that :meth:`raw_scores` walks all of them at once."""

    def __init__(self, trees: list, n_features: int, n_outputs: int, where: str):
        self.where, self.n_features, self.n_outputs = where, n_features, n_outputs
        self.n_trees = len(trees)
        self.max_depth = max((t.depth for t in trees), default=0)
        node_base = np.cumsum([0] + [len(t.feature) for t in trees])
        leaf_base = np.cumsum([0] + [len(t.leaf_value) for t in trees])
        word_base = np.cumsum([0] + [len(t.cat_bits) for t in trees])

        def children(t, k, side):
            return np.where(side >= 0, side + node_base[k], ~(~side + leaf_base[k]))

        self.feature = np.concatenate([t.feature for t in trees] + [np.zeros(0, np.int64)])
        self.threshold = np.concatenate([t.threshold for t in trees] + [np.zeros(0)])
        self.decision = np.concatenate([t.decision for t in trees] + [np.zeros(0, np.int64)])
        self.left = np.concatenate(
            [children(t, k, t.left) for k, t in enumerate(trees)] + [np.zeros(0, np.int64)]
        )
        self.right = np.concatenate(
            [children(t, k, t.right) for k, t in enumerate(trees)] + [np.zeros(0, np.int64)]
        )
        self.leaf_value = np.concatenate([t.leaf_value for t in trees] + [np.zeros(0)])
        # a categorical split's bitset: words [start, stop) of cat_bits
        start = np.zeros(len(self.feature), np.int64)
        stop = np.zeros(len(self.feature), np.int64)
        for k, t in enumerate(trees):
            nodes = slice(node_base[k], node_base[k + 1])
            categorical = (t.decision & _CATEGORICAL) != 0
            index = t.threshold[categorical].astype(np.int64)
            start[nodes][categorical] = t.cat_boundaries[index] + word_base[k]
            stop[nodes][categorical] = t.cat_boundaries[index + 1] + word_base[k]
        self.cat_start, self.cat_stop = start, stop
        self.cat_bits = np.concatenate([t.cat_bits for t in trees] + [np.zeros(0, np.int64)])
        self.root = np.array(
            [node_base[k] if len(t.feature) else ~leaf_base[k] for k, t in enumerate(trees)],
            np.int64,
        )
        self.output_of_tree = np.arange(self.n_trees) % n_outputs

    def raw_scores(self, values: np.ndarray) -> np.ndarray:
        """``(rows, n_outputs)`` float64: the sum of each output's trees' leaves for each
        row of ``values`` (``(rows, n_features)``, NaN for a missing value, a category as
        its code, negative for one not seen in training)."""
        values = np.asarray(values, np.float64)
        if values.ndim != 2 or values.shape[1] != self.n_features:
            raise ValueError(
                f"{self.where}: expected values of shape (rows, {self.n_features}), got "
                f"{values.shape}"
            )
        out = np.zeros((values.shape[0], self.n_outputs))
        step = max(1, _ROW_CELLS // max(1, self.n_trees))
        for lo in range(0, values.shape[0], step):
            out[lo : lo + step] = self._scores(values[lo : lo + step])
        return out

    def _scores(self, values: np.ndarray) -> np.ndarray:
        rows = values.shape[0]
        node = np.broadcast_to(self.root, (rows, self.n_trees)).copy()
        row_of = np.broadcast_to(np.arange(rows)[:, None], node.shape)
        for _ in range(self.max_depth):
            active = np.flatnonzero(node >= 0)
            if not active.size:
                break
            at = node.ravel()[active]
            value = values[row_of.ravel()[active], self.feature[at]]
            node.ravel()[active] = np.where(
                self._goes_left(at, value), self.left[at], self.right[at]
            )
        scores = self.leaf_value[~node]
        out = np.zeros((rows, self.n_outputs))
        for k in range(self.n_outputs):
            out[:, k] = scores[:, self.output_of_tree == k].sum(axis=1)
        return out

    def _goes_left(self, at: np.ndarray, value: np.ndarray) -> np.ndarray:
        decision = self.decision[at]
        missing = (decision >> 2) & 3
        nan = np.isnan(value)
        number = np.where(nan & (missing != _MISSING_NAN), 0.0, value)
        defaulted = ((missing == _MISSING_ZERO) & (np.abs(number) <= _ZERO)) | (
            (missing == _MISSING_NAN) & nan
        )
        with np.errstate(invalid="ignore"):
            left = np.where(
                defaulted, (decision & _DEFAULT_LEFT) != 0, number <= self.threshold[at]
            )
        categorical = (decision & _CATEGORICAL) != 0
        if categorical.any():
            code = np.where(nan | (value < 0) | (value >= 2**31), -1, value).astype(np.int64)
            code = np.where(categorical, code, -1)
            word = self.cat_start[at] + code // 32
            inside = (code >= 0) & (word < self.cat_stop[at])
            bits = self.cat_bits[np.where(inside, word, 0)] if self.cat_bits.size else 0
            hit = inside & (((bits >> (code % 32)) & 1) == 1)
            left = np.where(categorical, hit, left)
        return left


def parse_tree_model(text: str, where: str) -> TreeModel:
    """A :class:`TreeModel` from LightGBM's text model format (``where``: the file, for
    errors); any defect is a :class:`TreeModelError`."""
    if not isinstance(text, str):
        raise TreeModelError(f"{where}: expected the text of a LightGBM model")
    head, _, body = text.partition("\nTree=")
    header = _fields(head.splitlines(), where)
    if header.get("tree") is None and not head.startswith("tree"):
        raise TreeModelError(f"{where}: not a LightGBM text model (no 'tree' header line)")
    classes = _int_field(header, "num_class", where, 1, MAX_CLASSES)
    per_iteration = _int_field(header, "num_tree_per_iteration", where, 1, MAX_CLASSES)
    if per_iteration != classes:
        raise TreeModelError(
            f"{where}: field num_tree_per_iteration: expected num_class ({classes}), got "
            f"{per_iteration}"
        )
    n_features = _int_field(header, "max_feature_idx", where, 0, 1_000_000) + 1
    if "average_output" in header:
        raise TreeModelError(f"{where}: random-forest models (average_output) are not read")
    if not body:
        raise TreeModelError(f"{where}: holds no trees")
    sections = ("Tree=" + body).split("end of trees")[0].split("\nTree=")
    trees, leaves_left = [], MAX_NODES
    for k, section in enumerate(sections):
        lines = section.splitlines()
        name = f"{where}: tree {k}"
        fields = _fields(lines[1:], name)
        tree = _Tree(fields, name, n_features, leaves_left)
        leaves_left -= len(tree.leaf_value)
        trees.append(tree)
    if len(trees) % classes:
        raise TreeModelError(f"{where}: {len(trees)} trees is not a multiple of {classes} classes")
    if not math.isfinite(sum(float(t.leaf_value.sum()) for t in trees)):
        raise TreeModelError(f"{where}: the leaf values overflow")
    return TreeModel(trees, n_features, classes, where)
