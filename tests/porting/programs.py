"""Shared by the porting tests and the fixture scripts: loading a ported program from
its folder, trimming a TF model_dir to what a port reads, and serving a port's export
as ``colonnade serve`` does."""

import contextlib
import importlib.util
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)


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


@contextlib.contextmanager
def serving(export_base, model_fns=None):
    """``colonnade serve EXPORT_BASE [--model-fn NAME=module:function ...]`` in this
    process: the CLI's model store and app on a local port (``tests/test_serve.py``'s
    server; ``model_fns`` are ``--model-fn`` import strings, imported as the CLI imports
    them). Yields ``predict(body) -> (status, answer)``, a TF Serving ``:predict``."""
    if TESTS not in sys.path:
        sys.path.append(TESTS)
    from test_serve import Client, serve

    from colonnade.serving.model_fns import import_model_fns

    functions = import_model_fns(model_fns)
    with contextlib.contextmanager(serve)(None, export_base, None, model_fns=functions) as server:
        client = Client(server["port"])
        try:
            yield client.predict
        finally:
            client.conn.close()


def copy_of_model_dir(fixture, tmp_path):
    """A scratch copy of ``fixture/model_dir`` (TF's), for a test to train on."""
    model_dir = os.path.join(tmp_path, "model_dir")
    shutil.copytree(os.path.join(fixture, "model_dir"), model_dir)
    return model_dir


def write_tf_results(fixture, **results):
    """``fixture/tf_results.json``: what TF's run gave, which the tests read."""
    with open(os.path.join(fixture, "tf_results.json"), "w") as f:
        json.dump(results, f, indent=1)


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
