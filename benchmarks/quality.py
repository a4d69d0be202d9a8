"""Model quality: TabularClassifier/TabularRegressor against boosted trees and TF-default
wide&deep, on the same train/test split, one JSON line per model and dataset.

    python benchmarks/quality.py [--datasets adult,diabetes]

- ``adult``: the bundled census income data, official train/test splits; the hand-written
  reference columns are ``colonnade/demo.py``'s (TF's census tutorial) with
  ``DNNLinearCombinedClassifier``'s TF defaults (Adagrad, Ftrl at min(0.005, ...)),
  hidden units [100, 75, 50, 25], 4 epochs of batch 256.
- ``diabetes``: scikit-learn's bundled diabetes regression (442 rows), a seeded 80/20
  split; the reference wide&deep gets one numeric column per feature, TF defaults.

The boosted trees are scikit-learn's ``HistGradientBoosting*`` with defaults (scikit-learn
is a benchmark-only dependency), categorical columns passed as pandas categories.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np
import pandas as pd


def _hgb(task, train, test, label):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.metrics import accuracy_score, mean_squared_error, roc_auc_score

    x_train, x_test = train.drop(columns=[label]), test.drop(columns=[label])
    for c in x_train.columns:
        if not pd.api.types.is_numeric_dtype(x_train[c]):
            cats = pd.CategoricalDtype(sorted(set(x_train[c].dropna())))
            x_train[c], x_test[c] = x_train[c].astype(cats), x_test[c].astype(cats)
    if task == "regression":
        model = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0)
        model.fit(x_train, train[label])
        rmse = mean_squared_error(test[label], model.predict(x_test)) ** 0.5
        return {"rmse": round(float(rmse), 4)}
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0)
    model.fit(x_train, train[label])
    proba = model.predict_proba(x_test)[:, 1]
    y = (test[label] == model.classes_[1]).to_numpy()
    return {
        "accuracy": round(float(accuracy_score(test[label], model.predict(x_test))), 4),
        "auc": round(float(roc_auc_score(y, proba)), 4),
    }


def _metrics(task, result):
    if task == "regression":
        return {"rmse": round(float(result["average_loss"]) ** 0.5, 4)}
    return {"accuracy": round(float(result["accuracy"]), 4), "auc": round(float(result["auc"]), 4)}


def _tabular(task, train, test, label):
    import colonnade as cn

    estimators = cn.estimators
    cls = estimators.TabularRegressor if task == "regression" else estimators.TabularClassifier
    model = cls(label, model_dir=tempfile.mkdtemp(), seed=0).fit(train)
    return {**_metrics(task, model.evaluate(test)), "epochs": model.best_epoch_}


def _tf_default(task, train, test, label, wide, deep, epochs=4, batch_size=256):
    import colonnade as cn

    kwargs = dict(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[100, 75, 50, 25],
        config=cn.estimators.RunConfig(
            model_dir=tempfile.mkdtemp(), tf_random_seed=0, log_step_count_steps=0
        ),
    )
    if task == "regression":
        model = cn.estimators.DNNLinearCombinedRegressor(**kwargs)
    else:
        model = cn.estimators.DNNLinearCombinedClassifier(
            label_vocabulary=sorted(train[label].unique()), **kwargs
        )
    model.fit(train, label=label, epochs=epochs, batch_size=batch_size, seed=0, verbose=0)
    return _metrics(task, model.evaluate(test, label=label, verbose=0))


def adult():
    from colonnade.demo import census_columns, load_adult

    wide, deep = census_columns()
    return "binary", load_adult("train"), load_adult("test"), "income", wide, deep


def diabetes():
    from sklearn.datasets import load_diabetes

    import colonnade as cn

    frame = load_diabetes(as_frame=True).frame
    order = np.random.default_rng(0).permutation(len(frame))
    cut = int(0.8 * len(frame))
    train, test = frame.iloc[order[:cut]], frame.iloc[order[cut:]]
    columns = [cn.feature_columns.numeric_column(c) for c in frame.columns if c != "target"]
    return "regression", train, test, "target", columns, columns


DATASETS = {"adult": adult, "diabetes": diabetes}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--models", default="tabular,hist_gradient_boosting,wide_deep_tf_defaults")
    args = parser.parse_args()
    for name in args.datasets.split(","):
        task, train, test, label, wide, deep = DATASETS[name]()
        runs = {
            "tabular": (_tabular, ()),
            "hist_gradient_boosting": (_hgb, ()),
            "wide_deep_tf_defaults": (_tf_default, (wide, deep)),
        }
        for model, (run, extra) in runs.items():
            if model not in args.models.split(","):
                continue
            started = time.perf_counter()
            metrics = run(task, train, test, label, *extra)
            seconds = round(time.perf_counter() - started, 1)
            line = {"dataset": name, "model": model, **metrics, "seconds": seconds}
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
