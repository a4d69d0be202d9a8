"""Model quality: TabularClassifier/TabularRegressor against boosted trees and TF-default
wide&deep and linear models, on the same train/test split, several seeds each.

    python benchmarks/quality.py [--datasets adult,...] [--models tabular,...] [--seeds 0,1,2]

(The wide benchmark, 17 tables against linear, HistGradientBoosting, LightGBM and XGBoost
baselines: ``benchmarks/quality_wide.py``.)

Every model runs once per seed (``--seeds``, default ``0,1,2``): its initial weights,
shuffles and (tabular) validation split and sample; the boosted trees' ``random_state``.
The train/test split stays the same for every seed, so seeds compare the models, not the
splits. One JSON line per (dataset, model, seed), then a summary line per (dataset,
model): each metric's mean and standard deviation over the seeds and the mean seconds.
Seattle's test set is 365 rows (one row = 0.0027 accuracy): compare means, not one seed.

Benchmark-only dependencies (not in pyproject): scikit-learn (boosted trees, diabetes),
statsmodels (``fair``), vega_datasets (``seattle_weather``), plotnine (``diamonds``).
Each ships its data inside the package: nothing is downloaded at run time.

- ``adult``: the bundled census income data, official train/test splits; the hand-written
  reference columns are ``colonnade/demo.py``'s (TF's census tutorial) with
  ``DNNLinearCombinedClassifier``'s TF defaults (Adagrad, Ftrl at min(0.005, ...)),
  hidden units [100, 75, 50, 25], 4 epochs of batch 256.
- ``diabetes``: scikit-learn's bundled diabetes regression (442 rows), a seeded 80/20
  split; the reference wide&deep gets one numeric column per feature, TF defaults.

- ``fair``: statsmodels' affairs survey (6,366 rows, 8 small-integer columns), a small
  churn-like table: did the respondent have an affair (``affairs > 0``); seeded 80/20.
- ``seattle_weather``: vega_datasets' daily Seattle weather 2012-2015 (1,461 days), a
  time-ordered weak signal: will it rain tomorrow (``precipitation > 0`` the next day)
  from today's weather and the month; trained on 2012-2014, tested on 2015.
- ``diamonds``: plotnine's diamonds (53,940 rows; cut, color, clarity as strings), a
  price regression of log(price), seeded 80/20.

The reference models for the last three get hand-written columns as a TF user would
write them with no statistics: a vocabulary list per string column (indicator in the
deep part) and each number raw, in both parts; wide&deep with TF's defaults and hidden
units [100, 75, 50, 25], and the linear model with TF's defaults (Ftrl), 4 epochs of
batch 256 each.

The boosted trees are scikit-learn's ``HistGradientBoosting*`` with defaults (scikit-learn
is a benchmark-only dependency), categorical columns passed as pandas categories.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
import pandas as pd


def _hgb(task, train, test, label, seed):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.metrics import accuracy_score, mean_squared_error, roc_auc_score

    x_train, x_test = train.drop(columns=[label]), test.drop(columns=[label])
    for c in x_train.columns:
        if not pd.api.types.is_numeric_dtype(x_train[c]):
            cats = pd.CategoricalDtype(sorted(set(x_train[c].dropna())))
            x_train[c], x_test[c] = x_train[c].astype(cats), x_test[c].astype(cats)
    if task == "regression":
        model = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=seed)
        model.fit(x_train, train[label])
        rmse = mean_squared_error(test[label], model.predict(x_test)) ** 0.5
        return {"rmse": round(float(rmse), 4)}
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=seed)
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


def _tabular(task, train, test, label, seed):
    import colonnade as cn

    estimators = cn.estimators
    cls = estimators.TabularRegressor if task == "regression" else estimators.TabularClassifier
    model = cls(label, model_dir=tempfile.mkdtemp(), seed=seed).fit(train)
    return {**_metrics(task, model.evaluate(test)), "epochs": model.best_epoch_}


def _vocabulary(labels):
    """String labels' sorted values; None for class ids 0/1."""
    return None if pd.api.types.is_numeric_dtype(labels) else sorted(labels.unique())


def _tf_linear(task, train, test, label, seed, wide, deep, epochs=4, batch_size=256):
    import colonnade as cn

    config = cn.estimators.RunConfig(
        model_dir=tempfile.mkdtemp(), tf_random_seed=seed, log_step_count_steps=0
    )
    if task == "regression":
        model = cn.estimators.LinearRegressor(feature_columns=wide, config=config)
    else:
        model = cn.estimators.LinearClassifier(
            feature_columns=wide, label_vocabulary=_vocabulary(train[label]), config=config
        )
    model.fit(train, label=label, epochs=epochs, batch_size=batch_size, seed=seed, verbose=0)
    return _metrics(task, model.evaluate(test, label=label, verbose=0))


def _tf_default(task, train, test, label, seed, wide, deep, epochs=4, batch_size=256):
    import colonnade as cn

    kwargs = dict(
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=[100, 75, 50, 25],
        config=cn.estimators.RunConfig(
            model_dir=tempfile.mkdtemp(), tf_random_seed=seed, log_step_count_steps=0
        ),
    )
    if task == "regression":
        model = cn.estimators.DNNLinearCombinedRegressor(**kwargs)
    else:
        model = cn.estimators.DNNLinearCombinedClassifier(
            label_vocabulary=_vocabulary(train[label]), **kwargs
        )
    model.fit(train, label=label, epochs=epochs, batch_size=batch_size, seed=seed, verbose=0)
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


def _hand_columns(frame, label):
    """The columns a TF user writes without statistics: a vocabulary list per string
    column (an indicator in the deep part), each number raw in both parts."""
    import colonnade as cn

    fc = cn.feature_columns
    wide, deep = [], []
    for name in frame.columns:
        if name == label:
            continue
        if pd.api.types.is_numeric_dtype(frame[name]):
            column = fc.numeric_column(name)
            wide.append(column)
            deep.append(column)
        else:
            vocab = sorted(frame[name].dropna().unique())
            column = fc.categorical_column_with_vocabulary_list(name, vocab)
            wide.append(column)
            deep.append(fc.indicator_column(column))
    return wide, deep


def _seeded_split(frame, share=0.8):
    order = np.random.default_rng(0).permutation(len(frame))
    cut = int(share * len(frame))
    return frame.iloc[order[:cut]].reset_index(drop=True), frame.iloc[order[cut:]].reset_index(
        drop=True
    )


def fair():
    import statsmodels.api as sm

    frame = sm.datasets.fair.load_pandas().data
    frame = frame.assign(affair=(frame.pop("affairs") > 0).astype(int))
    train, test = _seeded_split(frame)
    return ("binary", train, test, "affair", *_hand_columns(frame, "affair"))


def seattle_weather():
    from vega_datasets import local_data

    days = local_data.seattle_weather().sort_values("date").reset_index(drop=True)
    date = pd.to_datetime(days.pop("date"))
    days["month"] = date.dt.month
    days["rain_tomorrow"] = (days["precipitation"].shift(-1) > 0).astype(int)
    days, date = days.iloc[:-1], date.iloc[:-1]
    train, test = days[date.dt.year < 2015], days[date.dt.year == 2015]
    train, test = train.reset_index(drop=True), test.reset_index(drop=True)
    return ("binary", train, test, "rain_tomorrow", *_hand_columns(days, "rain_tomorrow"))


def diamonds():
    from plotnine.data import diamonds as frame

    frame = frame.copy()
    for name in ("cut", "color", "clarity"):
        frame[name] = frame[name].astype(str)
    frame["log_price"] = np.log(frame.pop("price").astype(float))
    train, test = _seeded_split(frame)
    return ("regression", train, test, "log_price", *_hand_columns(frame, "log_price"))


DATASETS = {
    "adult": adult,
    "diabetes": diabetes,
    "fair": fair,
    "seattle_weather": seattle_weather,
    "diamonds": diamonds,
}
MODELS = ("tabular", "hist_gradient_boosting", "wide_deep_tf_defaults", "linear_tf_defaults")


def _summary(dataset, model, lines):
    """Mean and standard deviation (over the seeds) of each metric, and the mean time."""
    out = {"dataset": dataset, "model": model, "seeds": len(lines)}
    for key in lines[0]:
        if key in ("dataset", "model", "seed", "load"):
            continue
        values = np.array([line[key] for line in lines], dtype=float)
        out[f"{key}_mean"] = round(float(values.mean()), 4)
        if key != "seconds":
            out[f"{key}_std"] = round(float(values.std()), 4)
    return out


def run(datasets, models, seeds, emit=print):
    """Run ``models`` on ``datasets`` once per seed; ``emit`` each JSON line (per seed,
    then the summaries); returns the summaries."""
    summaries = []
    for name in datasets:
        task, train, test, label, wide, deep = DATASETS[name]()
        runs = {
            "tabular": (_tabular, ()),
            "hist_gradient_boosting": (_hgb, ()),
            "wide_deep_tf_defaults": (_tf_default, (wide, deep)),
            "linear_tf_defaults": (_tf_linear, (wide, deep)),
        }
        for model, (fit, extra) in runs.items():
            if model not in models:
                continue
            lines = []
            for seed in seeds:
                started = time.perf_counter()
                metrics = fit(task, train, test, label, seed, *extra)
                line = {
                    "dataset": name,
                    "model": model,
                    "seed": seed,
                    **metrics,
                    "seconds": round(time.perf_counter() - started, 1),
                    "load": round(os.getloadavg()[0], 1),
                }
                emit(json.dumps(line))
                lines.append(line)
            summaries.append(_summary(name, model, lines))
    for summary in summaries:
        emit(json.dumps(summary))
    return summaries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated integer seeds")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    run(args.datasets.split(","), args.models.split(","), seeds, lambda s: print(s, flush=True))


if __name__ == "__main__":
    main()
