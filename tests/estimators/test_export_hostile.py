"""Loading a tampered export: ``cn.load`` is the trust boundary.

Every case copies one small trained export, damages one thing, and expects a single clear
``ExportError`` (a ``ValueError``) naming what was expected and what was found, never a
file read outside the export, an allocation of a size the export merely claims, or an
AttributeError/KeyError/RecursionError from deep inside. Loads that could allocate run in a
subprocess under a 4 GiB address-space limit, so a regression fails instead of swapping.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators

ROWS = pd.DataFrame(
    {"city": ["paris", "rome", "oslo", "lima"] * 3, "job": list("abc") * 4, "x": np.arange(12.0)}
)


def train_rows():
    return ROWS.assign(y=(ROWS["x"] > 5).astype(int))


def build(tmp, vocab, **embedding_options):
    """A small wide&deep classifier reading a vocabulary file (both parts)."""
    city = fc.categorical_column_with_vocabulary_file("city", str(vocab), num_oov_buckets=1)
    return E.DNNLinearCombinedClassifier(
        linear_feature_columns=[city, fc.categorical_column_with_hash_bucket("job", 5)],
        dnn_feature_columns=[
            fc.embedding_column(city, 2, **embedding_options),
            fc.numeric_column("x"),
        ],
        dnn_hidden_units=[3],
        config=E.RunConfig(model_dir=str(tmp / "model"), tf_random_seed=1, log_step_count_steps=0),
    )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A trained export, never modified (tests tamper with copies)."""
    tmp = tmp_path_factory.mktemp("pristine")
    vocab = tmp / "cities.txt"
    vocab.write_text("paris\nrome\noslo\n")
    est = build(tmp, vocab)
    est.fit(train_rows(), label="y")
    return est.export_saved_model(str(tmp / "export"))


@pytest.fixture
def export(pristine, tmp_path):
    """A fresh copy of the trained export, to tamper with."""
    return shutil.copytree(pristine, tmp_path / "export")


def read_json(path):
    return json.loads(open(path).read())


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f)


def edit_model(export, change):
    """Apply ``change`` to the parsed model.json and write it back."""
    meta = read_json(export / "model.json")
    change(meta)
    write_json(export / "model.json", meta)


def edit_index(export, change):
    path = export / "variables" / "variables" / "index.json"
    index = read_json(path)
    change(index["arrays"])
    write_json(path, index)


def dnn_columns(meta):
    return meta["network"]["dnn"]["feature_columns"]["feature_columns"]


def linear_columns(meta):
    return meta["network"]["linear"]["feature_columns"]["feature_columns"]


def embedding_config(meta):
    return next(c for c in dnn_columns(meta) if c["type"] == "embedding_column")


def kernel_entry(arrays):
    return arrays["model/dnn/hiddenlayer_0/kernel"]


def assert_refused(path, *fragments):
    """``cn.load(path)`` raises ExportError (a ValueError) whose message has ``fragments``."""
    with pytest.raises(Exception) as info:
        cn.load(path)
    error = info.value
    assert type(error).__name__ == "ExportError" and isinstance(error, ValueError), repr(error)
    for fragment in fragments:
        assert fragment in str(error), str(error)
    return str(error)


def assert_refused_with_little_memory(path, *fragments):
    """As :func:`assert_refused`, in a subprocess that may not map more than 4 GiB."""
    script = textwrap.dedent(
        """
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        import colonnade as cn
        try:
            cn.load(sys.argv[1])
        except BaseException as e:
            print(type(e).__name__, isinstance(e, ValueError), e, sep="|")
        else:
            print("loaded|False|")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    name, is_value_error, message = (out.stdout.strip().splitlines() or ["||"])[-1].split("|", 2)
    assert (name, is_value_error) == ("ExportError", "True"), out.stdout + out.stderr
    for fragment in fragments:
        assert fragment in message, message
    return message


# ------------------------------------------------------------------ files out of the export


@pytest.fixture
def outside(export, tmp_path):
    """A directory beside the export holding a copy of a weight file and a vocabulary."""
    out = tmp_path / "outside"
    out.mkdir()
    index = read_json(export / "variables" / "variables" / "index.json")
    name = kernel_entry(index["arrays"])["file"]
    shutil.copy(export / "variables" / "variables" / name, out / "kernel.npy")
    (out / "vocab.txt").write_text("paris\nrome\noslo\n")
    return out


def test_array_file_with_an_absolute_path_is_refused(export, outside):
    edit_index(export, lambda a: kernel_entry(a).update(file=str(outside / "kernel.npy")))
    assert_refused(export, "index.json", "model/dnn/hiddenlayer_0/kernel", "outside the export")


def test_array_file_with_dotdot_is_refused(export, outside):
    edit_index(export, lambda a: kernel_entry(a).update(file="../../../outside/kernel.npy"))
    assert_refused(export, "index.json", "model/dnn/hiddenlayer_0/kernel", "outside the export")


def test_array_file_symlinked_out_of_the_export_is_refused(export, outside):
    name = kernel_entry(read_json(export / "variables/variables/index.json")["arrays"])["file"]
    target = export / "variables" / "variables" / name
    target.unlink()
    target.symlink_to(outside / "kernel.npy")
    assert_refused(export, name, "outside the export")


def test_vocabulary_file_with_an_absolute_path_is_refused(export, outside):
    def change(meta):
        linear_columns(meta)[0]["vocabulary_file"] = str(outside / "vocab.txt")

    edit_model(export, change)
    assert_refused(export, "model.json", "vocabulary_file", "outside the export")


def test_vocabulary_file_with_dotdot_is_refused(export, outside):
    edit_model(
        export, lambda m: linear_columns(m)[0].update(vocabulary_file="../outside/vocab.txt")
    )
    assert_refused(export, "network.linear.feature_columns", "vocabulary_file", "outside")


def test_vocabulary_file_symlinked_out_of_the_export_is_refused(export, outside):
    asset = export / linear_columns(read_json(export / "model.json"))[0]["vocabulary_file"]
    asset.unlink()
    asset.symlink_to(outside / "vocab.txt")
    assert_refused(export, "vocabulary_file", "outside the export")


def test_ckpt_to_load_from_outside_the_export_is_refused(pristine, export):
    source = os.path.join(os.path.dirname(os.path.dirname(pristine)), "model")
    name = "model/dnn/input_from_feature_columns/input_layer/city_embedding/embedding_weights"

    def change(meta):
        embedding_config(meta).update(ckpt_to_load_from=source, tensor_name_in_ckpt=name)

    edit_model(export, change)
    assert_refused(export, "ckpt_to_load_from", "outside the export")


def test_model_json_symlinked_out_of_the_export_is_refused(export, outside):
    shutil.copy(export / "model.json", outside / "model.json")
    (export / "model.json").unlink()
    (export / "model.json").symlink_to(outside / "model.json")
    assert_refused(export, "model.json", "outside the export")


# ------------------------------------------------------------------ an export is self-contained


def test_export_carries_its_vocabulary_and_drops_the_checkpoint_initializer(tmp_path):
    warm = tmp_path / "warm"
    vocab = tmp_path / "cities.txt"
    vocab.write_text("paris\nrome\noslo\n")
    first = build(warm, vocab)
    first.fit(train_rows(), label="y")
    table = "dnn/input_from_feature_columns/input_layer/city_embedding/embedding_weights"
    est = build(tmp_path, vocab, ckpt_to_load_from=str(warm / "model"), tensor_name_in_ckpt=table)
    est.fit(train_rows(), label="y")
    path = est.export_saved_model(str(tmp_path / "export"))
    expected = est.predict(ROWS)
    os.remove(vocab)
    shutil.rmtree(warm)
    meta = read_json(os.path.join(path, "model.json"))
    assert "ckpt_to_load_from" not in json.dumps(meta)
    assert "tensor_name_in_ckpt" not in json.dumps(meta)
    vocabulary_file = linear_columns(meta)[0]["vocabulary_file"]
    assert not os.path.isabs(vocabulary_file) and vocabulary_file.startswith("assets/")
    got = cn.load(path).predict(ROWS)
    np.testing.assert_allclose(got["logits"], expected["logits"], rtol=1e-6)


def test_exporting_an_untrained_estimator_is_refused(tmp_path):
    vocab = tmp_path / "cities.txt"
    vocab.write_text("paris\n")
    est = build(tmp_path, vocab)
    with pytest.raises(ValueError, match="Couldn't find trained model at .*model"):
        est.export_saved_model(str(tmp_path / "export"))
    assert not (tmp_path / "export").exists() or not os.listdir(tmp_path / "export")


# ------------------------------------------------------------------ sizes


def test_hidden_units_larger_than_the_weights_are_refused_before_allocating(export):
    edit_model(export, lambda m: m["network"]["dnn"].update(hidden_units=[1000000000]))
    assert_refused_with_little_memory(
        export, "model/dnn/hiddenlayer_0/kernel", "(3, 1000000000)", "(3, 3)"
    )


def test_float_hidden_units_are_refused(export):
    edit_model(export, lambda m: m["network"]["dnn"].update(hidden_units=[1e9]))
    assert_refused_with_little_memory(
        export, "network.dnn.hidden_units[0]", "integer", "1000000000.0"
    )


def test_huge_hash_bucket_size_is_refused_before_allocating(export):
    def change(meta):
        column = next(c for c in linear_columns(meta) if "hash_bucket_size" in c)
        column["hash_bucket_size"] = 10**12

    edit_model(export, change)
    assert_refused_with_little_memory(
        export, "model/linear/linear_model/job/weights", "(1000000000000, 1)"
    )


def test_huge_embedding_dimension_is_refused_before_allocating(export):
    edit_model(export, lambda m: embedding_config(m).update(dimension=10**12))
    assert_refused_with_little_memory(export, "embedding_weights", "(4, 1000000000000)")


def test_huge_numeric_shape_is_refused_before_allocating(export):
    def change(meta):
        column = next(c for c in dnn_columns(meta) if c["type"] == "numeric_column")
        column.update(shape=[10**6, 10**6], default_value=0.0)

    edit_model(export, change)
    assert_refused_with_little_memory(export, "shape", "1000000000000")


def test_a_huge_piecewise_edge_list_is_refused_by_the_weights_it_lacks(export):
    # 500k edges (about 5 MB of model.json, under its 64 MB cap) would make every request
    # row a 500k-wide encoding; the first layer's kernel on disk is (3, 3), so the load stops
    # at the shape check, having built only the edge list (linear in the file's bytes).
    def change(meta):
        columns = dnn_columns(meta)
        i = next(i for i, c in enumerate(columns) if c["type"] == "numeric_column")
        edges = [float(e) for e in range(500_001)]
        columns[i] = {
            "type": "piecewise_linear_column",
            "source_column": columns[i],
            "edges": edges,
        }

    edit_model(export, change)
    assert_refused_with_little_memory(
        export, "model/dnn/hiddenlayer_0/kernel", "(500002, 3)", "(3, 3)"
    )


def test_npy_header_claiming_a_huge_shape_is_refused_before_reading(export):
    index = read_json(export / "variables/variables/index.json")
    name = kernel_entry(index["arrays"])["file"]
    path = export / "variables" / "variables" / name
    header = np.lib.format.header_data_from_array_1_0(np.zeros((3, 3), np.float32))
    header["shape"] = (10**6, 10**6)
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.write(np.zeros((3, 3), np.float32).tobytes())
    assert_refused_with_little_memory(export, name, "(1000000, 1000000)", "(3, 3)")


def test_npy_file_shorter_than_its_header_says_is_refused(export):
    name = kernel_entry(read_json(export / "variables/variables/index.json")["arrays"])["file"]
    path = export / "variables" / "variables" / name
    path.write_bytes(path.read_bytes()[:-4])
    assert_refused(export, name, "bytes")


def test_npy_object_array_is_refused(export):
    name = kernel_entry(read_json(export / "variables/variables/index.json")["arrays"])["file"]
    np.save(export / "variables" / "variables" / name, np.array([None] * 9).reshape(3, 3))
    assert_refused(export, name, "object")


def test_index_declaring_an_object_dtype_is_refused(export):
    edit_index(export, lambda a: kernel_entry(a).update(dtype="object"))
    assert_refused(export, "index.json", "model/dnn/hiddenlayer_0/kernel", "object")


# ------------------------------------------------------------------ malformed model.json


def nest(depth):
    return "[" * depth + "]" * depth


MALFORMED = {
    "not_json": lambda text: text[: len(text) // 2],
    "not_an_object": lambda text: "[1, 2, 3]",
    "hidden_units_a_string": lambda text: _edit(
        text, lambda m: m["network"]["dnn"].update(hidden_units="64")
    ),
    "head_a_number": lambda text: _edit(text, lambda m: m.update(head=3)),
    "head_missing": lambda text: _edit(text, lambda m: m.pop("head")),
    "network_missing": lambda text: _edit(text, lambda m: m.pop("network")),
    "network_empty": lambda text: _edit(text, lambda m: m.update(network={})),
    "unknown_head_type": lambda text: _edit(text, lambda m: m["head"].update(type="ranking")),
    "head_with_unknown_field": lambda text: _edit(text, lambda m: m["head"].update(colour=1)),
    "units_a_string": lambda text: _edit(text, lambda m: m["network"]["dnn"].update(units="1")),
    "columns_not_a_list": lambda text: _edit(
        text, lambda m: m["network"]["linear"].update(feature_columns={"feature_columns": 7})
    ),
    "column_without_type": lambda text: _edit(text, lambda m: linear_columns(m)[0].pop("type")),
    "deeply_nested_lists": lambda text: text.replace('"format_version": 1', f'"x": {nest(10000)}'),
    "deeply_nested_dicts": lambda text: text.replace(
        '"format_version": 1', '"x": ' + '{"a": ' * 10000 + "1" + "}" * 10000
    ),
}
FIELDS = {
    "not_json": "not valid JSON",
    "not_an_object": "JSON object",
    "hidden_units_a_string": "network.dnn.hidden_units",
    "head_a_number": "head",
    "head_missing": "head",
    "network_missing": "network",
    "network_empty": "network",
    "unknown_head_type": "ranking",
    "head_with_unknown_field": "colour",
    "units_a_string": "network.dnn.units",
    "columns_not_a_list": "network.linear.feature_columns",
    "column_without_type": "network.linear.feature_columns",
    "deeply_nested_lists": "nested",
    "deeply_nested_dicts": "nested",
}


def _edit(text, change):
    meta = json.loads(text)
    change(meta)
    return json.dumps(meta)


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_model_json_gives_one_clear_error(export, case):
    path = export / "model.json"
    path.write_text(MALFORMED[case](path.read_text()))
    assert_refused(export, "model.json", FIELDS[case])


def test_oversized_model_json_is_refused_before_reading_it(export):
    with open(export / "model.json", "r+b") as f:
        f.truncate(65 << 20)  # sparse: 65 MiB that take no disk
    assert_refused(export, "model.json", "bytes")


# ------------------------------------------------------------------ predictions


def test_predicting_no_rows_gives_the_columns_and_dtypes_of_one_row(pristine):
    predictor = cn.load(pristine)
    one = predictor.predict(ROWS.head(1))
    none = predictor.predict(ROWS.head(0))
    assert len(none) == 0
    assert list(none.columns) == list(one.columns)
    assert none.dtypes.to_dict() == one.dtypes.to_dict()
    keys = predictor.predict(ROWS.head(0), predict_keys=["class_ids"])
    assert list(keys.columns) == ["class_ids"] and keys["class_ids"].dtype == np.int64


def test_estimator_predict_of_no_rows_gives_the_columns_of_one_row(tmp_path):
    est = cn.estimators.LinearClassifier(
        [cn.feature_columns.numeric_column("x")],
        label_vocabulary=["no", "yes"],
        model_dir=str(tmp_path / "m"),
    )
    est.fit(pd.DataFrame({"x": [0.0, 1.0], "y": ["no", "yes"]}), label="y")
    one = est.predict(pd.DataFrame({"x": [0.5]}))
    none = est.predict(pd.DataFrame({"x": np.array([], np.float64)}))
    assert len(none) == 0 and list(none.columns) == list(one.columns)
    assert none.dtypes.to_dict() == one.dtypes.to_dict()


def test_a_receiver_whose_features_hold_too_many_values_together_is_refused(export):
    """Issue 29: 300 features of shape [2^20], each within the per-feature cap, made
    parsing 4 examples take 36 s and 5.1 GB; the product of the sizes is checked now."""
    feature = {"kind": "fixed", "dtype": "float32", "shape": [1 << 20], "default": None}
    features = {f"f{i}": dict(feature) for i in range(300)}
    edit_model(
        export, lambda m: m.update(serving_input_receiver={"type": "parsing", "features": features})
    )
    assert_refused(export, "hold 314,572,800 values an example together, more than the 1,048,576")
