"""Errors in declarative configs, naming the field at fault by its dotted path.

Feature-column dicts (:mod:`.serialization`), estimator settings
(``colonnade.estimators.from_config``) and the command line's TOML jobs all report a bad
value the same way: ``<dotted path>: <what was expected>, got <what was there>``, with a
"did you mean" hint for a misspelt name. This module is that one way.

>>> err = ConfigError("missing", join_path("model.feature_columns", "[0].key"))
>>> str(err), err.field, err.message
('model.feature_columns[0].key: missing', 'model.feature_columns[0].key', 'missing')
>>> str(unknown_name_error("kye", ["key", "shape"], "[0].kye"))
"[0].kye: unknown key; did you mean 'key'? valid keys: ['key', 'shape']"
"""

from __future__ import annotations

import difflib
import json

__all__ = ["ConfigError", "did_you_mean", "join_path", "show", "unknown_name_error"]


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
