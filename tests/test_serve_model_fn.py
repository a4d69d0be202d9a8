"""``colonnade serve`` of a custom ``Estimator(model_fn)``'s export (issue 25 item 5), over
real HTTP: the model_fn comes from ``--model-fn NAME=package.module:function``, imported
from the environment (here ``tests/serve_model_fn_module.py``), never from the export.
Every answer is checked against ``cn.load(path, model_fns=...)``'s predictions."""

import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from serve_model_fn_module import linear_model_fn  # noqa: E402
from test_serve import NAME, Client, serve  # noqa: E402

from colonnade.serving import ModelStore  # noqa: E402
from colonnade.serving.model_fns import (  # noqa: E402
    ModelFnImportError,
    import_model_fns,
    model_fn_specs,
)

E, fc = cn.estimators, cn.feature_columns
TESTS = Path(__file__).resolve().parent
TARGET = "serve_model_fn_module:linear_model_fn"
MODEL_FNS = {"linear_model_fn": linear_model_fn}
COLUMNS = [fc.numeric_column("x1"), fc.numeric_column("x2")]


def rows(n, seed):
    x = np.random.default_rng(seed).normal(size=(n, 2))
    return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1]})


def train_export(root, parsing=False):
    """A trained linear model_fn, exported into ``root/exports``; the export's path."""
    data = rows(64, seed=0)
    data["y"] = data["x1"] - 2 * data["x2"] + 0.5
    est = E.Estimator(linear_model_fn, model_dir=str(root / "model"), params={"columns": COLUMNS})
    est.fit(data, label="y", epochs=3, batch_size=16, verbose=0)
    receiver = None
    if parsing:
        receiver = E.export.build_parsing_serving_input_receiver_fn(
            fc.make_parse_example_spec(COLUMNS)
        )
    return est.export_saved_model(str(root / "exports"), receiver)


def expected(path, data):
    return cn.load(path, model_fns=MODEL_FNS).predict_arrays(data)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A server of an export with no serving receiver: its inputs are not recorded."""
    root = tmp_path_factory.mktemp("serve_model_fn")
    first = train_export(root)
    yield from serve(root, root / "exports", first, model_fns=MODEL_FNS)


@pytest.fixture(scope="module")
def parsing(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_model_fn_parsing")
    first = train_export(root, parsing=True)
    yield from serve(root, root / "exports", first, model_fns=MODEL_FNS)


@pytest.fixture()
def client(request):
    server = request.getfixturevalue(request.param)
    c = Client(server["port"])
    c.server = server
    yield c
    c.conn.close()


@pytest.mark.parametrize("client", ["plain", "parsing"], indirect=True)
def test_instances_and_inputs_answer_as_load_predicts(client):
    data = rows(6, seed=1)
    want = expected(client.server["first"], data)
    status, body = client.predict({"instances": data.to_dict("records")})
    assert status == 200, body
    for key in ("y", "scores"):
        got = np.array([p[key] for p in body["predictions"]])
        np.testing.assert_allclose(got, want[key], rtol=1e-6, atol=1e-6)
    columns = {"x1": data["x1"].tolist(), "x2": data["x2"].tolist()}
    status, body = client.predict({"inputs": columns})
    assert status == 200, body
    assert np.shape(body["outputs"]["scores"]) == (6, 2)  # the model_fn's own shapes
    for key in ("y", "scores"):
        np.testing.assert_allclose(body["outputs"][key], want[key], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("client", ["parsing"], indirect=True)
def test_serialized_examples_answer_as_load_predicts(client, tmp_path):
    data = rows(4, seed=2)
    path = str(tmp_path / "rows.tfrecord")
    cn.io.write_tfrecord(data, path)
    b64 = [base64.b64encode(s).decode() for s in cn.io.tf_record_iterator(path)]
    want = expected(client.server["first"], data)
    for body in ({"examples": [{"b64": b} for b in b64]}, {"instances": [{"b64": b} for b in b64]}):
        status, answer = client.predict(body)
        assert status == 200, answer
        got = np.array([p["y"] for p in answer["predictions"]])
        np.testing.assert_allclose(got, want["y"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("client", ["parsing"], indirect=True)
def test_recorded_inputs_are_the_signature(client):
    status, body = client.predict({"instances": [{"x1": 1.0, "x2": 2.0, "zip": 3}]})
    assert status == 400 and "unknown input(s) ['zip']" in body["error"]
    status, body = client.predict({"instances": [{"x1": "a", "x2": 2.0}]})
    assert status == 400 and "'x1' takes numbers" in body["error"]
    status, body = client.call("GET", f"/v1/models/{NAME}/metadata")
    signature = body["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert sorted(signature["inputs"]) == ["x1", "x2"]


@pytest.mark.parametrize("client", ["plain"], indirect=True)
def test_unknown_inputs_take_named_columns_and_outputs_come_from_predictions(client):
    status, body = client.predict({"instances": [3.0]})
    assert status == 400 and "records no inputs" in body["error"]
    status, body = client.predict({"instances": [{"b64": "AAAA"}]})
    assert status == 400 and "takes no serialized examples" in body["error"]
    status, body = client.predict({"instances": [{"x1": [[[1.0]]], "x2": 1.0}]})
    assert status == 400 and "nested" in body["error"]
    status, body = client.predict({"instances": [{"x1": 1.0}]})  # x2 missing: the model's error
    assert status == 400 and "x2" in body["error"]
    status, body = client.predict({"instances": [{"x1": 1.0, "x2": 0.5}]})
    assert status == 200, body
    status, body = client.call("GET", f"/v1/models/{NAME}/metadata")
    signature = body["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert signature["inputs"] == {}
    assert signature["outputs"]["scores"]["tensor_shape"]["dim"][1]["size"] == "2"
    assert signature["outputs"]["y"]["dtype"] == "DT_FLOAT"


def test_an_export_whose_model_fn_is_not_given_is_refused_naming_it_and_the_flag(tmp_path):
    path = train_export(tmp_path)
    with pytest.raises(ValueError, match=r"'linear_model_fn'.*--model-fn linear_model_fn="):
        ModelStore(path)
    with pytest.raises(ValueError, match=r"model_fns given: 'other'"):
        ModelStore(path, model_fns={"other": linear_model_fn})


def test_import_strings_name_the_function_or_fail_naming_themselves(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    assert model_fn_specs([TARGET]) == {"linear_model_fn": TARGET}
    assert import_model_fns([f"custom={TARGET}"]) == {"custom": linear_model_fn}
    assert import_model_fns({"custom": TARGET}) == {"custom": linear_model_fn}
    bad = {
        "no_such_module_xyz:f": "module 'no_such_module_xyz' does not import",
        "serve_model_fn_module:missing": "has no 'missing'",
        "serve_model_fn_module:NOT_A_FUNCTION": "is a int, not a function",
        "just_a_module": "expected NAME=package.module:function",
        "a b=x:y": "expected NAME=package.module:function",
    }
    for spec, message in bad.items():
        with pytest.raises(ModelFnImportError, match=message) as raised:
            import_model_fns([spec])
        assert spec.split("=")[-1] in str(raised.value)  # the string at fault, named
    with pytest.raises(ModelFnImportError, match="names 'f' twice"):
        model_fn_specs(["f=os.path:join", "f=os.path:split"])


def _cli(export, *flags, port=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    command = [sys.executable, "-m", "colonnade", "serve", str(export), *flags]
    if port is not None:
        command += ["--port", str(port), "--model-name", NAME]
    return command, env


def test_cli_errors_name_the_missing_model_fn_and_the_bad_import(tmp_path):
    path = train_export(tmp_path)
    for flags, message in (
        ((), "model_fn is 'linear_model_fn': serve it with --model-fn linear_model_fn="),
        (("--model-fn", "no_such_module_xyz:f"), "'no_such_module_xyz' does not import"),
    ):
        command, env = _cli(path, *flags)
        out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode != 0 and message in out.stderr, out.stderr


def test_cli_serves_a_model_fn_export_in_worker_processes(tmp_path):
    path = train_export(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command, env = _cli(tmp_path / "exports", "--model-fn", TARGET, "--workers", "2", port=port)
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        data = rows(5, seed=3)
        deadline = time.monotonic() + 90
        while True:
            try:
                c = Client(port)
                status, body = c.predict({"instances": data.to_dict("records")})
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        assert status == 200, body
        got = np.array([p["y"] for p in body["predictions"]])
        np.testing.assert_allclose(got, expected(path, data)["y"], rtol=1e-6, atol=1e-6)
        c.conn.close()
    finally:
        server.terminate()
        server.wait(30)


def test_create_app_of_a_path_takes_model_fns_as_functions_or_import_strings(tmp_path):
    from colonnade.serving import create_app

    path = train_export(tmp_path)
    assert callable(create_app(path, NAME, model_fns={"linear_model_fn": linear_model_fn}))
    with pytest.raises(ModelFnImportError, match="'no_such_module_xyz' does not import"):
        create_app(path, NAME, model_fns={"linear_model_fn": "no_such_module_xyz:f"})


def test_a_fixed_width_input_takes_lists_as_its_width_and_refuses_other_lengths():
    """A receiver's ``FixedLenFeature([3])`` (TF: a placeholder of shape ``[None, 3]``)
    types the request's lists as 3-wide, so a model_fn reads a ``(batch, 3)`` array."""
    import pyarrow as pa

    from colonnade.serving.errors import BadRequest
    from colonnade.serving.typed_columns import columns_to_table

    inputs = {"ids": pa.list_(pa.int64(), 3)}
    table = columns_to_table({"ids": [[1, 2, 3], [4, 5, 6]]}, inputs)
    assert table.column("ids").type == pa.list_(pa.int64(), 3)
    assert table.column("ids").to_pylist() == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(BadRequest, match=r"'ids' takes 3 values a row, got rows of \[2, 3\]"):
        columns_to_table({"ids": [[1, 2, 3], [4, 5]]}, inputs)
