"""Issue 41 (bug 4): a TF checkpoint taken over must hold each variable in a dtype the
model's variable may take (core/restore_checks.py), or the takeover is refused naming the
variable, the stored dtype and the expected one, and nothing is assigned.

The fixtures are TF's ``custom_adam`` model_dir (``golden/tf_takeover``) altered two ways:
``hidden/kernel`` relabelled float32 -> int32 with its bytes (and so its CRC32C) kept, as
the probe did (predictions were -398,408,096 instead of 0.418), and ``hidden/kernel`` a
string tensor written by TF's own ``SaveV2`` (``golden/make_tf_hostile.py``).
"""

import os
import shutil

import numpy as np
import pytest
from test_tf_takeover import GOLDEN, batches, build, fixture, head_rows, predict  # the twins

import colonnade as cn

HOSTILE = os.path.join(os.path.dirname(__file__), "golden", "tf_hostile")


def _relabelled(tmp_path):
    """custom_adam with hidden/kernel's float32 bytes labelled int32."""
    model_dir = tmp_path / "relabelled"
    shutil.copytree(os.path.join(GOLDEN, "custom_adam"), model_dir)
    prefix = str(model_dir / "model.ckpt-20")
    reader = cn.core.load_checkpoint(prefix)
    tensors = {n: reader.get_tensor(n) for n in reader.get_variable_to_shape_map()}
    tensors["hidden/kernel"] = tensors["hidden/kernel"].view(np.int32)
    for name in os.listdir(model_dir):
        if name.startswith("model.ckpt-20."):
            os.remove(model_dir / name)
    cn.core.tf_bundle_writer.write_tf_bundle(prefix, tensors)
    return model_dir


def test_the_untouched_fixture_predicts_as_tf(tmp_path):
    meta, want, est, _ = fixture("custom_adam", tmp_path)
    np.testing.assert_allclose(predict(est, meta["key"]), want["predictions"], rtol=1e-5)


@pytest.mark.parametrize("mode", ["predict", "train"])
def test_a_float_variable_relabelled_int32_is_refused_by_name(tmp_path, mode):
    est = build("custom_adam", _relabelled(tmp_path))
    match = (
        r"cannot restore TF checkpoint .*model.ckpt-20: 'hidden/kernel': the checkpoint has "
        r"dtype int32, the model has float32"
    )
    with pytest.raises(ValueError, match=match):
        if mode == "predict":
            predict(est, "y")
        else:
            est.train(batches(*head_rows()), steps=1)


def test_a_string_tensor_is_refused_by_name(tmp_path):
    model_dir = tmp_path / "string_kernel"
    shutil.copytree(os.path.join(HOSTILE, "string_kernel"), model_dir)
    est = build("custom_adam", model_dir)
    with pytest.raises(
        ValueError, match=r"'hidden/kernel': the checkpoint has dtype string, the model has float32"
    ):
        predict(est, "y")


def _hostile(name, tmp_path):
    model_dir = tmp_path / name
    shutil.copytree(os.path.join(HOSTILE, name), model_dir)
    return build("v1_linear_ftrl", model_dir)


def _one_step(est):
    est.train(batches(*head_rows()), steps=1, verbose=0)
    return {n: est.get_variable_value(n) for n in est.get_variable_names()}


def test_slot_partitions_that_tile_train_as_the_whole_slot(tmp_path):
    """TF 1.x's per-partition slots (``part_0``: rows 0-1, ``part_1``: row 2, written by
    TF's SaveV2) are joined into the slot they cut: one step after taking over gives
    what one step after the unpartitioned model_dir gives."""
    want = _one_step(fixture("v1_linear_ftrl", tmp_path)[2])
    got = _one_step(_hostile("split_slots", tmp_path))  # saved in colonnade's names
    weights = [n for n in want if n.startswith("linear/") and "part_" not in n]
    assert len(weights) == 3
    for name in weights + ["global_step"]:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    np.testing.assert_array_equal(
        got["training/Ftrl/linear/linear_model/x/weights/accumulator"],
        want["linear/linear_model/x/weights/part_0/Ftrl"],
    )


def test_slot_partitions_that_overlap_are_refused_by_name(tmp_path, caplog):
    """Rows 0-1 and row 0 again: 3 elements, as the shape holds, but row 2 is missing
    (it was filled with zeros). The checkpoint is damaged: training refuses to start
    over it, and the warning names the partitions."""
    est = _hostile("overlapping_slots", tmp_path)
    with caplog.at_level("WARNING", logger="colonnade"):
        with pytest.raises(ValueError, match=r"holds checkpoints but none is intact"):
            est.train(batches(*head_rows()), steps=1, verbose=0)
    assert (
        "the partitions ['linear/linear_model/x/weights/part_0/Ftrl', "
        "'linear/linear_model/x/weights/part_1/Ftrl'] do not tile shape (3, 1): two overlap"
    ) in caplog.text
