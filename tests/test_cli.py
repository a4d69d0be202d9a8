"""The job command line: ``colonnade train|evaluate|predict|export CONFIG.toml`` and the
config validation behind it (colonnade/cli/job.py, estimators/from_config.py)."""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade import cli
from colonnade.cli.job import ConfigError, load_config, parse_config
from colonnade.estimators import Estimator

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

DOCS = Path(__file__).resolve().parents[1] / "docs" / "config.md"


def make_data(folder: Path, seed=0):
    """Train/eval/predict files of an easy problem: y = "yes" iff x1 + x2 + [c == "a"] > 0.5."""
    rng = np.random.default_rng(seed)
    n = 650
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    c = rng.choice(["a", "b", "c"], n)
    y = np.where(x1 + x2 + (c == "a") > 0.5, "yes", "no")
    df = pd.DataFrame({"id": np.arange(n), "x1": x1, "x2": x2, "c": c, "y": y})
    df[:300].to_csv(folder / "train.csv", index=False)
    df[300:500].to_parquet(folder / "eval.parquet")
    df[500:].drop(columns="y").sample(frac=1.0, random_state=1).to_csv(
        folder / "new.csv", index=False
    )
    return df


WIDE_DEEP = """
[data]
train = "train.csv"
eval = "eval.parquet"
predict = "new.csv"
label = "y"
batch_size = 32
epochs = 6

[model]
type = "wide_deep_classifier"
model_dir = "run"
label_vocabulary = ["no", "yes"]
dnn_hidden_units = [8]
dnn_optimizer = "Adam"
dnn_learning_rate = 0.02
linear_learning_rate = 0.1
tf_random_seed = 7
log_step_count_steps = 0

[[model.linear_feature_columns]]
type = "categorical_column_with_vocabulary_list"
key = "c"
vocabulary_list = ["a", "b", "c"]

[[model.linear_feature_columns]]
type = "numeric_column"
key = "x1"

[[model.dnn_feature_columns]]
type = "numeric_column"
key = "x1"

[[model.dnn_feature_columns]]
type = "numeric_column"
key = "x2"

[predict]
output = "out/predictions.parquet"
keep_columns = ["id"]

[export]
export_dir = "exports"
"""

LINEAR = """
[data]
train = "train.csv"
label = "y"

[model]
type = "LinearClassifier"
model_dir = "run"
label_vocabulary = ["no", "yes"]

[[model.feature_columns]]
type = "numeric_column"
key = "x1"
"""


def write(folder: Path, text: str, name="job.toml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def run(capsys, *argv):
    """``colonnade ARGV`` in-process: (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


# ---------------------------------------------------------------- the four commands


def test_train_evaluate_predict_export(tmp_path, capsys):
    df = make_data(tmp_path)
    cfg = write(tmp_path, WIDE_DEEP)

    status, out, err = run(capsys, "train", cfg)
    assert status == 0, err
    summary = json.loads(out)
    assert summary["model_dir"] == str(tmp_path / "run")
    assert summary["global_step"] == 6 * 10  # 6 epochs of ceil(300 / 32) batches
    assert summary["eval"]["accuracy"] > 0.8
    assert summary["eval"]["auc"] > 0.85

    status, out, err = run(capsys, "evaluate", cfg)
    assert status == 0, err
    assert json.loads(out) == summary["eval"]

    status, out, err = run(capsys, "predict", cfg)
    assert status == 0, err
    output = tmp_path / "out" / "predictions.parquet"
    assert out.strip() == str(output)
    predicted = pd.read_parquet(output)
    rows = pd.read_csv(tmp_path / "new.csv")
    assert list(predicted.columns) == [
        "id",
        "logits",
        "logistic",
        "probabilities_0",
        "probabilities_1",
        "class_ids",
        "classes",
    ]
    assert predicted["id"].tolist() == rows["id"].tolist()  # the input's order, kept
    truth = df.set_index("id").loc[rows["id"], "y"].to_numpy()
    assert (predicted["classes"].to_numpy() == truth).mean() > 0.8

    status, out, err = run(capsys, "export", cfg)
    assert status == 0, err
    export_path = out.strip()
    assert Path(export_path).parent == tmp_path / "exports"
    loaded = cn.load(export_path).predict(rows)
    np.testing.assert_allclose(
        loaded["probabilities_1"].to_numpy(), predicted["probabilities_1"].to_numpy(), rtol=1e-6
    )
    assert loaded["classes"].tolist() == predicted["classes"].tolist()


def test_train_resumes_from_model_dir_and_logs_with_verbose(tmp_path, capsys):
    make_data(tmp_path)
    cfg = write(tmp_path, LINEAR)
    status, out, _ = run(capsys, "train", cfg)
    assert status == 0 and json.loads(out)["global_step"] == 10
    status, out, err = run(capsys, "-v", "train", cfg)
    assert status == 0 and json.loads(out)["global_step"] == 20
    assert "INFO colonnade: trained to step 20" in err
    status, out, err = run(capsys, "train", cfg, "--verbose")
    assert status == 0 and "INFO colonnade" in err


def test_regressor_predicts_csv_in_input_order(tmp_path, capsys):
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    pd.DataFrame({"x": x, "t": 3.0 * x + 1.0}).to_parquet(tmp_path / "train.parquet")
    pd.DataFrame({"x": x[:77]}).to_parquet(tmp_path / "new.parquet")
    cfg = write(
        tmp_path,
        """
        [data]
        train = "train.parquet"
        eval = "train.parquet"
        predict = "new.parquet"
        label = "t"
        epochs = 20
        [model]
        type = "linear_regressor"
        model_dir = "reg"
        optimizer = "SGD"
        learning_rate = 0.1
        [[model.feature_columns]]
        type = "numeric_column"
        key = "x"
        [predict]
        output = "pred.csv"
        predict_keys = "predictions"
        """,
    )
    status, out, err = run(capsys, "train", cfg)
    assert status == 0, err
    assert json.loads(out)["eval"]["rmse"] < 0.05
    status, out, err = run(capsys, "predict", cfg)
    assert status == 0, err
    predicted = pd.read_csv(tmp_path / "pred.csv")
    assert list(predicted.columns) == ["predictions"]
    np.testing.assert_allclose(predicted["predictions"], 3.0 * x[:77] + 1.0, atol=0.1)


def test_python_m_colonnade_train_in_a_subprocess(tmp_path):
    make_data(tmp_path)
    cfg = write(tmp_path, LINEAR)
    done = subprocess.run(
        [sys.executable, "-m", "colonnade", "train", str(cfg)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["global_step"] == 10
    bad = write(tmp_path, LINEAR.replace('key = "x1"', 'kye = "x1"'), "bad.toml")
    done = subprocess.run(
        [sys.executable, "-m", "colonnade", "train", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "model.feature_columns[0].kye: unknown key; did you mean 'key'?" in done.stderr


# ---------------------------------------------------------------- the zero-config job


@pytest.fixture
def few_epochs(monkeypatch):
    from colonnade.estimators.tabular import models

    monkeypatch.setattr(models, "MAX_EPOCHS", 3)
    monkeypatch.setattr(models, "HIDDEN_UNITS", (16, 8))


def last_json(out: str) -> dict:
    """The JSON summary a command prints last (after the plan and notes)."""
    lines = out.splitlines()
    return json.loads("\n".join(lines[len(lines) - 1 - lines[::-1].index("{") :]))


def test_zero_config_job_from_the_shell_end_to_end(tmp_path, capsys, monkeypatch, few_epochs):
    """train --data, then evaluate/predict/export on the folder it trained in, with paths
    from the current folder; inferred.toml reruns as written."""
    make_data(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, err = run(
        capsys, "train", "--data", "train.csv", "--label", "y", "--model-dir", "model",
        "--eval-data", "eval.parquet",
    )  # fmt: skip
    assert status == 0, err
    summary = last_json(out)
    assert summary["eval"]["accuracy"] > 0.8

    config = tmp_path / "model" / "inferred.toml"
    job = load_config(config)
    assert job.model.model_dir == str(tmp_path / "model")  # the model just trained
    assert job.data.eval == (str(tmp_path / "eval.parquet"),)
    assert "model.ckpt-" in open(tmp_path / "model" / "checkpoint").read()

    status, out, err = run(capsys, "evaluate", config)
    assert status == 0, err
    assert json.loads(out) == summary["eval"]
    status, out, err = run(capsys, "evaluate", "--data", "eval.parquet", "model")
    assert status == 0, err
    metrics = json.loads(out)
    assert metrics == summary["eval"]

    # the metrics again by hand, from the predictions of the same rows
    status, out, err = run(capsys, "predict", "--data", "eval.parquet", "model", "--out", "e.csv")
    assert status == 0, err
    assert out.strip() == str(tmp_path / "e.csv")
    predicted = pd.read_csv(tmp_path / "e.csv")
    truth = pd.read_parquet(tmp_path / "eval.parquet")["y"].to_numpy()
    assert metrics["accuracy"] == pytest.approx(np.mean(predicted["classes"] == truth))
    p_true = np.where(truth == "yes", predicted["probabilities_1"], predicted["probabilities_0"])
    assert metrics["average_loss"] == pytest.approx(-np.mean(np.log(p_true)), rel=1e-4)

    status, out, err = run(capsys, "predict", "--data", "new.csv", "model", "--out", "p.parquet")
    assert status == 0, err
    rows = pd.read_csv(tmp_path / "new.csv")
    assert len(pd.read_parquet(tmp_path / "p.parquet")) == len(rows)

    status, out, err = run(capsys, "export", "model", "--export-dir", "exports")
    assert status == 0, err
    served = cn.load(out.strip()).predict(rows.head(5))
    np.testing.assert_allclose(
        np.stack(served["logistic"]).ravel(),
        pd.read_parquet(tmp_path / "p.parquet")["logistic"].head(5),
        rtol=1e-5,
    )

    step = summary["eval"]["global_step"]
    status, out, err = run(capsys, "train", config)  # trains the model on
    assert status == 0, err
    trained_on = json.loads(out)
    assert trained_on["model_dir"] == str(tmp_path / "model")
    # on all 300 rows of train.csv (fit held some out): ceil(300 / 32) steps an epoch
    assert trained_on["global_step"] == step + job.data.epochs * 10
    assert trained_on["eval"]["global_step"] == trained_on["global_step"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "."], "a directory without inferred.toml; expected a TOML job config"),
        (["predict", "model", "--out", "p.txt"], "--out: cannot tell the output format"),
        (["predict", "model", "--out", "p.csv"], "data.predict: missing; `colonnade predict` "
         "needs it (or give --data PATH on the command line)"),
        (["export", "model"], "(or give --export-dir DIR on the command line)"),
        (["train", "model", "--eval-data", "eval.parquet"], "--eval-data goes with --data"),
        (["evaluate", "--data", "nope.csv", "model"], "nope.csv: No such file or directory"),
        (["train", "--data", "train.csv", "--label", "y", "--eval-data", "nope.csv"],
         "nope.csv: No such file or directory"),
    ],
)  # fmt: skip
def test_zero_config_commands_refuse_what_they_cannot_run(tmp_path, capsys, monkeypatch,
                                                          argv, message):  # fmt: skip
    make_data(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model").mkdir()
    write(tmp_path / "model", LINEAR.replace('model_dir = "run"', 'model_dir = "."'),
          "inferred.toml")  # fmt: skip
    status, out, err = run(capsys, *argv)
    assert status == 2, (out, err)
    assert message in err and len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------- readable errors

ERRORS = [
    # (what, change to LINEAR: (old, new), the message it gives)
    (
        "unknown column type",
        ('type = "numeric_column"', 'type = "numeric"'),
        r"model\.feature_columns\[0\]\.type: unknown column type 'numeric'; did you mean "
        r"'numeric_column'\? expected one of \['bucketized_column', ",
    ),
    ("missing label", ('label = "y"', ""), r"data\.label: missing"),
    ("missing column field", ('key = "x1"', ""), r"model\.feature_columns\[0\]\.key: missing"),
    ("missing model_dir", ('model_dir = "run"', ""), r"model\.model_dir: missing"),
    (
        "wrong type",
        ('label = "y"', 'label = "y"\nbatch_size = "64"'),
        r'data\.batch_size: expected an integer >= 1, got "64"',
    ),
    (
        "wrong type in a column",
        ('key = "x1"', "key = 5"),
        r"model\.feature_columns\[0\]: .*key",
    ),
    (
        "unknown key",
        ('model_dir = "run"', 'model_dir = "run"\nlearning_rat = 0.1'),
        r"model\.learning_rat: not a setting of LinearClassifier; did you mean "
        r"'learning_rate'\? valid keys: \[",
    ),
    (
        "unknown section",
        ("[data]", "[dat]"),
        r"dat: unknown section; did you mean 'data'\? valid keys: "
        r"\['data', 'export', 'model', 'predict'\]",
    ),
    (
        "setting of another model",
        ('model_dir = "run"', 'model_dir = "run"\nhidden_units = [4]'),
        r"model\.hidden_units: not a setting of LinearClassifier",
    ),
    (
        "unknown model type",
        ('type = "LinearClassifier"', 'type = "linear_clasifier"'),
        r"model\.type: unknown model type \"linear_clasifier\"; did you mean "
        r"'linear_classifier'\?",
    ),
    (
        "unknown optimizer",
        ('model_dir = "run"', 'model_dir = "run"\noptimizer = "Adamax"'),
        r"model\.optimizer: unknown optimizer \"Adamax\"; did you mean 'Adam'\? expected one "
        r"of \['Adadelta', 'Adagrad', 'AdagradDA', 'Adam', 'Ftrl', ",
    ),
    (
        "missing data file",
        ('train = "train.csv"', 'train = "nowhere/*.csv"'),
        r"data\.train: .*nowhere/\*\.csv: no files match",
    ),
    (
        "label not in the data",
        ('label = "y"', 'label = "why"'),
        r"data\.label: column\(s\) \['why'\] not found in data\.train; its columns are \['id', ",
    ),
    (
        "feature not in the data",
        ('key = "x1"', 'key = "x9"'),
        r"model\.feature_columns: column\(s\) \['x9'\] not found in data\.train",
    ),
    ("not TOML", ("[model]", "[model"), r"not valid TOML"),
]


@pytest.mark.parametrize("what, change, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_config_exits_2_with_one_line_naming_the_field(tmp_path, capsys, what, change, message):
    make_data(tmp_path)
    old, new = change
    assert old in LINEAR
    cfg = write(tmp_path, LINEAR.replace(old, new, 1))
    status, out, err = run(capsys, "train", cfg)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"colonnade train: error: {cfg}: ")
    assert re.search(message, err), err


def not_a_config(tmp_path):
    return [
        ("a directory", tmp_path, r"a directory without inferred.toml; expected a TOML job"),
        ("a binary file", tmp_path / "model.bin", r"not a TOML file: not UTF-8 text \(byte 2 is"),
        ("a huge file", tmp_path / "huge.toml", r"larger than 1048576 bytes"),
        ("deep nesting", tmp_path / "deep.toml", r"nested too deeply"),
    ]


@pytest.mark.parametrize("case", range(4))
def test_a_config_that_is_not_a_toml_file_exits_2_with_one_line(tmp_path, capsys, case):
    (tmp_path / "model.bin").write_bytes(b"\x00\x01\xff\xfe" * 100)
    (tmp_path / "huge.toml").write_text("# padding\n" * 200_000)
    (tmp_path / "deep.toml").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    what, path, message = not_a_config(tmp_path)[case]
    status, out, err = run(capsys, "train", path)
    assert status == 2, what
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and re.search(message, err), err


def test_ctrl_c_saves_a_checkpoint_and_exits_130_with_one_line(tmp_path, capsys, monkeypatch):
    make_data(tmp_path)
    cfg = write(tmp_path, LINEAR)
    real_step = Estimator.train_step
    calls = []

    def interrupted_at_the_third_step(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_step(self, *args, **kwargs)

    monkeypatch.setattr(Estimator, "train_step", interrupted_at_the_third_step)
    status, out, err = run(capsys, "train", cfg)
    assert status == 130
    assert out == "" and err.strip() == "colonnade train: interrupted", err
    saved = cn.train.latest_checkpoint(str(tmp_path / "run"))
    assert saved is not None and int(cn.train.load_variable(saved, "global_step")) == 2


def test_command_needs_its_fields_and_a_trained_model(tmp_path, capsys):
    make_data(tmp_path)
    cfg = write(tmp_path, LINEAR)
    status, _, err = run(capsys, "evaluate", cfg)
    assert status == 2 and "data.eval: missing; `colonnade evaluate` needs it" in err
    status, _, err = run(capsys, "export", cfg)
    assert status == 2 and "export.export_dir: missing" in err
    cfg = write(tmp_path, LINEAR + '\n[export]\nexport_dir = "e"\n')
    status, _, err = run(capsys, "export", cfg)
    assert status == 2 and "model.model_dir: no checkpoint in" in err
    status, _, err = run(capsys, "train", tmp_path / "absent.toml")
    assert status == 2 and err.strip().endswith("absent.toml: No such file or directory")


def test_predict_errors(tmp_path, capsys):
    make_data(tmp_path)
    predict = LINEAR.replace('label = "y"', 'label = "y"\npredict = "new.csv"')
    cfg = write(tmp_path, predict + '\n[predict]\noutput = "p.json"\n')
    status, _, err = run(capsys, "predict", cfg)
    assert status == 2 and "predict.output: cannot tell the output format from 'p.json'" in err
    cfg = write(tmp_path, predict + '\n[predict]\noutput = "p.csv"\npredict_keys = ["clases"]\n')
    status, _, err = run(capsys, "predict", cfg)
    assert status == 2
    assert "predict.predict_keys: 'clases' is not a prediction of LinearClassifier; did you " in err


# ---------------------------------------------------------------- config parsing

COLUMNS = [{"type": "numeric_column", "key": "x"}]


def model(**settings):
    return {
        "model": {"type": "linear_classifier", "model_dir": "m", "feature_columns": COLUMNS}
        | settings
    }


def optimizer_of(job):
    """The optimizer ``job``'s estimator trains with: (class name, learning rate)."""
    ((_, optimizer, _),) = job.build_estimator().train_state.parts
    return type(optimizer).__name__, optimizer.learning_rate


def test_optimizer_by_name_and_learning_rate():
    job = parse_config(model(optimizer="Adam", learning_rate=0.01))
    assert job.model.kwargs["optimizer"] == {"name": "Adam", "learning_rate": 0.01}
    assert optimizer_of(job) == ("AdamOptimizer", 0.01)
    # Neither set: the estimator's default, TF's Ftrl at min(0.2, 1/sqrt(n_columns)).
    assert "optimizer" not in parse_config(model()).model.kwargs
    assert optimizer_of(parse_config(model())) == ("FtrlOptimizer", 0.2)
    # A learning rate alone keeps the estimator's default optimizer.
    assert optimizer_of(parse_config(model(learning_rate=0.03))) == ("FtrlOptimizer", 0.03)
    # A table without a learning rate keeps TF's default rate.
    ftrl = parse_config(model(optimizer={"name": "Ftrl", "l1_regularization_strength": 0.5}))
    assert ftrl.model.kwargs["optimizer"] == {"name": "Ftrl", "l1_regularization_strength": 0.5}
    assert optimizer_of(ftrl) == ("FtrlOptimizer", 0.2)
    momentum = parse_config(model(optimizer="momentum", learning_rate=0.1)).build_estimator()
    hyper = momentum.train_state.parts[0][1].hyperparameters
    assert (hyper["learning_rate"], hyper["momentum"]) == (0.1, 0.9)
    # A named optimizer gets the estimator's default rate, as tf.estimator gives it.
    sgd = parse_config(model(optimizer="SGD"))
    assert sgd.model.kwargs["optimizer"] == "SGD"
    assert optimizer_of(sgd) == ("GradientDescentOptimizer", 0.2)
    with pytest.raises(ConfigError, match=r"model\.optimizer\.learning_rate: .*set twice"):
        parse_config(model(optimizer={"name": "Adam", "learning_rate": 0.1}, learning_rate=0.2))
    with pytest.raises(ConfigError, match=r"model\.learning_rate: expected a number > 0, got -1"):
        parse_config(model(learning_rate=-1))
    with pytest.raises(ConfigError, match=r"model\.optimizer\.name: missing"):
        parse_config(model(optimizer={"learning_rate": 0.1}))


def test_optimizer_table_arguments_are_checked():
    with pytest.raises(ConfigError) as info:
        parse_config(model(optimizer={"name": "Ftrl", "l1_regularisation_strength": 0.1}))
    assert info.value.field == "model.optimizer.l1_regularisation_strength"
    assert info.value.message.startswith(
        "not an argument of FtrlOptimizer; did you mean 'l1_regularization_strength'? "
        "valid keys: ['accum_name', 'beta', 'initial_accumulator_value', "
    )
    # global_step is the estimator's to give, not the config's.
    with pytest.raises(ConfigError, match=r"model\.optimizer\.global_step: not an argument"):
        parse_config(model(optimizer={"name": "AdagradDA", "global_step": 0}))
    # A bad value is reported at the optimizer when the config is read, not at training.
    with pytest.raises(ConfigError, match=r"^model\.optimizer: l1_regularization_strength"):
        parse_config(model(optimizer={"name": "Ftrl", "l1_regularization_strength": -1.0}))
    with pytest.raises(ConfigError, match=r"model\.optimizer\.name: unknown optimizer \"Adamm\""):
        parse_config(model(optimizer={"name": "Adamm"}))


def test_adagrad_da_by_name_trains(tmp_path, capsys):
    make_data(tmp_path)
    cfg = write(
        tmp_path,
        LINEAR.replace('model_dir = "run"', 'model_dir = "run"\noptimizer = "AdagradDA"'),
    )
    status, out, err = run(capsys, "train", cfg)
    assert status == 0, err
    assert json.loads(out)["global_step"] == 10
    (_, optimizer, _) = load_config(cfg).build_estimator().train_state.parts[0]
    assert type(optimizer).__name__ == "AdagradDAOptimizer"
    names = [n for n, _ in cn.train.list_variables(str(tmp_path / "run"))]
    assert any(n.endswith("x1/weights/gradient_squared_accumulator") for n in names)
    (weights,) = [n for n in names if n.endswith("x1/weights")]
    assert np.abs(cn.train.load_variable(str(tmp_path / "run"), weights)).sum() > 0


def test_predict_keys_come_from_the_head(tmp_path, capsys):
    make_data(tmp_path)
    predict = LINEAR.replace('label = "y"', 'label = "y"\npredict = "new.csv"')
    cfg = write(
        tmp_path,
        predict + '\n[predict]\noutput = "p.csv"\npredict_keys = ["classes", "all_classes"]\n',
    )
    assert run(capsys, "train", cfg)[0] == 0
    status, _, err = run(capsys, "predict", cfg)
    assert status == 0, err
    predicted = pd.read_csv(tmp_path / "p.csv")
    assert list(predicted.columns) == ["classes", "all_classes_0", "all_classes_1"]
    assert predicted["all_classes_0"].eq("no").all() and predicted["all_classes_1"].eq("yes").all()
    # A regressor's head has other keys, and the error lists them.
    regressor = {"type": "linear_regressor", "model_dir": "m", "feature_columns": COLUMNS}
    with pytest.raises(ConfigError) as info:
        parse_config({"model": regressor, "predict": {"predict_keys": ["classes"]}})
    assert (info.value.field, info.value.message) == (
        "predict.predict_keys",
        "'classes' is not a prediction of LinearRegressor choose from ['predictions']",
    )
    multi = parse_config(model(n_classes=3))
    assert multi.model.prediction_keys == (
        "logits",
        "probabilities",
        "class_ids",
        "classes",
        "all_class_ids",
        "all_classes",
    )


def test_model_types_aliases_and_wide_deep_synonyms():
    for name in ("LinearClassifier", "linear_classifier", "linear-classifier"):
        assert parse_config(model(type=name)).model.type == "LinearClassifier"
    wide = {
        "type": "wide_deep_regressor",
        "model_dir": "m",
        "dnn_feature_columns": COLUMNS,
        "hidden_units": [4, 2],
        "dropout": 0.1,
    }
    job = parse_config({"model": wide})
    assert job.model.type == "DNNLinearCombinedRegressor"
    assert job.model.kwargs["dnn_hidden_units"] == [4, 2]
    assert job.model.kwargs["dnn_dropout"] == 0.1
    est = job.build_estimator()
    assert isinstance(est, cn.estimators.DNNLinearCombinedRegressor)
    with pytest.raises(ConfigError, match=r"model\.dnn_hidden_units: set twice"):
        parse_config({"model": wide | {"dnn_hidden_units": [3]}})
    with pytest.raises(ConfigError, match=r"model\.dnn_hidden_units: missing"):
        parse_config({"model": {k: v for k, v in wide.items() if k != "hidden_units"}})
    with pytest.raises(ConfigError, match=r"model\.linear_feature_columns: missing"):
        parse_config({"model": {"type": "wide_deep_classifier", "model_dir": "m"}})


def test_classifier_settings_are_checked():
    with pytest.raises(ConfigError, match=r"model\.label_vocabulary: has 2 labels but"):
        parse_config(model(label_vocabulary=["a", "b"], n_classes=3))
    assert parse_config(model(label_vocabulary=["a", "b", "c"])).model.kwargs["n_classes"] == 3
    with pytest.raises(ConfigError, match=r"model\.n_classes: expected an integer >= 2, got 1"):
        parse_config(model(n_classes=1))
    with pytest.raises(ConfigError, match=r"model\.save_checkpoints_steps: .* got true"):
        parse_config(model(save_checkpoints_steps=True))
    with pytest.raises(ConfigError, match=r"model: set at most one of save_checkpoints_steps"):
        parse_config(model(save_checkpoints_steps=5, save_checkpoints_secs=5))


def test_nested_columns_are_checked_and_paths_resolved(tmp_path):
    (tmp_path / "vocab.txt").write_text("a\nb\n")
    embedding = {
        "type": "embedding_column",
        "dimension": 2,
        "categorical_column": {
            "type": "categorical_column_with_vocabulary_file",
            "key": "c",
            "vocabulary_file": "vocab.txt",
        },
    }
    dnn = {"type": "dnn_classifier", "model_dir": "m", "hidden_units": [2]}
    job = parse_config(
        {"model": dnn | {"feature_columns": [embedding]}, "data": {"predict": "d/*.csv"}},
        base_dir=str(tmp_path),
    )
    (column,) = job.model.feature_columns["feature_columns"]
    assert column.categorical_column.vocabulary_file == str(tmp_path / "vocab.txt")
    assert job.model.model_dir == str(tmp_path / "m")
    assert job.data.predict == (str(tmp_path / "d" / "*.csv"),)
    bad = embedding | {"categorical_column": {"type": "categorical_column_with_identity"}}
    with pytest.raises(
        ConfigError,
        match=r"model\.feature_columns\[0\]\.categorical_column\.key: missing",
    ):
        parse_config({"model": dnn | {"feature_columns": [bad]}})
    with pytest.raises(ConfigError, match=r"model\.feature_columns: expected a non-empty array"):
        parse_config({"model": dnn | {"feature_columns": []}})


def test_load_config_reads_toml_from_its_folder(tmp_path):
    cfg = write(tmp_path, LINEAR)
    job = load_config(cfg)
    assert job.data.train == (str(tmp_path / "train.csv"),)
    assert job.data.batch_size == 32 and job.data.epochs == 1 and job.data.shuffle is True
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "absent.toml")


def test_documented_examples_are_valid(tmp_path):
    import doctest

    import colonnade.cli.job as job_module

    assert doctest.testmod(job_module).failed == 0
    docstring_example = job_module.__doc__.split("::\n\n", 1)[1].split("\nThe ``[model]``")[0]
    parse_config(tomllib.loads(textwrap.dedent(docstring_example)), base_dir=str(tmp_path))
    examples = re.findall(r"```toml\n(.*?)```", DOCS.read_text(), flags=re.S)
    assert examples
    for example in examples:
        parse_config(tomllib.loads(example), base_dir=str(tmp_path))


def test_examples_adult_toml_trains_on_the_packaged_data(tmp_path, capsys):
    """``examples/adult.toml`` as shipped, made small: fewer training rows and epochs, the
    run folder in ``tmp_path``; its ``colonnade:`` paths find the data in the package."""
    example = Path(__file__).resolve().parents[1] / "examples" / "adult.toml"
    job = load_config(example)
    assert all(Path(p).is_file() for p in job.data.train + job.data.eval + job.data.predict)
    train_rows = pd.read_parquet(job.data.train[0]).head(1000)
    train_rows.to_parquet(tmp_path / "train.parquet")
    text = example.read_text()
    text = text.replace('"colonnade:datasets/adult_train.parquet"', '"train.parquet"')
    text = text.replace("epochs = 4", "epochs = 1")
    assert text.count("train.parquet") == 1 and "epochs = 1" in text
    cfg = tmp_path / "adult.toml"
    cfg.write_text(text)

    status, out, err = run(capsys, "train", cfg)
    assert status == 0, err
    summary = json.loads(out)
    assert summary["model_dir"] == str(tmp_path / "runs" / "adult")
    assert summary["global_step"] == 4  # ceil(1000 / 256)
    assert summary["eval"]["auc"] > 0.6  # on the packaged test split
    status, out, err = run(capsys, "export", cfg)
    assert status == 0, err
    assert cn.load(out.strip()).predict(pd.read_parquet(job.data.eval[0]).head(3)).shape[0] == 3


@pytest.mark.parametrize("command", ["evaluate", "predict", "export"])
def test_a_job_command_other_than_train_requires_its_config(capsys, command):
    with pytest.raises(SystemExit) as stop:
        cli.main([command])
    assert stop.value.code == 2
    assert "the following arguments are required: CONFIG" in capsys.readouterr().err


def test_a_dotted_key_of_thousands_of_parts_is_refused_before_parsing(tmp_path, capsys):
    """Issue 29: 200,000 dotted key parts (400 KB) made the TOML parser take 6.9 GB;
    quoted parts with spaces count too."""
    for key in ("a." * 20_000 + "a", ".".join(['"a b"'] * 20_000)):
        cfg = write(tmp_path, LINEAR + "\n" + key + " = 1\n")
        status, _, err = run(capsys, "train", cfg)
        assert status == 2 and "line 15: a dotted key of 20,00" in err, err
        assert "parts, more than 32" in err


def test_dots_in_strings_comments_and_numbers_are_not_key_parts():
    from colonnade.cli.job import longest_dotted_name

    many = ".".join(["w"] * 40)
    text = f"x = \"{many}\"\ny = '{many}'  # {many}\nz = [{', '.join(['1.5'] * 50)}]\n"
    text += 'q = """a\n' + many + '\n"""\ne = "a\\"b.c"\nm.n."o p" = 1\n'
    assert longest_dotted_name(text) == (3, 8)  # m.n."o p", on line 8
    assert longest_dotted_name("w" * 200_000) == (1, 1)  # a long word is one part


def test_sigterm_during_a_command_exits_with_143(monkeypatch, capsys):
    from colonnade.estimators.runtime.training_loop import Terminated

    def terminated(parser, args):
        raise Terminated("SIGTERM")

    monkeypatch.setattr(cli, "_run", terminated)
    assert cli.main(["train", "job.toml"]) == 143
    assert capsys.readouterr().err.strip() == "colonnade train: terminated (SIGTERM)"


def test_serve_takes_version_labels_and_request_budgets(monkeypatch, capsys):
    """`colonnade serve --version-label stable=3 --max-rows 10 ...` reaches serve() as TF
    Serving's labels and the request budgets (docs/serving.md); defaults are Limits'."""
    pytest.importorskip("orjson")
    from colonnade import cli, serving

    calls = []
    monkeypatch.setattr(serving, "serve", lambda export, **kw: calls.append((export, kw)))
    argv = ["serve", "exports/", "--version-label", "stable=3", "--version-label", "canary=4"]
    argv += ["--max-rows", "10", "--max-body-mb", "0.5", "--request-seconds", "2.5"]
    assert cli.main(argv) == 0
    ((export, kw),) = calls
    assert export == "exports/" and kw["version_labels"] == {"stable": 3, "canary": 4}
    limits = kw["limits"]
    assert (limits.max_rows, limits.max_body_bytes, limits.request_seconds) == (10, 1 << 19, 2.5)
    assert limits.max_values == serving.Limits().max_values  # untouched budgets keep defaults
    assert cli.main(["serve", "exports/"]) == 0
    assert calls[-1][1]["limits"] == serving.Limits() and calls[-1][1]["version_labels"] == {}
    with pytest.raises(SystemExit):
        cli.main(["serve", "exports/", "--version-label", "stable"])
    assert "expected LABEL=VERSION" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag, bad",
    [
        ("--max-rows", "many"),
        ("--max-rows", "0"),
        ("--max-body-mb", "-1"),
        ("--request-seconds", "inf"),
    ],
)
def test_serve_refuses_a_bad_budget_by_name(flag, bad, capsys):
    from colonnade import cli

    with pytest.raises(SystemExit):
        cli.main(["serve", "exports/", flag, bad])
    assert flag in capsys.readouterr().err


def test_the_command_line_works_without_the_serve_extra():
    """``pip install .`` has no orjson, starlette or uvicorn (the ``serve`` extra): every
    command but ``serve`` must still parse and run (the README's ``colonnade demo`` did
    not: reading the server's limits for ``serve --help`` imported orjson)."""
    code = (
        "import sys\n"
        "for name in ('orjson', 'starlette', 'uvicorn'):\n"
        "    sys.modules[name] = None  # as if not installed\n"
        "from colonnade.cli import build_parser\n"
        "args = build_parser().parse_args(['demo', '--help'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "usage: colonnade demo" in done.stdout
