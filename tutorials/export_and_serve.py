"""Export a trained model and serve its predictions: ``export_saved_model`` and ``cn.load``.

What this tutorial teaches
--------------------------
Training code and serving code should not have to share anything but the model. An
export is a directory that holds everything needed to turn *raw* rows into predictions:
the feature columns in their declarative form (vocabularies, hash buckets, boundaries,
normalizers, crosses), copies of the vocabulary files, the weights and the head (which
maps logits to classes). It contains no pickled Python, so loading one cannot run code.

1. Train a wide & deep census model with the Keras-style ``fit``.
2. ``export_saved_model(base)`` writes ``base/<timestamp>/`` and returns its path; we look
   inside.
3. A *fresh Python process*, which imports nothing of this script, loads the export with
   ``cn.load(path)`` and predicts rows given as JSON, exactly as the raw data looks. Its
   probabilities match the estimator's to float precision.
4. A minimal HTTP endpoint built on the standard library (``http.server``), bound to
   127.0.0.1, answers a bounded number of ``POST /predict`` requests, and a client calls
   it with ``urllib``. A real deployment would put the same three lines of model code
   (load once, ``predict`` per request) behind a production server.

Run it::

    python tutorials/export_and_serve.py
    python tutorials/export_and_serve.py --train-rows 3000 --epochs 1 --requests 2
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

import numpy as np
import pandas as pd

import colonnade as cn
from colonnade.census import LABEL, LABEL_VOCABULARY
from colonnade.demo import load_adult, run_tutorial

fc = cn.feature_columns


# The whole serving program of step 3: read JSON rows on stdin, print JSON predictions.
# It needs colonnade and the export directory, nothing else.
PREDICT_IN_FRESH_PROCESS = """
import json, sys
import pandas as pd
import colonnade as cn

predictor = cn.load(sys.argv[1])
rows = pd.DataFrame(json.load(sys.stdin))
predictions = predictor.predict(rows, predict_keys=["logistic", "classes"])
print(predictions.to_json(orient="records"))
"""


def build_estimator(train: pd.DataFrame, model_dir: str, seed: int):
    """A compact wide & deep census model (see census_wide_deep.py for the full one)."""
    age = fc.numeric_column("age")
    age_buckets = fc.bucketized_column(age, [18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    education = fc.categorical_column_with_vocabulary_list(
        "education", sorted(train["education"].unique())
    )
    occupation = fc.categorical_column_with_hash_bucket("occupation", 1000)
    relationship = fc.categorical_column_with_vocabulary_list(
        "relationship", sorted(train["relationship"].unique())
    )
    # Normalizers are data in the column (not lambdas), so they travel with the export.
    gain = fc.numeric_column("capital-gain", normalizer_fn=fc.log1p())
    hours = fc.numeric_column("hours-per-week", normalizer_fn=fc.standardize(40.0, 12.0))
    age_scaled = fc.numeric_column("age", normalizer_fn=fc.standardize(38.6, 13.6))
    return cn.estimators.DNNLinearCombinedClassifier(
        model_dir=model_dir,
        linear_feature_columns=[
            age_buckets,
            education,
            occupation,
            relationship,
            fc.crossed_column(["education", "occupation"], 1000),
        ],
        linear_optimizer=cn.train.FtrlOptimizer(learning_rate=0.1),
        dnn_feature_columns=[
            age_scaled,
            gain,
            hours,
            fc.indicator_column(education),
            fc.indicator_column(relationship),
            fc.embedding_column(occupation, 8),
        ],
        dnn_optimizer=cn.train.AdamOptimizer(learning_rate=0.001),
        dnn_hidden_units=[64, 32],
        label_vocabulary=LABEL_VOCABULARY,
        config=cn.estimators.RunConfig(tf_random_seed=seed, log_step_count_steps=0),
    )


def show_export(path: str) -> None:
    """List the export's files and the top of its model.json."""
    print(f"\nexport: {path}")
    for root, _, files in sorted(os.walk(path)):
        for name in sorted(files):
            full = os.path.join(root, name)
            print(f"  {os.path.getsize(full):>9,d} bytes  {os.path.relpath(full, path)}")
    with open(os.path.join(path, "model.json")) as f:
        meta = json.load(f)
    summary = {k: meta[k] for k in ("format_version", "library_version", "estimator", "head")}
    print(f"  model.json: {json.dumps(summary)}")


def predict_in_fresh_process(export_path: str, rows: list) -> pd.DataFrame:
    """Run PREDICT_IN_FRESH_PROCESS in a new interpreter: the proof that the export is
    self-contained (no estimator, no feature-column code from this script)."""
    done = subprocess.run(
        [sys.executable, "-c", PREDICT_IN_FRESH_PROCESS, export_path],
        input=json.dumps(rows),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the serving process failed:\n{done.stderr}")
    return pd.DataFrame(json.loads(done.stdout))


def make_handler(predictor):
    """An ``http.server`` request handler class answering ``POST /predict``."""

    class PredictHandler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            if self.path != "/predict":
                self.send_error(404, "POST rows as JSON to /predict")
                return
            try:
                length = int(self.headers.get("Content-Length", 0))
                rows = pd.DataFrame(json.loads(self.rfile.read(length)))
                predictions = predictor.predict(rows, predict_keys=["logistic", "classes"])
                status, body = (
                    200,
                    {"predictions": json.loads(predictions.to_json(orient="records"))},
                )
            except (ValueError, KeyError, TypeError) as e:
                # Bad input (a missing column, a wrong type) is the client's error: say why.
                status, body = 400, {"error": str(e)}
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format, *args):  # keep the tutorial's output readable
            pass

    return PredictHandler


def serve_requests(predictor, batches: list) -> list:
    """Start a local server for ``len(batches)`` requests, POST each batch of rows to it,
    and return the answers. The server listens on 127.0.0.1 only, on a free port."""
    server = http.server.HTTPServer(("127.0.0.1", 0), make_handler(predictor))
    server.timeout = 30  # handle_request gives up after 30 idle seconds: never hang
    url = f"http://127.0.0.1:{server.server_address[1]}/predict"

    def answer(count):
        for _ in range(count):
            server.handle_request()

    thread = threading.Thread(target=answer, args=(len(batches),), daemon=True)
    thread.start()
    answers = []
    try:
        for rows in batches:
            request = urllib.request.Request(
                url,
                data=json.dumps(rows).encode(),
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=60) as response:
                answers.append(json.loads(response.read()))
    finally:
        thread.join(timeout=60)
        server.server_close()
    return answers


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--train-rows", type=int, help="use a random subset of the training data")
    parser.add_argument("--rows-to-serve", type=int, default=200, help="test rows to predict")
    parser.add_argument("--requests", type=int, default=4, help="HTTP requests (0: no server)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work-dir", help="for the model and the export (default: a temp dir)")
    return parser.parse_args(argv)


def run(args, work_dir: str) -> dict:
    started = time.perf_counter()
    train = load_adult("train", rows=args.train_rows, seed=args.seed)
    test = load_adult("test")

    # 1. Train (Keras style) and evaluate.
    estimator = build_estimator(train, os.path.join(work_dir, "model"), args.seed)
    estimator.fit(train, label=LABEL, epochs=args.epochs, batch_size=args.batch_size)
    metrics = estimator.evaluate(test, label=LABEL, batch_size=4096)
    print(f"trained on {len(train):,} rows: test accuracy {metrics['accuracy']:.4f}")

    # 2. Export.
    export_path = estimator.export_saved_model(os.path.join(work_dir, "export"))
    show_export(export_path)

    # Raw rows, as a client would send them: every column of the data but the label, the
    # ones the model does not read included (they are ignored).
    raw = test.drop(columns=[LABEL]).head(args.rows_to_serve)
    rows = raw.to_dict(orient="records")
    expected = estimator.predict(raw)["logistic"].to_numpy()
    del estimator  # from here on, only the export is used

    # 3. A fresh process loads the export and predicts.
    fresh = predict_in_fresh_process(export_path, rows)
    fresh_diff = float(np.max(np.abs(fresh["logistic"].to_numpy() - expected)))
    print(f"\nfresh process: {len(fresh)} predictions, max |difference| {fresh_diff:.2e}")
    for row, (_, p) in list(zip(rows, fresh.iterrows()))[:3]:
        print(
            f"  age {row['age']:3d}, {row['education']:12s} {row['occupation']:18s} "
            f"-> {p['classes']:6s} (P(>50K) = {p['logistic']:.3f})"
        )

    # 4. Serve over HTTP, from a predictor loaded in this process.
    server_diff = None
    if args.requests > 0:
        predictor = cn.load(export_path)
        print(f"\nthe predictor reads the columns {predictor.input_columns}")
        per_request = -(-len(rows) // args.requests)  # ceiling division
        batches = [rows[i : i + per_request] for i in range(0, len(rows), per_request)]
        start = time.perf_counter()
        answers = serve_requests(predictor, batches)
        seconds = time.perf_counter() - start
        served = np.array([p["logistic"] for a in answers for p in a["predictions"]])
        server_diff = float(np.max(np.abs(served - expected)))
        print(
            f"HTTP: {len(answers)} requests, {len(served)} predictions in {seconds:.2f}s, "
            f"max |difference| {server_diff:.2e}"
        )

    return {
        "tutorial": "export_and_serve",
        "accuracy": round(float(metrics["accuracy"]), 4),
        "served_rows": len(fresh),
        "fresh_process_max_diff": fresh_diff,
        "http_requests": args.requests,
        "http_max_diff": server_diff,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    return run_tutorial(run, args, args.work_dir, prefix="colonnade_export_")


if __name__ == "__main__":
    main()
