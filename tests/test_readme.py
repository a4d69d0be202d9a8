"""Every code block of README.md runs in the suite, at a small size where it trains.

Each block is known by its key line, its first line that is not an import. It runs here,
or in the test named in :data:`ELSEWHERE`; a block with neither fails
:func:`test_every_readme_block_is_run`, so a new example cannot go untested.
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
from colonnade.demo import load_adult

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.S | re.M)

# Blocks run by another test (path::name), or by CI itself.
ELSEWHERE = {
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && colonnade demo": (
        "tests/test_package.py::test_colonnade_demo_command_runs"
    ),
    "clf = DNNClassifier([64, 32], deep_columns, epochs=5)": (
        "tests/test_sklearn.py::test_readme_example_learns"
    ),
    "colonnade serve exports/ --port 8501 --model-name census": (
        "tests/test_serve.py::test_readme_curl_example"
    ),
}


def readme_blocks() -> dict:
    """``{key line: code}`` of README.md's fenced blocks, dedented (a block inside a list
    item is indented)."""
    text = (ROOT / "README.md").read_text()
    blocks = {}
    for match in FENCE.finditer(text):
        code = textwrap.dedent(match.group(3))
        lines = [line for line in code.splitlines() if line.strip()]
        key = next((line for line in lines if not line.startswith(("import ", "from "))), lines[0])
        assert key not in blocks, f"two README blocks share the key line {key!r}"
        blocks[key] = code
    return blocks


def block(key: str) -> str:
    return readme_blocks()[key]


def test_every_readme_block_is_run():
    here = (Path(__file__).read_text()).split("def test_every_readme_block_is_run", 1)[1]
    for key in readme_blocks():
        if key in ELSEWHERE:
            path, name = ELSEWHERE[key].split("::")
            assert f"def {name}(" in (ROOT / path).read_text(), ELSEWHERE[key]
        else:
            assert repr(key)[1:-1] in here, f"README block without a test: {key}"
    # The set-up block's second line is CI's test command (.ci/run runs it verbatim).
    second = block(
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && colonnade demo"
    )
    assert "pytest" in second.splitlines()[1]
    assert "sed -n 2p" in (ROOT / ".ci" / "run").read_text()


def test_tour_and_the_tensorflow_way(tmp_path, monkeypatch):
    """The tour, then the TF way (``train(input_fn, max_steps=...)``) on its model, over
    Parquet files of click rows."""
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(block("fc = cn.feature_columns"), "README.md", "exec"), namespace)
    assert (tmp_path / "exports").is_dir()
    step = namespace["model"].get_variable_value("global_step")

    (tmp_path / "clicks").mkdir()
    clicks = load_adult("test").head(2000).rename(columns={"income": "clicked"})
    clicks.iloc[:1000].to_parquet(tmp_path / "clicks" / "part-0.parquet")
    clicks.iloc[1000:].to_parquet(tmp_path / "clicks" / "part-1.parquet")
    tf_way = 'ds = cn.data.Dataset.from_files("clicks/*.parquet", label="clicked")'
    exec(compile(block(tf_way), "README.md", "exec"), namespace)
    assert namespace["model"].get_variable_value("global_step") == step + 2  # 2000 rows / 1024


def test_zero_configuration(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    load_adult("train").head(1000).to_parquet("train.parquet")
    load_adult("test").head(500).to_parquet("test.parquet")
    namespace = {}
    code = block('model = cn.estimators.TabularClassifier("income", seed=0).fit("train.parquet")')
    exec(compile(code, "README.md", "exec"), namespace)
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
    command = block("tensorboard --logdir model_dir").strip() + " --port 0"
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
    code = block("model = cn.estimators.DNNLinearCombinedClassifier(")
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["model"].get_variable_value("global_step") == 138
