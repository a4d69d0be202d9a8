"""Checking declarative configs, with errors that name the field at fault.

Feature-column dicts (:mod:`.serialization`), estimator settings
(``colonnade.estimators.canned.from_config``) and the command line's TOML jobs all check their
values and report a bad one the same way: ``<dotted path>: <what was expected>, got
<what was there>``, with a "did you mean" hint for a misspelt name. This module is that
one way: :class:`ConfigError`, the value checks (each ``check(value, field) -> value``)
and :class:`Table`, one config table under validation.

>>> err = ConfigError("missing", join_path("model.feature_columns", "[0].key"))
>>> str(err), err.field, err.message
('model.feature_columns[0].key: missing', 'model.feature_columns[0].key', 'missing')
>>> str(unknown_name_error("kye", ["key", "shape"], "[0].kye"))
"[0].kye: unknown key; did you mean 'key'? valid keys: ['key', 'shape']"
"""

from __future__ import annotations

import difflib
import json

__all__ = [
    "ConfigError",
    "Table",
    "did_you_mean",
    "join_path",
    "show",
    "unknown_name_error",
]


class ConfigError(ValueError):
    """A config that cannot be used. ``field`` is the dotted path of the culprit
    (``"model.feature_columns[2].type"``), or None for the config as a whole;
    ``message`` says what was expected and what was found.

    >>> err = ConfigError("expected an integer >= 1, got 0", "[1].num_buckets")
    >>> str(err.within("model.feature_columns"))
    'model.feature_columns[1].num_buckets: expected an integer >= 1, got 0'
    """

    def __init__(self, message: str, field: str | None = None):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)

    def within(self, where: str) -> ConfigError:
        """The same error with its field placed under ``where`` (a dotted path)."""
        return ConfigError(self.message, join_path(where, self.field or ""))


def join_path(where: str, key: str) -> str:
    """``where`` and ``key`` as one dotted path: ``.`` between names, none before an
    index (``"cols" + "[2].type"`` is ``"cols[2].type"``); either may be empty."""
    if not where or not key:
        return where or key
    return f"{where}{key}" if key.startswith("[") else f"{where}.{key}"


def show(value) -> str:
    """A config value as its author wrote it in TOML or JSON (strings double-quoted)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def did_you_mean(name, choices) -> str:
    """``"; did you mean 'x'?"`` naming the choice closest to ``name``, or ``""``."""
    close = difflib.get_close_matches(str(name), sorted(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_name_error(name, valid, field, what="unknown key") -> ConfigError:
    """The error for a key (or section) ``name`` that is none of ``valid``."""
    valid = sorted(valid)
    return ConfigError(f"{what}{did_you_mean(name, valid)} valid keys: {valid}", field)


# ---------------------------------------------------------------- value checks


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def string(v, field):
    """A non-empty string."""
    if not isinstance(v, str) or not v:
        raise ConfigError(f"expected a non-empty string, got {show(v)}", field)
    return v


def strings(v, field) -> tuple:
    """A string or a non-empty list of strings, as a tuple."""
    if isinstance(v, str) and v:
        return (v,)
    if isinstance(v, list) and v and all(isinstance(s, str) and s for s in v):
        return tuple(v)
    raise ConfigError(f"expected a string or a list of strings, got {show(v)}", field)


def boolean(v, field) -> bool:
    """``true`` or ``false`` (not 0 or 1)."""
    if not isinstance(v, bool):
        raise ConfigError(f"expected true or false, got {show(v)}", field)
    return v


def integer(minimum: int):
    """The check for an integer >= ``minimum`` (booleans refused).

    >>> integer(1)(True, "epochs")
    Traceback (most recent call last):
        ...
    colonnade.feature_columns.config_checks.ConfigError: epochs: expected an integer >= 1, got true
    """

    def check(v, field):
        if not _is_int(v) or v < minimum:
            raise ConfigError(f"expected an integer >= {minimum}, got {show(v)}", field)
        return v

    return check


def positive_number(v, field) -> float:
    """A number > 0, as a float."""
    if not _is_number(v) or not v > 0:
        raise ConfigError(f"expected a number > 0, got {show(v)}", field)
    return float(v)


def probability(v, field) -> float:
    """A number in [0, 1), as a float (a dropout rate)."""
    if not _is_number(v) or not 0 <= v < 1:
        raise ConfigError(f"expected a probability in [0, 1), got {show(v)}", field)
    return float(v)


def positive_integers(v, field) -> list:
    """A non-empty list of integers > 0 (layer sizes)."""
    if not isinstance(v, list) or not v or not all(_is_int(u) and u > 0 for u in v):
        raise ConfigError(f"expected a list of positive integers, got {show(v)}", field)
    return list(v)


def choice(choices):
    """The check for one of ``choices``."""

    def check(v, field):
        if v not in choices:
            raise ConfigError(f"expected one of {sorted(choices)}, got {show(v)}", field)
        return v

    return check


class Table:
    """One config table under validation: its dotted path ``where`` and the keys it may
    hold (another key is an error, with a "did you mean" hint).

    >>> t = Table({"epochs": 0}, "d", {"epochs", "batch_size"})
    >>> t.get("batch_size", integer(1), default=32)
    32
    >>> t.get("epochs", integer(1))
    Traceback (most recent call last):
        ...
    colonnade.feature_columns.config_checks.ConfigError: d.epochs: expected an integer >= 1, got 0
    """

    def __init__(self, value, where: str, keys, what: str = "unknown key"):
        if not isinstance(value, dict):
            raise ConfigError(f"expected a table, got {show(value)}", where or None)
        for key in value:
            if key not in keys:
                raise unknown_name_error(key, keys, join_path(where, key), what)
        self.value, self.where = value, where

    def __contains__(self, key) -> bool:
        return key in self.value

    def path(self, key: str) -> str:
        return join_path(self.where, key)

    def get(self, key, check=None, default=None, required=False, hint=""):
        """The value at ``key`` passed through ``check(value, path)``; ``default`` when
        absent, or a 'missing' ConfigError when ``required`` (``hint`` says what to set)."""
        if key not in self.value:
            if required:
                raise ConfigError("missing" + (f" ({hint})" if hint else ""), self.path(key))
            return default
        value = self.value[key]
        return check(value, self.path(key)) if check is not None else value
