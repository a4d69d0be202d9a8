"""``colonnade serve``: TF Serving's REST API over a real server, called over HTTP."""

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from colonnade.estimators.export.directory import resolve_export_dir  # noqa: E402
from colonnade.serving import ModelStore, create_app  # noqa: E402
from colonnade.serving.protocol import uvicorn_options  # noqa: E402

fc = cn.feature_columns
E = cn.estimators
NAME = "census"


def frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    city = rng.choice(["paris", "rome", "oslo"], n)
    y = ((age > 40) ^ (city == "rome")).astype(int)
    return pd.DataFrame({"age": age, "city": city, "y": y})


def train_export(model_dir, export_base, steps_seed=0, parsing=False):
    city = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome", "oslo"])
    columns = [fc.numeric_column("age"), city]
    est = E.LinearClassifier(
        feature_columns=columns,
        config=E.RunConfig(model_dir=str(model_dir), tf_random_seed=steps_seed),
    )
    est.fit(frame(seed=steps_seed), label="y", epochs=1, batch_size=64, verbose=0)
    receiver = None
    if parsing:
        spec = fc.make_parse_example_spec(columns)
        receiver = E.export.build_parsing_serving_input_receiver_fn(spec)
    return est.export_saved_model(str(export_base), receiver)


class Client:
    """A keep-alive HTTP client for one server."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method, path, body=None, headers=None):
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
        try:
            self.conn.request(method, path, body=body, headers=headers or {})
            response = self.conn.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            raise
        if response.getheader("connection", "").lower() == "close":
            self.conn.close()
        return response.status, json.loads(data)

    def predict(self, body, version=None):
        where = f"/v1/models/{NAME}" + (f"/versions/{version}" if version else "")
        return self.call("POST", f"{where}:predict", body)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real uvicorn server in a thread, serving a base directory of versions."""
    root = tmp_path_factory.mktemp("serve")
    base = root / "exports"
    first = train_export(root / "model", base)
    yield from serve(root, base, first)


def serve(root, base, first, model_fns=None, **app_options):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    store = ModelStore(str(base), poll_interval=0.1, model_fns=model_fns)
    config = uvicorn.Config(create_app(store, NAME, **app_options), **uvicorn_options())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    yield {"port": port, "base": base, "root": root, "first": first, "store": store}
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture()
def client(server):
    c = Client(server["port"])
    yield c
    c.conn.close()


def expected_frame(server, rows):
    return cn.load(server["store"].serving().path).predict(pd.DataFrame(rows))


def test_instances_answer_one_object_a_row_as_load_predicts(server, client):
    rows = frame(5, seed=1).drop(columns="y").to_dict("records")
    status, body = client.predict({"instances": rows})
    assert status == 200, body
    predictions = body["predictions"]
    assert len(predictions) == 5
    expected = expected_frame(server, rows)
    got_p = np.array([p["probabilities"] for p in predictions])
    np.testing.assert_allclose(got_p[:, 1], expected["probabilities_1"], rtol=1e-6)
    assert [p["class_ids"] for p in predictions] == [[c] for c in expected["class_ids"]]
    assert [p["classes"][0] for p in predictions] == list(expected["classes"])
    assert predictions[0]["all_classes"] == ["0", "1"]
    np.testing.assert_allclose([p["logistic"][0] for p in predictions], expected["logistic"])


def test_inputs_answer_columns_as_load_predicts(server, client):
    rows = frame(7, seed=2).drop(columns="y")
    body = {"inputs": {"age": rows["age"].tolist(), "city": rows["city"].tolist()}}
    status, body = client.predict({**body, "signature_name": "serving_default"})
    assert status == 200, body
    outputs = body["outputs"]
    expected = expected_frame(server, rows)
    np.testing.assert_allclose(np.array(outputs["logits"])[:, 0], expected["logits"], rtol=1e-6)
    assert np.array(outputs["probabilities"]).shape == (7, 2)
    assert [c[0] for c in outputs["class_ids"]] == list(expected["class_ids"])


def test_integer_ages_and_empty_requests(client):
    status, body = client.predict({"instances": [{"age": 30, "city": "rome"}]})
    assert status == 200 and len(body["predictions"]) == 1
    status, body = client.predict({"inputs": {"age": [], "city": []}})
    assert status == 200 and body["outputs"]["logits"] == []


def test_status_and_metadata(server, client):
    status, body = client.call("GET", f"/v1/models/{NAME}")
    assert status == 200
    (row,) = [s for s in body["model_version_status"] if s["state"] == "AVAILABLE"]
    assert row == {
        "version": str(server["store"].serving().version),
        "state": "AVAILABLE",
        "status": {"error_code": "OK", "error_message": ""},
    }
    status, body = client.call("GET", f"/v1/models/{NAME}/metadata")
    assert status == 200
    signature = body["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert signature["inputs"]["age"]["dtype"] == "DT_FLOAT"
    assert signature["inputs"]["city"]["dtype"] == "DT_STRING"
    assert signature["outputs"]["probabilities"]["dtype"] == "DT_FLOAT"
    assert signature["outputs"]["probabilities"]["tensor_shape"]["dim"][1]["size"] == "2"
    assert signature["outputs"]["classes"]["dtype"] == "DT_STRING"
    assert body["model_spec"]["name"] == NAME


@pytest.mark.parametrize(
    "body, match",
    [
        (b"{not json", "malformed JSON"),
        ([1, 2], "JSON object"),
        ({}, "neither 'instances' and 'inputs'"),
        ({"instances": [], "inputs": {}}, "both"),
        ({"instances": [{"age": 3}]}, r"instances\[0\] lacks input column\(s\) \['city'\]"),
        ({"instances": [{"age": "old", "city": "rome"}]}, "'age' takes numbers"),
        ({"instances": [{"age": 3, "city": 4}]}, "'city' takes strings, got integers"),
        ({"instances": [{"age": 3, "city": "rome"}, 5]}, r"instances\[1\] must be an object"),
        ({"instances": {"age": 3}}, "'instances' must be a list"),
        ({"inputs": {"age": [1, 2], "city": ["rome"]}}, "ragged inputs: column 'city' has 1"),
        ({"inputs": {"age": [1]}}, r"'inputs' lacks input column\(s\) \['city'\]"),
        ({"inputs": {"age": 1, "city": "rome"}}, r"inputs\['age'\] must be a list"),
        ({"inputs": {"age": [1, "x"], "city": ["a", "b"]}}, "'age': its values do not make"),
        ({"instances": [], "signature_name": "classify"}, "signature_name 'classify'"),
        ({"examples": [{"b64": "AAAA"}]}, "takes no serialized examples"),
        ({"instances": [{"b64": "AAAA"}]}, r"takes no serialized examples \('instances'\)"),
    ],
)
def test_bad_requests_get_400_naming_the_field(client, body, match):
    status, answer = client.predict(body)
    assert status == 400, answer
    assert set(answer) == {"error"}
    assert re.search(match, answer["error"]), answer


def test_unknown_model_version_and_path_get_404(server, client):
    status, body = client.call("POST", "/v1/models/other:predict", {"instances": []})
    assert status == 404 and "model 'other' not found" in body["error"]
    status, body = client.predict({"instances": []}, version=1)
    assert status == 404 and "version 1" in body["error"]
    status, body = client.call("GET", "/v2/elsewhere")
    assert status == 404 and "error" in body


def test_body_over_the_limit_is_refused(server):
    from colonnade.serving.app import MAX_BODY_BYTES

    # By Content-Length, before the body is read: none is sent.
    conn = socket.create_connection(("127.0.0.1", server["port"]), timeout=10)
    conn.sendall(
        (
            f"POST /v1/models/{NAME}:predict HTTP/1.1\r\nHost: x\r\n"
            f"Content-Type: application/json\r\nContent-Length: {MAX_BODY_BYTES + 1}\r\n\r\n"
        ).encode()
    )
    answer = conn.makefile("rb").read().decode()  # the server closes after refusing
    conn.close()
    assert answer.startswith("HTTP/1.1 413") and "byte limit" in answer
    # Chunked, with no Content-Length: the read stops past the limit.
    client = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=30)
    chunk = b" " * (1 << 20)
    chunks = (chunk for _ in range(MAX_BODY_BYTES // len(chunk) + 2))
    try:
        client.request("POST", f"/v1/models/{NAME}:predict", body=chunks, encode_chunked=True)
        response = client.getresponse()
        status, body = response.status, json.loads(response.read())
    except (BrokenPipeError, ConnectionResetError):
        pytest.skip("the server closed the connection before the client read the answer")
    finally:
        client.close()
    assert status == 413 and "byte limit" in body["error"]


def test_a_new_version_is_swapped_in_without_dropping_requests(server):
    store = server["store"]
    old = store.serving().version
    swaps = []
    store.on_swap = lambda: swaps.append(store.serving().version)
    # A broken version is logged and skipped; the old one keeps serving.
    broken = server["base"] / str(old + 1)
    broken.mkdir()
    (broken / "model.json").write_text("{}")
    time.sleep(0.3)
    assert store.serving().version == old
    # A good, newer version: copied under a temporary name, then renamed into place.
    staging = server["root"] / "staging"
    new_path = train_export(server["root"] / "model2", staging, steps_seed=1)
    errors, answered, done = [], [], threading.Event()

    def hammer():
        client = Client(server["port"])
        while not done.is_set():
            status, body = client.predict({"instances": [{"age": 50.0, "city": "oslo"}]})
            if status != 200:
                errors.append(body)
            answered.append(status)
        client.conn.close()

    thread = threading.Thread(target=hammer)
    thread.start()
    try:
        shutil.move(new_path, server["base"] / str(old + 2))
        client = Client(server["port"])
        deadline = time.monotonic() + 20
        while True:
            status, body = client.call("GET", f"/v1/models/{NAME}")
            versions = {s["version"]: s["state"] for s in body["model_version_status"]}
            if versions.get(str(old + 2)) == "AVAILABLE":
                break
            assert time.monotonic() < deadline, body
            time.sleep(0.05)
        assert versions[str(old)] == "END" and versions[str(old + 1)] == "END"
        failed = next(s for s in body["model_version_status"] if s["version"] == str(old + 1))
        assert failed["status"]["error_code"] != "OK"
        time.sleep(0.1)
    finally:
        done.set()
        thread.join(30)
    assert not errors and len(answered) > 0
    assert swaps == [old + 2]
    status, _ = client.predict({"instances": [{"age": 1.0, "city": "rome"}]}, version=old + 2)
    assert status == 200
    status, _ = client.predict({"instances": [{"age": 1.0, "city": "rome"}]}, version=old)
    assert status == 404
    client.conn.close()


def test_cli_without_the_extra_says_how_to_install(tmp_path):
    script = (
        "import sys\n"
        "sys.modules['starlette'] = None\n"
        "from colonnade.cli import main\n"
        "sys.exit(main(['serve', sys.argv[1]]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "colonnade serve needs starlette, uvicorn, httptools and orjson: "
        'pip install "colonnade[serve]"'
    ]


def test_cli_refuses_a_directory_with_no_export(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "colonnade", "serve", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "holds no model.json" in out.stderr


def test_import_colonnade_does_not_import_the_server_stack():
    script = "import sys, colonnade\nprint('starlette' in sys.modules, 'uvicorn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False"]


def test_batcher_merges_concurrent_requests_and_isolates_a_bad_one(server, monkeypatch):
    import asyncio

    import pyarrow as pa

    from colonnade.serving import workers as app

    model = server["store"].serving()
    tables = [pa.table({"age": [a], "city": [["rome"]]}) for a in (20.0, 50.0, -1.0, 70.0)]
    alone = [app.predict_arrays(model, t) for t in tables]
    calls = []
    predict_arrays = app.predict_arrays

    def refusing_negative_ages(model, table):
        calls.append(table.num_rows)
        if min(table["age"].to_pylist()) < 0:
            raise app.BadRequest("negative age")
        return predict_arrays(model, table)

    async def together(tables):
        batcher = app.Batcher()
        jobs = [batcher.predict(model, t) for t in tables]
        return await asyncio.gather(*jobs, return_exceptions=True)

    merged = asyncio.run(together([tables[i] for i in (0, 1, 3)]))
    for got, want in zip(merged, [alone[i] for i in (0, 1, 3)]):
        np.testing.assert_allclose(got["logistic"], want["logistic"], rtol=1e-6)
    monkeypatch.setattr(app, "predict_arrays", refusing_negative_ages)
    results = asyncio.run(together(tables))
    assert calls == [4, 1, 1, 1, 1]  # one merged call, then each alone
    assert isinstance(results[2], app.BadRequest)
    for i in (0, 1, 3):
        np.testing.assert_allclose(results[i]["logistic"], alone[i]["logistic"], rtol=1e-6)


def test_refreeze_heap_moves_live_objects_out_of_the_collectors_view():
    import gc

    from colonnade.serving.app import refreeze_heap

    try:
        refreeze_heap()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_row_answers_written_without_objects_read_back_as_objects():
    from colonnade.serving.answers import answer

    arrays = {
        "logits": np.array([[1.5], [np.nan]], np.float32),
        "probabilities": np.array([[0.25, 0.75], [0.5, 0.5]], np.float32),
        "class_ids": np.array([[1], [0]]),
        "classes": np.array([["b"], ["a"]], dtype=object),
    }
    rows = json.loads(answer(arrays, rows=True))["predictions"]
    assert rows == [
        {"logits": [1.5], "probabilities": [0.25, 0.75], "class_ids": [1], "classes": ["b"]},
        {"logits": [None], "probabilities": [0.5, 0.5], "class_ids": [0], "classes": ["a"]},
    ]
    # Strings holding the row separators: written as objects, the same answer.
    tricky = {"classes": np.array([["x],[y"], ["z"]], dtype=object), "k": np.array(["p,q", "r"])}
    tricky["k"] = tricky["k"].astype(object)
    assert json.loads(answer(tricky, rows=True))["predictions"] == [
        {"classes": ["x],[y"], "k": "p,q"},
        {"classes": ["z"], "k": "r"},
    ]
    columns = json.loads(answer(arrays, rows=False))["outputs"]
    assert columns["probabilities"] == [[0.25, 0.75], [0.5, 0.5]] and columns["classes"] == [
        ["b"],
        ["a"],
    ]
    # Outputs alike in every row are written once and repeated: the same answer.
    alike = {
        "all_classes": np.array([["a", "b"]] * 3, dtype=object),
        "all_class_ids": np.array([[0, 1]] * 3),
        "x": np.array([1.5, 2.5, 1.5], np.float32),
        "sep": np.array([["p],[q"]] * 3, dtype=object),
    }
    assert json.loads(answer(alike, rows=True))["predictions"] == [
        {"all_classes": ["a", "b"], "all_class_ids": [0, 1], "x": x, "sep": ["p],[q"]}
        for x in (1.5, 2.5, 1.5)
    ]
    assert json.loads(answer({"x": np.zeros((0, 1))}, rows=True)) == {"predictions": []}
    assert json.loads(answer({k: v[:0] for k, v in arrays.items()}, rows=True)) == {
        "predictions": []
    }


@pytest.fixture(scope="module")
def examples_server(tmp_path_factory):
    """A server of an export made with a parsing serving input receiver."""
    root = tmp_path_factory.mktemp("serve_examples")
    base = root / "exports"
    first = train_export(root / "model", base, parsing=True)
    yield from serve(root, base, first)


def test_examples_b64_answer_as_predict_examples(examples_server, tmp_path):
    import base64

    rows = frame(6, seed=3).drop(columns="y")
    path = str(tmp_path / "rows.tfrecord")
    cn.io.write_tfrecord(rows, path)
    serialized = list(cn.io.tf_record_iterator(path))
    client = Client(examples_server["port"])
    try:
        examples = [{"b64": base64.b64encode(s).decode()} for s in serialized]
        status, body = client.predict({"examples": examples})
        assert status == 200, body
        predictor = cn.load(examples_server["first"])
        expected = predictor.predict_examples(serialized)
        pd.testing.assert_frame_equal(expected, predictor.predict(rows))
        predictions = body["predictions"]
        assert len(predictions) == 6
        np.testing.assert_allclose(
            [p["logistic"][0] for p in predictions], expected["logistic"], rtol=1e-6
        )
        assert [p["class_ids"] for p in predictions] == [[c] for c in expected["class_ids"]]
        # rows still work on the same export, and bad examples get 400 naming them
        status, body = client.predict({"instances": rows.to_dict("records")})
        assert status == 200 and len(body["predictions"]) == 6
        for bad, match in [
            ({"examples": [{"b64": "@@not base64"}]}, r"examples\[0\]\.b64 is not valid"),
            ({"examples": ["x"]}, r"examples\[0\] must be"),
            ({"examples": {"b64": "AA=="}}, "'examples' must be a list"),
            ({"examples": [{"b64": "AAAA"}]}, "cannot be parsed"),
        ]:
            status, answer = client.predict(bad)
            assert status == 400, answer
            assert re.search(match, answer["error"]), answer
    finally:
        client.conn.close()


def test_post_to_metadata_gets_405_and_get_to_predict_gets_405(client):
    status, body = client.call("POST", f"/v1/models/{NAME}/metadata", {"instances": []})
    assert status == 405 and ":predict" in body["error"]
    status, body = client.call("GET", f"/v1/models/{NAME}:predict")
    assert status == 405 and "takes POST" in body["error"]


# --------------------------------------------------------------------------- workers


def _descendants(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return []
    return children + [d for c in children for d in _descendants(c)]


def _answering_process(server_pid, port, client_port):
    """The process of the server that holds the accepted end of the client connection
    from ``client_port`` (``/proc``: socket inodes of each process, ``/proc/net/tcp``)."""
    owners = {}
    for pid in [server_pid, *_descendants(server_pid)]:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                owners[link[8:-1]] = pid
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            ports = [int(address.split(":")[1], 16) for address in fields[1:3]]
            if ports == [port, client_port]:
                return owners.get(fields[9])
    return None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="finds workers through /proc")
def test_workers_each_serve_and_each_swap_in_a_new_version(tmp_path):
    base = tmp_path / "exports"
    train_export(tmp_path / "model", base)
    port = _free_port()
    command = [sys.executable, "-m", "colonnade", "serve", str(base), "--port", str(port)]
    command += ["--model-name", NAME, "--workers", "2", "--poll-interval", "0.1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Trained before connecting: an idle keep-alive connection is closed after 5 s.
    row = {"instances": [{"age": 50.0, "city": "oslo"}]}
    staging = train_export(tmp_path / "model2", tmp_path / "staging", steps_seed=1)
    expected = cn.load(staging).predict(pd.DataFrame(row["instances"]))
    clients = {}  # worker pid -> a keep-alive connection it answers
    try:
        deadline = time.monotonic() + 120
        while len(clients) < 2:
            assert server.poll() is None, server.stderr.read().decode()
            assert time.monotonic() < deadline, f"connections reached only {list(clients)}"
            client = Client(port)
            try:
                status, body = client.call("GET", f"/v1/models/{NAME}")
            except OSError:
                client.conn.close()
                time.sleep(0.2)
                continue
            assert status == 200, body
            pid = _answering_process(server.pid, port, client.conn.sock.getsockname()[1])
            assert pid is not None and pid != server.pid
            if pid in clients:
                client.conn.close()
            else:
                clients[pid] = client
            for pid, kept in list(clients.items()):  # keep them alive; drop any closed
                try:
                    kept.call("GET", f"/v1/models/{NAME}")
                except OSError:
                    kept.conn.close()
                    del clients[pid]
        first = int(body["model_version_status"][0]["version"])
        shutil.move(staging, base / str(first + 1))
        for pid, client in clients.items():  # each worker polls and swaps on its own
            while True:
                status, body = client.predict(row)  # requests never fail meanwhile
                assert status == 200, (pid, body)
                status, body = client.call("GET", f"/v1/models/{NAME}")
                versions = {s["version"]: s["state"] for s in body["model_version_status"]}
                if versions.get(str(first + 1)) == "AVAILABLE":
                    break
                assert time.monotonic() < deadline + 60, (pid, body)
                time.sleep(0.05)
            assert versions[str(first)] == "END"
            status, body = client.predict(row, version=first + 1)
            assert status == 200, body
            got = body["predictions"][0]["logistic"][0]
            np.testing.assert_allclose(got, expected["logistic"][0], rtol=1e-6)
            status, body = client.predict(row)
            assert body["predictions"][0]["logistic"][0] == got
    finally:
        for client in clients.values():
            client.conn.close()
        server.terminate()
        server.wait(30)
    assert not [pid for pid in clients if os.path.exists(f"/proc/{pid}")]  # workers ended


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--workers", "0", "--workers: expected a whole number >= 1, got '0'"),
        ("--workers", "two", "--workers: expected a whole number >= 1, got 'two'"),
        ("--poll-interval", "0", "--poll-interval: expected a number of seconds > 0, got '0'"),
    ],
)
def test_cli_refuses_bad_workers_and_poll_interval(tmp_path, flag, value, message):
    out = subprocess.run(
        [sys.executable, "-m", "colonnade", "serve", str(tmp_path), flag, value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and message in out.stderr


def test_serve_refuses_zero_workers(tmp_path):
    from colonnade.serving import serve

    with pytest.raises(ValueError, match="workers must be a whole number >= 1, got 0"):
        serve(str(tmp_path), workers=0)


# --------------------------------------------------------------------------- tiny batches

VOCAB = ["paris", "rome", "oslo", "é", ""]


@pytest.fixture(scope="module")
def value_columns(tmp_path_factory):
    """Every column kind :class:`ValueIds` takes (and wrappers over them), plus one
    whose out-of-range values are an error, and one crossed column it leaves alone."""
    path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    path.write_text("\n".join(["rome", "lima", "oslo"]) + "\n")
    hashed = fc.categorical_column_with_hash_bucket("s", 7)
    vocab_oov = fc.categorical_column_with_vocabulary_list("s", VOCAB, num_oov_buckets=3)
    return [
        hashed,
        vocab_oov,
        fc.categorical_column_with_vocabulary_list("t", VOCAB),  # misses: -1, kept
        fc.categorical_column_with_vocabulary_list("t", VOCAB, default_value=0),
        fc.categorical_column_with_vocabulary_file("s", str(path), num_oov_buckets=2),
        fc.categorical_column_with_identity("i", 10, default_value=0),
        fc.categorical_column_with_identity("j", 10),  # out of range: an error
        fc.categorical_column_with_hash_bucket("i", 5, dtype="int64"),
        fc.categorical_column_with_vocabulary_list("i", [1, 5, 7], num_oov_buckets=1),
        fc.indicator_column(vocab_oov),
        fc.embedding_column(hashed, 3),
        fc.crossed_column(["s", "t"], 11),
    ]


@pytest.fixture(scope="module")
def shared_memo():
    """One memo across examples, so later ones read what earlier ones put there; small,
    so it also starts afresh now and then."""
    from colonnade.feature_columns.transform_cache import ValueIds

    return ValueIds(max_values=20)


def _strings():
    return st.one_of(st.sampled_from(VOCAB + ["lima", "x"]), st.text(max_size=4))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_tiny_batch_value_ids_equal_the_usual_transforms(value_columns, shared_memo, data):
    from colonnade.feature_columns.transform_cache import TINY_ROWS, TransformCache

    n = data.draw(st.integers(1, TINY_ROWS))
    value = st.one_of(_strings(), st.none()) if data.draw(st.booleans()) else _strings()
    strings = st.lists(value, min_size=n, max_size=n)
    features = {
        "s": data.draw(strings),
        "t": data.draw(st.lists(_strings(), min_size=n, max_size=n)),
        "i": data.draw(st.lists(st.integers(-3, 12), min_size=n, max_size=n)),
        "j": data.draw(st.lists(st.integers(0, 10), min_size=n, max_size=n)),
    }
    for column in value_columns:
        try:
            usual = TransformCache(features).compute([column])[0]
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e), match=re.escape(str(e))):
                TransformCache(features).compute([column], value_ids=shared_memo)
            continue
        fast = TransformCache(features).compute([column], value_ids=shared_memo)[0]
        if isinstance(usual, np.ndarray):
            np.testing.assert_array_equal(fast, usual)
        else:
            assert fast.to_lists() == usual.to_lists(), column
            assert fast.num_buckets == usual.num_buckets
            assert fast.ids.dtype == usual.ids.dtype == np.int64


def test_value_ids_skip_lists_long_strings_and_keep_their_bound():
    from colonnade.feature_columns.transform_cache import TransformCache, ValueIds

    column = fc.categorical_column_with_hash_bucket("s", 1000)
    memo = ValueIds(max_values=3, max_chars=5)
    for value in ["a", "b", "c", "d", "e"]:
        TransformCache({"s": [value]}).compute([column], value_ids=memo)
    ((_, known),) = memo._memos.values()
    assert 1 <= len(known) <= 3
    # lists and long strings take the usual path: same ids, nothing remembered
    for features in ({"s": [["a", "b"]]}, {"s": ["x" * 6]}):
        usual = TransformCache(features).compute([column])[0].to_lists()
        assert TransformCache(features).compute([column], value_ids=memo)[0].to_lists() == usual
    assert all(len(v) <= 5 for _, k in memo._memos.values() for v in k)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.fixed_dictionaries(
            {
                "age": st.floats(0, 100, allow_nan=False),
                "city": st.one_of(st.sampled_from(["paris", "rome", "oslo"]), st.text(max_size=3)),
            }
        ),
        min_size=1,
        max_size=10,
    )
)
def test_tiny_requests_over_http_answer_as_load_predicts(server, rows):
    client = Client(server["port"])
    try:
        status, body = client.predict({"instances": rows})
    finally:
        client.conn.close()
    assert status == 200, body
    expected = expected_frame(server, rows)  # Predictor.predict: the usual transforms
    got = [p["logistic"][0] for p in body["predictions"]]
    np.testing.assert_allclose(got, expected["logistic"], rtol=1e-6)
    assert [p["class_ids"][0] for p in body["predictions"]] == list(expected["class_ids"])


def test_the_workers_socket_gives_connections_tcp_nodelay():
    from colonnade.serving import listening_socket

    with listening_socket("127.0.0.1", 0) as sock:
        sock.listen()
        client = socket.create_connection(sock.getsockname()[:2])
        accepted, _ = sock.accept()
        with client, accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    with taken, pytest.raises(OSError):
        listening_socket("127.0.0.1", taken.getsockname()[1])


def test_a_unicode_digit_version_directory_is_not_a_version(tmp_path):
    """Issue 29: a directory named "²" ("²".isdigit() is true) beside the exports stopped
    the server from starting and hot-swapping; versions are ASCII digits of an int64."""
    base = tmp_path / "exports"
    real = train_export(tmp_path / "model", base)
    for name in ("²", "٣", "9" * 20):
        shutil.copytree(real, base / name)
    store = ModelStore(str(base), poll_interval=0.1)
    assert store.serving().path == real
    assert resolve_export_dir(str(base)) == real
    assert cn.load(str(base)).predict(frame(3)).shape[0] == 3


def test_a_version_of_five_thousand_digits_is_not_found(client):
    status, body = client.predict({"instances": [{"age": 30.0, "city": "rome"}]}, "9" * 5000)
    assert status == 404 and "is not loaded" in body["error"]
