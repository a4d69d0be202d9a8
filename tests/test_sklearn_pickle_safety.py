"""Issue 41 (bug 5): unpickling an adapter writes its export's files only inside its own
temporary folder. A pickled state naming ``../`` paths or absolute paths (the probe
overwrote files that way, even under an allow-list unpickler) is refused with a
``ValueError`` naming the file, and nothing is written outside. The adapters' docstrings
say pickles must be trusted and point to the pickle-free export."""

import os
import pickle
import tempfile

import numpy as np
import pytest

pytest.importorskip("sklearn")

import colonnade.sklearn as sk  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    return sk.LinearClassifier(epochs=2, random_state=0).fit(X, y), X


@pytest.fixture
def tmp_root(tmp_path, monkeypatch):
    """tempfile's folder moved under ``tmp_path``: ``../victim`` from the adapter's folder
    is ``tmp_path/victim``."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return tmp_path


def _hostile_pickle(model, name, data=b"owned"):
    state = model.__getstate__()
    state["_export_files"] = {**state["_export_files"], name: data}
    cls = type(model)

    class Carrier:  # pickles as cls with the altered state, as an edited pickle would
        def __reduce__(self):
            return (object.__new__, (cls,), state)

    return pickle.dumps(Carrier())


def test_an_honest_pickle_still_round_trips(fitted, tmp_root):
    model, X = fitted
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    assert back.estimator_.path.startswith(str(tmp_root / "tmp"))


@pytest.mark.parametrize(
    "name",
    [
        "../victim.txt",
        "variables/../../victim.txt",
        "./../victim.txt",
        "..\\victim.txt",
        "ABSOLUTE",
        "",
        "a//b",
        "nul\0.txt",
    ],
)
def test_a_state_naming_a_path_outside_is_refused_and_writes_nothing(fitted, tmp_root, name):
    model, _ = fitted
    victim = tmp_root / "victim.txt"
    name = str(victim) if name == "ABSOLUTE" else name
    data = _hostile_pickle(model, name)
    before = sorted(os.listdir(tmp_root))
    with pytest.raises(ValueError, match=r"unpickling an adapter: its export lists the file"):
        pickle.loads(data)
    assert not victim.exists()
    assert sorted(os.listdir(tmp_root)) == before


@pytest.mark.parametrize(
    "name, data, match",
    [
        (7, b"x", "a file name of type int"),
        ("extra.txt", "text", "holds a str, expected bytes"),
    ],
)
def test_a_state_of_the_wrong_types_is_refused(fitted, tmp_root, name, data, match):
    with pytest.raises(ValueError, match=match):
        pickle.loads(_hostile_pickle(fitted[0], name, data))


def test_the_docstrings_say_pickles_must_be_trusted_and_point_to_the_export():
    for cls in (sk.LinearClassifier, sk.DNNRegressor, sk.TabularClassifier):
        doc = " ".join(cls.__doc__.split())
        assert "only" in doc and "you trust" in doc, cls.__name__
        assert "export_saved_model(folder)" in doc and "cn.load" in doc, cls.__name__
    for module in (sk, sk.adapters):
        doc = " ".join(module.__doc__.split())
        assert "sources you trust" in doc and "export_saved_model(folder)" in doc
