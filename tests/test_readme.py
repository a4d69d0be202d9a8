"""Every code block of README.md runs in the suite, at a small size where it trains.

:data:`RUNS` names each block by a line only it holds, and the test that runs it (here,
in another test file, or CI itself); :func:`test_every_readme_block_is_run` fails on a
block that no entry names, so a new example cannot go untested.
"""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

import colonnade as cn
from colonnade.core.checkpoint_format import is_tf_checkpoint
from colonnade.demo import load_adult

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.S | re.M)
SETUP = "python3 -m venv .venv && . .venv/bin/activate && pip install . && colonnade demo"
TOUR = 'model.fit(train, label="income", epochs=3, batch_size=256)'
TF_WAY = 'ds = cn.data.Dataset.from_files("clicks/*.parquet", label="clicked")'
ZERO_CONFIG = 'model = cn.estimators.TabularClassifier("income", seed=0).fit("train.parquet")'
TENSORBOARD = "tensorboard --logdir model_dir"
PORTING = "model.train(input_fn, steps=10)  # global_step 128 -> 138: model.ckpt-138, a TF bundle"

RUNS = {
    SETUP: "tests/test_package.py::test_colonnade_demo_command_runs",  # line 2: .ci/run
    TOUR: "tests/test_readme.py::test_tour_and_the_tensorflow_way",
    TF_WAY: "tests/test_readme.py::test_tour_and_the_tensorflow_way",
    ZERO_CONFIG: "tests/test_readme.py::test_zero_configuration",
    TENSORBOARD: "tests/test_readme.py::test_tensorboard_serves_the_training_curves",
    PORTING: "tests/test_readme.py::test_porting_takes_over_a_tf_model_dir",
    'scores = cross_val_score(clf, frame.drop(columns="income"), frame["income"], cv=3)': (
        "tests/test_sklearn_inputs.py::test_the_readme_scikit_learn_example_runs_and_learns"
    ),
    "colonnade serve exports/ --port 8501 --model-name census": (
        "tests/test_serve_tf_api.py::test_the_readme_curl_example_answers_on_the_tours_model"
    ),
}
"""A line each README block alone holds -> the test that runs the block."""


def readme_blocks() -> list:
    """README.md's fenced blocks, dedented (a block inside a list item is indented)."""
    text = (ROOT / "README.md").read_text()
    return [textwrap.dedent(match.group(3)) for match in FENCE.finditer(text)]


def block(line: str) -> str:
    """The one README block that holds ``line``."""
    (found,) = [code for code in readme_blocks() if line in code.splitlines()]
    return found


def test_every_readme_block_is_run():
    for code in readme_blocks():
        named = [line for line in RUNS if line in code.splitlines()]
        assert len(named) >= 1, f"README block without a test:\n{code}"
    for line, test in RUNS.items():
        assert block(line)  # exactly one block holds it
        path, name = test.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(), test
    assert "pytest" in block(SETUP).splitlines()[1]  # CI's test command
    assert "sed -n 2p" in (ROOT / ".ci" / "run").read_text()  # .ci/run runs that line


def test_tour_and_the_tensorflow_way(tmp_path, monkeypatch, caplog):
    """The tour, then the TF way (``train(input_fn, max_steps=...)``) on its model, over
    Parquet files of click rows: it trains to the max_steps it names (here 5 steps past
    the tour's, over 2 batches of data: the data repeats) without a warning."""
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(block(TOUR), "README.md", "exec"), namespace)
    assert (tmp_path / "exports").is_dir()
    step = namespace["model"].get_variable_value("global_step")

    (tmp_path / "clicks").mkdir()
    clicks = load_adult("test").head(2000).rename(columns={"income": "clicked"})
    clicks.iloc[:1000].to_parquet(tmp_path / "clicks" / "part-0.parquet")
    clicks.iloc[1000:].to_parquet(tmp_path / "clicks" / "part-1.parquet")
    code = block(TF_WAY)
    assert "max_steps=10_000" in code
    code = code.replace("max_steps=10_000", f"max_steps={step + 5}")
    with caplog.at_level("WARNING", logger="colonnade"):
        exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["model"].get_variable_value("global_step") == step + 5
    assert not [r.getMessage() for r in caplog.records if "ran out" in r.getMessage()]


def test_zero_configuration(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    load_adult("train").head(1000).to_parquet("train.parquet")
    load_adult("test").head(500).to_parquet("test.parquet")
    namespace = {}
    exec(compile(block(ZERO_CONFIG), "README.md", "exec"), namespace)
    assert "age" in capsys.readouterr().out  # describe(): one line per column
    assert namespace["model"].evaluate("test.parquet")["accuracy"] > 0.7


def test_tensorboard_serves_the_training_curves(tmp_path, monkeypatch):
    """``tensorboard --logdir model_dir`` on a trained model_dir (on port 0 here, for a
    free port) serves the ``loss`` curve colonnade wrote."""
    pytest.importorskip("tensorboard")
    monkeypatch.chdir(tmp_path)
    frame = load_adult("train").head(500)
    columns = [cn.feature_columns.numeric_column("age")]
    config = cn.estimators.RunConfig(save_summary_steps=1)
    model = cn.estimators.LinearClassifier(
        columns, label_vocabulary=["<=50K", ">50K"], model_dir="model_dir", config=config
    )
    model.fit(frame[["age", "income"]], label="income", epochs=1, batch_size=100, verbose=0)
    command = block(TENSORBOARD).strip() + " --port 0"
    binary = shutil.which("tensorboard", path=str(Path(sys.executable).parent))
    server = subprocess.Popen(
        [binary, *command.split()[1:]], stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        url = wait_for_url(server)
        with urllib.request.urlopen(url + "data/plugin/scalars/tags", timeout=30) as answer:
            tags = json.load(answer)
        assert "loss" in tags["."], tags
    finally:
        server.terminate()
        server.wait(timeout=30)


def wait_for_url(server, timeout=60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = server.stderr.readline()
        found = re.search(r"(http://\S+/) ", line)
        if found:
            return found.group(1)
        if not line and server.poll() is not None:
            break
    raise AssertionError("tensorboard did not start")


def test_porting_takes_over_a_tf_model_dir(tmp_path, monkeypatch):
    """The porting guide's takeover: TF's census model_dir (step 128, made by TF 2.15 with
    the columns of tutorials/tf_takeover.py) trains on to step 138."""
    monkeypatch.chdir(tmp_path)
    golden = ROOT / "tests" / "estimators" / "golden" / "tf_estimators"
    shutil.copytree(golden / "wide_deep_classifier", tmp_path / "old_tf_model_dir")
    spec = importlib.util.spec_from_file_location(
        "tf_takeover", ROOT / "tutorials" / "tf_takeover.py"
    )
    tutorial = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tutorial)
    wide, deep = tutorial.columns()
    records = cn.data.Dataset.from_tfrecord(
        str(golden / "rows.tfrecord"), tutorial.parse_spec(), label="label"
    )
    namespace = {
        "cn": cn,
        "wide": wide,
        "deep": deep,
        "input_fn": lambda: records.batch(32).repeat(),
    }
    exec(compile(block(PORTING), "README.md", "exec"), namespace)
    assert namespace["model"].get_variable_value("global_step") == 138
    latest = cn.train.latest_checkpoint(str(tmp_path / "old_tf_model_dir"))
    assert latest.endswith("model.ckpt-138") and is_tf_checkpoint(latest)  # as the comment says


def test_the_test_command_says_what_it_installs_and_how_long_it_runs():
    """The paragraph after the setup commands names the large packages of the ``test``
    extra (Ray above all) and the suite's time, so nobody is surprised by either."""
    text = (ROOT / "README.md").read_text()
    paragraph = text.split(SETUP, 1)[1].split("\n\n")[1]
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test_extra = " ".join(extra["optional-dependencies"]["test"])
    for package, shown in [("ray", "Ray"), ("mlflow", "MLflow"), ("tensorboard", "TensorBoard")]:
        assert package in test_extra and shown in paragraph, package
    assert re.search(r"about \d+ minutes of tests on two cores", paragraph), paragraph
