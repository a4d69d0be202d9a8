"""The declarative form of feature columns: ``to_config`` / ``from_config``.

A config is plain data (str, int, float, bool, lists and dicts; unset options are left
out, never ``None``), so it goes to JSON or TOML and back. Each column is a dict whose
``type`` is its factory's name and whose other entries are the factory's arguments;
nested columns (a bucketized column's source, an embedding's categorical column, a
cross's keys) nest as dicts. Shared embeddings carry their collection name: columns
rebuilt with the same collection share one table again.

>>> from colonnade.feature_columns import bucketized_column, numeric_column
>>> cols = [bucketized_column(numeric_column("age"), [18.0, 65.0])]
>>> cfg = to_config(cols)
>>> cfg["feature_columns"][0]["type"]
'bucketized_column'
>>> from_config(cfg) == cols
True
"""

from __future__ import annotations

from .base import FeatureColumn
from .bucketized import bucketized_column
from .categorical import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    weighted_categorical_column,
)
from .config_checks import ConfigError, did_you_mean, join_path, show, unknown_name_error
from .crossed import crossed_column
from .dense import embedding_column_from_config, indicator_column
from .equality import equality_column
from .numeric import numeric_column_from_config
from .piecewise import piecewise_linear_column
from .sequence import (
    SequenceCategoricalColumn,
    sequence_numeric_column,
)
from .shared_embedding import shared_embedding_column_from_config
from .time_parts import categorical_column_with_time_part
from .trees import tree_ensemble_column
from .vocabulary import (
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
)

__all__ = [
    "COLUMN_KEYS",
    "CONFIG_FORMAT_VERSION",
    "PATH_KEYS",
    "ConfigError",
    "from_config",
    "to_config",
]

CONFIG_FORMAT_VERSION = 1
"""Version of the config layout; ``from_config`` refuses newer ones."""

_EMBEDDING_KEYS = frozenset(
    {"combiner", "initializer", "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm", "trainable"}
)
COLUMN_KEYS = {
    "numeric_column": ({"key"}, {"shape", "default_value", "dtype", "normalizer_fn"}),
    "bucketized_column": ({"source_column", "boundaries"}, set()),
    "piecewise_linear_column": ({"source_column", "edges"}, set()),
    "tree_ensemble_column": ({"name", "trees_file", "inputs"}, set()),
    "categorical_column_with_hash_bucket": ({"key", "hash_bucket_size"}, {"dtype"}),
    "categorical_column_with_identity": ({"key", "num_buckets"}, {"default_value"}),
    "categorical_column_with_time_part": ({"key", "part"}, set()),
    "equality_column": ({"key", "other_key"}, {"dtype"}),
    "categorical_column_with_vocabulary_list": (
        {"key", "vocabulary_list"},
        {"dtype", "default_value", "num_oov_buckets"},
    ),
    "categorical_column_with_vocabulary_file": (
        {"key", "vocabulary_file"},
        {"vocabulary_size", "dtype", "default_value", "num_oov_buckets", "file_format"},
    ),
    "weighted_categorical_column": ({"categorical_column", "weight_feature_key"}, {"dtype"}),
    "crossed_column": ({"keys", "hash_bucket_size"}, {"hash_key"}),
    "indicator_column": ({"categorical_column"}, set()),
    "embedding_column": ({"categorical_column", "dimension"}, set(_EMBEDDING_KEYS)),
    "shared_embedding_column": (
        {"categorical_column", "dimension", "shared_embedding_collection_name"},
        set(_EMBEDDING_KEYS),
    ),
    "sequence_numeric_column": ({"key"}, {"shape", "default_value", "dtype", "normalizer_fn"}),
}
for _kind in ("hash_bucket", "identity", "vocabulary_list", "vocabulary_file"):
    COLUMN_KEYS[f"sequence_categorical_column_with_{_kind}"] = COLUMN_KEYS[
        f"categorical_column_with_{_kind}"
    ]
"""Each column type's ``(required keys, optional keys)`` besides ``type``."""


def _args(c: dict, *names) -> dict:
    return {n: c[n] for n in names if n in c}


def _hash(c):
    return categorical_column_with_hash_bucket(**_args(c, "key", "hash_bucket_size", "dtype"))


def _identity(c):
    return categorical_column_with_identity(**_args(c, "key", "num_buckets", "default_value"))


def _vocab_list(c):
    return categorical_column_with_vocabulary_list(
        **_args(c, "key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets")
    )


def _vocab_file(c):
    return categorical_column_with_vocabulary_file(
        **_args(
            c,
            "key",
            "vocabulary_file",
            "vocabulary_size",
            "dtype",
            "default_value",
            "num_oov_buckets",
            "file_format",
        )
    )


def _sequence(inner):
    return lambda c: SequenceCategoricalColumn(inner(c))


def _sequence_numeric(c):
    fn = c.get("normalizer_fn")
    from .normalizers import normalizer_from_config

    return sequence_numeric_column(
        c["key"],
        tuple(c.get("shape", (1,))),
        c.get("default_value", 0.0),
        c.get("dtype", "float32"),
        normalizer_from_config(fn) if fn is not None else None,
    )


def _built(column):
    """The ``build`` the embedding factories call on their nested column: ``_build`` has
    built it already."""
    return column


# Each column type's factory, called with its dict once the nested columns are built.
_BUILDERS = {
    "numeric_column": lambda c: numeric_column_from_config(c),
    "bucketized_column": lambda c: bucketized_column(c["source_column"], list(c["boundaries"])),
    "piecewise_linear_column": lambda c: piecewise_linear_column(
        c["source_column"], list(c["edges"])
    ),
    "tree_ensemble_column": lambda c: tree_ensemble_column(c["name"], c["trees_file"], c["inputs"]),
    "categorical_column_with_hash_bucket": _hash,
    "categorical_column_with_identity": _identity,
    "categorical_column_with_time_part": lambda c: categorical_column_with_time_part(
        c["key"], c["part"]
    ),
    "categorical_column_with_vocabulary_list": _vocab_list,
    "equality_column": lambda c: equality_column(**_args(c, "key", "other_key", "dtype")),
    "categorical_column_with_vocabulary_file": _vocab_file,
    "weighted_categorical_column": lambda c: weighted_categorical_column(
        c["categorical_column"], c["weight_feature_key"], c.get("dtype", "float32")
    ),
    "crossed_column": lambda c: crossed_column(c["keys"], c["hash_bucket_size"], c.get("hash_key")),
    "indicator_column": lambda c: indicator_column(c["categorical_column"]),
    "embedding_column": lambda c: embedding_column_from_config(c, _built),
    "shared_embedding_column": lambda c: shared_embedding_column_from_config(c, _built),
    "sequence_numeric_column": _sequence_numeric,
    "sequence_categorical_column_with_hash_bucket": _sequence(_hash),
    "sequence_categorical_column_with_identity": _sequence(_identity),
    "sequence_categorical_column_with_vocabulary_list": _sequence(_vocab_list),
    "sequence_categorical_column_with_vocabulary_file": _sequence(_vocab_file),
}


# The keys whose value is a nested column dict, and the key whose list may hold some.
_NESTED_KEYS = ("source_column", "categorical_column")
_CROSS_KEYS = "keys"
# The keys holding a file path (which ``from_config``'s ``resolve_path`` rewrites).
PATH_KEYS = frozenset({"vocabulary_file", "trees_file"})


def _build(c, where: str, resolve_path=None) -> FeatureColumn:
    """One column from its dict: the dict's keys are checked against
    :data:`COLUMN_KEYS`, its nested columns built first (each under its own path), then
    its factory is called; every error is a :class:`ConfigError` at ``where``."""
    if not isinstance(c, dict):
        raise ConfigError(f"expected a column table with a 'type', got {show(c)}", where or None)
    kind = c.get("type")
    if kind is None:
        raise ConfigError(
            'missing (the column\'s factory, e.g. type = "numeric_column")',
            join_path(where, "type"),
        )
    if kind not in _BUILDERS:
        types = sorted(_BUILDERS)
        raise ConfigError(
            f"unknown column type {kind!r}{did_you_mean(kind, types)} expected one of {types}",
            join_path(where, "type"),
        )
    required, optional = COLUMN_KEYS[kind]
    for key in sorted(set(c) - required - optional - {"type"}):
        raise unknown_name_error(key, required | optional | {"type"}, join_path(where, key))
    for key in sorted(required - set(c)):
        raise ConfigError(f"missing (a {kind} needs {sorted(required)})", join_path(where, key))
    c = dict(c)
    for key in _NESTED_KEYS:
        if key in c:
            c[key] = _build(c[key], join_path(where, key), resolve_path)
    if isinstance(c.get(_CROSS_KEYS), list):
        c[_CROSS_KEYS] = [
            k if isinstance(k, str) else _build(k, join_path(where, f"keys[{i}]"), resolve_path)
            for i, k in enumerate(c[_CROSS_KEYS])
        ]
    if resolve_path is not None:
        c.update({k: resolve_path(c[k]) for k in PATH_KEYS if isinstance(c.get(k), str)})
    try:
        return _BUILDERS[kind](c)
    except (TypeError, ValueError) as e:  # the factory's own checks, e.g. key = 5
        raise ConfigError(str(e), where or None) from e


def to_config(feature_columns) -> dict:
    """The declarative form of ``feature_columns``:
    ``{"format_version": 1, "feature_columns": [column dicts]}``.

    Columns with an arbitrary Python ``normalizer_fn`` or ``initializer`` cannot be
    written; the error names the column and the serializable alternatives.

    >>> from colonnade.feature_columns import numeric_column
    >>> to_config([numeric_column("x")])["feature_columns"]
    [{'type': 'numeric_column', 'key': 'x', 'shape': [1], 'dtype': 'float32'}]
    """
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    out = []
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise TypeError(f"to_config takes feature columns, got {type(column).__name__}")
        out.append(column.to_config())
    return {"format_version": CONFIG_FORMAT_VERSION, "feature_columns": out}


def from_config(config, where: str = "", resolve_path=None) -> list:
    """Feature columns from their declarative form (a :func:`to_config` dict, or a bare
    list of column dicts).

    This is the one validator of column dicts: a bad one raises :class:`ConfigError`
    (a ``ValueError``) whose ``field`` is the dotted path of the culprit, relative to the
    list and placed under ``where`` (e.g. ``where="model.feature_columns"`` gives
    ``"model.feature_columns[2].categorical_column.type"``). ``resolve_path``, when
    given, rewrites every file path (the :data:`PATH_KEYS` entries, e.g.
    ``vocabulary_file``) before the column is built, e.g. to read it relative to a
    config file's folder.

    >>> from_config([{"type": "categorical_column_with_identity", "key": "k", "num_buckets": 3}])
    [IdentityCategoricalColumn(key='k', num_buckets=3, default_value=None)]
    >>> try:
    ...     from_config([{"type": "indicator_column",
    ...                   "categorical_column": {"type": "numeric", "key": "k"}}], where="cols")
    ... except ConfigError as e:
    ...     print(e.field, "|", e.message.split("?")[0])
    cols[0].categorical_column.type | unknown column type 'numeric'; did you mean 'numeric_column'
    """
    if isinstance(config, dict):
        version = config.get("format_version", CONFIG_FORMAT_VERSION)
        if not isinstance(version, int) or version > CONFIG_FORMAT_VERSION:
            raise ConfigError(
                f"feature column config format_version {version!r} is newer than this colonnade "
                f"reads ({CONFIG_FORMAT_VERSION}); upgrade colonnade",
                join_path(where, "format_version") or None,
            )
        if "feature_columns" not in config:
            raise ConfigError(
                "missing; a feature column config needs a 'feature_columns' list",
                join_path(where, "feature_columns"),
            )
        config, where = config["feature_columns"], join_path(where, "feature_columns")
    if not isinstance(config, list):
        raise ConfigError(f"expected a list of column dicts, got {show(config)}", where or None)
    return [_build(c, join_path(where, f"[{i}]"), resolve_path) for i, c in enumerate(config)]
