"""The networks of the canned estimators: features -> logits, owning their variables.

A network is a linear part, a DNN part, or both (wide&deep), whose logits add up. Each
part can describe itself declaratively (``spec``) so an export can rebuild it without
the estimator that trained it.
"""

from __future__ import annotations

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
    """A linear part, a DNN part, or both, with their logits added (wide&deep)."""

    def __init__(self, linear: LinearPart | None = None, dnn: DNNPart | None = None):
        if linear is None and dnn is None:
            raise ValueError("a network needs a linear part, a DNN part, or both")
        self.linear, self.dnn = linear, dnn
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
            for p in (self.linear, self.dnn)
            if p is not None
        ]
        return parts[0] if len(parts) == 1 else core.add(parts[0], parts[1])

    def checkpoint_children(self):
        return {
            name: part
            for name, part in (("linear", self.linear), ("dnn", self.dnn))
            if part is not None
        }

    def spec(self) -> dict:
        return {name: part.spec() for name, part in self.checkpoint_children().items()}

    @classmethod
    def from_spec(cls, spec: dict) -> Network:
        linear = LinearPart.from_spec(spec["linear"]) if "linear" in spec else None
        dnn = DNNPart.from_spec(spec["dnn"]) if "dnn" in spec else None
        return cls(linear, dnn)
