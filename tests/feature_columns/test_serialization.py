"""to_config / from_config round-trips every column type through JSON and TOML."""

import json
import math

import numpy as np
import pytest

import colonnade.feature_columns as fc

try:
    import tomllib
except ImportError:  # Python 3.10: the TOML check needs a reader
    tomllib = None


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return (
            repr(v)
            if not (isinstance(v, float) and math.isinf(v))
            else ("inf" if v > 0 else "-inf")
        )
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"not TOML-serializable: {v!r}")


def to_toml(config: dict) -> str:
    return "\n".join(f"{k} = {toml_value(v)}" for k, v in config.items())


def plain(value):
    """Only str, int, float, bool, lists and dicts with string keys; no None."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v) for v in value)
    return isinstance(value, (str, int, float, bool))


def every_column(tmp_path):
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text("x\ny\nz\n", encoding="utf-8")
    age = fc.numeric_column("age", default_value=30.0, normalizer_fn=fc.standardize(40.0, 10.0))
    price = fc.numeric_column(
        "price", shape=(2,), dtype="float64", normalizer_fn=fc.chain(fc.clip(0, 1e6), fc.log1p())
    )
    age_b = fc.bucketized_column(age, [18.0, 30.0, 65.0])
    hashed = fc.categorical_column_with_hash_bucket("kw", 1000)
    hashed_int = fc.categorical_column_with_hash_bucket("code", 50, dtype="int32")
    ident = fc.categorical_column_with_identity("item", 100, default_value=0)
    vlist = fc.categorical_column_with_vocabulary_list("color", ["r", "g"], num_oov_buckets=2)
    vints = fc.categorical_column_with_vocabulary_list("level", [3, 1, 2], default_value=0)
    vfile = fc.categorical_column_with_vocabulary_file("v", str(vocab_file), num_oov_buckets=1)
    weighted = fc.weighted_categorical_column(ident, "w")
    cross = fc.crossed_column(
        [fc.crossed_column(["kw", age_b], 10), vlist, "extra"], 5000, hash_key=77
    )
    shared = fc.shared_embedding_columns(
        [vlist, fc.categorical_column_with_identity("q", 4)], 3, combiner="sqrtn", max_norm=2.0
    )
    return [
        age,
        price,
        age_b,
        hashed,
        hashed_int,
        ident,
        vlist,
        vints,
        vfile,
        weighted,
        cross,
        fc.indicator_column(vints),
        fc.embedding_column(
            cross,
            8,
            combiner="sum",
            max_norm=1.0,
            trainable=False,
            initializer=fc.initializer("random_uniform", minval=-0.1, maxval=0.1),
        ),
        fc.embedding_column(vfile, 4, ckpt_to_load_from="/ckpt/model", tensor_name_in_ckpt="t"),
        *shared,
        fc.sequence_numeric_column(
            "temps", shape=(2,), default_value=-1.0, normalizer_fn=fc.log_offset(1.0)
        ),
        fc.embedding_column(fc.sequence_categorical_column_with_hash_bucket("tok", 99), 5),
        fc.indicator_column(fc.sequence_categorical_column_with_identity("ids", 7, 0)),
        fc.indicator_column(fc.sequence_categorical_column_with_vocabulary_list("c", ["a", "b"])),
        fc.indicator_column(fc.sequence_categorical_column_with_vocabulary_file("vf", vocab_file)),
    ]


def test_round_trip_every_column_through_json_and_toml(tmp_path):
    columns = every_column(tmp_path)
    config = fc.to_config(columns)
    assert plain(config)
    assert fc.from_config(config) == columns
    assert fc.from_config(json.loads(json.dumps(config))) == columns
    if tomllib is not None:
        assert fc.from_config(tomllib.loads(to_toml(config))) == columns
    assert [c.name for c in fc.from_config(config)] == [c.name for c in columns]


def test_shared_embeddings_share_one_table_after_round_trip(tmp_path):
    shared = [c for c in every_column(tmp_path) if isinstance(c, fc.SharedEmbeddingColumn)]
    rebuilt = fc.from_config(fc.to_config(shared))
    layer = fc.DenseFeatures(rebuilt)
    assert [v.name for v in layer.variables] == [
        "dense_features/color_q_shared_embedding/embedding_weights"
    ]


def test_unset_options_are_omitted(tmp_path):
    (cfg,) = fc.to_config([fc.embedding_column(fc.categorical_column_with_identity("k", 3), 2)])[
        "feature_columns"
    ]
    assert cfg == {
        "type": "embedding_column",
        "categorical_column": {
            "type": "categorical_column_with_identity",
            "key": "k",
            "num_buckets": 3,
        },
        "dimension": 2,
        "combiner": "mean",
        "trainable": True,
    }


def test_arbitrary_callables_cannot_be_written():
    col = fc.numeric_column("price", normalizer_fn=lambda x: x / 2)
    with pytest.raises(ValueError, match="column 'price'.*standardize\\(mean, stddev\\)"):
        fc.to_config([col])
    emb = fc.embedding_column(
        fc.categorical_column_with_identity("k", 3), 2, initializer=lambda s, d, r: np.zeros(s, d)
    )
    with pytest.raises(ValueError, match="column 'k_embedding'.*initializer\\(name"):
        fc.to_config([emb])


def test_bad_configs():
    with pytest.raises(ValueError, match=r"\[0\]\.type: unknown column type 'magic_column'"):
        fc.from_config([{"type": "magic_column"}])
    with pytest.raises(
        ValueError,
        match=r"\[0\]\.hash_bucket_size: missing \(a categorical_column_with_hash_bucket needs "
        r"\['hash_bucket_size', 'key'\]\)",
    ):
        fc.from_config([{"type": "categorical_column_with_hash_bucket", "key": "k"}])
    with pytest.raises(ValueError, match="newer than this colonnade reads"):
        fc.from_config({"format_version": 99, "feature_columns": []})
    with pytest.raises(ValueError, match=r"\[0\]: crossed_column: hash_bucket_size must be > 1"):
        fc.from_config([{"type": "crossed_column", "keys": ["a", "b"], "hash_bucket_size": 0}])
    with pytest.raises(ValueError, match="unknown initializer 'ortho'"):
        fc.initializer("ortho")
    with pytest.raises(ValueError, match=r"\[0\]: unknown normalizer config"):
        fc.from_config([{"type": "numeric_column", "key": "x", "normalizer_fn": {"type": "exp"}}])
    with pytest.raises(
        ValueError, match=r"^feature_columns: expected a list of column dicts, got \{"
    ):
        fc.from_config({"feature_columns": {"type": "numeric_column"}})


def field_of(config, **kwargs):
    """The ConfigError ``from_config`` raises for ``config``: (field, message)."""
    with pytest.raises(fc.ConfigError) as info:
        fc.from_config(config, **kwargs)
    assert str(info.value) == f"{info.value.field}: {info.value.message}"
    return info.value.field, info.value.message


def test_errors_name_the_nested_field_by_its_dotted_path():
    ok = {"type": "numeric_column", "key": "x"}
    embedding = {
        "type": "embedding_column",
        "dimension": 2,
        "categorical_column": {"type": "numeric", "key": "k"},
    }
    field, message = field_of([ok, ok, embedding], where="model.feature_columns")
    assert field == "model.feature_columns[2].categorical_column.type"
    assert message.startswith(
        "unknown column type 'numeric'; did you mean 'numeric_column'? expected one of "
        "['bucketized_column', "
    )
    # Without ``where`` the path is relative to the list; a to_config dict adds its key.
    assert field_of([embedding])[0] == "[0].categorical_column.type"
    assert (
        field_of({"feature_columns": [embedding]})[0]
        == "feature_columns[0].categorical_column.type"
    )

    cross = {
        "type": "crossed_column",
        "hash_bucket_size": 10,
        "keys": ["a", {"type": "categorical_column_with_identity", "key": "b"}],
    }
    assert field_of([cross]) == (
        "[0].keys[1].num_buckets",
        "missing (a categorical_column_with_identity needs ['key', 'num_buckets'])",
    )

    vocab = {"type": "categorical_column_with_vocabulary_list", "key": "k"}
    vocab |= {"vocabulary_list": ["a"], "num_oov_bucket": 2}
    bucketized = {"type": "bucketized_column", "boundaries": [1.0], "source_column": ok}
    indicator = {"type": "indicator_column", "categorical_column": vocab}
    field, message = field_of([bucketized, indicator], where="cols")
    assert field == "cols[1].categorical_column.num_oov_bucket"
    assert message.startswith("unknown key; did you mean 'num_oov_buckets'? valid keys: [")
    # The factory's own checks are reported at the column they come from.
    assert field_of([{"type": "numeric_column", "key": 5}])[0] == "[0]"
    assert field_of([{"type": "indicator_column", "categorical_column": "k"}]) == (
        "[0].categorical_column",
        "expected a column table with a 'type', got \"k\"",
    )
    assert field_of([{"key": "x"}])[0] == "[0].type"


def test_resolve_path_rewrites_vocabulary_files_at_any_depth(tmp_path):
    (tmp_path / "v.txt").write_text("a\nb\n")
    inner = {"type": "categorical_column_with_vocabulary_file", "key": "k"}
    inner |= {"vocabulary_file": "v.txt"}
    config = [
        inner,
        {"type": "embedding_column", "dimension": 2, "categorical_column": inner},
        {"type": "crossed_column", "keys": [inner, "z"], "hash_bucket_size": 5},
    ]
    seen = []

    def resolve(path):
        seen.append(path)
        return str(tmp_path / path)

    plain_column, embedding, cross = fc.from_config(config, resolve_path=resolve)
    assert seen == ["v.txt", "v.txt", "v.txt"]
    assert plain_column.vocabulary_file == str(tmp_path / "v.txt")
    assert embedding.categorical_column.vocabulary_file == str(tmp_path / "v.txt")
    assert cross.keys[0].vocabulary_file == str(tmp_path / "v.txt")
    assert config[1]["categorical_column"]["vocabulary_file"] == "v.txt"  # input untouched
