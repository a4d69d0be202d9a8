"""Convolution and pooling as ``tf.nn`` computes them (``conv2d``, ``conv1d``, ``max_pool2d``,
``avg_pool2d``), eager and differentiable, over :mod:`.ops`.

Each window is gathered from the (padded) input with one integer index (``im2col``), so a
convolution is one matrix product and its gradient the product's and the gather's. TF's
``SAME`` padding puts the odd pixel after; ``max_pool`` pads with ``-inf`` and ``avg_pool``
divides by the valid pixels of each window, as TF. Where several pixels tie for a window's
maximum the gradient is shared among them (TF gives it to the first).

>>> import numpy as np
>>> x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
>>> max_pool2d(x, 2, 2, "VALID").numpy().reshape(2, 2).tolist()
[[5.0, 7.0], [13.0, 15.0]]
>>> float(conv2d(x, np.ones((2, 2, 1, 1), np.float32), 1, "VALID").numpy()[0, 0, 0, 0])
10.0
"""

from __future__ import annotations

import numpy as np

from . import ops
from .autodiff import Tensor, value_of
from .tf_array_ops import as_tensor


def _pair(value, what: str, rank: int = 2) -> tuple:
    """TF's int-or-list spatial argument (``strides``, ``ksize``): the spatial sizes, also
    from TF's 4-element ``[1, h, w, 1]`` form."""
    sizes = [int(v) for v in np.atleast_1d(value_of(value))]
    if len(sizes) == 1:
        sizes = sizes * rank
    elif len(sizes) == rank + 2:
        if sizes[0] != 1 or sizes[-1] != 1:
            raise ValueError(f"{what} {sizes}: the batch and channel entries must be 1")
        sizes = sizes[1:-1]
    if len(sizes) != rank or any(s < 1 for s in sizes):
        raise ValueError(f"{what} must be {rank} positive sizes, got {list(np.atleast_1d(value))}")
    return tuple(sizes)


def _padding(padding, size: int, window: int, stride: int) -> tuple[int, int, int]:
    """``(out, before, after)`` along one axis for TF's ``"SAME"``/``"VALID"``."""
    mode = str(padding).upper()
    if mode == "VALID":
        if size < window:
            raise ValueError(f"VALID window {window} is larger than the input size {size}")
        return (size - window) // stride + 1, 0, 0
    if mode != "SAME":
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return out, total // 2, total - total // 2


def _pad(x: Tensor, pads, fill: float) -> Tensor:
    """``x`` (NHWC) with ``pads[i] = (before, after)`` rows of ``fill`` on spatial axis i."""
    for axis, (before, after) in enumerate(pads, start=1):
        if before or after:
            shape = list(x.shape)
            parts = []
            if before:
                shape[axis] = before
                parts.append(Tensor(np.full(shape, fill, x.value.dtype)))
            parts.append(x)
            if after:
                shape[axis] = after
                parts.append(Tensor(np.full(shape, fill, x.value.dtype)))
            x = ops.concat(parts, axis)
    return x


def _windows(x: Tensor, window, strides, dilations, padding, fill: float):
    """The windows of ``x`` (NHWC): shape ``(N, OH, OW, kh, kw, C)``, and the padding."""
    (kh, kw), (sh, sw), (dh, dw) = window, strides, dilations
    span_h, span_w = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh, top, bottom = _padding(padding, x.shape[1], span_h, sh)
    ow, left, right = _padding(padding, x.shape[2], span_w, sw)
    pads = ((top, bottom), (left, right))
    x = _pad(x, pads, fill)
    rows = (np.arange(oh) * sh)[:, None] + np.arange(kh) * dh
    cols = (np.arange(ow) * sw)[:, None] + np.arange(kw) * dw
    return ops.getitem(x, (slice(None), rows[:, None, :, None], cols[None, :, None, :])), pads


def to_channels_last(x: Tensor, data_format: str) -> Tensor:
    """``x`` in ``data_format`` (TF's NHWC/NCHW/NWC/NCW or Keras' channels_last/first) as
    channels-last, the layout the ops here compute in."""
    if data_format in ("NHWC", "NWC", "channels_last"):
        return x
    if data_format in ("NCHW", "NCW", "channels_first"):
        return ops.transpose(x, (0, *range(2, x.ndim), 1))
    raise ValueError(f"data_format must be NHWC or NCHW, got {data_format!r}")


def from_channels_last(x: Tensor, data_format: str) -> Tensor:
    """A channels-last result back in ``data_format``."""
    if data_format in ("NCHW", "NCW", "channels_first"):
        return ops.transpose(x, (0, x.ndim - 1, *range(1, x.ndim - 1)))
    return x


def _without_height(x: Tensor) -> Tensor:
    """A 1-D op's result, computed as 2-D over a height of 1, without that height."""
    return ops.reshape(x, (x.shape[0], x.shape[2], x.shape[3]))


def _check_rank(x: Tensor, rank: int, op: str) -> None:
    if x.ndim != rank:
        raise ValueError(f"{op} needs a rank-{rank} input, got shape {x.shape}")


def conv2d(
    input,  # noqa: A002 (TF's argument names)
    filters=None,
    strides=1,
    padding="VALID",
    data_format="NHWC",
    dilations=None,
    name=None,
    use_cudnn_on_gpu=True,
    filter=None,  # noqa: A002
) -> Tensor:
    """``tf.nn.conv2d``: ``input`` (NHWC) convolved with ``filters`` of shape
    ``(kh, kw, in_channels, out_channels)`` (TF 1's ``filter=`` too)."""
    filters = filter if filters is None else filters
    if filters is None:
        raise TypeError("conv2d needs filters")
    x, kernel = to_channels_last(as_tensor(input), data_format), as_tensor(filters)
    _check_rank(x, 4, "conv2d")
    _check_rank(kernel, 4, "conv2d's filters")
    kh, kw, cin, cout = kernel.shape
    if x.shape[-1] != cin:
        raise ValueError(f"conv2d: input has {x.shape[-1]} channels, the filters expect {cin}")
    dilations = (1, 1) if dilations is None else _pair(dilations, "dilations")
    patches, _ = _windows(x, (kh, kw), _pair(strides, "strides"), dilations, padding, 0.0)
    n, oh, ow = patches.shape[:3]
    flat = ops.reshape(patches, (n * oh * ow, kh * kw * cin))
    out = ops.matmul(flat, ops.reshape(kernel, (kh * kw * cin, cout)))
    return from_channels_last(ops.reshape(out, (n, oh, ow, cout)), data_format)


def conv1d(
    input,  # noqa: A002
    filters=None,
    stride=1,
    padding="VALID",
    data_format="NWC",
    dilations=None,
    name=None,
    filter=None,  # noqa: A002
    use_cudnn_on_gpu=None,
    value=None,
) -> Tensor:
    """``tf.nn.conv1d``: ``input`` (NWC) convolved with ``filters`` of shape
    ``(k, in_channels, out_channels)``: :func:`conv2d` over a height of 1."""
    filters = filter if filters is None else filters
    x = to_channels_last(as_tensor(value if input is None else input), data_format)
    _check_rank(x, 3, "conv1d")
    kernel = as_tensor(filters)
    _check_rank(kernel, 3, "conv1d's filters")
    dilation = 1 if dilations is None else _pair(dilations, "dilations", 1)[0]
    out = conv2d(
        ops.expand_dims(x, 1),
        ops.expand_dims(kernel, 0),
        (1, _pair(stride, "stride", 1)[0]),
        padding,
        dilations=(1, dilation),
    )
    return from_channels_last(
        ops.reshape(out, (out.shape[0], out.shape[2], out.shape[3])), data_format
    )


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """``tf.nn.max_pool2d``: the largest value of each ``ksize`` window."""
    x = to_channels_last(as_tensor(input), data_format)
    _check_rank(x, 4, "max_pool2d")
    window = _pair(ksize, "ksize")
    patches, _ = _windows(x, window, _pair(strides, "strides"), (1, 1), padding, -np.inf)
    n, oh, ow = patches.shape[:3]
    flat = ops.reshape(patches, (n, oh, ow, window[0] * window[1], x.shape[-1]))
    return from_channels_last(ops.max(flat, axis=3), data_format)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """``tf.nn.avg_pool2d``: the mean of each ``ksize`` window over its valid pixels."""
    x = to_channels_last(as_tensor(input), data_format)
    _check_rank(x, 4, "avg_pool2d")
    window, strides = _pair(ksize, "ksize"), _pair(strides, "strides")
    patches, pads = _windows(x, window, strides, (1, 1), padding, 0.0)
    n, oh, ow = patches.shape[:3]
    area = window[0] * window[1]
    total = ops.sum(ops.reshape(patches, (n, oh, ow, area, x.shape[-1])), axis=3)
    ones = Tensor(np.ones((1, x.shape[1], x.shape[2], 1), x.value.dtype))
    counts, _ = _windows(ones, window, strides, (1, 1), padding, 0.0)
    count = np.asarray(counts.value).reshape(1, oh, ow, area, 1).sum(axis=3)
    return from_channels_last(ops.divide(total, Tensor(count.astype(x.value.dtype))), data_format)


def _pool1d(pool2d, input, ksize, strides, padding, data_format):  # noqa: A002
    x = to_channels_last(as_tensor(input), data_format)
    _check_rank(x, 3, pool2d.__name__.replace("2d", "1d"))
    k, s = _pair(ksize, "ksize", 1)[0], _pair(strides, "strides", 1)[0]
    out = pool2d(ops.expand_dims(x, 1), (1, k), (1, s), padding)
    return from_channels_last(
        ops.reshape(out, (out.shape[0], out.shape[2], out.shape[3])), data_format
    )


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:  # noqa: A002
    """``tf.nn.max_pool1d``: :func:`max_pool2d` over a height of 1."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None) -> Tensor:  # noqa: A002
    """``tf.nn.avg_pool1d``: :func:`avg_pool2d` over a height of 1."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)
