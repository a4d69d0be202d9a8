"""The networks of the canned estimators: features -> logits, owning their variables.

A network is a linear part, a DNN part, or both (wide&deep), whose logits add up, or a
baseline part alone (a bias per logit, the Baseline estimators'). Each part can describe
itself declaratively (``spec``) so an export can rebuild it without the estimator that
trained it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ... import core
from ... import feature_columns as fc
from .dnn import ACTIVATIONS, DNNTower


class LinearPart:
    """A ``LinearModel`` over feature columns (TF's ``linear/linear_model/...``)."""

    def __init__(self, feature_columns, units, sparse_combiner="sum"):
        self.linear = fc.LinearModel(
            feature_columns, units=units, sparse_combiner=sparse_combiner, name="linear_model"
        )

    def logits(self, features, training, rng, cache=None):
        return self.linear(features if cache is None else cache)

    @property
    def trainable_variables(self):
        return self.linear.trainable_variables

    def checkpoint_children(self):
        return {"linear_model": self.linear}

    def spec(self) -> dict:
        return {
            "feature_columns": fc.to_config(self.linear.feature_columns),
            "units": self.linear.units,
            "sparse_combiner": self.linear.sparse_combiner,
        }

    @classmethod
    def from_spec(cls, spec: dict) -> LinearPart:
        return cls(fc.from_config(spec["feature_columns"]), spec["units"], spec["sparse_combiner"])


class DNNPart:
    """``DenseFeatures`` into a :class:`DNNTower` (TF's ``dnn/...``)."""

    def __init__(
        self,
        feature_columns,
        hidden_units,
        units,
        activation_fn="relu",
        dropout=None,
        batch_norm=False,
        rng=None,
    ):
        self.input_layer = fc.DenseFeatures(feature_columns, name="input_layer", seed=rng)
        self.tower = DNNTower(
            self.input_layer.dimension,
            hidden_units,
            units,
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            rng=rng,
        )
        self.hidden_units = [int(u) for u in hidden_units]
        self.units = units
        self.activation_fn = activation_fn

    def logits(self, features, training, rng, cache=None):
        # The input layer's output in pieces: the tower's first product takes them
        # without building their concatenation.
        inputs = self.input_layer.output_pieces(features if cache is None else cache)
        return self.tower(inputs, training=training, rng=rng)

    @property
    def trainable_variables(self):
        return self.input_layer.trainable_variables + self.tower.trainable_variables

    def checkpoint_children(self):
        # TF's names: dnn/input_from_feature_columns/input_layer/..., dnn/hiddenlayer_0/...
        return {
            "input_from_feature_columns": {"input_layer": self.input_layer},
            **self.tower.checkpoint_children(),
        }

    def spec(self) -> dict:
        return {
            "feature_columns": fc.to_config(self.input_layer.feature_columns),
            "hidden_units": self.hidden_units,
            "units": self.units,
            "activation_fn": activation_name(self.activation_fn),
            "dropout": self.tower.dropout or 0.0,
            "batch_norm": bool(self.tower.batch_norm),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> DNNPart:
        return cls(
            fc.from_config(spec["feature_columns"]),
            spec["hidden_units"],
            spec["units"],
            spec["activation_fn"],
            spec["dropout"] or None,
            spec["batch_norm"],
        )


class BaselinePart:
    """A bias per logit, the same for every example (TF's ``baseline/bias``, zeros at
    first): the Baseline estimators' model, which reads no feature's values, only the
    batch's size."""

    def __init__(self, units):
        if not isinstance(units, (int, np.integer)) or isinstance(units, bool) or units < 1:
            raise ValueError(f"a baseline needs an integer number of logits >= 1, got {units!r}")
        self.units = int(units)
        self.bias = core.Variable(np.zeros(self.units, np.float32), name="bias")

    def logits(self, features, training, rng, cache=None):
        """``bias * ones([batch, units])``, the batch's size from its features (TF's
        ``baseline_logit_fn``): ``ValueError`` for a batch without any."""
        if isinstance(features, Mapping) and not features:
            raise ValueError(
                "a Baseline estimator reads the batch size from the features, and the input "
                "gave none: yield at least one feature (any column) with the labels"
            )
        rows = cache.num_rows if cache is not None else fc.as_features(features).num_rows
        return core.multiply(self.bias, np.ones((rows, self.units), np.float32))

    @property
    def trainable_variables(self):
        return [self.bias]

    def checkpoint_children(self):
        return {"bias": self.bias}

    def spec(self) -> dict:
        return {"units": self.units}

    @classmethod
    def from_spec(cls, spec: dict) -> BaselinePart:
        return cls(spec["units"])


def activation_name(activation_fn) -> str:
    """The registered name of an activation; a custom function cannot be exported."""
    if isinstance(activation_fn, str):
        return activation_fn
    for name, fn in ACTIVATIONS.items():
        if fn is activation_fn:
            return name
    raise ValueError(
        f"activation_fn {activation_fn!r} is a custom function and cannot be exported; use "
        f"one of {sorted(ACTIVATIONS)} by name"
    )


class Network:
    """A linear part, a DNN part, or both, with their logits added (wide&deep); or a
    baseline part alone."""

    def __init__(
        self,
        linear: LinearPart | None = None,
        dnn: DNNPart | None = None,
        baseline: BaselinePart | None = None,
    ):
        if baseline is not None and (linear is not None or dnn is not None):
            raise ValueError("a baseline network has no linear or DNN part")
        if linear is None and dnn is None and baseline is None:
            raise ValueError("a network needs a linear part, a DNN part, or both (or a baseline)")
        self.linear, self.dnn, self.baseline = linear, dnn, baseline
        for path, var in core.Checkpoint(network=self).named_variables().items():
            var.name = path.removeprefix("network/")  # TF's: linear/linear_model/x/weights

    @property
    def feature_columns(self) -> list:
        """Every feature column either part reads."""
        return [c for layer in self.layers for c in layer.feature_columns]

    def transform(self, features, previous=None, num_threads=None) -> fc.TransformCache:
        """The feature transforms of one batch, each column computed once even when both
        parts read it. Model-free, so it can run ahead on the input thread. ``previous``,
        the batch before's, lends the hashes of dictionaries both share; ``num_threads``
        as in ``TransformCache.compute``."""
        cache = fc.TransformCache(features, previous)
        cache.compute(self.feature_columns, num_threads)
        return cache

    def prepare(self, cache: fc.TransformCache, training: bool) -> fc.TransformCache:
        """Have the layers compute ahead what a step on this batch needs besides the
        transforms (the rows their fused tables read); returns ``cache``."""
        for layer in self.layers:
            layer.prepare(cache, training)
        return cache

    @property
    def layers(self) -> list:
        """The feature-column layers of the parts."""
        return [
            layer
            for layer in (
                self.linear.linear if self.linear else None,
                self.dnn.input_layer if self.dnn else None,
            )
            if layer is not None
        ]

    def logits(self, features, training, rng, cache=None):
        """``(batch, units)`` logits; ``cache`` is the batch's :meth:`transform` if done."""
        cache = cache if cache is not None else self.transform(features)
        parts = [
            p.logits(features, training, rng, cache)
            for p in (self.linear, self.dnn, self.baseline)
            if p is not None
        ]
        return parts[0] if len(parts) == 1 else core.add(parts[0], parts[1])

    def checkpoint_children(self):
        return {
            name: part
            for name, part in (
                ("linear", self.linear),
                ("dnn", self.dnn),
                ("baseline", self.baseline),
            )
            if part is not None
        }

    def spec(self) -> dict:
        return {name: part.spec() for name, part in self.checkpoint_children().items()}

    @classmethod
    def from_spec(cls, spec: dict) -> Network:
        linear = LinearPart.from_spec(spec["linear"]) if "linear" in spec else None
        dnn = DNNPart.from_spec(spec["dnn"]) if "dnn" in spec else None
        baseline = BaselinePart.from_spec(spec["baseline"]) if "baseline" in spec else None
        return cls(linear, dnn, baseline)
