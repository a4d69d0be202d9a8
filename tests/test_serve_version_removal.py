"""Issue 41 (WEAK, Server): a served version whose directory was deleted kept being
served. The poller now unloads it, as TF Serving does: the newest version left on disk
is served in its place, and with none left every request is a 404 saying so. Over real
HTTP, a uvicorn server in a thread (tests/test_serve.py's ``serve``)."""

import shutil
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_serve import NAME, Client, serve, train_export  # noqa: E402

ROW = {"instances": [{"age": 50.0, "city": "oslo"}]}


def _wait_for(client, predicate, what, seconds=20):
    deadline = time.monotonic() + seconds
    while True:
        status, body = client.call("GET", f"/v1/models/{NAME}")
        if predicate(status, body):
            return status, body
        assert time.monotonic() < deadline, f"{what}: {status} {body}"
        time.sleep(0.05)


def _states(body):
    return {s["version"]: s["state"] for s in body.get("model_version_status", [])}


@pytest.fixture()
def two_versions(tmp_path):
    base = tmp_path / "exports"
    first = train_export(tmp_path / "m1", base)
    staging = tmp_path / "staging"
    second = train_export(tmp_path / "m2", staging, steps_seed=1)
    version = int(str(first).rstrip("/").rsplit("/", 1)[1]) + 1
    shutil.move(second, base / str(version))
    yield from serve(tmp_path, base, first)


def test_a_removed_version_is_unloaded_and_the_one_left_served(two_versions):
    server, store = two_versions, two_versions["store"]
    newest = store.serving().version
    older = int(str(server["first"]).rstrip("/").rsplit("/", 1)[1])
    assert newest == older + 1
    client = Client(server["port"])
    status, _ = client.predict(ROW, version=newest)
    assert status == 200
    shutil.rmtree(server["base"] / str(newest))
    _, body = _wait_for(
        client, lambda s, b: _states(b).get(str(older)) == "AVAILABLE", "the older version"
    )
    assert _states(body)[str(newest)] == "END"
    status, answer = client.predict(ROW, version=newest)
    assert status == 404 and f"version {newest} of model {NAME!r} is not loaded" in answer["error"]
    status, answer = client.predict(ROW)
    assert status == 200 and len(answer["predictions"]) == 1
    assert store.serving().version == older

    shutil.rmtree(server["base"] / str(older))
    _, body = _wait_for(client, lambda s, b: set(_states(b).values()) == {"END"}, "no version left")
    assert _states(body) == {str(newest): "END", str(older): "END"}
    status, answer = client.predict(ROW)
    assert status == 404, answer
    assert "no version of the model" in answer["error"] and "was removed" in answer["error"]
    status, answer = client.call("GET", f"/v1/models/{NAME}/metadata")
    assert status == 404 and "no version of the model" in answer["error"], answer

    # A version put back is loaded again.
    again = train_export(server["root"] / "m3", server["root"] / "staging3", steps_seed=2)
    shutil.move(again, server["base"] / str(newest + 1))
    _wait_for(client, lambda s, b: _states(b).get(str(newest + 1)) == "AVAILABLE", "put back")
    status, answer = client.predict(ROW)
    assert status == 200, answer
    client.conn.close()
