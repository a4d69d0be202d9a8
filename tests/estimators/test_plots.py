"""Plots: the curve points against scikit-learn, History.plot, and evaluate --plots."""

import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade import cli
from colonnade.estimators.runtime import plots

pytest.importorskip("matplotlib")
metrics = pytest.importorskip("sklearn.metrics")
calibration = pytest.importorskip("sklearn.calibration")

fc = cn.feature_columns
E = cn.estimators
PNG = b"\x89PNG\r\n\x1a\n"


def frame(n=200, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = np.digitize(x + rng.normal(scale=0.5, size=n), np.linspace(-1, 1, classes + 1)[1:-1])
    return pd.DataFrame({"x": x, "y": y, "target": 2 * x + rng.normal(scale=0.1, size=n)})


def is_png(path) -> bool:
    with open(path, "rb") as f:
        return f.read(8) == PNG


@pytest.mark.parametrize("seed", range(5))
def test_roc_points_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, 300)
    scores = np.round(rng.random(300), 2)  # ties
    weights = rng.random(300) if seed % 2 else None
    fpr, tpr, thresholds = plots.roc_points(labels, scores, weights)
    want = metrics.roc_curve(labels, scores, sample_weight=weights, drop_intermediate=False)
    np.testing.assert_allclose(fpr, want[0])
    np.testing.assert_allclose(tpr, want[1])
    np.testing.assert_allclose(thresholds[1:], want[2][1:])
    assert thresholds[0] == np.inf


def test_pr_and_calibration_points_match_sklearn():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 500)
    probabilities = np.clip(labels * 0.3 + rng.random(500) * 0.7, 0, 1)
    precision, recall = plots.pr_points(labels, probabilities)
    want_p, want_r, _ = metrics.precision_recall_curve(labels, probabilities)
    # sklearn stops at the first threshold reaching full recall; the area is the same
    area = -np.sum(np.diff(recall) * precision[:-1])
    assert area == pytest.approx(metrics.average_precision_score(labels, probabilities))
    assert recall[-1] == 0 and precision[-1] == 1 and want_r[-1] == 0
    got = plots.calibration_points(labels, probabilities, n_bins=10)
    want = calibration.calibration_curve(labels, probabilities, n_bins=10)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])


def test_history_plot_returns_a_figure(tmp_path):
    from matplotlib.figure import Figure

    est = E.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path / "m"))
    history = est.fit(frame(), label="y", epochs=2, validation_data=frame(50, seed=1))
    fig = history.plot()
    assert isinstance(fig, Figure)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "loss" and "accuracy" in titles
    assert {"val_label/mean", "val_accuracy_baseline"} <= set(history.history)
    assert "label/mean" not in titles and "accuracy_baseline" not in titles  # data, not model
    assert all(tick == int(tick) for ax in fig.axes for tick in ax.get_xticks())
    assert [len(line.get_xdata()) for line in fig.axes[0].lines] == [2, 2]  # train, val
    fig.savefig(tmp_path / "h.png")
    assert is_png(tmp_path / "h.png")


@pytest.mark.parametrize(
    "make, label, files",
    [
        (
            lambda d: E.LinearClassifier([fc.numeric_column("x")], model_dir=d),
            "y",
            ["roc.png", "precision_recall.png", "calibration.png"],
        ),
        (
            lambda d: E.LinearClassifier([fc.numeric_column("x")], n_classes=3, model_dir=d),
            "y",
            ["roc.png"],
        ),
        (
            lambda d: E.LinearRegressor([fc.numeric_column("x")], model_dir=d),
            "target",
            ["predicted_vs_actual.png", "residuals.png"],
        ),
    ],
)
def test_plot_evaluation_writes_pngs(tmp_path, make, label, files):
    data = frame(classes=3) if "n_classes" in str(make.__code__.co_names) else frame()
    est = make(str(tmp_path / "m"))
    est.fit(data, label=label, batch_size=64)
    paths = plots.plot_evaluation(est, data, label, str(tmp_path / "plots"))
    assert sorted(p.split("/")[-1] for p in paths) == sorted(files)
    assert all(is_png(p) for p in paths)


JOB = """
[data]
train = "train.parquet"
eval = "train.parquet"
label = "y"

[model]
type = "LinearClassifier"
model_dir = "run"

[[model.feature_columns]]
type = "numeric_column"
key = "x"
"""


def test_cli_evaluate_plots(tmp_path, capsys, monkeypatch):
    frame().to_parquet(tmp_path / "train.parquet")
    (tmp_path / "job.toml").write_text(textwrap.dedent(JOB))
    cfg = str(tmp_path / "job.toml")
    assert cli.main(["train", cfg]) == 0
    capsys.readouterr()
    assert cli.main(["evaluate", cfg, "--plots", str(tmp_path / "plots")]) == 0
    err = capsys.readouterr().err
    for name in ("roc.png", "precision_recall.png", "calibration.png"):
        assert is_png(tmp_path / "plots" / name)
        assert str(tmp_path / "plots" / name) in err  # says where it wrote
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # matplotlib missing
    assert cli.main(["evaluate", cfg, "--plots", str(tmp_path / "p2")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "colonnade[plot]"' in err


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r'pip install "colonnade\[plot\]"'):
        plots.require_matplotlib()


def labels_inside(fig) -> bool:
    """Every title and axis label of ``fig`` lies inside the figure once drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    box = fig.bbox
    texts = [t for ax in fig.axes for t in (ax.title, ax.xaxis.label, ax.yaxis.label)]
    return all(
        box.x0 <= e.x0 and e.x1 <= box.x1 and box.y0 <= e.y0 and e.y1 <= box.y1
        for e in (t.get_window_extent(renderer) for t in texts if t.get_text())
    )


def test_figures_keep_their_labels_and_name_the_auc():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 300)
    scores = np.clip(labels * 0.3 + rng.uniform(size=300) * 0.7, 0, 1)
    residual_y = rng.normal(size=300) * 1e5  # wide tick labels push the y label out
    figures = {
        **plots.binary_figures(labels, scores),
        **plots.regression_figures(residual_y, residual_y + rng.normal(size=300) * 1e4),
    }
    for name, fig in figures.items():
        assert labels_inside(fig), name
    legend = [t.get_text() for t in figures["roc.png"].axes[0].get_legend().get_texts()]
    assert legend == [f"AUC = {roc_auc_score(labels, scores):.3f}"]

    classes = rng.integers(0, 3, 300)
    probabilities = rng.dirichlet([1, 1, 1], 300)
    probabilities[np.arange(300), classes] += 0.5
    (roc,) = plots.multiclass_figures(classes, probabilities).values()
    legend = [t.get_text() for t in roc.axes[0].get_legend().get_texts()]
    want = [
        f"class {k} vs rest (AUC = {roc_auc_score(classes == k, probabilities[:, k]):.3f})"
        for k in range(3)
    ]
    assert legend == want
