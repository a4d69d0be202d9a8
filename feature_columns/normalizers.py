"""Named, serializable ``normalizer_fn`` transforms for numeric columns.

``numeric_column(..., normalizer_fn=f)`` accepts any callable from a numpy array to an
array of the same shape, as TensorFlow does. But a lambda cannot be written into a
config file (and colonnade never pickles or evals), so these small frozen dataclasses
give the common transforms a declarative form that ``to_config`` / ``from_config``
round-trip. Each is applied to the column's values after nulls got ``default_value``.

>>> f = standardize(mean=3.0, stddev=2.0)
>>> f(np.array([5.0, 1.0])).tolist()
[1.0, -1.0]
>>> f.to_config()
{'type': 'standardize', 'mean': 3.0, 'stddev': 2.0}
>>> chain(clip(0.0, 10.0), log1p())(np.array([-1.0, 20.0])).round(3).tolist()
[0.0, 2.398]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

__all__ = [
    "NORMALIZERS",
    "Normalizer",
    "chain",
    "clip",
    "log1p",
    "log_offset",
    "normalizer_from_config",
    "standardize",
]


class Normalizer:
    """Base of the serializable normalizers: ``__call__(array) -> array`` and
    ``to_config() -> dict``.

    >>> isinstance(log1p(), Normalizer)
    True
    """

    kind = ""

    def to_config(self) -> dict:
        """``{"type": kind, <field>: value, ...}``, what :func:`normalizer_from_config`
        reads back (the subclasses are dataclasses of plain numbers)."""
        return {"type": self.kind, **{f.name: getattr(self, f.name) for f in fields(self)}}


@dataclass(frozen=True)
class Log1p(Normalizer):
    """``log(1 + x)``."""

    kind = "log1p"

    def __call__(self, x):
        return np.log1p(x)


@dataclass(frozen=True)
class LogOffset(Normalizer):
    """``log(x + offset)``."""

    offset: float
    kind = "log_offset"

    def __call__(self, x):
        return np.log(x + self.offset)


@dataclass(frozen=True)
class Standardize(Normalizer):
    """``(x - mean) / stddev``."""

    mean: float
    stddev: float
    kind = "standardize"

    def __call__(self, x):
        return (x - self.mean) / self.stddev


@dataclass(frozen=True)
class Clip(Normalizer):
    """``x`` limited to ``[lo, hi]``."""

    lo: float
    hi: float
    kind = "clip"

    def __call__(self, x):
        return np.clip(x, self.lo, self.hi)


@dataclass(frozen=True)
class Chain(Normalizer):
    """The normalizers applied in order."""

    steps: tuple
    kind = "chain"

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x

    def to_config(self) -> dict:
        return {"type": self.kind, "steps": [s.to_config() for s in self.steps]}


def _finite(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def log1p() -> Log1p:
    """``log(1 + x)``: for counts and other heavy-tailed non-negative values.

    >>> log1p()(np.array([0.0])).tolist()
    [0.0]
    """
    return Log1p()


def log_offset(offset: float) -> LogOffset:
    """``log(x + offset)``.

    >>> log_offset(1.0)(np.array([0.0])).tolist()
    [0.0]
    """
    return LogOffset(_finite("offset", offset))


def standardize(mean: float, stddev: float) -> Standardize:
    """``(x - mean) / stddev`` (``stddev`` must be positive).

    >>> standardize(1.0, 2.0)(np.array([3.0])).tolist()
    [1.0]
    """
    stddev = _finite("stddev", stddev)
    if stddev <= 0:
        raise ValueError(f"standardize needs stddev > 0, got {stddev}")
    return Standardize(_finite("mean", mean), stddev)


def clip(lo: float, hi: float) -> Clip:
    """``x`` clipped to ``[lo, hi]`` (``lo <= hi``).

    >>> clip(0.0, 1.0)(np.array([-2.0, 0.5, 3.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    lo, hi = _finite("lo", lo), _finite("hi", hi)
    if lo > hi:
        raise ValueError(f"clip needs lo <= hi, got lo={lo}, hi={hi}")
    return Clip(lo, hi)


def chain(*steps: Normalizer) -> Chain:
    """Several normalizers applied left to right.

    >>> chain(clip(0.0, 3.0), standardize(1.0, 2.0))(np.array([9.0])).tolist()
    [1.0]
    """
    for s in steps:
        if not isinstance(s, Normalizer):
            raise TypeError(f"chain takes normalizers such as log1p() or clip(lo, hi), got {s!r}")
    return Chain(tuple(steps))


NORMALIZERS = {
    "log1p": lambda c: log1p(),
    "log_offset": lambda c: log_offset(c["offset"]),
    "standardize": lambda c: standardize(c["mean"], c["stddev"]),
    "clip": lambda c: clip(c["lo"], c["hi"]),
    "chain": lambda c: chain(*[normalizer_from_config(s) for s in c["steps"]]),
}
"""The serializable normalizers by config ``type``."""


def normalizer_from_config(config: dict) -> Normalizer:
    """Rebuild a normalizer from its ``to_config()`` dict.

    >>> normalizer_from_config({"type": "clip", "lo": 0.0, "hi": 1.0})
    Clip(lo=0.0, hi=1.0)
    """
    kind = config.get("type") if isinstance(config, dict) else None
    if kind not in NORMALIZERS:
        raise ValueError(
            f"unknown normalizer config {config!r}; the serializable normalizers are "
            f"{sorted(NORMALIZERS)}"
        )
    try:
        return NORMALIZERS[kind](config)
    except KeyError as e:
        raise ValueError(f"normalizer config {config!r} lacks the field {e}") from e
