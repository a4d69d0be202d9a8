"""``tf.compat.v1.layers.batch_normalization`` and ``BatchNormalization``: TF 1's batch
normalization layer over named variables, along any ``axis``.

The layer makes ``<name>/gamma`` and ``<name>/beta`` (trainable unless
``trainable=False``; left out by ``scale=False``/``center=False``) and the non-trainable
``<name>/moving_mean`` and ``<name>/moving_variance``, one entry per channel of ``axis``
(TF 1's default name ``batch_normalization``, ``batch_normalization_1``...). In training
it normalizes with the batch's statistics over every other axis and moves the moving
ones as it runs (``moving = moving * momentum + batch * (1 - momentum)``), the updates a
TF 1 graph leaves in ``UPDATE_OPS``: eager, there is nothing left to run. Where TF
takes its fused kernel (4-D or 5-D input, the channels first or last, ``fused`` not
``False``), the moving variance moves towards the batch's unbiased variance, as TF's;
otherwise towards the biased one. Inference normalizes with the moving statistics.

>>> import colonnade as cn, numpy as np
>>> store = cn.core.VariableStore(seed=0)
>>> with store.as_default():
...     y = batch_normalization(np.ones((4, 2, 3), np.float32), axis=1, training=True)
>>> y.shape, sorted(store.variables())[0]
((4, 2, 3), 'batch_normalization/beta')
"""

from __future__ import annotations

import numpy as np

from . import initializers, nn, ops
from .autodiff import Tensor, stop_gradient, value_of
from .tf_array_ops import as_tensor
from .variable_scope import current_store, get_variable, unique_name, variable_scope

__all__ = ["BatchNormalization", "batch_normalization"]


def _axes(axis, ndim: int) -> list:
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in axes:
        if not -ndim <= int(a) < ndim:
            raise ValueError(
                f"batch_normalization: axis {a} is out of range for inputs of rank {ndim}"
            )
        out.append(int(a) % ndim)
    return sorted(set(out))


def _fused(fused, axes: list, ndim: int, renorm, virtual_batch_size, adjustment) -> bool:
    """Whether TF takes its fused kernel (which moves the variance towards the unbiased
    batch variance); ``fused=True`` where TF cannot is TF's ``ValueError``."""
    channel_ok = ndim in (4, 5) and axes in ([1], [ndim - 1])
    plain = not renorm and virtual_batch_size is None and adjustment is None
    if fused is True and not (channel_ok and plain):
        raise ValueError(
            "batch_normalization: fused=True needs 4-D or 5-D inputs normalized along axis "
            f"1 or the last, without renorm, virtual_batch_size or adjustment; got axis "
            f"{axes} of rank {ndim}"
        )
    return fused is not False and channel_ok and plain


def _refuse(renorm, virtual_batch_size, adjustment, constraints):
    if renorm:
        raise ValueError(
            "batch_normalization: renorm=True (batch renormalization) is not supported; "
            "use renorm=False"
        )
    if virtual_batch_size is not None or adjustment is not None:
        raise ValueError(
            "batch_normalization: virtual_batch_size and adjustment are not supported; "
            "leave them None"
        )
    if any(c is not None for c in constraints):
        raise ValueError(
            "batch_normalization: beta_constraint and gamma_constraint are not supported: "
            "apply the projection to the variable after the optimizer's update"
        )


def batch_normalization(
    inputs,
    axis=-1,
    momentum=0.99,
    epsilon=1e-3,
    center=True,
    scale=True,
    beta_initializer=None,
    gamma_initializer=None,
    moving_mean_initializer=None,
    moving_variance_initializer=None,
    beta_regularizer=None,
    gamma_regularizer=None,
    beta_constraint=None,
    gamma_constraint=None,
    training=False,
    trainable=True,
    name=None,
    reuse=None,
    renorm=False,
    renorm_clipping=None,
    renorm_momentum=0.99,
    fused=None,
    virtual_batch_size=None,
    adjustment=None,
) -> Tensor:
    """Batch normalization of ``inputs`` along ``axis`` (an int or a list; the channels),
    as ``tf.compat.v1.layers.batch_normalization``, in TF's argument order (see the
    module). ``reuse`` is accepted: variables are always reused by name. Batch
    renormalization, virtual batches, ``adjustment`` and constraints are refused with a
    ``ValueError``."""
    _refuse(renorm, virtual_batch_size, adjustment, (beta_constraint, gamma_constraint))
    inputs = as_tensor(inputs)
    axes = _axes(axis, inputs.ndim)
    unbiased = _fused(fused, axes, inputs.ndim, renorm, virtual_batch_size, adjustment)
    channels = tuple(inputs.shape[a] for a in axes)
    scope = name if name is not None else default_layer_name("batch_normalization")

    def var(vname, init, default, regularizer=None, train=True):
        return get_variable(
            vname,
            channels,
            initializer=init if init is not None else default,
            regularizer=regularizer,
            trainable=bool(trainable) and train,
        )

    with variable_scope(scope):
        gamma = (
            var("gamma", gamma_initializer, initializers.ones(), gamma_regularizer)
            if scale
            else None
        )
        beta = (
            var("beta", beta_initializer, initializers.zeros(), beta_regularizer)
            if center
            else None
        )
        mean = var("moving_mean", moving_mean_initializer, initializers.zeros(), train=False)
        variance = var(
            "moving_variance", moving_variance_initializer, initializers.ones(), train=False
        )
    shape = [inputs.shape[a] if a in axes else 1 for a in range(inputs.ndim)]

    def broadcast(t):
        return None if t is None else ops.reshape(t, shape)

    gamma, beta = broadcast(gamma), broadcast(beta)
    if not training:
        return nn.batch_normalization(
            inputs, broadcast(mean.value), broadcast(variance.value), beta, gamma, epsilon
        )
    reduce = tuple(a for a in range(inputs.ndim) if a not in axes)
    batch_mean = ops.mean(inputs, axis=reduce, keepdims=True)
    centered = ops.subtract(inputs, stop_gradient(batch_mean))
    batch_var = ops.mean(ops.square(centered), axis=reduce, keepdims=True)
    store = current_store()
    if store is None or not store.building:  # a build pass must not move the statistics
        count = int(np.prod(inputs.shape)) // max(int(np.prod(channels)), 1)
        m = value_of(batch_mean).reshape(channels).astype(mean.value.dtype, copy=False)
        v = value_of(batch_var).reshape(channels).astype(variance.value.dtype, copy=False)
        if unbiased and count > 1:
            v = v * (count / (count - 1))
        decay = 1 - momentum
        mean.assign(mean.value - (mean.value - m) * decay)
        variance.assign(variance.value - (variance.value - v) * decay)
    return nn.batch_normalization(inputs, batch_mean, batch_var, beta, gamma, epsilon)


class BatchNormalization:
    """``tf.compat.v1.layers.BatchNormalization``: :func:`batch_normalization` as an
    object, called on its inputs with ``training=``; its name (``batch_normalization``,
    ``batch_normalization_1``... unless given) is taken when it is made, so every call
    of one object uses the same variables."""

    def __init__(
        self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, name=None, **kwargs
    ):
        unknown = set(kwargs) - _OPTIONS
        if unknown:
            raise TypeError(
                f"BatchNormalization() got unexpected keyword arguments {sorted(unknown)}"
            )
        self.axis, self.momentum, self.epsilon = axis, momentum, epsilon
        self.center, self.scale, self.options = center, scale, kwargs
        self.name = name if name is not None else default_layer_name("batch_normalization")

    def __call__(self, inputs, training=False) -> Tensor:
        return batch_normalization(
            inputs,
            self.axis,
            self.momentum,
            self.epsilon,
            self.center,
            self.scale,
            training=training,
            name=self.name,
            **self.options,
        )

    apply = __call__


_OPTIONS = {
    "beta_initializer",
    "gamma_initializer",
    "moving_mean_initializer",
    "moving_variance_initializer",
    "beta_regularizer",
    "gamma_regularizer",
    "beta_constraint",
    "gamma_constraint",
    "renorm",
    "renorm_clipping",
    "renorm_momentum",
    "fused",
    "trainable",
    "virtual_batch_size",
    "adjustment",
}


def default_layer_name(base: str) -> str:
    """TF 1's default layer name: ``base``, ``base_1``... within the current scope."""
    full = unique_name(base)
    prefix = "/".join(full.split("/")[:-1])
    return full[len(prefix) + 1 :] if prefix else full
