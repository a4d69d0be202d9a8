"""The ``tf.compat.v1`` names the ported programs call, beyond those ``cn.compat.v1`` had:
``tf.decode_csv``, ``tf.data`` and TF 1's capitalised ``tf.gfile`` functions."""

import glob
import os

import colonnade as cn


def test_tf1_gfile_names_behave_as_tfs(tmp_path):
    gfile = cn.compat.v1.gfile
    for name in ("b.csv", "a.csv", "c.txt"):
        (tmp_path / name).write_text("1\n")
    pattern = str(tmp_path / "*.csv")
    assert sorted(gfile.Glob(pattern)) == sorted(glob.glob(pattern))
    assert gfile.Exists(pattern.replace("*", "a")) and not gfile.Exists(str(tmp_path / "x"))
    gfile.MakeDirs(str(tmp_path / "d" / "e"))
    assert gfile.IsDirectory(str(tmp_path / "d"))
    assert sorted(gfile.ListDirectory(str(tmp_path))) == sorted(os.listdir(tmp_path))
    gfile.Copy(str(tmp_path / "a.csv"), str(tmp_path / "d" / "a.csv"))
    gfile.Rename(str(tmp_path / "d" / "a.csv"), str(tmp_path / "d" / "z.csv"))
    with gfile.Open(str(tmp_path / "d" / "z.csv")) as f:
        assert f.read() == "1\n"
    assert gfile.Stat(str(tmp_path / "d" / "z.csv")).length == 2
    gfile.Remove(str(tmp_path / "d" / "z.csv"))
    gfile.DeleteRecursively(str(tmp_path / "d"))
    assert not os.path.exists(tmp_path / "d")


def test_tf1_decode_csv_and_data_are_tf2s():
    """TF 2 moved ``tf.decode_csv`` to ``tf.io.decode_csv`` unchanged; a record decodes to
    one column per default, typed as the default (TF: ``[b'k', 2.5, 3]``)."""
    assert cn.compat.v1.data is cn.data
    columns = cn.compat.v1.decode_csv(["k,2.5,3"], record_defaults=[[""], [0.0], [0]])
    assert [list(c) for c in columns] == [["k"], [2.5], [3]]  # strings as str, not bytes


def test_glorot_normal_initializer_draws_as_tfs():
    """TF 2.15's ``tf.compat.v1.glorot_normal_initializer(seed=1)([300, 200])`` has standard
    deviation 0.06325 (= sqrt(2 / 500)) and largest magnitude 0.14380 (just under its cut,
    2 * sqrt(2 / 500) / 0.8796); a [1000] vector, 0.0311 and 0.0717 (fans 1000 and 1000)."""
    kernel = cn.compat.v1.glorot_normal_initializer(seed=1)((300, 200))
    assert abs(kernel.std() - 0.06325) < 0.002
    assert 0.140 < abs(kernel).max() <= 2 * (2 / 500) ** 0.5 / 0.87962566103423978
    vector = cn.compat.v1.glorot_normal_initializer(seed=2)((1000,))
    assert abs(vector.std() - 0.0316) < 0.002 and abs(vector).max() <= 0.0719
    assert cn.compat.v1.constant_initializer(0.0)((1,)).tolist() == [0.0]
