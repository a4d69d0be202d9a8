"""Every public name of the TF seed documents works in colonnade, or is a documented difference.

``seed_names.json`` (made by ``make_seed_names.py`` from the seed documents) lists each
documented ``tf.`` name, its module and its documented parameters. A name *works* when it
resolves under colonnade's namespace for its module (``CN_NAMESPACES``, the one mapping
rule), is callable, and accepts every documented parameter by name. Otherwise
``docs/tf_differences.md`` must name it in backticks: ``tf.train.Supervisor`` (any TF
spelling that maps to the same colonnade name counts), a whole module as ``tf.lite.*``, or
missing parameters as ``tf.train.Saver(sharded, defer_build)``.
"""

import importlib
import inspect
import json
import re
from pathlib import Path

import make_seed_names
import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.core.checkpoint_writer import write_checkpoint

SEED_NAMES = json.loads(Path(__file__).with_name("seed_names.json").read_text())
DIFFERENCES = Path(__file__).resolve().parents[2] / "docs" / "tf_differences.md"

# TF module prefix -> the colonnade module its names live in; the longest prefix wins.
# tf.compat.v1.train is tf.train (cn.compat.v1.train is cn.train); TF's top-level math
# (tf.gradients, tf.clip_by_*, tf.global_norm, tf.stop_gradient) is in cn.core.
CN_NAMESPACES = {
    "tf.": "colonnade.core",
    "tf.compat.v1.": "colonnade.compat.v1",
    "tf.compat.v1.debugging.": "colonnade.debugging",
    "tf.compat.v1.feature_column.": "colonnade.compat.v1.feature_column",
    "tf.compat.v1.io.": "colonnade.io",
    "tf.compat.v1.nest.": "colonnade.nest",
    "tf.compat.v1.python_io.": "colonnade.io",
    "tf.compat.v1.summary.": "colonnade.summary",
    "tf.compat.v1.train.": "colonnade.train",
    "tf.compat.v1.train.experimental.": "colonnade.train.experimental",
    "tf.compat.v1.train.queue_runner.": "colonnade.train.queue_runner",
    "tf.debugging.": "colonnade.debugging",
    "tf.feature_column.": "colonnade.feature_columns",
    "tf.io.": "colonnade.io",
    "tf.io.gfile.": "colonnade.io.gfile",
    "tf.nest.": "colonnade.nest",
    "tf.nn.": "colonnade.nn",
    "tf.summary.": "colonnade.summary",
    "tf.train.": "colonnade.train",
    "tf.train.experimental.": "colonnade.train.experimental",
}
# Modules outside the project: their names are documented by a ``tf.module.*`` row.
OUTSIDE = ("tf.lite.", "tf.compat.v1.lite.", "tf.image.", "tf.compat.v1.image.")


def colonnade_path(tf_name):
    """``tf.compat.v1.train.Saver`` -> ``colonnade.train.Saver`` (None: outside the project)."""
    if tf_name.startswith(OUTSIDE):
        return None
    prefix = max((p for p in CN_NAMESPACES if tf_name.startswith(p)), key=len)
    return CN_NAMESPACES[prefix] + "." + tf_name[len(prefix) :]


def resolve(path):
    """The object a dotted colonnade path names, or None when it does not exist."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            obj = getattr(obj, attribute, None)
            if obj is None:
                return None
        return obj
    return None


def missing_parameters(obj, documented):
    """The documented parameter names ``obj`` does not accept."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    kinds = {p.kind for p in signature.parameters.values()}
    if inspect.Parameter.VAR_KEYWORD in kinds:
        return []
    return [p for p in documented or () if p not in signature.parameters]


def documented_differences(text=None):
    """(colonnade paths, TF wildcard prefixes, {path: parameters}) the differences name."""
    text = DIFFERENCES.read_text(encoding="utf-8") if text is None else text
    paths, wildcards, parameters = set(), [], {}
    for token in re.findall(r"`(tf\.[^`]+)`", text):
        if token.endswith(".*"):
            wildcards.append(token[:-1])
            continue
        call = re.fullmatch(r"(tf[\w.]+)\(([^)]*)\)", token)
        name = call.group(1) if call else token
        if not re.fullmatch(r"tf[\w.]+", name):
            continue
        path = colonnade_path(name)
        if call:
            listed = {p.strip().rstrip("=") for p in call.group(2).split(",")}
            parameters.setdefault(path, set()).update(listed)
        else:
            paths.add(path)
    return paths, tuple(wildcards), parameters


def seed_gap(entry, differences):
    """Why ``entry`` neither works nor is documented, or None when it is fine."""
    paths, wildcards, parameters = differences
    name = entry["name"]
    if name.startswith(wildcards):
        return None
    path = colonnade_path(name)
    if path is None:
        return f"{name}: outside the project, but no `{name.rsplit('.', 1)[0]}.*` row"
    obj = resolve(path)
    if obj is None:
        return None if path in paths else f"{name}: {path} does not exist"
    if not callable(obj):
        return f"{name}: {path} is not callable"
    missing = set(missing_parameters(obj, entry["params"])) - parameters.get(path, set())
    if missing and path not in paths:
        return f"{name}: {path} does not take {sorted(missing)}"
    return None


@pytest.mark.skipif(not Path("/work/shared/seeds").is_dir(), reason="the seed documents")
def test_seed_names_json_is_what_the_script_extracts():
    assert make_seed_names.extract(make_seed_names.SEEDS_DIR) == SEED_NAMES


def test_the_seed_names_were_extracted():
    names = {e["name"] for e in SEED_NAMES}
    assert len(names) == len(SEED_NAMES) > 400
    for expected in ("tf.train.Saver", "tf.nest.flatten", "tf.io.gfile.GFile", "tf.clip_by_norm"):
        assert expected in names or f"tf.compat.v1.{expected[3:]}" in names


@pytest.mark.parametrize("module", sorted({e["module"] for e in SEED_NAMES}))
def test_every_seed_name_works_or_is_a_documented_difference(module):
    differences = documented_differences()
    gaps = [seed_gap(e, differences) for e in SEED_NAMES if e["module"] == module]
    assert [g for g in gaps if g] == []


def test_an_undocumented_missing_name_is_reported():
    entry = {"name": "tf.train.NoSuchThing", "module": "tf.train", "params": None}
    assert "does not exist" in seed_gap(entry, documented_differences(""))
    assert seed_gap(entry, documented_differences("| `tf.train.NoSuchThing` |")) is None
    aliased = documented_differences("| `tf.compat.v1.train.NoSuchThing` |")
    assert seed_gap(entry, aliased) is None
    lite = {"name": "tf.lite.Interpreter", "module": "tf.lite", "params": None}
    assert "outside the project" in seed_gap(lite, documented_differences(""))
    assert seed_gap(lite, documented_differences("`tf.lite.*`")) is None


def test_a_missing_parameter_is_reported_unless_documented():
    entry = {"name": "tf.clip_by_norm", "module": "tf", "params": ["t", "clip_norm", "bogus"]}
    assert "does not take ['bogus']" in seed_gap(entry, documented_differences(""))
    assert seed_gap(entry, documented_differences("`tf.clip_by_norm(bogus)`")) is None


# ---------------------------------------------------------- names this audit added


def test_tf1_global_step_helpers_take_tfs_arguments():
    """Values printed by TF 2.15: ``tf.compat.v1.train.global_step(None, v)`` of a
    Variable holding 10 is 10."""
    with cn.core.VariableStore().as_default():
        step = cn.train.get_or_create_global_step(graph=None)
        step.assign(np.int64(10))
        assert cn.train.global_step(None, step) == 10
        assert cn.train.global_step(None, np.int64(3)) == 3
        assert cn.train.get_global_step(graph=None) is step
        cn.train.assert_global_step(global_step_tensor=step)
        with pytest.raises(ValueError, match="get_global_step takes graph=None"):
            cn.train.get_global_step(graph=object())
        with pytest.raises(TypeError, match="global_step_tensor must be a scalar"):
            cn.train.global_step(None, np.zeros(2))


def test_debugging_predicates_agree_with_tf():
    """Values printed by TF 2.15 (tf.math.is_non_decreasing, is_strictly_increasing,
    is_finite; tf.debugging.is_numeric_tensor)."""
    d = cn.debugging
    assert (d.is_non_decreasing([1, 1, 2]), d.is_non_decreasing([[1, 2], [0, 3]])) == (True, False)
    assert (d.is_strictly_increasing([1, 1, 2]), d.is_strictly_increasing([])) == (False, True)
    assert d.is_finite(np.array([1.0, np.inf, np.nan])).tolist() == [True, False, False]
    assert d.is_inf(np.array([1.0, -np.inf])).tolist() == [False, True]
    assert d.is_nan(np.array([np.nan, 0.0])).tolist() == [True, False]
    assert d.is_numeric_tensor(np.array([1])) and not d.is_numeric_tensor([1])
    assert not d.is_numeric_tensor(np.array([True]))
    with pytest.raises(TypeError, match="is_finite takes a floating-point value, got int64"):
        d.is_finite(np.array([1]))
    with pytest.raises(d.InvalidArgumentError, match=r"\[x is\] \[\[0 1\] ...\]"):
        d.Assert(np.array(False), ["x is", np.arange(5)], summarize=2)
    d.Assert(True, [np.arange(5)])


def test_tf_spellings_of_io_and_checkpoint_arguments(tmp_path):
    prefix = write_checkpoint(str(tmp_path / "c"), {"v": (np.arange(3.0), {})})
    assert cn.compat.v1.train.NewCheckpointReader(prefix).get_tensor("v").tolist() == [0, 1, 2]
    path = str(tmp_path / "r.tfrecord")
    cn.io.write_tfrecord(pa.table({"a": [1, 2]}), path, cn.io.TFRecordOptions("GZIP"))
    records = list(cn.io.tf_record_iterator(path, options=cn.io.TFRecordOptions("GZIP")))
    spec = {"a": cn.io.FixedLenFeature([], "int64")}
    assert cn.io.parse_example(records, spec, name="p").column("a").to_pylist() == [1, 2]
    single = cn.io.parse_single_example(records[1], spec, example_names="second", name="p")
    assert single["a"].item() == 2
    with pytest.raises(ValueError, match="second"):
        cn.io.parse_single_example(records[1], {"b": cn.io.FixedLenFeature([], "int64")}, "second")
    with pytest.raises(ValueError, match="compression_type or options"):
        next(cn.io.tf_record_iterator(path, "GZIP", options="GZIP"))
    assert cn.compat.v1.parse_single_sequence_example is cn.io.parse_single_sequence_example
    assert cn.core.stop_gradient(input=np.ones(2), name="s").numpy().tolist() == [1.0, 1.0]


def test_tf1_module_spellings_are_the_tf2_modules():
    """``CN_NAMESPACES`` maps ``tf.compat.v1.io`` etc. onto colonnade's one module of that
    name; a TF 1 program ported by swapping ``tf.`` for ``cn.compat.v1.`` finds it too."""
    v1 = cn.compat.v1
    assert v1.train is cn.train and v1.summary is cn.summary
    assert v1.io is cn.io and v1.python_io is cn.io
    assert v1.nest is cn.nest and v1.debugging is cn.debugging
    assert v1.feature_column is cn.feature_columns


def test_tf1_compression_type_constants_name_the_compression(tmp_path):
    """TF 1: ``TFRecordCompressionType.NONE/ZLIB/GZIP`` are 0, 1, 2 and name the codecs."""
    kinds = cn.compat.v1.python_io.TFRecordCompressionType
    assert (kinds.NONE, kinds.ZLIB, kinds.GZIP) == (0, 1, 2)
    assert cn.io.TFRecordOptions(kinds.ZLIB).compression_type == "ZLIB"
    assert cn.io.TFRecordOptions(kinds.NONE).compression_type == ""
    path = str(tmp_path / "z.tfrecord")
    cn.io.write_tfrecord(pa.table({"a": [1]}), path, cn.io.TFRecordOptions(kinds.GZIP))
    assert len(list(cn.io.tf_record_iterator(path, kinds.GZIP))) == 1
    with pytest.raises(ValueError, match="or a TFRecordCompressionType"):
        cn.io.TFRecordOptions(7)


def test_tf_io_whole_file_ops_agree_with_tf(tmp_path):
    """Values TF 2.15 gives: write_file makes the directories; matching_files of two
    globs is sorted and keeps a file both match twice; no match is empty."""
    base = str(tmp_path / "x" / "y")
    cn.io.write_file(base + "/b.txt", "hi")
    cn.compat.v1.write_file(base + "/a.txt", b"ho")
    assert cn.io.read_file(base + "/b.txt") == b"hi" == cn.compat.v1.read_file(base + "/b.txt")
    found = cn.io.matching_files([base + "/*.txt", base + "/a*"])
    assert [p.rsplit("/", 1)[1] for p in found] == ["a.txt", "a.txt", "b.txt"]
    assert cn.io.matching_files(str(tmp_path / "none*")) == []
    with pytest.raises(cn.io.gfile.NotFoundError):
        cn.io.read_file(base + "/missing")
    with pytest.raises(TypeError, match="write_file writes bytes or str, got int"):
        cn.io.write_file(base + "/c", 3)
    methods = cn.core.AggregationMethod  # TF 2.15: 0 0 1 2
    assert (methods.ADD_N, methods.DEFAULT, methods.EXPERIMENTAL_TREE) == (0, 0, 1)
    assert methods.EXPERIMENTAL_ACCUMULATE_N == 2
