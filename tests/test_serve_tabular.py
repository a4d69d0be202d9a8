"""``colonnade serve`` of a zero-configuration model's export: a cross-fitted ensemble
(TabularClassifier on a small table) with its tree member is one wide&deep export, served
as any other, and answers what the ensemble itself predicts: the members' mean logit
blended with the mean raw score of the members' LightGBM models, as LightGBM itself
computes it from the saved model files."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.estimators.tabular import defaults as tabular_defaults
from colonnade.estimators.tabular import ensemble as tabular_ensemble
from colonnade.estimators.tabular import tree_blend

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_serve import Client, serve  # noqa: E402


def frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(list("abcdef"), n)})
    df["y"] = ((df["x"] + (df["k"] < "c") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


TREE_WEIGHT = 0.5


def lightgbm_raw_scores(model, rows):
    """The trees' mean raw score of ``rows`` by LightGBM itself, from the saved files."""
    lgb = pytest.importorskip("lightgbm")
    scores = []
    for member in model.tree_members_:
        column = member["column"]
        codes = []
        for key, kind, vocabulary in column.inputs:
            values = rows[key].tolist()
            if kind == "category":
                values = [vocabulary.index(v) if v in vocabulary else np.nan for v in values]
            codes.append(np.array(values, np.float64))
        booster = lgb.Booster(model_file=column.trees_file)
        scores.append(booster.predict(np.stack(codes, 1), raw_score=True))
    return np.mean(scores, axis=0)


@pytest.fixture(scope="module")
def ensemble(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve_tabular")
    small = {"MAX_EPOCHS": 2, "MIN_EPOCHS_NOISY": 1, "HIDDEN_UNITS": (8, 4)}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in small.items():
            patch.setattr(tabular_defaults, name, value)
        for name in ("MAX_MEMBERS", "FOLDS"):  # 3 members, 3 folds
            patch.setattr(tabular_ensemble, name, 3)
        patch.setattr(tree_blend, "TREE_WEIGHTS", (TREE_WEIGHT,))  # the trees blended in
        model = cn.estimators.TabularClassifier("y", model_dir=str(root / "model"), seed=0)
        model.fit(frame())
    first = model.export_saved_model(str(root / "exports"))
    for served in serve(root, root / "exports", first):
        client = Client(served["port"])
        yield {**served, "client": client, "model": model}
        client.conn.close()


def test_a_served_ensemble_answers_as_the_ensemble_predicts(ensemble):
    model = ensemble["model"]
    assert len(model.members_) == 3
    rows = frame(6, seed=1).drop(columns="y")
    status, body = ensemble["client"].predict({"instances": rows.to_dict("records")})
    assert status == 200, body
    served = np.array([p["logistic"][0] for p in body["predictions"]])
    members = [
        np.stack(m["estimator"].predict(rows, verbose=0)["logits"].to_numpy()).ravel()
        for m in model.members_
    ]
    mean_logit = np.mean(members, axis=0)
    assert model.tree_weight_ == TREE_WEIGHT and len(model.tree_members_) == 3
    logit = (1 - TREE_WEIGHT) * mean_logit + TREE_WEIGHT * lightgbm_raw_scores(model, rows)
    np.testing.assert_allclose(served, 1 / (1 + np.exp(-logit)), atol=1e-5)
    assert "trees: 3 LightGBM member(s)" in model.describe()
    assert f"blend weight {TREE_WEIGHT:g}" in model.describe()
