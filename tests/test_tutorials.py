"""Smoke-run each tutorial at a small size: it completes, and its JSON line is sane.

The tutorials are scripts, not package modules: each is loaded from ``tutorials/`` by
path and its ``main(argv)`` called in-process with small sizes.
"""

import importlib.util
import json
import pathlib

import pytest

TUTORIALS = pathlib.Path(__file__).resolve().parents[1] / "tutorials"


def run_tutorial(name, argv, capsys):
    """Run ``tutorials/<name>.py``'s ``main(argv)``; return its results, checking that
    the last line it printed is the same results as JSON."""
    spec = importlib.util.spec_from_file_location(f"tutorial_{name}", TUTORIALS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = module.main(argv)
    lines = capsys.readouterr().out.strip().splitlines()
    assert json.loads(lines[-1]) == results
    assert results["tutorial"] == name
    return results


@pytest.mark.parametrize("model_type", ["wide", "deep", "wide_deep"])
def test_census_wide_deep(model_type, capsys):
    argv = ["--model-type", model_type, "--train-rows", "4000", "--test-rows", "3000"]
    results = run_tutorial("census_wide_deep", argv + ["--epochs", "2"], capsys)
    assert (results["train_rows"], results["test_rows"]) == (4000, 3000)
    assert results["global_step"] == 32  # two passes of 4000 rows in batches of 256
    assert results["accuracy"] > 0.78
    assert results["auc"] > 0.8


def test_click_through_ftrl(capsys):
    argv = ["--rows", "30000", "--files", "3", "--epochs", "1"]
    argv += ["--hash-buckets", "4096", "--cross-buckets", "16384"]
    results = run_tutorial("click_through_ftrl", argv, capsys)
    assert results["auc"] > 0.6
    # Better than predicting the click rate for everyone (log loss ~0.56 at a 25% CTR),
    # and no better than the hidden model that generated the clicks.
    assert results["oracle_logloss"] < results["logloss"] < 0.56
    assert results["auc"] < results["oracle_auc"]
    assert 0 < results["nonzero_weight_fraction"] < 0.5  # L1 keeps most weights at zero
    assert results["train_rows_per_second"] > 0


def test_warm_start_vocabulary(capsys):
    argv = ["--train-rows", "8000", "--epochs", "2", "--fine-tune-steps", "10"]
    results = run_tutorial("warm_start_vocabulary", argv, capsys)
    assert results["kept_rows_identical"] is True
    assert results["new_vocabulary_size"] != results["old_vocabulary_size"]
    # Warm-started, before any training on new data, it is about as good as the old model.
    assert abs(results["warm_accuracy_before_training"] - results["old_accuracy"]) < 0.02
    assert results["warm_auc"] > 0.8


def test_export_and_serve(capsys):
    argv = ["--train-rows", "3000", "--epochs", "1", "--rows-to-serve", "30", "--requests", "2"]
    results = run_tutorial("export_and_serve", argv, capsys)
    assert results["accuracy"] > 0.76
    assert results["served_rows"] == 30
    assert results["fresh_process_max_diff"] < 1e-5
    assert results["http_max_diff"] < 1e-5


def test_tf_takeover(capsys):
    results = run_tutorial("tf_takeover", [], capsys)  # the committed TF fixtures, 10 steps
    assert results["tf_variables"] == 42
    assert results["max_diff_vs_tf"] < 1e-5  # TF-made tf.Examples predict what TF did
    assert results["max_diff_vs_tf_training"] < 1e-5  # and train on as TF did
    assert (results["global_step_before"], results["global_step_after"]) == (128, 138)
    assert results["latest_checkpoint"] == "model.ckpt-138"
    assert results["accuracy"] > 0.7
    assert results["served_vs_estimator_diff"] < 1e-6


def test_census_custom_model_fn(capsys, caplog):
    argv = ["--train-rows", "4000", "--test-rows", "2000", "--max-steps", "60"]
    argv += ["--save-checkpoints-steps", "30"]
    with caplog.at_level("INFO", logger="colonnade"):
        results = run_tutorial("census_custom_model_fn", argv, capsys)
    assert results["global_step"] == results["exported_step"] == 60
    assert results["auc"] > 0.85
    assert results["accuracy"] > 0.78
    # the reloaded export predicts what the estimator does, from rows and from tf.Examples
    assert results["reload_max_abs_diff"] < 1e-6
    assert results["examples_max_abs_diff"] < 1e-6
    # the model_fn's LoggingTensorHook logged the loss (every 12 steps) and train_and_evaluate
    # evaluated both checkpoints (steps 30 and 60)
    hook_lines = [r for r in caplog.records if r.module == "basic" and "loss = " in r.getMessage()]
    assert len(hook_lines) == 5
    assert "running initialization" not in caplog.text  # the reloaded export has its weights
    assert "evaluation at step 30" in caplog.text and "evaluation at step 60" in caplog.text
