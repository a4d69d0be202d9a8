"""Fuzzing the export loader, ``cn.load`` (issue 29): the trust boundary of an export.

The seed is a small trained wide & deep export reading a vocabulary file, with a parsing
serving input receiver. A mutation hits ``model.json`` or ``index.json`` as text, one of
their values (any path: replaced by a huge, negative, fractional or non-finite number, a
hostile string, a deep list, ``null``, or deleted), or a ``.npy`` file's bytes. Loading
must succeed or raise ``ExportError``, in bounded time and memory; a loaded export
predicts (rows and serialized tf.Examples) or raises ``ExportError`` or an error naming
the input.
"""

import json
import shutil
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from fuzzhelpers import FUZZ, HUGE, bounded, mutate, mutations
from hypothesis import given
from hypothesis import strategies as st

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators
ROWS = pd.DataFrame({"city": ["paris", "rome", "oslo", "lima"] * 3, "x": np.arange(12.0)})
# Memory a load may take beyond its files' size (the model, predictions of 4 rows).
SLACK_BYTES = 64 << 20

HOSTILE_VALUES = st.one_of(
    st.sampled_from(HUGE),
    st.sampled_from([-1, 0, -(2**63), 10**400, 1.5, 1e308, float("nan"), float("inf")]),
    st.sampled_from(["", "../../../etc/passwd", "/etc/passwd", "x" * 10_000, "ﬁ", "\0"]),
    st.sampled_from([None, True, [], {}, [[[[[[[[[[[]]]]]]]]]]], {"type": "x"}]),
    st.just("<delete>"),
)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("seed")
    vocab = tmp / "cities.txt"
    vocab.write_text("paris\nrome\noslo\n")
    city = fc.categorical_column_with_vocabulary_file("city", str(vocab), num_oov_buckets=1)
    columns = [fc.embedding_column(city, 2), fc.numeric_column("x")]
    est = E.DNNLinearCombinedClassifier(
        linear_feature_columns=[city],
        dnn_feature_columns=columns,
        dnn_hidden_units=[3],
        config=E.RunConfig(model_dir=str(tmp / "model"), tf_random_seed=1, log_step_count_steps=0),
    )
    est.fit(ROWS.assign(y=(ROWS["x"] > 5).astype(int)), label="y", verbose=0)
    receiver = E.build_parsing_serving_input_receiver_fn(fc.make_parse_example_spec(columns))
    return est.export_saved_model(str(tmp / "export"), serving_input_receiver_fn=receiver)


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    path = tmp_path_factory.mktemp("rows") / "rows.tfrecord"
    cn.io.write_tfrecord(ROWS.head(4), str(path))
    return list(cn.io.tf_record_iterator(str(path)))


def json_paths(value, prefix=()):
    """Every path (a tuple of keys and indices) to a value inside parsed JSON."""
    yield prefix
    if isinstance(value, (dict, list)):
        for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
            yield from json_paths(inner, (*prefix, key))


def replace_at(document, path, new):
    """``document`` with the value at ``path`` replaced by ``new`` (or removed)."""
    if not path:
        return new
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if new == "<delete>":
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return document


def check_bounded_load(export, examples):
    size = sum(p.stat().st_size for p in export.rglob("*") if p.is_file())
    tracemalloc.start()
    try:
        with bounded(20.0):
            try:
                predictor = cn.load(str(export))
            except E.ExportError:
                return
            try:
                predictor.predict(ROWS.head(4))
                predictor.predict_examples(examples)
            except E.ExportError:
                pass
            except (ValueError, TypeError, KeyError) as err:  # the input no longer fits
                assert any(word in str(err) for word in ("city", "x", "feature")), repr(err)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < SLACK_BYTES + 16 * size, f"loading a {size}-byte export took {peak}"


JSON_FILES = ["model.json", "variables/variables/index.json"]


@FUZZ
@given(name=st.sampled_from(JSON_FILES), which=st.integers(0, 10_000), new=HOSTILE_VALUES)
def test_an_export_with_a_hostile_json_value_loads_or_raises_export_error(
    tmp_path_factory, pristine, examples, name, which, new
):
    export = shutil.copytree(pristine, tmp_path_factory.mktemp("fuzz") / "export")
    document = json.loads((export / name).read_text())
    paths = list(json_paths(document))
    path = paths[which % len(paths)]
    if new == "<delete>" and not path:
        return
    (export / name).write_text(json.dumps(replace_at(document, path, new)))
    check_bounded_load(export, examples)


@FUZZ
@given(name=st.sampled_from(JSON_FILES + ["npy"]), ops=mutations())
def test_an_export_with_mutated_bytes_loads_or_raises_export_error(
    tmp_path_factory, pristine, examples, name, ops
):
    export = shutil.copytree(pristine, tmp_path_factory.mktemp("fuzz") / "export")
    if name == "npy":
        files = sorted((export / "variables" / "variables").glob("*.npy"))
        target = files[len(ops) % len(files)]
    else:
        target = export / name
    target.write_bytes(mutate(target.read_bytes(), ops))
    check_bounded_load(export, examples)


# ----------------------------------------------------------------- regression crashers


@pytest.fixture
def export(pristine, tmp_path):
    return shutil.copytree(pristine, tmp_path / "export")


def edit_arrays(export, change):
    path = export / "variables" / "variables" / "index.json"
    index = json.loads(path.read_text())
    change(next(iter(index["arrays"].values())))
    path.write_text(json.dumps(index))


def test_a_npy_header_numpy_cannot_tokenize_is_an_export_error(export):
    """Found by the fuzzer: an .npy file whose first 64 bytes repeat made numpy re-parse
    the header as Python and raise ``SyntaxError: source code string cannot contain null
    bytes`` (or tokenize's ``TokenError``) out of ``cn.load``."""
    target = sorted((export / "variables" / "variables").glob("*.npy"))[0]
    target.write_bytes(mutate(target.read_bytes(), [("repeat", 0, 2**31 - 1)]))
    with pytest.raises(E.ExportError, match=r"expected a \.npy header, cannot read it"):
        cn.load(str(export))


def test_a_file_name_with_a_null_byte_is_an_export_error(export):
    """Found by the fuzzer: an array's file named "\\0" raised os.path's bare
    ``ValueError: embedded null byte``."""
    edit_arrays(export, lambda entry: entry.update(file="\0"))
    with pytest.raises(E.ExportError, match="expected a relative path inside the export"):
        cn.load(str(export))


@pytest.mark.parametrize("dtype", [{"type": "x"}, [["a", "<f4"]], ["<f4"]])
def test_a_dtype_that_is_not_a_string_is_an_export_error(export, dtype):
    """Found by the fuzzer: ``np.dtype`` builds structured types from dicts and lists, and
    raised its own ``ValueError: entry not a 2- or 3- tuple`` for ``{"type": "x"}``."""
    edit_arrays(export, lambda entry: entry.update(dtype=dtype))
    with pytest.raises(E.ExportError, match="unknown dtype"):
        cn.load(str(export))
