"""Issue 41 (WEAK, Model_fn serving): ``--model-fn x=os:system`` gave a 38-line
traceback at the first request; ``python -m colonnade serve .`` inside an export holding
an ``orjson.py`` executed it; a 10 MB model_fn name gave a 20 MB error. Each is now a
short error when it is given (or nothing is imported from the working directory)."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import colonnade as cn
from colonnade.estimators.export.checks import MAX_MODEL_FN_NAME, ExportError
from colonnade.serving.model_fns import ModelFnImportError, import_model_fns

E = cn.estimators


def test_a_callable_that_is_no_model_fn_is_refused_when_imported():
    with pytest.raises(
        ModelFnImportError,
        match=r"^--model-fn 'os:system': 'system' takes \(command\), not a model_fn's "
        r"\(features, labels, mode\[, params, config\]\)$",
    ):
        import_model_fns(["x=os:system"])


def test_the_cli_refuses_it_in_one_line(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "colonnade", "serve", str(tmp_path), "--model-fn", "x=os:system"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and len(out.stderr.splitlines()) <= 2, out.stderr
    assert "takes (command)" in out.stderr


def test_python_m_colonnade_imports_nothing_from_the_working_directory(tmp_path):
    marker = tmp_path / "executed"
    for name in ("orjson", "starlette", "uvicorn", "httptools"):
        (tmp_path / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write('{name} ')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    out = subprocess.run(
        [sys.executable, "-m", "colonnade", "serve", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "holds no model.json" in out.stderr, out.stderr
    assert not marker.exists(), marker.read_text()


def model_fn(features, labels, mode):
    x = np.asarray(features["x"], np.float32).reshape(-1, 1)
    w = cn.core.get_variable("w", shape=(1, 1))
    y = cn.core.matmul(x, w)
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"y": y})
    loss = cn.losses.mean_squared_error(np.asarray(labels, np.float32).reshape(-1, 1), y)
    train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"y": y}, loss, train_op)


def test_a_huge_model_fn_name_is_refused_in_a_short_error(tmp_path):
    est = E.Estimator(model_fn, model_dir=str(tmp_path / "m"))
    x = np.array([1.0, 2.0], np.float32)
    est.train(lambda: ({"x": x}, x), steps=1, verbose=0)
    export = est.export_saved_model(str(tmp_path / "e"))
    assert cn.load(export, model_fns={"model_fn": model_fn}).predict({"x": x}).shape[0] == 2
    path = tmp_path / "hostile"
    shutil.copytree(export, path)
    meta = json.loads((path / "model.json").read_text())
    meta["model_fn"] = "f" * 10**7
    (path / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ExportError) as refused:
        cn.load(str(path), model_fns={"model_fn": model_fn})
    message = str(refused.value)
    assert len(message) < 500, len(message)
    assert f"field model_fn: expected a function's name of 1 to {MAX_MODEL_FN_NAME}" in message
    assert "10,000,000" in message
