"""Shared by the porting tests and the fixture scripts: loading a ported program from
its folder, and trimming a TF model_dir to what a port reads."""

import importlib.util
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def load_port(name):
    """``tests/porting/<name>/port.py`` as a module named ``<name>_port`` (the programs'
    files share the name ``port.py``)."""
    path = os.path.join(HERE, name, "port.py")
    spec = importlib.util.spec_from_file_location(name + "_port", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
