"""The TF names ported programs use around their models: ``cn.io.gfile`` (``tf.io.gfile``),
``cn.logging`` (``tf.compat.v1.logging``), ``cn.saved_model``'s constants and the export
output classes under ``cn.estimators.export``."""

import logging
import os

import numpy as np
import pytest

import colonnade as cn
from colonnade.io import gfile


def test_gfile_on_local_paths_agrees_with_os(tmp_path):
    top = str(tmp_path / "a")
    gfile.makedirs(gfile.join(top, "b", "c"))
    gfile.makedirs(gfile.join(top, "b"))  # existing: fine, as TF's
    with gfile.GFile(gfile.join(top, "b", "x.txt"), "w") as f:
        f.write("hello\n")
    gfile.copy(gfile.join(top, "b", "x.txt"), gfile.join(top, "y.txt"))
    assert gfile.listdir(top) == sorted(os.listdir(top)) == ["b", "y.txt"]
    assert gfile.glob(gfile.join(top, "*", "*.txt")) == [str(tmp_path / "a" / "b" / "x.txt")]
    assert gfile.exists(top + "/y.txt") and not gfile.isdir(top + "/y.txt") and gfile.isdir(top)
    assert list(gfile.walk(top)) == [(p, sorted(d), sorted(f)) for p, d, f in os.walk(top)]
    info = gfile.stat(top + "/y.txt")
    assert (info.length, info.is_directory) == (6, False)
    assert info.mtime_nsec // 10**9 == int(os.stat(top + "/y.txt").st_mtime)
    with gfile.GFile(top + "/y.txt") as f:
        assert f.read() == "hello\n"
    gfile.rename(top + "/y.txt", top + "/z.txt")
    assert sorted(os.listdir(top)) == ["b", "z.txt"]
    gfile.remove(top + "/z.txt")
    gfile.rmtree(top)
    assert not os.path.exists(top)


def test_gfile_errors_are_tfs(tmp_path):
    missing = str(tmp_path / "missing")
    for call in (
        lambda: gfile.GFile(missing).read(),
        lambda: gfile.remove(missing),
        lambda: gfile.rmtree(missing),
        lambda: gfile.stat(missing),
        lambda: gfile.listdir(missing),
        lambda: gfile.copy(missing, str(tmp_path / "b")),
    ):
        with pytest.raises(gfile.NotFoundError, match="missing: no such file"):
            call()
    assert issubclass(gfile.NotFoundError, FileNotFoundError)
    (tmp_path / "a").write_text("1")
    (tmp_path / "b").write_text("2")
    with pytest.raises(gfile.AlreadyExistsError, match="overwrite=True"):
        gfile.copy(str(tmp_path / "a"), str(tmp_path / "b"))
    with pytest.raises(gfile.AlreadyExistsError, match="overwrite=True"):
        gfile.rename(str(tmp_path / "a"), str(tmp_path / "b"))
    gfile.rename(str(tmp_path / "a"), str(tmp_path / "b"), overwrite=True)
    assert (tmp_path / "b").read_text() == "1" and not (tmp_path / "a").exists()
    with pytest.raises(gfile.AlreadyExistsError):
        gfile.mkdir(str(tmp_path))
    with pytest.raises(ValueError, match="gfile cannot open 'nosuchscheme://x'"):
        gfile.exists("nosuchscheme://x")
    assert list(gfile.walk(missing)) == []


def test_gfile_urls_keep_their_scheme():
    """URLs go through fsspec (here its in-memory file system, as gs:// or s3:// would
    with gcsfs or s3fs installed); paths come back in the form they were asked in."""
    base = "memory://gfile_test"
    gfile.makedirs(base + "/d")
    with gfile.GFile(base + "/d/f.csv", "w") as f:
        f.write("a,b\n")
    assert gfile.glob(base + "/d/*.csv") == [base + "/d/f.csv"]
    assert gfile.listdir(base + "/d") == ["f.csv"]
    assert [top for top, _, _ in gfile.walk(base)] == [base, base + "/d"]
    gfile.copy(base + "/d/f.csv", base + "/g.csv")
    assert gfile.stat(base + "/g.csv").length == 4
    gfile.rmtree(base)
    assert not gfile.exists(base + "/d/f.csv")


def test_logging_set_verbosity_shows_the_training_log(tmp_path, capfd, monkeypatch):
    """TF scripts' first line, ``set_verbosity(INFO)``, makes the library's INFO log show
    on stderr; the message functions take %-style arguments."""
    logger = logging.getLogger("colonnade")
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    level = logger.level
    try:
        cn.logging.set_verbosity(cn.logging.INFO)
        assert cn.logging.get_verbosity() == logging.INFO == cn.logging.INFO
        cn.logging.info("step %d", 7)
        cn.logging.debug("hidden")
        for i in range(5):
            cn.logging.log_every_n(cn.logging.INFO, "every %d", 2, i)
            cn.logging.log_first_n(cn.logging.INFO, "first %d", 1, i)
        cn.logging.log_if(cn.logging.WARN, "shown", True)
        cn.logging.log_if(cn.logging.WARN, "not shown", False)
        err = capfd.readouterr().err
        assert "step 7" in err and "hidden" not in err
        assert [line.split(":")[-1] for line in err.splitlines() if "every" in line] == [
            "every 0",
            "every 2",
            "every 4",
        ]
        assert err.count("first") == 1 and "shown" in err and "not shown" not in err
        cn.logging.set_verbosity("error")
        assert cn.logging.get_verbosity() == logging.ERROR
        with pytest.raises(ValueError, match="set_verbosity takes a logging level"):
            cn.logging.set_verbosity(None)
    finally:
        logger.setLevel(level)


def test_saved_model_constants_and_export_outputs_have_tfs_values():
    sc = cn.saved_model.signature_constants  # values printed by TF 2.15
    assert sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert (sc.PREDICT_METHOD_NAME, sc.CLASSIFY_METHOD_NAME, sc.REGRESS_METHOD_NAME) == (
        "tensorflow/serving/predict",
        "tensorflow/serving/classify",
        "tensorflow/serving/regress",
    )
    assert (sc.CLASSIFY_OUTPUT_CLASSES, sc.CLASSIFY_OUTPUT_SCORES) == ("classes", "scores")
    tags = cn.saved_model.tag_constants  # TF 2.15: serve train gpu tpu
    assert (tags.SERVING, tags.TRAINING, tags.GPU, tags.TPU) == ("serve", "train", "gpu", "tpu")
    export = cn.estimators.export
    assert export.PredictOutput is cn.estimators.PredictOutput
    assert export.ClassificationOutput is cn.estimators.ClassificationOutput
    assert export.RegressionOutput is cn.estimators.RegressionOutput


def test_sparse_to_dense_pads_each_list_as_tf():
    """tf.sparse.to_dense of a VarLenFeature: rows padded with 0 (or b'' for strings)."""
    import pyarrow as pa

    ints = pa.array([[3, 1], None, [], [7, 8, 9]])
    assert cn.sparse.to_dense(ints).tolist() == [[3, 1, 0], [0, 0, 0], [0, 0, 0], [7, 8, 9]]
    assert cn.sparse.to_dense(ints, default_value=-1)[1].tolist() == [-1, -1, -1]
    strings = pa.chunked_array([pa.array([["a"]]), pa.array([["b", "c"]])])
    assert cn.sparse.to_dense(strings).tolist() == [["a", ""], ["b", "c"]]
    assert cn.sparse.to_dense(pa.array([[]], pa.list_(pa.float32()))).shape == (1, 0)
    with pytest.raises(TypeError, match="to_dense takes a variable-length feature"):
        cn.sparse.to_dense([1, 2])


def test_string_ops_split_and_parse_as_tf():
    """Values TF 2.15 gives (tf.compat.v1.string_split's values by row, tf.strings.split's
    ragged lists, tf.strings.to_number's float32)."""
    s = cn.strings
    assert s.string_split(["a b  c", "", "d"], " ").to_pylist() == [["a", "b", "c"], [], ["d"]]
    assert s.string_split(["a,b;c]d"], ",;]").to_pylist() == [["a", "b", "c", "d"]]
    assert s.string_split(["a,,b"], ",", skip_empty=False).to_pylist() == [["a", "", "b"]]
    assert s.split(["a  b ", "c"]).to_pylist() == [["a", "b"], ["c"]]
    assert s.split(["a|b||c"], "|").to_pylist() == [["a", "b", "", "c"]]
    assert s.split(["a b c"], maxsplit=1).to_pylist() == [["a", "b c"]]
    assert s.split([b"x y"]).to_pylist() == [["x", "y"]]  # bytes, as lines arrive
    numbers = s.to_number(["1", "2.5"])
    assert numbers.dtype == np.float32 and numbers.tolist() == [1.0, 2.5]
    assert s.to_number([["1"], ["2"]], out_type=np.int64).tolist() == [[1], [2]]
    with pytest.raises(ValueError, match="could not correctly convert string: x"):
        s.to_number(["1", "x"])
    assert cn.compat.v1.string_split is s.string_split
    assert cn.compat.v1.string_to_number is s.to_number


def test_tf1_dropout_reads_its_second_argument_as_keep_prob():
    """TF 1's `tf.nn.dropout(x, 0.9)` keeps 90%; TF 2's (cn.nn) drops 90%. A TF 1 program
    ported through cn.compat.v1 must keep its meaning."""
    x = np.ones((4000, 1))
    kept_v1 = float((cn.compat.v1.nn.dropout(x, 0.9, seed=0).numpy() != 0).mean())
    kept_v2 = float((cn.nn.dropout(x, 0.9, seed=0).numpy() != 0).mean())
    assert 0.87 < kept_v1 < 0.93 and 0.07 < kept_v2 < 0.13
    assert cn.compat.v1.nn.relu is cn.nn.relu


def test_to_dense_refuses_a_padding_it_cannot_hold():
    import pyarrow as pa

    hostile = pa.array([[0] * (1 << 20)] + [[]] * 300)  # one long row widens every row
    with pytest.raises(ValueError, match="would hold 315,621,376 values"):
        cn.sparse.to_dense(hostile)


def test_whole_file_ops_refuse_bad_input(tmp_path):
    """``cn.io.read_file`` / ``write_file`` / ``matching_files``: a missing file is
    gfile's NotFoundError (TF's), contents that are not bytes or text a TypeError, a
    pattern that is no glob a TypeError; nothing is written for a refused call."""
    with pytest.raises(gfile.NotFoundError):
        cn.io.read_file(str(tmp_path / "absent.txt"))
    with pytest.raises(TypeError, match="write_file writes bytes or str, got int"):
        cn.io.write_file(str(tmp_path / "x" / "n.txt"), 3)
    assert not (tmp_path / "x").exists()
    with pytest.raises(TypeError):
        cn.io.matching_files(None)
    cn.io.write_file(str(tmp_path / "a.bin"), b"\x00\xff")
    assert cn.io.read_file(str(tmp_path / "a.bin")) == b"\x00\xff"
    assert cn.io.matching_files(str(tmp_path / "*.none")) == []
