"""``tf.compat.v1.layers``: dense, convolution, pooling, flatten, dropout and batch
normalization (:mod:`.batch_norm_layer`) over named variables.

Each layer makes its variables through :func:`~colonnade.core.get_variable`, under the
layer's name: ``name`` or TF1's default, ``dense``, ``dense_1``... in call order within
one model call. As those defaults restart with each call, the n-th layer of every call
reuses the same variables.

>>> import colonnade as cn
>>> store = cn.core.VariableStore(seed=0)
>>> import numpy as np
>>> x = np.ones((2, 3), np.float32)
>>> with store.as_default():
...     h = cn.layers.dense(x, 4, activation=cn.nn.relu)
...     y = cn.layers.dense(h, 1)
>>> y.shape, sorted(store.variables())
((2, 1), ['dense/bias', 'dense/kernel', 'dense_1/bias', 'dense_1/kernel'])
"""

from __future__ import annotations

import numpy as np

from . import conv, initializers, nn, ops
from .autodiff import Tensor
from .batch_norm_layer import BatchNormalization, batch_normalization, default_layer_name
from .ops import relu as nn_relu
from .regularizers import add_regularization_loss
from .tf_array_ops import as_tensor
from .variable_scope import current_store, get_variable, variable_scope


def dense(
    inputs,
    units,
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=None,
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
) -> Tensor:
    """``activation(inputs @ kernel + bias)`` with ``<name>/kernel`` of shape
    ``(inputs.shape[-1], units)`` (Glorot uniform by default) and ``<name>/bias``
    (zeros), as ``tf.compat.v1.layers.dense``, in TF's argument order. The regularizers'
    penalties join the call's regularization losses (:mod:`.regularizers`; the activity
    one's on the output). Constraints (TF's projections after each update) are refused
    with a ``ValueError``. ``reuse`` is accepted: variables are always reused by name."""
    inputs = as_tensor(inputs)
    if inputs.ndim != 2:
        raise ValueError(f"dense needs (batch, features) inputs, got shape {inputs.shape}")
    scope, kernel, bias = _kernel_layer(
        "dense",
        inputs,
        units,
        (),
        0,
        name,
        kernel_initializer,
        use_bias,
        bias_initializer,
        (kernel_regularizer, bias_regularizer),
        trainable,
        (kernel_constraint, bias_constraint),
    )
    if activation is nn_relu:  # fused: the bias and ReLU applied in place on the product
        out = nn.dense(inputs, kernel, bias, relu=True)
    else:
        out = nn.dense(inputs, kernel, bias)
        out = out if activation is None else activation(out)
    if activity_regularizer is not None:
        add_regularization_loss(f"{scope}/activity", activity_regularizer, out)
    return out


class Dense:
    """``tf.compat.v1.layers.Dense``: :func:`dense` as an object, called on its inputs;
    its name (TF 1's ``dense``, ``dense_1``... unless given) is taken when it is made, and
    every call of one object uses the same variables."""

    def __init__(self, units, activation=None, use_bias=True, name=None, **kwargs):
        unknown = set(kwargs) - _DENSE_OPTIONS
        if unknown:
            raise TypeError(f"Dense() got unexpected keyword arguments {sorted(unknown)}")
        self.units, self.activation, self.use_bias, self.options = (
            units,
            activation,
            use_bias,
            kwargs,
        )
        self.name = name if name is not None else _default_name("dense")

    def __call__(self, inputs) -> Tensor:
        return dense(
            inputs, self.units, self.activation, self.use_bias, name=self.name, **self.options
        )

    apply = __call__


_DENSE_OPTIONS = {
    "kernel_initializer",
    "bias_initializer",
    "kernel_regularizer",
    "bias_regularizer",
    "activity_regularizer",
    "kernel_constraint",
    "bias_constraint",
    "trainable",
    "reuse",
}


def dropout(inputs, rate=0.5, training=False, seed=None, name=None) -> Tensor:
    """Zero each element with probability ``rate`` and scale the others by
    ``1 / (1 - rate)`` when ``training`` (TF1's default is ``training=False``: identity).
    The mask comes from ``seed``, else from the current store's generator."""
    rng = seed
    store = current_store()
    if rng is None and store is not None:
        rng = store.rng
    return nn.dropout(inputs, rate, training=bool(training), rng=rng)


def _kernel_layer(
    kind,
    inputs,
    filters,
    kernel_size,
    rank,
    name,
    init,
    use_bias,
    bias_init,
    regularizers,
    trainable,
    constraints,
):
    """The ``<name>/kernel`` of shape ``kernel_size + (in_channels, filters)`` and
    ``<name>/bias`` of a TF 1 convolution layer (of ``dense`` with an empty
    ``kernel_size``)."""
    if any(c is not None for c in constraints):
        raise ValueError(
            f"{kind}: kernel_constraint and bias_constraint are not supported: apply the "
            "projection to the variable after the optimizer's update (e.g. in a hook)"
        )
    size = tuple(int(k) for k in np.atleast_1d(kernel_size))
    size = size * rank if len(size) == 1 else size
    scope = name if name is not None else _default_name(kind)
    with variable_scope(scope):
        kernel = get_variable(
            "kernel",
            shape=(*size, inputs.shape[-1], int(filters)),
            initializer=_or(init, initializers.glorot_uniform()),
            regularizer=regularizers[0],
            trainable=trainable,
        )
        bias = None
        if use_bias:
            bias = get_variable(
                "bias",
                shape=(int(filters),),
                initializer=_or(bias_init, initializers.zeros()),
                regularizer=regularizers[1],
                trainable=trainable,
            )
    return scope, kernel, bias


def _channels(data_format: str) -> str:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"data_format must be channels_last or channels_first, got {data_format!r}"
        )
    return data_format


def _convolution(op, rank: int, doc: str):
    """TF 1's ``conv{rank}d`` layer over ``op`` (:func:`~.conv.conv2d` or ``conv1d``), in
    TF's argument order; ``strides`` and ``dilation_rate`` default to ones of the rank."""
    kind = f"conv{rank}d"
    ones = (1,) * rank if rank > 1 else 1

    def layer(
        inputs,
        filters,
        kernel_size,
        strides=ones,
        padding="valid",
        data_format="channels_last",
        dilation_rate=ones,
        activation=None,
        use_bias=True,
        kernel_initializer=None,
        bias_initializer=None,
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        trainable=True,
        name=None,
        reuse=None,
    ) -> Tensor:
        channels_last = conv.to_channels_last(as_tensor(inputs), _channels(data_format))
        scope, kernel, bias = _kernel_layer(
            kind,
            channels_last,
            filters,
            kernel_size,
            rank,
            name,
            kernel_initializer,
            use_bias,
            bias_initializer,
            (kernel_regularizer, bias_regularizer),
            trainable,
            (kernel_constraint, bias_constraint),
        )
        padding = str(padding).upper()
        out = op(channels_last, kernel, strides, padding, dilations=dilation_rate)
        return _finish(out, bias, activation, activity_regularizer, scope, data_format)

    layer.__name__ = layer.__qualname__ = kind
    layer.__doc__ = doc
    return layer


conv2d = _convolution(
    conv.conv2d,
    2,
    """``tf.compat.v1.layers.conv2d``: ``activation(conv2d(inputs, kernel) + bias)`` with
    ``<name>/kernel`` of shape ``kernel_size + (in_channels, filters)`` (Glorot uniform)
    and ``<name>/bias`` (zeros); default names ``conv2d``, ``conv2d_1``...""",
)
conv1d = _convolution(
    conv.conv1d,
    1,
    """``tf.compat.v1.layers.conv1d``: as :func:`conv2d` over ``(batch, width, channels)``,
    with ``<name>/kernel`` of shape ``(kernel_size, in_channels, filters)``.""",
)


def _finish(out, bias, activation, activity_regularizer, scope, data_format):
    if bias is not None:
        out = ops.add(out, bias)
    out = out if activation is None else activation(out)
    if activity_regularizer is not None:
        add_regularization_loss(f"{scope}/activity", activity_regularizer, out)
    return conv.from_channels_last(out, data_format)


def _pooling(pool, rank: int, name: str, tf_name: str):
    def layer(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        first = _channels(data_format) == "channels_first"
        fmt = {(2, False): "NHWC", (2, True): "NCHW", (1, False): "NWC", (1, True): "NCW"}
        return pool(inputs, pool_size, strides, str(padding).upper(), fmt[rank, first])

    layer.__name__ = layer.__qualname__ = name
    layer.__doc__ = f"``tf.compat.v1.layers.{name}``: :func:`~.conv.{tf_name}` of each window."
    return layer


max_pooling2d = _pooling(conv.max_pool2d, 2, "max_pooling2d", "max_pool2d")
average_pooling2d = _pooling(conv.avg_pool2d, 2, "average_pooling2d", "avg_pool2d")
max_pooling1d = _pooling(conv.max_pool1d, 1, "max_pooling1d", "max_pool1d")
average_pooling1d = _pooling(conv.avg_pool1d, 1, "average_pooling1d", "avg_pool1d")


def flatten(inputs, name=None, data_format="channels_last") -> Tensor:
    """``tf.compat.v1.layers.flatten``: ``(batch, ...)`` as ``(batch, everything else)``."""
    inputs = as_tensor(inputs)
    if _channels(data_format) == "channels_first" and inputs.ndim > 2:
        inputs = ops.transpose(inputs, (0, *range(2, inputs.ndim), 1))
    return ops.reshape(inputs, (inputs.shape[0], -1))


def _or(initializer, default):
    return default if initializer is None else initializer


_default_name = default_layer_name


__all__ = [
    "BatchNormalization",
    "Dense",
    "average_pooling1d",
    "average_pooling2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
]
