"""The experiment behind colonnade.sklearn's default optimizers, learning rates and epochs.

Each setting is scored by 3-fold cross-validation on small data a scikit-learn user
meets first: scikit-learn's diabetes (442 rows, R²), breast cancer (569 rows, accuracy),
the regression set of scikit-learn's estimator checks (200 rows, R²), and 3,000 rows of
the census data with the tour's five deep columns (accuracy; the majority class is 0.76).
Run: python benchmarks/sklearn_defaults.py dnn|linear (about 15 minutes each on 2 cores).
"""

import itertools
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, make_regression
from sklearn.model_selection import cross_val_score
from sklearn.preprocessing import StandardScaler

import colonnade as cn
import colonnade.sklearn as sk
from colonnade.demo import load_adult

warnings.filterwarnings("ignore")
fc = cn.feature_columns


def census_columns():
    education = fc.categorical_column_with_hash_bucket("education", 1000)
    occupation = fc.categorical_column_with_hash_bucket("occupation", 1000)
    relationship = fc.categorical_column_with_vocabulary_list(
        "relationship", ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried"]
    )
    return [
        fc.numeric_column("hours-per-week", normalizer_fn=fc.standardize(40.4, 12.3)),
        fc.numeric_column("capital-gain", normalizer_fn=fc.log1p()),
        fc.indicator_column(relationship),
        fc.embedding_column(education, 8),
        fc.embedding_column(occupation, 8),
    ]


def datasets():
    X, y = load_diabetes(return_X_y=True)
    yield "diabetes", "regression", X, y, None
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", "classification", X, y, None
    X, y = make_regression(200, 10, n_informative=1, bias=5.0, noise=20, random_state=42)
    yield "check_regression", "regression", StandardScaler().fit_transform(X), y, None
    frame = load_adult("train").sample(3000, random_state=0).reset_index(drop=True)
    X, y = frame.drop(columns="income"), frame["income"]
    yield "census", "classification", X, y, census_columns()


def main(kind):
    settings = {
        "dnn": itertools.product(["Adagrad", "Adam"], [0.001, 0.01, 0.05], [5, 10, 20]),
        "linear": itertools.product(["Ftrl", "Adam"], [0.01, 0.05, 0.2], [5, 10, 20]),
    }[kind]
    data = list(datasets())
    for optimizer, rate, epochs in settings:
        scores, start = [], time.time()
        for _, task, X, y, columns in data:
            cls = {
                ("dnn", "regression"): sk.DNNRegressor,
                ("dnn", "classification"): sk.DNNClassifier,
                ("linear", "regression"): sk.LinearRegressor,
                ("linear", "classification"): sk.LinearClassifier,
            }[kind, task]
            model = cls(
                feature_columns=columns, optimizer=optimizer, learning_rate=rate,
                epochs=epochs, random_state=0,
            )  # fmt: skip
            scores.append(np.mean(cross_val_score(model, X, y, cv=3)))
        line = " ".join(f"{s:.3f}" for s in scores)
        print(f"{kind} {optimizer} {rate} epochs={epochs}: {line} ({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dnn")
