"""The feed-forward tower of the DNN estimators: hidden layers, dropout, batch norm, logits.

Layer names follow TF 2.15's canned DNN (``hiddenlayer_0/kernel``,
``hiddenlayer_0/batchnorm_0/gamma``,
``logits/bias``) so checkpoints read like TF's.
"""

from __future__ import annotations

import numpy as np

from ... import core
from ...core.autodiff import value_of

# tf.estimator's DNN builds its batch-norm layers with momentum 0.999 (canned/dnn.py).
DNN_BATCH_NORM_MOMENTUM = 0.999
# Keras' BatchNormalization default epsilon, used by the canned DNN.
DNN_BATCH_NORM_EPSILON = 1e-3

# The name scope of TF's canned DNN, under which it records its layers' summaries.
SUMMARY_SCOPE = "dnn"

ACTIVATIONS = {
    "relu": core.relu,
    "relu6": core.relu6,
    "elu": core.elu,
    "selu": core.selu,
    "leaky_relu": core.leaky_relu,
    "sigmoid": core.sigmoid,
    "tanh": core.tanh,
    "softplus": core.softplus,
    "linear": lambda x: x,
}


def resolve_activation(activation_fn):
    """An activation given by name (``"relu"``) or as a function of a Tensor."""
    if callable(activation_fn):
        return activation_fn
    if activation_fn in ACTIVATIONS:
        return ACTIVATIONS[activation_fn]
    raise ValueError(
        f"activation_fn must be a callable or one of {sorted(ACTIVATIONS)}, got {activation_fn!r}"
    )


MAX_KERNEL_ELEMENTS = (1 << 31) - 1
"""The largest kernel a hidden layer may have (8 GiB of float32): a size beyond it is a
typo or a hostile config, refused by name before anything is allocated."""


def check_hidden_units(input_dim: int, hidden_units) -> None:
    """``hidden_units`` is a non-empty list of positive integers whose kernels (input
    width x units, layer by layer) stay within :data:`MAX_KERNEL_ELEMENTS`."""
    units = list(hidden_units or [])
    if not units or any(
        isinstance(u, bool) or not isinstance(u, (int, np.integer)) or u < 1 for u in units
    ):
        raise ValueError(
            f"hidden_units must be a non-empty list of positive ints, got {hidden_units!r}"
        )
    for i, (fan_in, width) in enumerate(zip([input_dim, *units], units)):
        if int(fan_in) * int(width) > MAX_KERNEL_ELEMENTS:
            raise ValueError(
                f"hidden layer {i} ({int(fan_in):,} inputs x {int(width):,} units) would "
                f"have {int(fan_in) * int(width):,} weights, more than {MAX_KERNEL_ELEMENTS:,}"
            )


def record_layer_summary(name: str, net) -> None:
    """TF's ``_add_hidden_layer_summary`` for a layer's output ``net``, while a training
    call records (:mod:`colonnade.core.model_calls`): the share of its values that are
    zero, as ``dnn/<layer>/fraction_of_zero_values``. TF's ``activation`` histogram is
    not kept (docs/tf_differences.md): it would hold every step's activations."""
    if core.model_calls.current() is None:
        return
    values = value_of(net)
    zero_fraction = core.summaries.Deferred(lambda: (values == 0).mean())
    core.summaries.scalar(f"{SUMMARY_SCOPE}/{name}/fraction_of_zero_values", zero_fraction)


class DNNTower:
    """``input -> [dense -> activation -> dropout -> batch norm] * n -> logits``.

    Kernels start Glorot-uniform and biases at zero, as Keras' Dense layers.
    """

    def __init__(
        self,
        input_dim,
        hidden_units,
        logits_dimension,
        activation_fn="relu",
        dropout=None,
        batch_norm=False,
        rng=None,
    ):
        check_hidden_units(input_dim, hidden_units)
        if dropout is not None and not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.activation = resolve_activation(activation_fn)
        self.dropout = dropout
        self.batch_norm = batch_norm
        glorot = core.initializers.glorot_uniform()
        self.layers = []
        fan_in = input_dim
        for i, units in enumerate(list(hidden_units) + [logits_dimension]):
            name = f"hiddenlayer_{i}" if i < len(hidden_units) else "logits"
            layer = {
                "kernel": core.Variable(glorot((fan_in, units), rng=rng), name=f"{name}/kernel"),
                "bias": core.Variable(np.zeros(units, np.float32), name=f"{name}/bias"),
            }
            if batch_norm and name != "logits":
                scope = f"{name}/batchnorm_{i}"  # TF 2.15's names, inside the hidden layer
                layer["batchnorm"] = {
                    "gamma": core.Variable(np.ones(units, np.float32), name=f"{scope}/gamma"),
                    "beta": core.Variable(np.zeros(units, np.float32), name=f"{scope}/beta"),
                    "moving_mean": core.Variable(
                        np.zeros(units, np.float32),
                        trainable=False,
                        name=f"{scope}/moving_mean",
                    ),
                    "moving_variance": core.Variable(
                        np.ones(units, np.float32),
                        trainable=False,
                        name=f"{scope}/moving_variance",
                    ),
                }
            self.layers.append((name, layer))
            fan_in = units

    def __call__(self, inputs, training: bool, rng=None):
        """Logits of ``inputs``: a ``(batch, input_dim)`` tensor, or a list of pieces that
        side by side make it (see :func:`colonnade.core.dense`)."""
        net = inputs
        for name, layer in self.layers:
            last = name == "logits"
            fused_relu = self.activation is core.relu and not last  # applied in place
            net = core.dense(net, layer["kernel"], layer["bias"], relu=fused_relu)
            if last:
                record_layer_summary(name, net)
                break
            if not fused_relu:
                net = self.activation(net)
            if self.dropout and training:
                net = core.dropout(net, self.dropout, training=True, rng=rng)
            if "batchnorm" in layer:
                bn = layer["batchnorm"]
                net = core.batch_norm(
                    net,
                    bn["gamma"],
                    bn["beta"],
                    bn["moving_mean"],
                    bn["moving_variance"],
                    training=training,
                    momentum=DNN_BATCH_NORM_MOMENTUM,
                    epsilon=DNN_BATCH_NORM_EPSILON,
                )
            record_layer_summary(name, net)
        return net

    def checkpoint_children(self) -> dict:
        children = {}
        for i, (name, layer) in enumerate(self.layers):
            children[f"{name}/kernel"] = layer["kernel"]
            children[f"{name}/bias"] = layer["bias"]
            for key, var in layer.get("batchnorm", {}).items():
                children[f"{name}/batchnorm_{i}/{key}"] = var
        return children

    @property
    def variables(self) -> list:
        return list(self.checkpoint_children().values())

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]
