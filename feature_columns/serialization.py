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

import difflib

from .base import FeatureColumn
from .categorical import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    weighted_categorical_column,
)
from .dense import (
    embedding_column_from_config,
    indicator_column,
    shared_embedding_column_from_config,
)
from .numeric import bucketized_column, numeric_column_from_config
from .sequence import (
    SequenceCategoricalColumn,
    sequence_numeric_column,
)

__all__ = ["COLUMN_KEYS", "CONFIG_FORMAT_VERSION", "from_config", "to_config"]

CONFIG_FORMAT_VERSION = 1
"""Version of the config layout; ``from_config`` refuses newer ones."""

_EMBEDDING_KEYS = frozenset(
    {"combiner", "initializer", "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm", "trainable"}
)
COLUMN_KEYS = {
    "numeric_column": ({"key"}, {"shape", "default_value", "dtype", "normalizer_fn"}),
    "bucketized_column": ({"source_column", "boundaries"}, set()),
    "categorical_column_with_hash_bucket": ({"key", "hash_bucket_size"}, {"dtype"}),
    "categorical_column_with_identity": ({"key", "num_buckets"}, {"default_value"}),
    "categorical_column_with_vocabulary_list": (
        {"key", "vocabulary_list"},
        {"dtype", "default_value", "num_oov_buckets"},
    ),
    "categorical_column_with_vocabulary_file": (
        {"key", "vocabulary_file"},
        {"vocabulary_size", "dtype", "default_value", "num_oov_buckets"},
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


_BUILDERS = {
    "numeric_column": lambda c: numeric_column_from_config(c),
    "bucketized_column": lambda c: bucketized_column(
        _build(c["source_column"]), list(c["boundaries"])
    ),
    "categorical_column_with_hash_bucket": _hash,
    "categorical_column_with_identity": _identity,
    "categorical_column_with_vocabulary_list": _vocab_list,
    "categorical_column_with_vocabulary_file": _vocab_file,
    "weighted_categorical_column": lambda c: weighted_categorical_column(
        _build(c["categorical_column"]), c["weight_feature_key"], c.get("dtype", "float32")
    ),
    "crossed_column": lambda c: crossed_column(
        [k if isinstance(k, str) else _build(k) for k in c["keys"]],
        c["hash_bucket_size"],
        c.get("hash_key"),
    ),
    "indicator_column": lambda c: indicator_column(_build(c["categorical_column"])),
    "embedding_column": lambda c: embedding_column_from_config(c, _build),
    "shared_embedding_column": lambda c: shared_embedding_column_from_config(c, _build),
    "sequence_numeric_column": _sequence_numeric,
    "sequence_categorical_column_with_hash_bucket": _sequence(_hash),
    "sequence_categorical_column_with_identity": _sequence(_identity),
    "sequence_categorical_column_with_vocabulary_list": _sequence(_vocab_list),
    "sequence_categorical_column_with_vocabulary_file": _sequence(_vocab_file),
}


def _build(c) -> FeatureColumn:
    if not isinstance(c, dict) or "type" not in c:
        raise ValueError(f"a feature column config is a dict with a 'type', got {c!r}")
    builder = _BUILDERS.get(c["type"])
    if builder is None:
        raise ValueError(
            f"unknown feature column type {c['type']!r}; known types: {sorted(_BUILDERS)}"
        )
    required, optional = COLUMN_KEYS[c["type"]]
    unknown = sorted(set(c) - required - optional - {"type"})
    if unknown:
        hints = {k: difflib.get_close_matches(k, sorted(required | optional), n=1) for k in unknown}
        hint = "; ".join(f"did you mean {h[0]!r} for {k!r}?" for k, h in hints.items() if h)
        raise ValueError(
            f"feature column config of type {c['type']!r} has unknown fields {unknown}"
            f"{'; ' + hint if hint else ''}; it takes {sorted(required | optional)}"
        )
    missing = sorted(required - set(c))
    if missing:
        raise ValueError(f"feature column config {c!r} lacks the fields {missing}")
    try:
        return builder(c)
    except TypeError as e:
        raise ValueError(f"feature column config of type {c['type']!r} is invalid: {e}") from e


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


def from_config(config) -> list:
    """Feature columns from their declarative form (a :func:`to_config` dict, or a bare
    list of column dicts).

    >>> from_config([{"type": "categorical_column_with_identity", "key": "k", "num_buckets": 3}])
    [IdentityCategoricalColumn(key='k', num_buckets=3, default_value=None)]
    """
    if isinstance(config, dict):
        version = config.get("format_version", CONFIG_FORMAT_VERSION)
        if not isinstance(version, int) or version > CONFIG_FORMAT_VERSION:
            raise ValueError(
                f"feature column config format_version {version!r} is newer than this colonnade "
                f"reads ({CONFIG_FORMAT_VERSION}); upgrade colonnade"
            )
        if "feature_columns" not in config:
            raise ValueError("a feature column config needs a 'feature_columns' list")
        config = config["feature_columns"]
    if not isinstance(config, list):
        raise ValueError(f"feature column configs must be a list, got {type(config).__name__}")
    return [_build(c) for c in config]
