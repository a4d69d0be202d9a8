"""TF1's learning-rate decay functions (``tf.train.*_decay``) as plain step -> float math.

Each function takes TF1's arguments. Given a number for ``global_step`` it returns the
decayed value as a Python float. Given a Variable (or a zero-argument callable), it
returns a :class:`DecayedValue` that reads the step each time it is read, as TF1's decay
tensor is re-evaluated at each ``session.run`` (and TF2's eager decay is a callable), so
TF's pattern trains with the decayed rate::

    global_step = cn.train.get_or_create_global_step()
    lr = cn.train.exponential_decay(0.1, global_step, 1000, 0.96, staircase=True)
    opt = cn.train.GradientDescentOptimizer(lr)   # minimize(..., global_step=global_step)

A callable ``step -> learning rate`` works too (the step is then the optimizer's).

``name`` is accepted for TF compatibility and unused.

>>> exponential_decay(0.5, 20, 10, 0.5)
0.125
>>> piecewise_constant(10, [10, 20], [1.0, 0.5, 0.1])  # a boundary takes the earlier value
1.0
>>> piecewise_constant_decay(11, [10, 20], [1.0, 0.5, 0.1])  # TF2's name for the same function
0.5
"""

from __future__ import annotations

import bisect
import functools
import inspect
import math

import numpy as np

from .autodiff import Tensor, value_of
from .backend import to_host

__all__ = [
    "DecayedValue",
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
]


class DecayedValue:
    """A decayed value that follows its step: each read (``value()``, ``float(value)``,
    ``numpy.asarray(value)``) recomputes it from the step's current value. What a decay
    returns for a Variable step; optimizers read it at every update.

    >>> import colonnade as cn
    >>> step = cn.core.Variable(0, name="global_step")
    >>> lr = exponential_decay(0.1, step, 1, 0.5)
    >>> _ = step.assign(2)
    >>> float(lr), lr()
    (0.025, 0.025)
    """

    __slots__ = ("_compute", "_name")

    def __init__(self, compute, name: str):
        self._compute = compute
        self._name = name

    def __call__(self) -> float:
        return self._compute()

    def __float__(self) -> float:
        return self._compute()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._compute(), dtype=dtype)

    def __repr__(self) -> str:
        return f"DecayedValue({self._name}, now {self._compute()!r})"


def _follows_step(value) -> bool:
    return isinstance(value, Tensor) or (callable(value) and not isinstance(value, type))


def _step_now(value):
    return value() if callable(value) and not isinstance(value, Tensor) else value


def _lazy_in(arg_name: str):
    """Make a decay return a :class:`DecayedValue` when ``arg_name`` (its step) is a
    Variable or a zero-argument callable, and check its arguments right away."""

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def decay(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            step = bound.arguments.get(arg_name)
            if not _follows_step(step):
                return fn(*args, **kwargs)

            def compute():
                now = dict(bound.arguments)
                now[arg_name] = _step_now(step)
                return fn(**now)

            compute()  # bad arguments fail here, not at the first training step
            return DecayedValue(compute, fn.__name__)

        return decay

    return wrap


def _number(value, arg_name: str, fn_name: str) -> float:
    if value is None:
        raise ValueError(f"{arg_name} is required for {fn_name}")
    try:
        return float(to_host(value_of(value)))
    except (TypeError, ValueError):
        raise TypeError(
            f"{fn_name}: {arg_name} must be a number or a scalar Variable, got {value!r}"
        ) from None


def _step(global_step, fn_name: str) -> float:
    """``global_step`` as a number, which must be finite: a step counts training steps."""
    step = _number(global_step, "global_step", fn_name)
    if not math.isfinite(step):
        raise ValueError(f"{fn_name}: global_step must be a finite number, got {global_step!r}")
    return step


def _positive(value, arg_name: str, fn_name: str) -> float:
    out = _number(value, arg_name, fn_name)
    if not out > 0:
        raise ValueError(f"{fn_name}: {arg_name} must be > 0, got {value!r}")
    return out


def _progress(global_step, decay_steps, staircase, fn_name):
    """``global_step / decay_steps``, floored when ``staircase``."""
    p = _step(global_step, fn_name) / _positive(decay_steps, "decay_steps", fn_name)
    return math.floor(p) if staircase else p


def _as_tf_float(compute) -> float:
    """A decay formula's value as TF's floating point gives it: inf for an overflow or a
    division by zero, nan for a negative base to a fractional power (Python's own
    arithmetic raises, or returns a complex number)."""
    with np.errstate(all="ignore"):
        return float(compute())


def _rate_decay(fn_name: str, formula, doc: str):
    """TF's decay ``fn_name``, driven by a ``decay_rate``: ``formula(learning_rate,
    decay_rate, progress)`` with ``progress = global_step / decay_steps`` (floored when
    ``staircase``), its arguments checked as floats."""

    def decay(
        learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
    ) -> float:
        p = _progress(global_step, decay_steps, staircase, fn_name)
        lr = _number(learning_rate, "learning_rate", fn_name)
        rate = np.float64(_number(decay_rate, "decay_rate", fn_name))
        return _as_tf_float(lambda: formula(lr, rate, p))

    decay.__name__ = decay.__qualname__ = fn_name
    decay.__doc__ = doc
    return _lazy_in("global_step")(decay)


exponential_decay = _rate_decay(
    "exponential_decay",
    lambda lr, rate, p: lr * rate**p,
    """``learning_rate * decay_rate ** (global_step / decay_steps)``; with ``staircase`` the
    exponent is floored, so the rate drops every ``decay_steps`` steps.""",
)
inverse_time_decay = _rate_decay(
    "inverse_time_decay",
    lambda lr, rate, p: lr / (1.0 + rate * p),
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``; with ``staircase``
    the step ratio is floored.""",
)
natural_exp_decay = _rate_decay(
    "natural_exp_decay",
    lambda lr, rate, p: lr * np.exp(-rate * p),
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``; with ``staircase``
    the step ratio is floored.""",
)


@_lazy_in("global_step")
def polynomial_decay(
    learning_rate,
    global_step,
    decay_steps,
    end_learning_rate=0.0001,
    power=1.0,
    cycle=False,
    name=None,
) -> float:
    """From ``learning_rate`` down to ``end_learning_rate`` in ``decay_steps`` steps::

        step  = min(global_step, decay_steps)
        value = (learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power
                + end_learning_rate

    With ``cycle``, instead of stopping, ``decay_steps`` grows to the next multiple of
    itself above ``global_step`` (``decay_steps * ceil(global_step / decay_steps)``, at
    least one period), restarting the decay.
    """
    fn = "polynomial_decay"
    step = _step(global_step, fn)
    steps = _positive(decay_steps, "decay_steps", fn)
    lr, end = (
        _number(learning_rate, "learning_rate", fn),
        _number(end_learning_rate, "end_learning_rate", fn),
    )
    if cycle:
        steps *= 1.0 if step == 0 else math.ceil(step / steps)
    else:
        step = min(step, steps)
    return (lr - end) * (1.0 - step / steps) ** _number(power, "power", fn) + end


def _number_kind(value) -> str:
    """``"int"`` or ``"float"``: the kind of number TF would make a tensor of."""
    dtype = getattr(value_of(value), "dtype", None)
    if dtype is None:
        dtype = np.asarray(value).dtype
    return "int" if np.dtype(dtype).kind in "iub" else "float"


def _check_same_kind(fn: str, x, boundaries, values) -> None:
    """TF's type rules: boundaries of ``x``'s kind (ints widen to int64), values all of one
    kind; ValueError otherwise."""
    x_kind = _number_kind(x)
    bad = [b for b in boundaries if _number_kind(b) != x_kind]
    if bad:
        raise ValueError(
            f"{fn}: boundaries must be {x_kind}s, as x ({x!r}) is; got {list(boundaries)}"
        )
    kinds = {_number_kind(v) for v in values}
    if len(kinds) > 1:
        raise ValueError(
            f"{fn}: values must all be of one type (all ints or all floats); got {list(values)}"
        )


@_lazy_in("x")
def piecewise_constant(x, boundaries, values, name=None) -> float:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` once ``x > boundaries[-1]``:
    a step equal to a boundary still takes the earlier value, as TF."""
    fn = "piecewise_constant"
    x_value = _number(x, "x", fn)
    numbers = [_number(b, "boundaries", fn) for b in boundaries]
    rates = [_number(v, "values", fn) for v in values]
    _check_same_kind(fn, x, boundaries, values)
    boundaries, values = numbers, rates
    if len(values) != len(boundaries) + 1:
        raise ValueError(
            f"piecewise_constant needs one more value than boundaries; got "
            f"{len(boundaries)} boundaries and {len(values)} values"
        )
    if any(b > a for a, b in zip(boundaries[1:], boundaries[:-1])):
        raise ValueError(f"piecewise_constant boundaries must be increasing, got {boundaries}")
    return values[bisect.bisect_left(boundaries, x_value)]


# TF2's name for piecewise_constant (tf.compat.v1.train has both): the same function
# object, so code written against either name ports unchanged.
piecewise_constant_decay = piecewise_constant


@_lazy_in("global_step")
def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None) -> float:
    """Cosine decay (Loshchilov & Hutter, SGDR) to ``alpha * learning_rate``::

    step  = min(global_step, decay_steps)
    value = learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * step / decay_steps)) + alpha)
    """
    fn = "cosine_decay"
    steps = _positive(decay_steps, "decay_steps", fn)
    step = min(_step(global_step, fn), steps)
    alpha = _number(alpha, "alpha", fn)
    cosine = 0.5 * (1.0 + math.cos(math.pi * step / steps))
    return _number(learning_rate, "learning_rate", fn) * ((1.0 - alpha) * cosine + alpha)


def _restart_index(fraction: float, t_mul: float) -> int:
    """The largest ``i`` with ``1 + t_mul + ... + t_mul**(i-1) <= fraction``."""
    if t_mul == 1.0:
        return math.floor(fraction)
    i = math.floor(math.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))

    def done(k):  # the length, in first periods, of the first k periods
        return (1.0 - t_mul**k) / (1.0 - t_mul)

    # log() can land a hair below an integer at an exact restart: settle it exactly.
    while done(i + 1) <= fraction:
        i += 1
    while i > 0 and done(i) > fraction:
        i -= 1
    return i


@_lazy_in("global_step")
def cosine_decay_restarts(
    learning_rate,
    global_step,
    first_decay_steps,
    t_mul=2.0,
    m_mul=1.0,
    alpha=0.0,
    name=None,
) -> float:
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts
    ``first_decay_steps * t_mul**i`` steps and starts at ``learning_rate * m_mul**i``::

        f     = fraction of period i completed
        value = learning_rate * ((1 - alpha) * m_mul**i * 0.5 * (1 + cos(pi * f)) + alpha)
    """
    fn = "cosine_decay_restarts"
    fraction = _step(global_step, fn) / _positive(first_decay_steps, "first_decay_steps", fn)
    t_mul, m_mul = _positive(t_mul, "t_mul", fn), _number(m_mul, "m_mul", fn)
    alpha = _number(alpha, "alpha", fn)
    i = _restart_index(fraction, t_mul)
    if t_mul == 1.0:
        fraction -= i
    else:
        fraction = (fraction - (1.0 - t_mul**i) / (1.0 - t_mul)) / t_mul**i
    cosine = 0.5 * m_mul**i * (1.0 + math.cos(math.pi * fraction))
    return _number(learning_rate, "learning_rate", fn) * ((1.0 - alpha) * cosine + alpha)


def _linear_cosine(global_step, decay_steps, num_periods, fn):
    """``(linear, cosine, step)`` factors shared by the (noisy) linear cosine decays."""
    steps = _positive(decay_steps, "decay_steps", fn)
    step = min(_step(global_step, fn), steps)
    linear = (steps - step) / steps
    fraction = 2.0 * _number(num_periods, "num_periods", fn) * step / steps
    return linear, 0.5 * (1.0 + math.cos(math.pi * fraction)), step


@_lazy_in("global_step")
def linear_cosine_decay(
    learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None
) -> float:
    """Linear cosine decay (Bello et al., 2017)::

    step   = min(global_step, decay_steps)
    linear = (decay_steps - step) / decay_steps
    cosine = 0.5 * (1 + cos(pi * 2 * num_periods * step / decay_steps))
    value  = learning_rate * ((alpha + linear) * cosine + beta)
    """
    fn = "linear_cosine_decay"
    linear, cosine, _ = _linear_cosine(global_step, decay_steps, num_periods, fn)
    alpha, beta = _number(alpha, "alpha", fn), _number(beta, "beta", fn)
    return _number(learning_rate, "learning_rate", fn) * ((alpha + linear) * cosine + beta)


@_lazy_in("global_step")
def noisy_linear_cosine_decay(
    learning_rate,
    global_step,
    decay_steps,
    initial_variance=1.0,
    variance_decay=0.55,
    num_periods=0.5,
    alpha=0.0,
    beta=0.001,
    name=None,
    seed=None,
) -> float:
    """:func:`linear_cosine_decay` with Gaussian noise added to its linear part::

        linear <- linear + N(0, initial_variance / (1 + step) ** variance_decay)

    ``seed`` (an extra) makes the noise reproducible: it is drawn from
    ``numpy.random.default_rng([seed, int(global_step)])``, so the same step and seed give
    the same value; without a seed each call draws fresh noise.
    """
    fn = "noisy_linear_cosine_decay"
    linear, cosine, step = _linear_cosine(global_step, decay_steps, num_periods, fn)
    variance = _number(initial_variance, "initial_variance", fn) / (1.0 + step) ** _number(
        variance_decay, "variance_decay", fn
    )
    if variance < 0:
        raise ValueError(f"{fn}: initial_variance must be >= 0, got {initial_variance!r}")
    raw_step = int(_step(global_step, fn))
    rng = np.random.default_rng(None if seed is None else [int(seed), raw_step])
    noisy = linear + float(rng.normal(0.0, math.sqrt(variance)))
    alpha, beta = _number(alpha, "alpha", fn), _number(beta, "beta", fn)
    return _number(learning_rate, "learning_rate", fn) * ((alpha + noisy) * cosine + beta)
