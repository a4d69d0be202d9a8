"""Shared by the porting tests and the fixture scripts: loading a ported program from
its folder, trimming a TF model_dir to what a port reads, and serving a port's export
as ``colonnade serve`` does."""

import contextlib
import http.client
import importlib.util
import json
import os
import shutil
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_port(name):
    """``tests/porting/<name>/port.py`` as a module named ``<name>_port`` (the programs'
    files share the name ``port.py``), importable by that name once loaded (so that
    ``--model-fn NAME=<name>_port:model_fn`` finds it)."""
    module_name = name + "_port"
    if module_name in sys.modules:
        return sys.modules[module_name]
    path = os.path.join(HERE, name, "port.py")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[module_name] = module
    return module


SERVED_NAME = "port"


@contextlib.contextmanager
def serving(export_base, model_fns=None):
    """``colonnade serve EXPORT_BASE --model-name port [--model-fn NAME=module:fn ...]``
    in this process: the CLI's model store and app (``model_fns`` are ``--model-fn``
    import strings, imported as the CLI imports them) on a uvicorn server in a thread,
    on a free local port. Yields ``predict(body) -> (status, answer)``, a TF Serving
    ``POST /v1/models/port:predict``."""
    import uvicorn

    from colonnade.serving import ModelStore, create_app
    from colonnade.serving.model_fns import import_model_fns
    from colonnade.serving.protocol import uvicorn_options

    store = ModelStore(str(export_base), model_fns=import_model_fns(model_fns))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(store, SERVED_NAME), **uvicorn_options()))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    connection = http.client.HTTPConnection("127.0.0.1", sock.getsockname()[1], timeout=30)

    def predict(body):
        connection.request("POST", f"/v1/models/{SERVED_NAME}:predict", json.dumps(body))
        response = connection.getresponse()
        return response.status, json.loads(response.read())

    try:
        yield predict
    finally:
        connection.close()
        server.should_exit = True
        thread.join(10)
        sock.close()


def prune_model_dir(model_dir, step):
    """Keeps the checkpoint of ``step`` and a state file naming it: graphs, events,
    exports and older checkpoints would make a fixture ten times larger."""
    keep = {"checkpoint"} | {f"model.ckpt-{step}.{s}" for s in ("index", "data-00000-of-00001")}
    for name in os.listdir(model_dir):
        if name not in keep:
            path = os.path.join(model_dir, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    with open(os.path.join(model_dir, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "model.ckpt-{step}"\n')
        f.write(f'all_model_checkpoint_paths: "model.ckpt-{step}"\n')
