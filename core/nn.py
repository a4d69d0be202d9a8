"""Neural-network ops built from the primitives in :mod:`ops`: activations, softmax,
dropout and batch normalization. Their gradients come from the primitives'."""

from __future__ import annotations

import numpy as np

from . import ops
from .autodiff import Tensor, as_tensor, make_node, stop_gradient, value_of
from .backend import get_xp, to_host
from .threads import product

# SELU's constants (Klambauer et al., 2017), as in tf.nn.selu.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def dense(x, kernel, bias=None, relu: bool = False) -> Tensor:
    """``x @ kernel + bias``, then ``max(., 0)`` if ``relu``: a fully connected layer as one
    op, whose bias and activation are applied in place on the product (no temporaries
    the size of the output, which a DNN step otherwise allocates three times per layer).

    ``x`` is ``(batch, in)``, or a list of ``(batch, in_i)`` pieces that side by side are
    the input: each multiplies its rows of ``kernel``, so the concatenation is never built
    (an input layer's embeddings and numerics). ``kernel`` is ``(in, out)``, ``bias``
    ``(out,)`` or None.
    """
    pieces = [as_tensor(p) for p in (x if isinstance(x, (list, tuple)) else [x])]
    kernel = as_tensor(kernel)
    widths = [p.shape[1] if p.ndim == 2 else -1 for p in pieces]
    if (
        kernel.ndim != 2
        or min(widths) < 0
        or sum(widths) != kernel.shape[0]
        or len({p.shape[0] for p in pieces}) != 1
    ):
        shapes = " + ".join(str(p.shape) for p in pieces)
        raise ValueError(f"dense: shapes {shapes} and {kernel.shape} are not aligned")
    bounds = np.cumsum([0] + widths)
    rows = [kernel.value[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]
    out = product(pieces[0].value, rows[0])
    for piece, k in zip(pieces[1:], rows[1:]):
        out += product(piece.value, k)
    parents = pieces + [kernel]
    if bias is not None:
        bias = as_tensor(bias)
        if bias.shape != (kernel.shape[1],):
            raise ValueError(f"dense: bias of shape {bias.shape} for {kernel.shape[1]} units")
        out += bias.value
        parents.append(bias)
    if relu:
        get_xp(out).maximum(out, 0, out=out)
    n = len(pieces)

    def backward(g, need):
        if relu:
            g = g * (out > 0)
        grads = [product(g, k.T) if need[i] else None for i, k in enumerate(rows)]
        if need[n]:
            parts = [product(p.value.T, g) for p in pieces]
            grads.append(parts[0] if n == 1 else get_xp(g).concatenate(parts, axis=0))
        else:
            grads.append(None)
        if bias is not None:
            grads.append(g.sum(axis=0) if need[n + 1] else None)
        return tuple(grads)

    return make_node(out, parents, backward)


def relu6(x) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return ops.minimum(ops.relu(x), 6.0)


def leaky_relu(x, alpha: float = 0.2) -> Tensor:
    """``x`` for x > 0, else ``alpha * x`` (TensorFlow's default alpha is 0.2)."""
    x = as_tensor(x)
    return ops.where(x.value > 0, x, ops.multiply(x, alpha))


def elu(x) -> Tensor:
    """``x`` for x > 0, else ``exp(x) - 1``."""
    x = as_tensor(x)
    negative_part = ops.subtract(ops.exp(ops.minimum(x, 0.0)), 1.0)
    return ops.where(x.value > 0, x, negative_part)


def selu(x) -> Tensor:
    """Scaled ELU: ``scale * (x if x > 0 else alpha * (exp(x) - 1))``."""
    x = as_tensor(x)
    negative_part = ops.multiply(ops.subtract(ops.exp(ops.minimum(x, 0.0)), 1.0), SELU_ALPHA)
    return ops.multiply(ops.where(x.value > 0, x, negative_part), SELU_SCALE)


def _softmax_axis(axis, dim) -> int:
    if dim is not None:
        if axis not in (None, -1):
            raise ValueError("give axis or dim, not both")
        axis = dim
    return -1 if axis is None else int(axis)


def log_softmax(logits, axis=-1, name=None, dim=None) -> Tensor:
    """``logits - log(sum(exp(logits)))`` along ``axis`` (the last by default; TF 1's
    ``dim`` too), shifted by the max for stability."""
    axis = _softmax_axis(axis, dim)
    logits = as_tensor(logits)
    shifted = ops.subtract(logits, stop_gradient(ops.max(logits, axis=axis, keepdims=True)))
    return ops.subtract(shifted, ops.log(ops.sum(ops.exp(shifted), axis=axis, keepdims=True)))


def softmax(logits, axis=-1, name=None, dim=None) -> Tensor:
    """``exp(logits) / sum(exp(logits))`` along ``axis`` (the last by default; TF 1's
    ``dim`` too), shifted by the max for stability."""
    axis = _softmax_axis(axis, dim)
    logits = as_tensor(logits)
    shifted = ops.subtract(logits, stop_gradient(ops.max(logits, axis=axis, keepdims=True)))
    e = ops.exp(shifted)
    return ops.divide(e, ops.sum(e, axis=axis, keepdims=True))


def _rng(xp, rng):
    if rng is None or isinstance(rng, (int, np.integer)):
        return xp.random.default_rng(None if rng is None else int(rng))
    return rng


def dropout(
    x,
    rate=None,
    training: bool = True,
    rng=None,
    *,
    keep_prob=None,
    noise_shape=None,
    seed=None,
    name=None,
) -> Tensor:
    """Zero each element with probability ``rate`` and scale the rest by ``1 / (1 - rate)``.

    Identity when ``training`` is False. ``rng`` (or TF's ``seed``) is a seed or a
    ``Generator`` of the backend (``numpy.random.default_rng``); pass one generator
    through a run for reproducible masks. TF 1's ``keep_prob`` (``1 - rate``) may be given
    instead of ``rate``; ``noise_shape`` is the shape of the random mask, broadcast over
    ``x`` (``[batch, 1]`` drops whole rows), as ``tf.nn.dropout``'s.
    """
    rate = _dropout_rate(rate, keep_prob)
    x = as_tensor(x)
    if not training or rate == 0:
        return x
    xp = get_xp(x.value)
    shape = x.shape if noise_shape is None else tuple(int(d) for d in noise_shape)
    try:
        np.broadcast_shapes(shape, x.shape)
    except ValueError:
        raise ValueError(f"dropout: noise_shape {shape} does not broadcast to {x.shape}") from None
    keep = _rng(xp, rng if rng is not None else seed).random(shape) >= rate
    scale = xp.asarray(1.0 / (1.0 - rate), dtype=x.value.dtype)
    return ops.multiply(x, keep * scale)


def _dropout_rate(rate, keep_prob) -> float:
    """``rate``, or ``1 - keep_prob``; exactly one of them, in range (TF's ValueErrors)."""
    if (rate is None) == (keep_prob is None):
        raise ValueError("dropout takes rate or keep_prob (= 1 - rate), exactly one of them")
    if keep_prob is not None:
        if not 0 < keep_prob <= 1:
            raise ValueError(f"dropout keep_prob must be in (0, 1], got {keep_prob}")
        return 1.0 - float(keep_prob)
    if not 0 <= rate < 1:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}")
    return float(rate)


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + epsilon) + offset`` (as tf.nn.batch_normalization).

    ``offset`` and ``scale`` may be ``None``.
    """
    inv = ops.divide(1.0, ops.sqrt(ops.add(variance, variance_epsilon)))
    if scale is not None:
        inv = ops.multiply(inv, scale)
    out = ops.multiply(ops.subtract(x, mean), inv)
    return out if offset is None else ops.add(out, offset)


def batch_norm(
    x,
    gamma,
    beta,
    moving_mean,
    moving_variance,
    training: bool,
    momentum: float = 0.99,
    epsilon: float = 1e-3,
) -> Tensor:
    """Batch normalization over axis 0, as ``tf.layers.batch_normalization``.

    Training: normalize with the batch's mean and (biased) variance and move the
    ``moving_mean``/``moving_variance`` Variables towards them,
    ``moving = moving * momentum + batch * (1 - momentum)``. Inference: normalize with
    the moving statistics. ``gamma``/``beta`` (scale/offset) may be ``None``.
    """
    x = as_tensor(x)
    if not training:
        return batch_normalization(
            x, moving_mean.value, moving_variance.value, beta, gamma, epsilon
        )
    batch_mean = ops.mean(x, axis=0)
    batch_var = ops.mean(ops.square(ops.subtract(x, stop_gradient(batch_mean))), axis=0)
    m = value_of(batch_mean).astype(moving_mean.value.dtype, copy=False)
    v = value_of(batch_var).astype(moving_variance.value.dtype, copy=False)
    moving_mean.assign(moving_mean.value * momentum + m * (1 - momentum))
    moving_variance.assign(moving_variance.value * momentum + v * (1 - momentum))
    return batch_normalization(x, batch_mean, batch_var, beta, gamma, epsilon)


def softmax_cross_entropy_with_logits(labels, logits, axis: int = -1, name=None) -> Tensor:
    """``-sum(labels * log_softmax(logits))`` along ``axis``: one loss per example, for
    labels that are a probability distribution over the classes (``tf.nn``'s)."""
    logits = as_tensor(logits)
    xp = get_xp(logits.value)
    z = xp.asarray(value_of(labels), dtype=logits.value.dtype)
    if z.shape != logits.shape:
        raise ValueError(
            f"labels of shape {tuple(z.shape)} do not match logits of shape {logits.shape}"
        )
    return ops.negative(ops.sum(ops.multiply(log_softmax(logits, axis), z), axis=axis))


def l2_loss(t) -> Tensor:
    """``sum(t ** 2) / 2`` (``tf.nn.l2_loss``)."""
    return ops.multiply(ops.sum(ops.square(t)), 0.5)


def embedding_lookup(params, ids) -> Tensor:
    """Rows of ``params`` at ``ids`` (any shape); the gradient stays sparse."""
    return ops.gather(params, np.asarray(value_of(ids)))


_COMBINERS = {"sum": ops.segment_sum, "mean": ops.segment_mean, "sqrtn": ops.segment_sqrtn}


def embedding_lookup_sparse(
    params,
    sp_ids,
    sp_weights=None,
    partition_strategy="mod",
    name=None,
    combiner=None,
    max_norm=None,
    allow_fast_lookup=False,
) -> Tensor:
    """One combined embedding per row of a sparse batch of ids (``tf.nn``'s, TF's
    arguments in TF's order).

    ``sp_ids`` has ``indices`` (``(n, 2)``: row, position), ``values`` (n ids) and
    ``dense_shape`` (as a ``tf.SparseTensor``); ``sp_weights``, if given, the same
    ``indices`` and a weight per id. ``combiner``: ``"sum"``, ``"mean"`` (the default) or
    ``"sqrtn"``; an empty row gives zeros. ``params`` is one table, so
    ``partition_strategy`` has nothing to choose; a ``max_norm`` is refused (TF would clip
    each embedding to it).

    >>> from types import SimpleNamespace as S
    >>> ids = S(indices=np.array([[0, 0], [0, 1], [2, 0]]), values=np.array([0, 1, 1]),
    ...         dense_shape=(3, 2))
    >>> embedding_lookup_sparse(np.array([[1.0], [3.0]]), ids).numpy().tolist()
    [[2.0], [0.0], [3.0]]
    """
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of {sorted(_COMBINERS)}, got {combiner!r}")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"partition_strategy must be 'mod' or 'div', got {partition_strategy!r}")
    if max_norm is not None:
        raise ValueError("embedding_lookup_sparse(max_norm=...) is not supported")
    rows = np.asarray(sp_ids.indices)[:, 0]
    weights = None if sp_weights is None else np.asarray(value_of(sp_weights.values))
    gathered = ops.gather(params, np.asarray(sp_ids.values))
    return _COMBINERS[combiner](gathered, rows, int(sp_ids.dense_shape[0]), weights)


def zero_fraction(value, name=None) -> float:
    """The fraction of ``value``'s elements that are zero (``tf.nn.zero_fraction``), as a
    float; what TF's summaries report as a layer's sparsity.

    >>> import numpy as np
    >>> zero_fraction(np.array([0.0, 1.0, 0.0, 2.0]))
    0.5
    """
    array = value_of(value)
    if array.size == 0:
        return float("nan")
    xp = get_xp(array)
    return float(to_host(xp.count_nonzero(array == 0))) / array.size
