"""``tf.compat.v1.layers``: dense, dropout and batch normalization over named variables.

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

from . import initializers, nn
from .autodiff import Tensor, as_tensor
from .ops import relu as nn_relu
from .regularizers import add_regularization_loss
from .variable_scope import current_store, get_variable, unique_name, variable_scope


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
    if kernel_constraint is not None or bias_constraint is not None:
        raise ValueError(
            "dense: kernel_constraint and bias_constraint are not supported: apply the "
            "projection to the variable after the optimizer's update (e.g. in a hook)"
        )
    scope = name if name is not None else _default_name("dense")
    with variable_scope(scope):
        kernel = get_variable(
            "kernel",
            shape=(inputs.shape[1], int(units)),
            initializer=_or(kernel_initializer, initializers.glorot_uniform()),
            regularizer=kernel_regularizer,
            trainable=trainable,
        )
        bias = None
        if use_bias:
            bias = get_variable(
                "bias",
                shape=(int(units),),
                initializer=_or(bias_initializer, initializers.zeros()),
                regularizer=bias_regularizer,
                trainable=trainable,
            )
    if activation is nn_relu:  # fused: the bias and ReLU applied in place on the product
        out = nn.dense(inputs, kernel, bias, relu=True)
    else:
        out = nn.dense(inputs, kernel, bias)
        out = out if activation is None else activation(out)
    if activity_regularizer is not None:
        add_regularization_loss(f"{scope}/activity", activity_regularizer, out)
    return out


def dropout(inputs, rate=0.5, training=False, seed=None, name=None) -> Tensor:
    """Zero each element with probability ``rate`` and scale the others by
    ``1 / (1 - rate)`` when ``training`` (TF1's default is ``training=False``: identity).
    The mask comes from ``seed``, else from the current store's generator."""
    rng = seed
    store = current_store()
    if rng is None and store is not None:
        rng = store.rng
    return nn.dropout(inputs, rate, training=bool(training), rng=rng)


def batch_normalization(
    inputs, training=False, momentum=0.99, epsilon=1e-3, center=True, scale=True, name=None
) -> Tensor:
    """Batch normalization over axis 0 with ``<name>/gamma``, ``beta``, ``moving_mean``
    and ``moving_variance`` (TF1's names; default name ``batch_normalization``). In
    training it normalizes with the batch's statistics and moves the moving ones."""
    inputs = as_tensor(inputs)
    width = inputs.shape[-1]
    scope = name if name is not None else _default_name("batch_normalization")
    with variable_scope(scope):
        gamma = get_variable("gamma", (width,), initializer=initializers.ones()) if scale else None
        beta = get_variable("beta", (width,), initializer=initializers.zeros()) if center else None
        mean = get_variable(
            "moving_mean", (width,), initializer=initializers.zeros(), trainable=False
        )
        var = get_variable(
            "moving_variance", (width,), initializer=initializers.ones(), trainable=False
        )
    store = current_store()
    if training and store is not None and store.building:
        saved = mean.numpy(), var.numpy()  # a build pass must not move the statistics
        out = nn.batch_norm(inputs, gamma, beta, mean, var, True, momentum, epsilon)
        mean.assign(saved[0])
        var.assign(saved[1])
        return out
    return nn.batch_norm(inputs, gamma, beta, mean, var, bool(training), momentum, epsilon)


def _or(initializer, default):
    return default if initializer is None else initializer


def _default_name(base: str) -> str:
    full = unique_name(base)
    prefix = "/".join(full.split("/")[:-1])
    return full[len(prefix) + 1 :] if prefix else full


__all__ = ["dense", "dropout", "batch_normalization"]
