"""Checkpoints: format, atomic writes, verified partial reads, object graph, manager."""

import hashlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import checkpoint as ckpt_mod
from colonnade.core import checkpoint_format as fmt
from colonnade.core import checkpoint_manager, checkpoint_writer
from colonnade.core import optimizers as opt_mod

T = cn.train
Variable = cn.core.Variable

needs_gpu = pytest.mark.skipif(
    not cn.core.cupy_available(), reason="cupy with a CUDA GPU is not available on this machine"
)


# --------------------------------------------------------------------------- test objects


class Dense:
    """A layer exposing its variables through the checkpoint_children protocol."""

    def __init__(self, n_in, n_out, seed=0):
        rng = np.random.default_rng(seed)
        self.kernel = Variable(rng.normal(size=(n_in, n_out)).astype(np.float32), name="kernel")
        self.bias = Variable(np.zeros(n_out, np.float32), name="bias")

    def checkpoint_children(self):
        return {"kernel": self.kernel, "bias": self.bias}


class ToyAdagrad:
    """A minimal optimizer implementing the checkpoint protocol (slot "acc", iterations)."""

    def __init__(self, lr=0.5):
        self.lr = lr
        self._slots = {}  # id(var) -> (var, {"acc": Variable})
        self.iterations = Variable(np.int64(0), trainable=False)

    def slot_items(self):
        for var, slots in self._slots.values():
            for name, slot in slots.items():
                yield var, name, slot

    def non_slot_variables(self):
        return {"iterations": self.iterations}

    def create_slots(self, var_list):
        for var in var_list:
            if id(var) not in self._slots:
                acc = Variable(np.full(var.shape, 0.1, var.dtype), trainable=False)
                self._slots[id(var)] = (var, {"acc": acc})

    def apply(self, grads_and_vars):
        self.create_slots([v for _, v in grads_and_vars])
        for g, v in grads_and_vars:
            acc = self._slots[id(v)][1]["acc"]
            acc.assign(acc.value + g * g)
            v.assign(v.value - self.lr * g / np.sqrt(acc.value))
        self.iterations.assign_add(1)


class Counter:
    """An object saved through state_dict / load_state_dict."""

    def __init__(self):
        self.count, self.rate, self.done, self.label = 0, 0.0, False, ""
        self.history = np.zeros(3, np.int64)

    def state_dict(self):
        return {
            "count": self.count,
            "rate": self.rate,
            "done": self.done,
            "label": self.label,
            "history": self.history,
        }

    def load_state_dict(self, d):
        self.count, self.rate, self.done = d["count"], d["rate"], d["done"]
        self.label, self.history = d["label"], d["history"]


def _toy_step(layer, opt, x):
    grads = [(np.ones_like(layer.kernel.numpy()) * x, layer.kernel), (np.ones(2) * x, layer.bias)]
    opt.apply([(np.asarray(g, np.float32), v) for g, v in grads])


def _arrays_of(*variables):
    return [v.numpy().copy() for v in variables]


# --------------------------------------------------------------------------- format


def test_round_trip_keeps_dtypes_and_values_exactly(tmp_path):
    rng = np.random.default_rng(1)
    f32 = Variable(rng.normal(size=(3, 4)).astype(np.float32))
    f64 = Variable(rng.normal(size=(5,)))
    f64.assign(rng.normal(size=5))
    i64 = Variable(np.array([[1, -(2**40)], [3, 2**62]], np.int64))
    flag = Variable(np.array([True, False]))
    expected = _arrays_of(f32, f64, i64, flag)
    ckpt = T.Checkpoint(a=f32, b=f64, c={"i": i64, "flag": flag})
    path = ckpt.save(tmp_path / "ckpt")
    for v in (f32, f64, i64, flag):
        v.assign(np.zeros(v.shape))
    ckpt.restore(path).assert_consumed()
    for v, want in zip((f32, f64, i64, flag), expected):
        assert v.numpy().dtype == want.dtype
        np.testing.assert_array_equal(v.numpy(), want)
    assert str(f32.dtype) == "float32" and str(i64.dtype) == "int64"
    assert T.list_variables(tmp_path) == [
        ("a", [3, 4]),
        ("b", [5]),
        ("c/flag", [2]),
        ("c/i", [2, 2]),
        ("save_counter", []),
    ]
    np.testing.assert_array_equal(T.load_variable(path, "c/i"), expected[2])


def test_checkpoint_is_readable_with_json_and_numpy_alone(tmp_path):
    w = Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    path = T.Checkpoint(model={"w": w}).save(tmp_path / "ckpt")
    with open(os.path.join(path, "index.json")) as f:
        index = json.load(f)
    assert index["format_version"] == fmt.FORMAT_VERSION
    assert index["library_version"] == cn.__version__
    entry = index["arrays"]["model/w"]
    arr = np.load(os.path.join(path, entry["file"]), mmap_mode="r")
    assert arr.dtype == np.float32 and entry["dtype"] == "float32" and entry["shape"] == [2, 3]
    assert hashlib.sha256(np.asarray(arr).tobytes()).hexdigest() == entry["sha256"]
    np.testing.assert_array_equal(arr, w.numpy())
    with open(tmp_path / "checkpoint") as f:
        assert f.read().splitlines()[0] == 'model_checkpoint_path: "ckpt-1"'


def test_reader_api(tmp_path):
    path = fmt.write_checkpoint(
        tmp_path / "c", {"x/a": (np.ones((2, 3), np.float32), {}), "b": (np.int64(4), {})}
    )
    reader = T.load_checkpoint(path)
    assert reader.has_tensor("x/a") and not reader.has_tensor("x")
    assert reader.get_variable_to_shape_map() == {"x/a": [2, 3], "b": []}
    assert reader.get_variable_to_dtype_map() == {"x/a": np.float32, "b": np.int64}
    np.testing.assert_array_equal(reader.get_tensor("x/a"), np.ones((2, 3)))
    with pytest.raises(KeyError, match="'x/b' not found.*did you mean"):
        reader.get_tensor("x/b")


def test_write_never_replaces_an_existing_checkpoint_with_other_values(tmp_path):
    v = Variable([1.0, 2.0])
    ckpt = T.Checkpoint(v=v)
    ckpt.write(tmp_path / "c")
    assert ckpt.write(tmp_path / "c") == str(tmp_path / "c")  # same values: kept, no error
    v.assign([5.0, 6.0])
    with pytest.raises(FileExistsError, match=r"checkpoint .*/c already exists.*different"):
        ckpt.write(tmp_path / "c")
    np.testing.assert_array_equal(T.load_variable(tmp_path / "c", "v"), [1.0, 2.0])
    assert sorted(os.listdir(tmp_path)) == ["c"]


# --------------------------------------------------------------------------- integrity


def _damage_setup(tmp_path):
    a = Variable(np.arange(4, dtype=np.float32))
    b = Variable(np.arange(100, dtype=np.float64))
    path = T.Checkpoint(a=a, b=b).save(tmp_path / "ckpt")
    b_file = os.path.join(path, T.load_checkpoint(path).metadata("b")["file"])
    return a, b, path, b_file


def test_load_variable_reads_one_array_when_another_is_corrupted(tmp_path):
    a, b, path, b_file = _damage_setup(tmp_path)
    with open(b_file, "r+b") as f:  # flip one byte of b's data
        f.seek(-17, os.SEEK_END)
        byte = f.read(1)
        f.seek(-17, os.SEEK_END)
        f.write(bytes([byte[0] ^ 0xFF]))
    np.testing.assert_array_equal(T.load_variable(path, "a"), np.arange(4))
    with pytest.raises(T.CheckpointCorruptedError, match="checksum mismatch.*'b'.*" + b_file):
        T.load_variable(path, "b")
    a.assign(np.zeros(4))
    with pytest.raises(T.CheckpointCorruptedError, match="'b'"):
        T.Checkpoint(a=a, b=b).restore(path)
    np.testing.assert_array_equal(a.numpy(), np.zeros(4))  # a failed restore assigns nothing


def test_truncated_and_missing_files_are_named(tmp_path):
    _, _, path, b_file = _damage_setup(tmp_path)
    with open(b_file, "r+b") as f:
        f.truncate(os.path.getsize(b_file) - 80)
    with pytest.raises(T.CheckpointCorruptedError, match="'b' in file .*truncated"):
        T.load_variable(path, "b")
    os.remove(b_file)
    with pytest.raises(T.CheckpointCorruptedError, match="'b' in file .*missing"):
        T.load_variable(path, "b")
    assert isinstance(T.CheckpointCorruptedError("x"), ValueError)


def test_corrupted_index_is_reported(tmp_path):
    _, _, path, _ = _damage_setup(tmp_path)
    index = os.path.join(path, "index.json")
    with open(index, "r+b") as f:
        f.truncate(40)
    with pytest.raises(T.CheckpointCorruptedError, match="index.json.*truncated or corrupted"):
        T.list_variables(path)


def test_newer_format_version_is_refused(tmp_path):
    _, _, path, _ = _damage_setup(tmp_path)
    index_file = os.path.join(path, "index.json")
    with open(index_file) as f:
        index = json.load(f)
    index["format_version"], index["library_version"] = 99, "9.0.0"
    with open(index_file, "w") as f:
        json.dump(index, f)
    with pytest.raises(T.CheckpointVersionError, match=r"format version 99 .*9\.0\.0.* up to 1"):
        T.load_checkpoint(path)


def test_missing_checkpoint_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        T.load_checkpoint(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no checkpoint found"):
        T.Checkpoint(v=Variable([1.0])).restore(tmp_path)
    assert T.latest_checkpoint(tmp_path) is None


def test_shape_mismatch_names_the_path_and_both_shapes(tmp_path):
    path = T.Checkpoint(model={"w": Variable(np.ones((3, 2))), "b": Variable([1.0])}).save(
        tmp_path / "ckpt"
    )
    b = Variable([7.0])
    with pytest.raises(ValueError, match=r"'model/w'.*\(3, 2\).*\(4, 2\)"):
        T.Checkpoint(model={"w": Variable(np.zeros((4, 2))), "b": b}).restore(path)
    assert b.numpy().tolist() == [7.0]


def test_incompatible_dtype_is_refused(tmp_path):
    path = T.Checkpoint(v=Variable(np.array([1.5]))).save(tmp_path / "ckpt")
    with pytest.raises(ValueError, match="'v'.*float64.*int64"):
        T.Checkpoint(v=Variable(np.array([1], np.int64))).restore(path)


# --------------------------------------------------------------------------- atomic saves


def test_interrupted_save_keeps_previous_checkpoint_and_leaves_no_debris(tmp_path, monkeypatch):
    v, w = Variable([1.0]), Variable([2.0])
    ckpt = T.Checkpoint(v=v, w=w)
    first = ckpt.save(tmp_path / "ckpt")
    real_write, calls = checkpoint_writer._write_array, []

    def write_then_fail(path, arr):
        calls.append(path)
        if len(calls) == 2:
            raise OSError("disk full (simulated)")
        real_write(path, arr)

    monkeypatch.setattr(checkpoint_writer, "_write_array", write_then_fail)
    v.assign([10.0])
    with pytest.raises(OSError, match="simulated"):
        ckpt.save(tmp_path / "ckpt")
    assert len(calls) == 2
    assert T.latest_checkpoint(tmp_path) == first
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1"]
    assert int(ckpt.save_counter.numpy()) == 1
    monkeypatch.setattr(checkpoint_writer, "_write_array", real_write)
    second = ckpt.save(tmp_path / "ckpt")
    assert second.endswith("ckpt-2") and T.latest_checkpoint(tmp_path) == second
    assert T.load_variable(second, "v").tolist() == [10.0]


def test_save_killed_halfway_leaves_latest_and_later_saves_work(tmp_path):
    """A process killed mid-save (os._exit: no cleanup runs) leaves only ignorable debris."""
    script = textwrap.dedent(
        f"""
        import os, numpy as np, colonnade as cn
        from colonnade.core import checkpoint_writer as fmt
        vs = {{"v%d" % i: cn.core.Variable(np.full(3, float(i))) for i in range(4)}}
        manager = cn.train.CheckpointManager(cn.train.Checkpoint(**vs), {str(tmp_path)!r}, 3)
        manager.save()
        real, calls = fmt._write_array, []
        def dying(path, arr):
            calls.append(path)
            if len(calls) == 3:
                os._exit(3)
            real(path, arr)
        fmt._write_array = dying
        manager.save()
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr
    debris = [n for n in os.listdir(tmp_path) if ".tmp-" in n]
    assert len(debris) == 1 and debris[0].startswith("ckpt-2.tmp-")
    assert T.latest_checkpoint(tmp_path) == str(tmp_path / "ckpt-1")
    assert T.get_checkpoint_state(tmp_path).all_model_checkpoint_paths == [str(tmp_path / "ckpt-1")]

    (tmp_path / "checkpoint.tmp-dead").write_text("a state file write that was killed")
    vs = {f"v{i}": Variable(np.zeros(3)) for i in range(4)}
    ckpt = T.Checkpoint(**vs)
    manager = T.CheckpointManager(ckpt, tmp_path, max_to_keep=3)
    ckpt.restore(manager.latest_checkpoint).assert_consumed()
    assert vs["v2"].numpy().tolist() == [2.0, 2.0, 2.0]
    assert manager.save() == str(tmp_path / "ckpt-2")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1", "ckpt-2"]
    assert manager.checkpoints == [str(tmp_path / "ckpt-1"), str(tmp_path / "ckpt-2")]


# --------------------------------------------------------------------------- object graph


def test_keys_follow_attribute_paths_and_slots_follow_their_variables(tmp_path):
    class LinearModel:
        def __init__(self):
            self.age = Variable(np.ones((3, 1)), name="age_bucketized/weights")
            self.bias = Variable(np.zeros(1), name="bias_weights")

        def checkpoint_children(self):
            return {"age_bucketized/weights": self.age, "bias_weights": self.bias}

    class Model:  # a plain object: public attributes are walked, private ones are not
        def __init__(self):
            self.dense = Dense(2, 2)
            self.linear = LinearModel()
            self.layers = [Dense(2, 1, seed=3)]
            self._scratch = Variable([0.0])
            self.note = "not saved"

    model, opt = Model(), ToyAdagrad()
    opt.create_slots([model.dense.kernel])
    ckpt = T.Checkpoint(model=model, optimizer=opt, shared={"again": model.dense.kernel})
    path = ckpt.save(tmp_path / "ckpt")
    # breadth first: the kernel, reachable twice, is saved once under its shortest path
    assert [name for name, _ in T.list_variables(path)] == [
        "model/dense/bias",
        "model/layers/0/bias",
        "model/layers/0/kernel",
        "model/linear/age_bucketized/weights",
        "model/linear/bias_weights",
        "optimizer/iterations",
        "save_counter",
        "shared/again",
        "shared/again/.OPTIMIZER_SLOT/optimizer/acc",
    ]
    assert set(ckpt.named_variables(include_slots=True)) == {
        name for name, _ in T.list_variables(path) if name != "save_counter"
    }
    assert ckpt_mod.slot_key("shared/again", "optimizer", "acc").endswith("/optimizer/acc")


def test_restore_into_fresh_model_and_optimizer_continues_exactly(tmp_path):
    layer, opt = Dense(3, 2), ToyAdagrad()
    for x in (1.0, -2.0, 0.5):
        _toy_step(layer, opt, x)
    path = T.Checkpoint(model=layer, optimizer=opt).save(tmp_path / "ckpt")

    layer2, opt2 = Dense(3, 2, seed=9), ToyAdagrad()  # fresh: no slots yet
    T.Checkpoint(model=layer2, optimizer=opt2).restore(path).assert_consumed()
    assert int(opt2.iterations.numpy()) == 3
    for x in (0.3, -1.5):
        _toy_step(layer, opt, x)
        _toy_step(layer2, opt2, x)
    for a, b in zip(_arrays_of(layer.kernel, layer.bias), _arrays_of(layer2.kernel, layer2.bias)):
        np.testing.assert_array_equal(a, b)


def test_state_dict_objects_round_trip_python_types(tmp_path):
    c = Counter()
    c.count, c.rate, c.done, c.label, c.history = 7, 0.25, True, "épsilon", np.array([1, 2, 3])
    path = T.Checkpoint(counter=c).save(tmp_path / "ckpt")
    fresh = Counter()
    T.Checkpoint(counter=fresh).restore(path).assert_consumed()
    assert (fresh.count, fresh.rate, fresh.done, fresh.label) == (7, 0.25, True, "épsilon")
    assert type(fresh.count) is int and type(fresh.done) is bool and type(fresh.rate) is float
    np.testing.assert_array_equal(fresh.history, [1, 2, 3])


def test_status_assertions_have_tf_meanings(tmp_path, caplog):
    layer, opt = Dense(2, 2), ToyAdagrad()
    _toy_step(layer, opt, 1.0)
    full = T.Checkpoint(model=layer, optimizer=opt).save(tmp_path / "full")

    # only the model: values left over (the optimizer's), every object matched
    status = T.Checkpoint(model=Dense(2, 2)).restore(full)
    status.assert_existing_objects_matched().assert_nontrivial_match()
    with pytest.raises(AssertionError, match="unused values.*optimizer/iterations"):
        status.assert_consumed()
    assert "optimizer/iterations" in status.unused_keys
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        del status
        assert "left 3 saved values unused" in caplog.text
        caplog.clear()
        status = T.Checkpoint(model=Dense(2, 2)).restore(full).expect_partial()
        del status
        assert "unused" not in caplog.text

    # an object the checkpoint lacks
    only_model = T.Checkpoint(model=Dense(2, 2)).save(tmp_path / "model")
    extra = {"model": Dense(2, 2), "head": Variable([0.0])}
    status = T.Checkpoint(**extra).restore(only_model)
    with pytest.raises(AssertionError, match="objects not found.*'head'"):
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="'head'"):
        status.assert_consumed()

    # restore(None): nothing to restore, every assertion fails
    status = T.Checkpoint(v=Variable([1.0])).restore(None)
    with pytest.raises(AssertionError, match="save_path=None"):
        status.assert_consumed()
    assert status.expect_partial() is status


def test_checkpoint_arguments_are_validated():
    with pytest.raises(ValueError, match=r"Checkpoint\(x=...\).*got int"):  # TF's type
        T.Checkpoint(x=5)
    with pytest.raises(ValueError, match="'save' is reserved"):
        T.Checkpoint(save=Variable([1.0]))

    class Clash:
        def checkpoint_children(self):
            return {"w": Variable([1.0])}

    with pytest.raises(ValueError, match="'a/w'"):
        T.Checkpoint(a=Clash(), **{"a/w": Variable([2.0])}).write("/tmp/never-written")


def test_attributes_assigned_later_are_tracked(tmp_path):
    ckpt = T.Checkpoint()
    ckpt.step = Variable(np.int64(42), trainable=False)
    path = ckpt.save(tmp_path / "ckpt")
    assert T.load_variable(path, "step") == 42


# --------------------------------------------------------------------------- real optimizers


def _real_optimizers():
    return {
        "adam": lambda: opt_mod.AdamOptimizer(0.05),
        "ftrl": lambda: opt_mod.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
        "adagrad": lambda: opt_mod.AdagradOptimizer(0.1),
    }


class EmbeddingModel:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.table = Variable(rng.normal(size=(6, 3)).astype(np.float32), name="table")
        self.dense = Dense(3, 1, seed=seed)

    def loss(self, ids, y):
        hidden = cn.core.gather(self.table, ids)
        logits = cn.core.matmul(hidden, self.dense.kernel) + self.dense.bias
        return cn.core.sigmoid_cross_entropy(y, logits)

    def variables(self):
        return [self.table, self.dense.kernel, self.dense.bias]


@pytest.mark.parametrize("kind", ["adam", "ftrl", "adagrad"])
def test_real_optimizer_state_round_trips_exactly(tmp_path, kind):
    make = _real_optimizers()[kind]
    rng = np.random.default_rng(0)
    batches = [
        (rng.integers(0, 6, size=8), rng.integers(0, 2, size=(8, 1)).astype(np.float32))
        for _ in range(5)
    ]
    model, opt = EmbeddingModel(0), make()
    step = Variable(np.int64(0), trainable=False)
    for ids, y in batches[:3]:
        opt.minimize(
            lambda i=ids, y=y: model.loss(i, y), var_list=model.variables(), global_step=step
        )
    path = T.Checkpoint(model=model, optimizer=opt, step=step).save(tmp_path / "ckpt")

    model2, opt2, step2 = EmbeddingModel(1), make(), Variable(np.int64(0), trainable=False)
    T.Checkpoint(model=model2, optimizer=opt2, step=step2).restore(path).assert_consumed()
    assert int(step2.numpy()) == 3
    for ids, y in batches[3:]:
        opt.minimize(
            lambda i=ids, y=y: model.loss(i, y), var_list=model.variables(), global_step=step
        )
        opt2.minimize(
            lambda i=ids, y=y: model2.loss(i, y), var_list=model2.variables(), global_step=step2
        )
    for a, b in zip(model.variables(), model2.variables()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())

    def slots_by_position(m, o):
        position = {id(v): i for i, v in enumerate(m.variables())}
        return {(position[id(v)], name): s.numpy() for v, name, s in o.slot_items()}

    slots1, slots2 = slots_by_position(model, opt), slots_by_position(model2, opt2)
    assert slots1.keys() == slots2.keys() and len(slots1) >= 3
    for key, value in slots1.items():
        np.testing.assert_array_equal(value, slots2[key])
    assert sorted(opt.non_slot_variables()) == sorted(opt2.non_slot_variables())


# --------------------------------------------------------------------------- manager


def test_manager_keeps_max_to_keep_and_survives_restart(tmp_path):
    v = Variable([0.0])
    manager = T.CheckpointManager(T.Checkpoint(v=v), tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    for i in range(4):
        v.assign([float(i)])
        manager.save()
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-3", "ckpt-4"]
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("ckpt")) == names
    assert manager.latest_checkpoint == T.latest_checkpoint(tmp_path) == str(tmp_path / "ckpt-4")
    state = T.get_checkpoint_state(tmp_path)
    assert state.all_model_checkpoint_paths == manager.checkpoints
    assert len(state.all_model_checkpoint_timestamps) == 2

    restarted = T.CheckpointManager(T.Checkpoint(v=Variable([0.0])), tmp_path, max_to_keep=2)
    assert restarted.checkpoints == manager.checkpoints
    assert restarted.save(checkpoint_number=100).endswith("ckpt-100")
    assert [os.path.basename(p) for p in restarted.checkpoints] == ["ckpt-4", "ckpt-100"]
    assert not os.path.exists(tmp_path / "ckpt-3")
    assert int(restarted.checkpoint.save_counter.numpy()) == 1  # incremented anyway
    with pytest.raises(ValueError, match="max_to_keep"):
        T.CheckpointManager(T.Checkpoint(), tmp_path, max_to_keep=0)


def test_manager_numbers_from_save_counter_and_custom_name(tmp_path):
    ckpt = T.Checkpoint(v=Variable([0.0]))
    manager = T.CheckpointManager(ckpt, tmp_path, max_to_keep=None, checkpoint_name="model")
    paths = [manager.save() for _ in range(3)]
    assert [os.path.basename(p) for p in paths] == ["model-1", "model-2", "model-3"]
    assert manager.checkpoints == paths
    ckpt2 = T.Checkpoint(v=Variable([0.0]))
    ckpt2.restore(paths[-1])
    assert int(ckpt2.save_counter.numpy()) == 3


def test_keep_checkpoint_every_n_hours_preserves_old_ones(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(checkpoint_manager.time, "time", lambda: clock[0])
    manager = T.CheckpointManager(
        T.Checkpoint(v=Variable([0.0])), tmp_path, max_to_keep=1, keep_checkpoint_every_n_hours=1
    )
    for t in (4000.0, 4100.0, 4200.0):
        clock[0] = t
        manager.save()
    assert os.path.exists(tmp_path / "ckpt-1")  # preserved: an hour after the manager started
    assert not os.path.exists(tmp_path / "ckpt-2")  # deleted: within the hour of ckpt-1
    assert manager.checkpoints == [str(tmp_path / "ckpt-3")]
    assert T.get_checkpoint_state(tmp_path).last_preserved_timestamp == 4000.0


# --------------------------------------------------------------------------- state file


def test_state_file_round_trips_escaped_paths(tmp_path):
    odd = str(tmp_path / 'ck"pt é-1')
    other = "/elsewhere/ckpt-0"
    T.update_checkpoint_state(tmp_path, odd, [other], all_model_checkpoint_timestamps=[1.5, 2.5])
    text = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ck\\"pt \\303\\251-1"' in text  # TF's octal escapes
    state = T.get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == odd
    assert state.all_model_checkpoint_paths == [other, odd]
    assert state.all_model_checkpoint_timestamps == [1.5, 2.5]


def test_unparsable_state_file_is_an_error_not_a_fresh_start(tmp_path):
    (tmp_path / "checkpoint").write_text("model_checkpoint_path ckpt-1\n")
    with pytest.raises(T.CheckpointCorruptedError, match="cannot parse"):
        T.latest_checkpoint(tmp_path)


def test_latest_checkpoint_is_none_when_the_named_checkpoint_is_gone(tmp_path, caplog):
    T.update_checkpoint_state(tmp_path, str(tmp_path / "ckpt-9"))
    with caplog.at_level(logging.ERROR, logger="colonnade"):
        assert T.latest_checkpoint(tmp_path) is None
    assert "ckpt-9" in caplog.text


# --------------------------------------------------------------------------- iterator


def test_checkpoints_iterator_yields_each_new_checkpoint_once_then_times_out(tmp_path):
    manager = T.CheckpointManager(T.Checkpoint(v=Variable([0.0])), tmp_path, max_to_keep=None)
    manager.save()
    seen, start = [], time.monotonic()
    for path in T.checkpoints_iterator(tmp_path, timeout=0.2, poll_secs=0.01):
        seen.append(os.path.basename(path))
        if len(seen) < 3:
            manager.save()
    elapsed = time.monotonic() - start
    assert seen == ["ckpt-1", "ckpt-2", "ckpt-3"]
    assert 0.2 <= elapsed < 2.0


def test_checkpoints_iterator_sees_a_checkpoint_written_while_it_waits(tmp_path):
    manager = T.CheckpointManager(T.Checkpoint(v=Variable([0.0])), tmp_path, max_to_keep=None)
    timer = threading.Timer(0.05, manager.save)
    timer.start()
    try:
        seen = list(T.checkpoints_iterator(tmp_path, timeout=0.5, poll_secs=0.01))
    finally:
        timer.join()
    assert seen == [str(tmp_path / "ckpt-1")]


def test_checkpoints_iterator_timeout_fn_and_min_interval(tmp_path):
    calls = []

    def timeout_fn():
        calls.append(time.monotonic())
        return len(calls) == 3  # keep waiting twice, then stop

    assert list(T.checkpoints_iterator(tmp_path, timeout=0.02, timeout_fn=timeout_fn)) == []
    assert len(calls) == 3

    manager = T.CheckpointManager(T.Checkpoint(v=Variable([0.0])), tmp_path, max_to_keep=None)
    manager.save()
    stamps = []
    it = T.checkpoints_iterator(tmp_path, min_interval_secs=0.15, timeout=0.3, poll_secs=0.01)
    for _ in it:
        stamps.append(time.monotonic())
        if len(stamps) == 1:
            manager.save()
    assert len(stamps) == 2 and stamps[1] - stamps[0] >= 0.15


# --------------------------------------------------------------------------- GPU


@needs_gpu
def test_cupy_variables_are_saved_from_host_and_restored_onto_their_backend(tmp_path):
    import cupy

    cn.core.set_backend("cupy")
    try:
        gpu = Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        assert isinstance(gpu.value, cupy.ndarray)
        path = T.Checkpoint(w=gpu).save(tmp_path / "ckpt")
        gpu2 = Variable(np.zeros((2, 3), np.float32))
        T.Checkpoint(w=gpu2).restore(path).assert_consumed()
        assert isinstance(gpu2.value, cupy.ndarray)
        np.testing.assert_array_equal(gpu2.numpy(), gpu.numpy())
    finally:
        cn.core.set_backend("numpy")
    host = Variable(np.zeros((2, 3), np.float32))
    T.Checkpoint(w=host).restore(path).assert_consumed()
    assert isinstance(host.value, np.ndarray)
    np.testing.assert_array_equal(host.numpy(), np.arange(6).reshape(2, 3))
