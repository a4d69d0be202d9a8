"""Training steps per second at small batches, colonnade beside TensorFlow 2.15.

Two jobs on ``ctr.py``'s generated data (200k rows, read from Parquet with the feature
transforms included, as users train): the canned wide&deep classifier at batch 32 and a
DeepFM-style ``model_fn`` (``workloads.deepfm_model_fn``) at batch 64. Each trains
``--steps`` steps; the steps after the first ``--warmup`` are timed by a hook. The
TensorFlow side (``tf_small_batch.py``) runs in ``--tf-python``'s environment as a
subprocess, alternating with colonnade's, ``--repeats`` times; without TensorFlow it
prints a JSON note instead. ``--baseline-python`` times colonnade also in another
environment (another checkout's venv, e.g. main's before a change), alternating in the
same sitting: its lines say ``"impl": "baseline"``. One JSON line per job and run, then
one with the ratios.

    python benchmarks/small_batch.py [--steps 1500] [--repeats 2] [--tf-python PATH]
        [--baseline-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from workloads import SMALL_BATCH_ROWS, deepfm_model_fn, deepfm_params, step_timer

import colonnade as cn

HERE = os.path.dirname(os.path.abspath(__file__))
JOBS = {"wide_deep": 32, "deepfm": 64}
fc = cn.feature_columns


def colonnade_api():
    """``workloads.deepfm_model_fn``'s names, in colonnade."""
    ops = cn.core.ops
    return argparse.Namespace(
        input_layer=fc.input_layer,
        linear_model=fc.linear_model,
        dense=cn.layers.dense,
        relu=cn.nn.relu,
        reshape=ops.reshape,
        reduce_sum=ops.sum,
        square=ops.square,
        concat=lambda pieces: ops.concat(pieces, axis=1),
        float_labels=lambda labels: labels.astype("float32").reshape(-1, 1),
        loss=cn.losses.sigmoid_cross_entropy,
        optimizer=lambda: cn.train.AdagradOptimizer(0.05),
        global_step=cn.train.get_global_step,
        EstimatorSpec=cn.estimators.EstimatorSpec,
        PREDICT=cn.estimators.ModeKeys.PREDICT,
    )


def make_model(job: str, model_dir: str):
    import ctr

    config = cn.estimators.RunConfig(
        model_dir=model_dir, tf_random_seed=0, log_step_count_steps=0, save_checkpoints_secs=3600
    )
    if job == "wide_deep":
        wide, deep = ctr.columns()
        return cn.estimators.DNNLinearCombinedClassifier(
            linear_feature_columns=wide,
            linear_optimizer=cn.train.FtrlOptimizer(0.05, l1_regularization_strength=0.001),
            dnn_feature_columns=deep,
            dnn_hidden_units=[256, 128, 64],
            config=config,
        )
    params = deepfm_params(fc, fc.log1p())
    return cn.estimators.Estimator(deepfm_model_fn(colonnade_api()), config=config, params=params)


def measure(job: str, steps: int, warmup: int) -> dict:
    """Steps/s of ``job`` in colonnade, from Parquet through the model's transforms."""
    import ctr

    train, _ = ctr.data_paths(SMALL_BATCH_ROWS)
    batch = JOBS[job]
    with tempfile.TemporaryDirectory(prefix=f"small_{job}_") as model_dir:
        model = make_model(job, model_dir)
        ds = cn.data.Dataset.from_parquet(train, label="clicked")
        timer = step_timer(cn.estimators.SessionRunHook, warmup)
        model.train(lambda: ds.batch(batch).prefetch(2), max_steps=steps, hooks=[timer])
    return {
        "bench": "small_batch",
        "impl": "colonnade",
        "job": job,
        "batch_size": batch,
        "steps": steps - warmup,
        "steps_per_s": round(timer.steps_per_s(), 1),
        "load": round(os.getloadavg()[0], 2),
    }


def colonnade_lines(python: str, job: str, steps: int, warmup: int) -> list:
    """The JSON lines of timing ``job`` in a fresh process of ``python`` (whose
    environment says which colonnade is timed)."""
    command = [python, __file__, "--in-process", job, "--steps", str(steps)]
    out = subprocess.run(
        command + ["--warmup", str(warmup)], check=True, stdout=subprocess.PIPE, text=True
    )
    return [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]


def numpy_copy(rows: int) -> str:
    """The first ``rows`` training rows as a ``.npz`` of numpy arrays (strings as unicode),
    next to the Parquet file: TensorFlow's environment has no pyarrow to read that."""
    import ctr
    import numpy as np
    import pyarrow.parquet as pq

    train, _ = ctr.data_paths(SMALL_BATCH_ROWS)
    path = os.path.join(os.path.dirname(train), f"train_{rows}.npz")
    if not os.path.exists(path):
        table = pq.read_table(train).slice(0, rows)
        arrays = {name: table.column(name).to_numpy() for name in table.column_names}
        arrays = {k: v.astype(str) if v.dtype == object else v for k, v in arrays.items()}
        np.savez(path + ".tmp.npz", **arrays)
        os.rename(path + ".tmp.npz", path)
    return path


def tensorflow_lines(python: str, job: str, steps: int, warmup: int) -> list:
    """The TF script's JSON lines for ``job`` (or its note when TF is missing)."""
    script = os.path.join(HERE, "tf_small_batch.py")
    data = numpy_copy(min(SMALL_BATCH_ROWS, steps * JOBS[job]))
    command = [python, script, "--job", job, "--steps", str(steps), "--warmup", str(warmup)]
    command += ["--data", data]
    out = subprocess.run(command, capture_output=True, text=True, cwd=HERE)
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    if out.returncode or not lines:
        return [
            {"bench": "small_batch", "impl": "tensorflow", "job": job, "note": out.stderr[-500:]}
        ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument(
        "--tf-python", default=os.environ.get("TF_PYTHON", "/work/tfenv/bin/python")
    )
    parser.add_argument("--baseline-python", help="also time colonnade in this Python's env")
    parser.add_argument("--in-process", metavar="JOB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_process:
        print(json.dumps(measure(args.in_process, args.steps, args.warmup)), flush=True)
        return
    have_tf = os.path.exists(args.tf_python)
    if not have_tf:
        print(
            json.dumps(
                {
                    "bench": "small_batch",
                    "impl": "tensorflow",
                    "note": f"no {args.tf_python}: TensorFlow side skipped",
                }
            )
        )
    runs = {}
    for job in args.jobs.split(","):
        for _ in range(args.repeats):
            lines = colonnade_lines(sys.executable, job, args.steps, args.warmup)
            if args.baseline_python:
                baseline = colonnade_lines(args.baseline_python, job, args.steps, args.warmup)
                lines += [{**line, "impl": "baseline"} for line in baseline]
            if have_tf:
                lines += tensorflow_lines(args.tf_python, job, args.steps, args.warmup)
            for line in lines:
                print(json.dumps(line), flush=True)
                if "steps_per_s" in line:
                    runs.setdefault((job, line["impl"]), []).append(line["steps_per_s"])
        ours = runs.get((job, "colonnade"))
        ratios = {
            f"colonnade_over_{name}": round(statistics.median(ours) / statistics.median(theirs), 2)
            for name, theirs in (
                ("tf", runs.get((job, "tensorflow"))),
                ("baseline", runs.get((job, "baseline"))),
            )
            if ours and theirs
        }
        if ratios:
            print(json.dumps({"bench": "small_batch_ratio", "job": job, **ratios}))


if __name__ == "__main__":
    main()
