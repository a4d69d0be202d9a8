"""TF 1's ``tf.app``/``tf.flags`` (absl's flags), ``ConfigProto``/``GPUOptions`` and
``tf.summary.image``: what a TF 1 program's ``main`` needs to run unchanged."""

import numpy as np
import pytest

import colonnade as cn
from colonnade.compat.v1 import flags

v1 = cn.compat.v1


def _values():
    values = flags.FlagValues()
    flags.DEFINE_string("data_dir", "/tmp/data", "input", flag_values=values)
    flags.DEFINE_integer("steps", 10, "steps", lower_bound=1, flag_values=values)
    flags.DEFINE_float("lr", 0.1, "rate", flag_values=values)
    flags.DEFINE_boolean("shuffle", False, "shuffle", flag_values=values)
    flags.DEFINE_list("units", "64,32", "layers", flag_values=values)
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "mode", flag_values=values)
    return values


def test_flags_parse_absl_spellings():
    values = _values()
    rest = values(
        [
            "prog",
            "--data_dir",
            "/d",
            "--steps=5",
            "--shuffle",
            "pos",
            "--lr=0.5",
            "--units=8,4",
            "--mode=eval",
            "--",
            "--steps=9",
        ]
    )
    assert rest == ["prog", "pos", "--steps=9"]
    assert (values.data_dir, values.steps, values.lr, values.shuffle) == ("/d", 5, 0.5, True)
    assert values.units == ["8", "4"] and values.mode == "eval"
    values(["prog", "--noshuffle"])
    assert values.shuffle is False


def test_flags_defaults_and_errors():
    values = _values()
    with pytest.raises(flags.UnparsedFlagAccessError, match="before flags were parsed"):
        _ = values.steps
    values(["prog"])
    assert values.steps == 10 and values.units == ["64", "32"]
    with pytest.raises(flags.UnrecognizedFlagError, match="nope"):
        values(["prog", "--nope=1"])
    with pytest.raises(flags.IllegalFlagValueError, match="lower bound"):
        values(["prog", "--steps=0"])
    with pytest.raises(flags.IllegalFlagValueError, match="one of"):
        values(["prog", "--mode=test"])
    with pytest.raises(flags.IllegalFlagValueError, match="needs a value"):
        values(["prog", "--steps"])
    with pytest.raises(flags.DuplicateFlagError):
        flags.DEFINE_string("steps", "", "", flag_values=values)


def test_app_run_parses_then_exits_with_main():
    seen = []
    values = flags.FLAGS
    if "app_test_flag" not in values:
        flags.DEFINE_integer("app_test_flag", 1, "for this test")
    with pytest.raises(SystemExit) as done:
        v1.app.run(
            lambda argv: seen.append((argv, values.app_test_flag)) or 3,
            argv=["prog", "--app_test_flag=7", "x"],
        )
    assert done.value.code == 3 and seen == [(["prog", "x"], 7)]
    assert v1.app.flags is v1.flags


def test_config_proto_is_a_message_with_defaults():
    config = v1.ConfigProto(allow_soft_placement=True, gpu_options=v1.GPUOptions(allow_growth=True))
    config.gpu_options.per_process_gpu_memory_fraction = 0.5
    assert config.log_device_placement is False and config.device_count == {}
    assert (
        config.gpu_options.allow_growth
        and config.gpu_options.per_process_gpu_memory_fraction == 0.5
    )
    with pytest.raises(ValueError, match='has no "allow_soft" field'):
        v1.ConfigProto(allow_soft=True)
    with pytest.warns(UserWarning, match="session_config"):
        run_config = cn.estimators.RunConfig(session_config=config)
    assert run_config.session_config is config


def test_image_summary_encodes_as_tf_per_image():
    from colonnade.core.model_calls import recording
    from colonnade.core.summaries import image_uint8

    images = np.array(
        [
            [[[0.0], [0.5], [1.0], [0.3]]],
            [[[-1.0], [0.0], [0.5], [0.25]]],
            [[[0.0], [0.0], [0.0], [0.0]]],
        ],
        np.float32,
    )
    # TF 2.15's tf.compat.v1.summary.image of these three images, decoded from its PNGs:
    assert image_uint8(images).reshape(3, -1).tolist() == [
        [0, 127, 255, 76],
        [1, 128, 191, 159],
        [0, 0, 0, 0],
    ]
    with recording() as call:
        assert cn.summary.image("img", images, max_outputs=2)
        assert cn.summary.image("one", images, max_outputs=1)
    assert sorted(call.summaries) == ["img/image/0", "img/image/1", "one/image"]
    with pytest.raises(ValueError, match="batch, height, width"):
        cn.summary.image("bad", np.zeros((2, 3), np.float32))


def test_image_summaries_reach_tensorboard_as_images(tmp_path):
    from tensorboardX import SummaryWriter

    from colonnade.estimators.hooks.tensorboard import write_model_summaries

    images = np.linspace(0, 1, 2 * 3 * 4 * 3, dtype=np.float32).reshape(2, 3, 4, 3)
    with SummaryWriter(str(tmp_path)) as writer:
        write_model_summaries(writer, {"img/image/0": ("image", images[:1])}, step=5)
    events = list(tmp_path.glob("events.out.tfevents.*"))
    assert len(events) == 1 and b"img/image/0" in events[0].read_bytes()
    assert b"\x89PNG" in events[0].read_bytes()


def test_bad_inputs_are_named():
    import types

    import colonnade.compat.v1.app as app_module

    no_main = types.ModuleType("__main__")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(__import__("sys").modules, "__main__", no_main)
        with pytest.raises(ValueError, match="app.run needs main"):
            app_module.run(argv=["prog"])
    with pytest.raises(ValueError, match="max_outputs must be >= 1"):
        cn.summary.image("img", np.zeros((1, 2, 2, 1), np.float32), max_outputs=0)
    with pytest.raises(ValueError, match="1\\|3\\|4"):
        cn.summary.image("img", np.zeros((1, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="has no images"):
        cn.summary.image("img")
