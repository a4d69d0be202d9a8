"""Reverse-mode automatic differentiation over backend arrays.

A :class:`Tensor` holds a value (a numpy or cupy array) and, when it was computed by an
op, the tensors it came from and a ``backward`` closure that maps the gradient of the
output to the gradients of those inputs. Differentiation is a topological sort followed
by one reversed pass (as in micrograd). Everything is eager: ops compute their value at
once, and the recorded graph lives exactly as long as the tensors that reference it.

>>> import colonnade as cn
>>> w = cn.core.Variable([1.0, 2.0])
>>> loss, (g,) = cn.core.value_and_grad(lambda: cn.core.sum(w * w))([w])
>>> float(loss), g.tolist()
(5.0, [2.0, 4.0])
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from .backend import get_xp, to_host
from .indexed_rows import IndexedRows
from .step_trace import traced

_recording = [True]


@contextlib.contextmanager
def no_grad():
    """Within this block ops record no graph: faster inference, less memory."""
    _recording.append(False)
    try:
        yield
    finally:
        _recording.pop()


def _shape(v) -> tuple:
    return tuple(getattr(v, "shape", ()))


class Tensor:
    """An array value plus the recipe for its gradient.

    ``parents`` are the input tensors and ``backward(g, need)`` returns one gradient per
    parent (``None`` where ``need`` says the parent's gradient is not wanted). Its arithmetic
    operators (``+ - * / ** @``, unary ``-``, ``[]``) and ``.T``, ``.reshape``, ``.sum``,
    ``.mean`` are the ops of :mod:`colonnade.core.ops`, which builds on this module and
    attaches them to the class.
    """

    __slots__ = ("value", "parents", "backward", "__weakref__")
    __array_ufunc__ = None  # make `ndarray op Tensor` defer to Tensor's reflected operators

    def __init__(self, value, parents=(), backward=None):
        self.value = value
        self.parents = parents
        self.backward = backward

    if TYPE_CHECKING:  # what core/ops.py attaches, declared for type checkers and editors

        def __add__(self, other) -> Tensor: ...
        def __radd__(self, other) -> Tensor: ...
        def __sub__(self, other) -> Tensor: ...
        def __rsub__(self, other) -> Tensor: ...
        def __mul__(self, other) -> Tensor: ...
        def __rmul__(self, other) -> Tensor: ...
        def __truediv__(self, other) -> Tensor: ...
        def __rtruediv__(self, other) -> Tensor: ...
        def __pow__(self, other) -> Tensor: ...
        def __rpow__(self, other) -> Tensor: ...
        def __matmul__(self, other) -> Tensor: ...
        def __rmatmul__(self, other) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __getitem__(self, index) -> Tensor: ...
        def reshape(self, *shape) -> Tensor: ...
        def sum(self, axis=None, keepdims=False) -> Tensor: ...
        def mean(self, axis=None, keepdims=False) -> Tensor: ...
        @property
        def T(self) -> Tensor: ...

    @property
    def shape(self) -> tuple:
        return _shape(self.value)

    @property
    def dtype(self):
        return getattr(self.value, "dtype", type(self.value))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numpy(self):
        """A host (numpy) copy of the value: later updates of a Variable do not change it.

        >>> import numpy as np
        >>> import colonnade as cn
        >>> v = cn.core.Variable([1.0])
        >>> before = v.numpy()
        >>> cn.train.GradientDescentOptimizer(0.5).apply_gradients([(np.ones(1), v)])
        >>> before.tolist(), v.numpy().tolist()
        ([1.0], [0.5])
        """
        out = to_host(self.value)
        return out.copy() if out is self.value or out.base is not None else out

    def __array__(self, dtype=None, copy=None):
        out = to_host(self.value)
        return out.astype(dtype) if dtype is not None else out

    def __float__(self) -> float:
        return float(to_host(self.value))

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape}, dtype={self.dtype})"

    # Comparisons are not differentiable: they return plain boolean arrays.
    def __lt__(self, other):
        return self.value < value_of(other)

    def __le__(self, other):
        return self.value <= value_of(other)

    def __gt__(self, other):
        return self.value > value_of(other)

    def __ge__(self, other):
        return self.value >= value_of(other)


def value_of(x):
    """The raw array inside a Tensor or Variable; anything else is returned as is."""
    return x.value if isinstance(x, Tensor) else x


def as_tensor(x) -> Tensor:
    """``x`` as a Tensor; arrays and Python numbers become constants (no gradient)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def make_node(value, parents, backward) -> Tensor:
    """The output tensor of an op; records the graph unless inside ``no_grad``."""
    if _recording[-1]:
        return Tensor(value, tuple(parents), backward)
    return Tensor(value)


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002  (TF's argument name)
    """The same value, cut from the graph: no gradient flows through it. ``name`` (TF's op
    name) is accepted and unused."""
    return Tensor(value_of(input))


def _toposort(roots) -> list:
    """Every tensor reachable from ``roots``, each after all of its parents."""
    order, seen = [], set()
    stack = [(r, False) for r in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((p, False) for p in node.parents if id(p) not in seen)
    return order


def _accumulate(a, b):
    if a is None:
        return b
    if isinstance(a, IndexedRows) and isinstance(b, IndexedRows):
        return a.concat(b)
    if isinstance(a, IndexedRows):
        a = a.to_dense()
    if isinstance(b, IndexedRows):
        b = b.to_dense()
    return a + b


class AggregationMethod:
    """TF's ``tf.AggregationMethod`` constants, for ``gradients(aggregation_method=...)``:
    gradients reaching one tensor along several paths are always summed in one fixed
    order here, whichever is named."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


@traced("gradients")
def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    colocate_gradients_with_ops=False,
    gate_gradients=False,
    aggregation_method=None,
) -> list:
    """d(sum of ys)/d(x) for each x in ``xs``, as in ``tf.gradients``.

    ``grad_ys`` (one per y) weights each y's contribution; by default all ones. An x that
    the ys do not depend on gets ``None``. The gradient of a row gather stays sparse: a
    Variable read only through ``gather`` receives :class:`IndexedRows`. ``name``,
    ``colocate_gradients_with_ops``, ``gate_gradients`` and ``aggregation_method`` are
    TF1's graph options, accepted and without effect (as in TF's eager mode).
    """
    single_y = isinstance(ys, Tensor)
    ys = [ys] if single_y else list(ys)
    xs = [xs] if isinstance(xs, Tensor) else list(xs)
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif single_y or not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    if len(grad_ys) != len(ys):
        raise ValueError(f"grad_ys has {len(grad_ys)} entries but ys has {len(ys)}")
    ys = [as_tensor(y) for y in ys]

    order = _toposort(ys)
    x_ids = {id(x) for x in xs}
    needed = set()
    for node in order:
        if id(node) in x_ids or any(id(p) in needed for p in node.parents):
            needed.add(id(node))

    grads: dict = {}
    for y, gy in zip(ys, grad_ys):
        xp = get_xp(y.value)
        if gy is None:
            gy = xp.ones_like(xp.asarray(y.value))
        else:
            gy = xp.asarray(value_of(gy), dtype=getattr(y.value, "dtype", None))
            if _shape(gy) != y.shape:
                raise ValueError(f"grad_ys shape {_shape(gy)} does not match y shape {y.shape}")
        grads[id(y)] = _accumulate(grads.get(id(y)), gy)

    for node in reversed(order):
        if id(node) not in needed or not node.parents:
            continue
        g = grads.get(id(node)) if id(node) in x_ids else grads.pop(id(node), None)
        if g is None:
            continue
        if isinstance(g, IndexedRows):
            g = g.to_dense()
        need = tuple(id(p) in needed for p in node.parents)
        for parent, pg in zip(node.parents, node.backward(g, need)):
            if pg is not None and id(parent) in needed:
                grads[id(parent)] = _accumulate(grads.get(id(parent)), pg)
    return [grads.get(id(x)) for x in xs]


def value_and_grad(fn, has_aux: bool = False):
    """Turn ``fn() -> loss`` into ``f(variables) -> (loss, grads)``.

    ``fn`` takes no arguments and reads the variables it uses. ``loss`` is returned as a
    backend array; each gradient is a backend array, :class:`IndexedRows` for a table read
    through ``gather``, or ``None`` when the loss does not depend on that variable. With
    ``has_aux=True``, ``fn`` returns ``(loss, aux)`` and the result is
    ``((loss, aux), grads)``.
    """

    def wrapped(variables):
        out = fn()
        loss, aux = out if has_aux else (out, None)
        loss = as_tensor(loss)
        if loss.shape != ():
            raise ValueError(f"value_and_grad needs a scalar loss, got shape {loss.shape}")
        grads = gradients([loss], list(variables))
        return ((loss.value, aux) if has_aux else loss.value), grads

    return wrapped
