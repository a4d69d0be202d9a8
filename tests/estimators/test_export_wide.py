"""Issue 41 (WEAK, Other): a 10^6-column export loaded in 292 s (about 2 ms a column:
a ``.npy`` file per variable, its header checked, the column built). The number of
arrays in ``index.json`` and of feature columns in a network part are bounded by
``MAX_EXPORT_ARRAYS`` (2^17), refused before any array file is opened or any column is
built (docs/exports.md)."""

import json
import shutil
import time

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.export.checks import MAX_EXPORT_ARRAYS, ExportError

fc = cn.feature_columns


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wide")
    est = cn.estimators.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp / "m"))
    x = np.array([1.0, 2.0], np.float32)
    est.train(lambda: ({"x": x}, x), steps=1, verbose=0)
    return est.export_saved_model(str(tmp / "e"))


def _copy(export, tmp_path):
    path = tmp_path / "hostile"
    shutil.copytree(export, path)
    return path


def test_the_bound_is_two_to_the_17():
    assert MAX_EXPORT_ARRAYS == 131_072


def test_an_index_of_more_arrays_than_the_bound_is_refused_before_opening_them(export, tmp_path):
    path = _copy(export, tmp_path)
    index_path = path / "variables" / "variables" / "index.json"
    index = json.loads(index_path.read_text())
    (key, entry), *_ = index["arrays"].items()
    index["arrays"] = {f"{key}_{i}": entry for i in range(MAX_EXPORT_ARRAYS + 1)}
    index_path.write_text(json.dumps(index))
    began = time.perf_counter()
    with pytest.raises(ExportError, match=r"lists 131,073 arrays, more than the 131,072"):
        cn.load(str(path))
    assert time.perf_counter() - began < 10.0


@pytest.mark.parametrize("part", ["linear"])
def test_a_network_part_of_more_columns_than_the_bound_is_refused_before_building(
    export, tmp_path, part
):
    path = _copy(export, tmp_path)
    meta = json.loads((path / "model.json").read_text())
    config = meta["network"][part]["feature_columns"]
    (column,) = config["feature_columns"]
    many = [{**column, "key": f"c{i}"} for i in range(MAX_EXPORT_ARRAYS + 1)]
    meta["network"][part]["feature_columns"] = {**config, "feature_columns": many}
    (path / "model.json").write_text(json.dumps(meta))
    began = time.perf_counter()
    with pytest.raises(
        ExportError,
        match=rf"field network\.{part}\.feature_columns: 131,073 columns, more than the "
        r"131,072 an export may have; refused before any is built",
    ):
        cn.load(str(path))
    assert time.perf_counter() - began < 10.0


def test_the_export_as_made_loads(export):
    got = cn.load(export).predict({"x": np.array([1.0], np.float32)})
    assert got.shape[0] == 1
