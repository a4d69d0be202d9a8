"""Warm start: selection, renaming, vocabulary remapping, assignment maps, errors, logs."""

import logging

import numpy as np
import pytest

import colonnade as cn
from colonnade.core import optimizers as opt_mod
from colonnade.core.checkpoint_format import write_checkpoint

T = cn.train
Variable = cn.core.Variable


def _ckpt(tmp_path, arrays, name="c"):
    return write_checkpoint(tmp_path / name, {k: (np.asarray(v), {}) for k, v in arrays.items()})


# --------------------------------------------------------------------------- vocabulary remap

OLD_ROWS = np.array([[1, 2], [3, 4], [5, 6], [70, 80]], np.float32)  # apple, banana, cherry, OOV
OLD_VOCAB = ["apple", "banana", "cherry"]
NEW_VOCAB = ["cherry", "date", "apple", "elder"]  # only the first 3 are used


def test_rows_move_to_their_tokens_new_positions(tmp_path):
    path = _ckpt(tmp_path, {"emb": OLD_ROWS})
    emb = Variable(np.full((5, 2), 9.0, np.float32), name="emb")
    info = T.VocabInfo(
        NEW_VOCAB, 3, num_oov_buckets=2, old_vocab=OLD_VOCAB,
        backup_initializer=cn.core.initializers.constant(-1.0),
    )  # fmt: skip
    assert T.warm_start(path, var_name_to_vocab_info={"emb": info}, variables=[emb]) == ["emb"]
    # cherry <- old row 2; date is new; apple <- old row 0; two OOV buckets; old OOV ignored
    expected = [[5, 6], [-1, -1], [1, 2], [-1, -1], [-1, -1]]
    np.testing.assert_array_equal(emb.numpy(), expected)
    assert emb.numpy().dtype == np.float32


def test_old_vocab_size_limits_the_old_vocabulary_and_backup_defaults_to_zeros(tmp_path):
    path = _ckpt(tmp_path, {"emb": OLD_ROWS})
    emb = Variable(np.full((5, 2), 9.0, np.float32), name="emb")
    info = T.VocabInfo(NEW_VOCAB, 3, 2, old_vocab=OLD_VOCAB, old_vocab_size=2)
    T.warm_start(path, var_name_to_vocab_info={"emb": info}, variables=[emb])
    # cherry is beyond old_vocab_size, so it is new now
    np.testing.assert_array_equal(emb.numpy(), [[0, 0], [0, 0], [1, 2], [0, 0], [0, 0]])


def test_vocabulary_files_and_column_remapping(tmp_path):
    old_file, new_file = tmp_path / "old.txt", tmp_path / "new.txt"
    old_file.write_text("a\nb\nc\n")
    new_file.write_text("c\r\na\r\nz\r\n")
    path = _ckpt(tmp_path, {"logits/kernel": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]})
    kernel = Variable(np.ones((2, 3)), name="logits/kernel")
    info = T.VocabInfo(str(new_file), 3, 0, old_vocab=old_file, axis=1)
    T.warm_start(path, var_name_to_vocab_info={"logits/kernel": info}, variables=[kernel])
    np.testing.assert_array_equal(kernel.numpy(), [[3, 1, 0], [6, 4, 0]])


def test_vocab_shape_errors_name_the_variable(tmp_path):
    path = _ckpt(tmp_path, {"emb": OLD_ROWS})
    info = T.VocabInfo(NEW_VOCAB, 3, 2, old_vocab=OLD_VOCAB)
    wrong_rows = Variable(np.zeros((4, 2)), name="emb")
    with pytest.raises(ValueError, match=r"'emb' has 4 entries.*3 \+ 2 = 5"):
        T.warm_start(path, var_name_to_vocab_info={"emb": info}, variables=[wrong_rows])
    wrong_cols = Variable(np.zeros((5, 3)), name="emb")
    with pytest.raises(ValueError, match=r"'emb'.*\(5, 3\).*\(4, 2\)"):
        T.warm_start(path, var_name_to_vocab_info={"emb": info}, variables=[wrong_cols])
    too_big = T.VocabInfo(NEW_VOCAB, 3, 2, old_vocab=OLD_VOCAB + ["x", "y"])
    with pytest.raises(ValueError, match="fewer than the 5 tokens"):
        T.warm_start(
            path,
            var_name_to_vocab_info={"emb": too_big},
            variables=[Variable(np.zeros((5, 2)), name="emb")],
        )


def test_vocab_info_is_validated():
    with pytest.raises(ValueError, match="axis must be 0"):
        T.VocabInfo(["a"], 1, 0, ["a"], axis=2)
    with pytest.raises(ValueError, match="new_vocab_size must be a positive int"):
        T.VocabInfo(["a"], 0, 0, ["a"])
    with pytest.raises(ValueError, match="num_oov_buckets"):
        T.VocabInfo(["a"], 1, -1, ["a"])
    with pytest.raises(ValueError, match="new_vocab_size=3 but the new_vocab list has only 1"):
        T.VocabInfo(["a"], 3, 0, ["a"]).new_tokens()
    with pytest.raises(ValueError, match="'a' twice"):
        T.VocabInfo(["a"], 1, 0, ["a", "b", "a"]).old_tokens()


def test_optimizer_slots_are_remapped_like_their_variable(tmp_path):
    rng = np.random.default_rng(0)
    old_emb = Variable(rng.normal(size=(4, 2)).astype(np.float32))  # a, b, c + 1 OOV
    old_opt = opt_mod.AdagradOptimizer(0.1, initial_accumulator_value=0.1)
    for ids in ([0, 2, 3], [2, 1]):
        old_opt.minimize(
            lambda i=ids: cn.core.sum(cn.core.gather(old_emb, i) ** 2), var_list=[old_emb]
        )
    path = T.Checkpoint(model={"emb": old_emb}, optimizer=old_opt).save(tmp_path / "ckpt")
    old_acc = old_opt.get_slot(old_emb, "accumulator").numpy()
    assert not np.allclose(old_acc, 0.1)

    emb = Variable(np.zeros((4, 2), np.float32))  # c, d, a + 1 OOV
    opt = opt_mod.AdagradOptimizer(0.1, initial_accumulator_value=0.1)
    new_model = T.Checkpoint(model={"emb": emb}, optimizer=opt)
    info = T.VocabInfo(["c", "d", "a"], 3, 1, old_vocab=["a", "b", "c"])
    T.warm_start(
        path,
        var_name_to_vocab_info={"model/emb": info},
        variables=new_model,
        optimizer=opt,
    )
    acc = opt.get_slot(emb, "accumulator").numpy()
    np.testing.assert_array_equal(emb.numpy()[[0, 2]], old_emb.numpy()[[2, 0]])
    np.testing.assert_array_equal(emb.numpy()[[1, 3]], np.zeros((2, 2)))
    np.testing.assert_array_equal(acc[[0, 2]], old_acc[[2, 0]])
    np.testing.assert_array_equal(acc[[1, 3]], np.full((2, 2), 0.1, np.float32))  # initial


# --------------------------------------------------------------------------- selection


@pytest.fixture
def model(tmp_path):
    arrays = {
        "dense/kernel": np.full((2, 2), 1.0),
        "dense/bias": np.full(2, 2.0),
        "dense/kernel/acc": np.full((2, 2), 3.0),
        "global_step": np.int64(7),
        "old/kernel": np.full((2, 2), 4.0),
    }
    path = _ckpt(tmp_path, arrays)
    variables = {
        "dense/kernel": Variable(np.zeros((2, 2))),
        "dense/bias": Variable(np.zeros(2)),
        "dense/kernel/acc": Variable(np.zeros((2, 2)), trainable=False),
        "global_step": Variable(np.int64(0), trainable=False),
    }
    return path, variables


def _values(variables):
    return {k: v.numpy().tolist() for k, v in variables.items()}


def test_regex_string_selects_trainable_variables_only(model, caplog):
    path, variables = model
    with caplog.at_level(logging.INFO, logger="colonnade"):
        assert T.warm_start(path, ".*", variables=variables) == ["dense/kernel", "dense/bias"]
    got = _values(variables)
    assert got["dense/kernel"] == [[1.0, 1.0]] * 2 and got["dense/bias"] == [2.0, 2.0]
    assert got["dense/kernel/acc"] == [[0.0, 0.0]] * 2 and got["global_step"] == 0
    assert "warm-started 2 variables" in caplog.text
    assert "left alone by warm_start: ['dense/kernel/acc', 'global_step']" in caplog.text


def test_regex_matches_from_the_start_of_the_name(model):
    path, variables = model
    assert T.warm_start(path, "dense/k", variables=variables) == ["dense/kernel"]
    assert T.warm_start(path, "kernel", variables=variables) == []


def test_list_of_regexes_includes_non_trainable_variables(model):
    path, variables = model
    chosen = T.warm_start(path, ["dense/.*", "global_step"], variables=variables)
    assert sorted(chosen) == ["dense/bias", "dense/kernel", "dense/kernel/acc", "global_step"]
    assert _values(variables)["dense/kernel/acc"] == [[3.0, 3.0]] * 2
    assert _values(variables)["global_step"] == 7
    with pytest.raises(ValueError, match=r"\['nothing/.*'\] match no variable"):
        T.warm_start(path, ["dense/bias", "nothing/.*"], variables=variables)


def test_list_of_variables_and_renaming(model):
    path, variables = model
    kernel = variables["dense/kernel"]
    chosen = T.warm_start(
        path,
        [kernel],
        var_name_to_prev_var_name={"dense/kernel": "old/kernel"},
        variables=variables,
    )
    assert chosen == ["dense/kernel"]
    assert _values(variables)["dense/kernel"] == [[4.0, 4.0]] * 2
    assert _values(variables)["dense/bias"] == [0.0, 0.0]


def test_none_warm_starts_only_variables_with_vocab_info(tmp_path):
    path = _ckpt(tmp_path, {"emb": OLD_ROWS, "bias": [5.0]})
    emb, bias = Variable(np.zeros((4, 2)), name="emb"), Variable([0.0], name="bias")
    info = T.VocabInfo(["banana", "x", "apple"], 3, 1, old_vocab=OLD_VOCAB)
    assert T.warm_start(path, None, {"emb": info}, variables=[emb, bias]) == ["emb"]
    np.testing.assert_array_equal(emb.numpy(), [[3, 4], [0, 0], [1, 2], [0, 0]])
    assert bias.numpy().tolist() == [0.0]


def test_unused_vocab_info_or_prev_name_is_an_error(model):
    path, variables = model
    info = T.VocabInfo(["a"], 1, 0, ["a"])
    with pytest.raises(ValueError, match=r"var_name_to_vocab_info names \['dense/kernel/acc'\]"):
        T.warm_start(path, ".*", {"dense/kernel/acc": info}, variables=variables)
    with pytest.raises(ValueError, match=r"var_name_to_prev_var_name names \['dense/kernl'\]"):
        T.warm_start(path, ".*", None, {"dense/kernl": "old/kernel"}, variables=variables)


def test_missing_or_misshapen_variables_raise_and_assign_nothing(model):
    path, variables = model
    extra = dict(variables, **{"head/w": Variable(np.zeros(3)), "dense/b2": Variable([0.0])})
    with pytest.raises(ValueError, match=r"'head/w' is not in checkpoint.*'dense/b2'"):
        T.warm_start(path, ".*", variables=extra)
    assert _values(variables)["dense/kernel"] == [[0.0, 0.0]] * 2
    wrong = {"dense/bias": Variable(np.zeros(3))}
    with pytest.raises(ValueError, match=r"'dense/bias' has shape \(3,\).*shape \(2,\)"):
        T.warm_start(path, ".*", variables=wrong)


def test_variables_are_required_and_names_unique(model):
    path, _ = model
    with pytest.raises(ValueError, match="no global variable collection"):
        T.warm_start(path)
    twins = [Variable([0.0], name="x"), Variable([0.0], name="x")]
    with pytest.raises(ValueError, match="two variables are named 'x'"):
        T.warm_start(path, variables=twins)


# --------------------------------------------------------------------------- init_from_checkpoint


@pytest.fixture
def scoped(tmp_path):
    arrays = {
        "old_scope_1/var1": np.full((2, 2), 1.0),
        "old_scope_1/var2": np.full(3, 2.0),
        "old_scope_2/var3": np.full(4, 3.0),
        "var4": np.full(1, 4.0),
    }
    variables = [
        Variable(np.zeros((2, 2)), name="new_scope_1/var1"),
        Variable(np.zeros(3), name="new_scope_1/var2"),
        Variable(np.zeros(4), name="new_scope_2/var3"),
        Variable(np.zeros(1), name="other/var4"),
    ]
    return _ckpt(tmp_path, arrays), {v.name: v for v in variables}


def test_assignment_map_scope_to_scope(scoped):
    path, vs = scoped
    loaded = T.init_from_checkpoint(path, {"old_scope_1/": "new_scope_1/"}, variables=vs)
    assert loaded == {
        "new_scope_1/var1": "old_scope_1/var1",
        "new_scope_1/var2": "old_scope_1/var2",
    }
    assert vs["new_scope_1/var2"].numpy().tolist() == [2.0] * 3
    assert vs["new_scope_2/var3"].numpy().tolist() == [0.0] * 4


def test_assignment_map_names_variables_and_root(scoped):
    path, vs = scoped
    var3 = vs["new_scope_2/var3"]
    loaded = T.init_from_checkpoint(
        path,
        {"old_scope_2/var3": var3, "/": "other/", "old_scope_1/var1": "new_scope_1/var1"},
        variables=vs,
    )
    assert loaded == {
        "new_scope_1/var1": "old_scope_1/var1",
        "new_scope_2/var3": "old_scope_2/var3",
        "other/var4": "var4",
    }
    assert var3.numpy().tolist() == [3.0] * 4 and vs["other/var4"].numpy().tolist() == [4.0]
    # a Variable needs no `variables` argument
    var3.assign(np.zeros(4))
    T.init_from_checkpoint(path, {"old_scope_2/var3": var3})
    assert var3.numpy().tolist() == [3.0] * 4


def test_assignment_map_errors(scoped):
    path, vs = scoped
    with pytest.raises(ValueError, match="scope 'old_scope_1/' must map to a scope"):
        T.init_from_checkpoint(path, {"old_scope_1/": "new_scope_1/var1"}, variables=vs)
    with pytest.raises(ValueError, match="'nope' .* is not a current variable"):
        T.init_from_checkpoint(path, {"old_scope_1/var1": "nope"}, variables=vs)
    with pytest.raises(ValueError, match="'old_scope_1/var9' is not in checkpoint"):
        T.init_from_checkpoint(path, {"old_scope_1/var9": "new_scope_1/var1"}, variables=vs)
    with pytest.raises(ValueError, match=r"'new_scope_1/var2' has shape \(3,\).*shape \(4,\)"):
        T.init_from_checkpoint(path, {"old_scope_2/var3": "new_scope_1/var2"}, variables=vs)
    with pytest.raises(ValueError, match="no current variable is under the scope 'zzz/'"):
        T.init_from_checkpoint(path, {"old_scope_1/": "zzz/"}, variables=vs)
    assert vs["new_scope_1/var1"].numpy().tolist() == [[0.0, 0.0]] * 2


def test_random_backup_initializer_is_reproducible_with_rng(tmp_path):
    from colonnade.core.checkpoint_format import write_checkpoint

    path = write_checkpoint(str(tmp_path / "c"), {"emb": (np.ones((2, 3), np.float32), {})})
    info = T.VocabInfo(
        ["a", "new", "b"],
        3,
        1,
        old_vocab=["a", "b"],
        backup_initializer=cn.core.initializers.random_normal(0.0, 1.0),
    )

    def run(seed):
        emb = cn.core.Variable(np.zeros((4, 3), np.float32), name="emb")
        T.warm_start(path, ["emb"], {"emb": info}, variables=[emb], rng=np.random.default_rng(seed))
        return emb.numpy()

    a, b, c = run(1), run(1), run(2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a[[0, 2]], np.ones((2, 3)))  # known tokens kept
    assert not np.array_equal(a[[1, 3]], c[[1, 3]])  # new token and OOV rows drawn from rng


def _partition_checkpoint(tmp_path):
    full = np.arange(12, dtype=np.float32).reshape(3, 4)
    return write_checkpoint(str(tmp_path / "parts"), {"w": (full, {})}), full


def test_init_from_checkpoint_partition_list_columns(tmp_path):
    """A list of partitions split along axis 1 (the axis where their shapes differ)
    gets the columns in order (hand-computed: [:, :1] and [:, 1:])."""
    path, full = _partition_checkpoint(tmp_path)
    a = Variable(np.zeros((3, 1), np.float32), name="w/part_0")
    b = Variable(np.zeros((3, 3), np.float32), name="w/part_1")
    loaded = T.init_from_checkpoint(path, {"w": [a, b]})
    assert loaded == {"w/part_0,w/part_1": "w"}
    np.testing.assert_array_equal(a.numpy(), [[0.0], [4.0], [8.0]])
    np.testing.assert_array_equal(b.numpy(), [[1, 2, 3], [5, 6, 7], [9, 10, 11]])


def test_init_from_checkpoint_partition_list_errors(tmp_path):
    """Partitions that do not tile the array, or a list holding a name, are errors that
    name them; nothing is assigned."""
    path, _ = _partition_checkpoint(tmp_path)
    a = Variable(np.zeros((2, 4), np.float32), name="w/part_0")
    b = Variable(np.zeros((2, 4), np.float32), name="w/part_1")
    with pytest.raises(ValueError, match=r"w/part_0.*do not tile 'w' of shape \(3, 4\)"):
        T.init_from_checkpoint(path, {"w": [a, b]})
    np.testing.assert_array_equal(a.numpy(), np.zeros((2, 4)))
    with pytest.raises(TypeError, match="partitions of one variable"):
        T.init_from_checkpoint(path, {"w": [a, "w/part_1"]})
    with pytest.raises(TypeError, match="list of \\(checkpoint name"):
        T.init_from_checkpoint(path, [("w", a, b)])


def test_init_from_checkpoint_pairs_one_array_to_two_variables(tmp_path):
    """TF's list-of-pairs form: the same checkpoint name may initialize two variables."""
    path, full = _partition_checkpoint(tmp_path)
    x = Variable(np.zeros((3, 4), np.float32), name="x")
    y = Variable(np.zeros((3, 4), np.float32), name="y")
    T.init_from_checkpoint(path, [("w", x), ("w", y)])
    np.testing.assert_array_equal(x.numpy(), full)
    np.testing.assert_array_equal(y.numpy(), full)


def test_warm_start_object_based_checkpoint_by_saved_name(tmp_path):
    """A Checkpoint-written checkpoint (keys are object paths) warm-starts a variable by
    the name it was saved with, as TF's _get_object_checkpoint_renames; two saved
    variables of that name are ambiguous, and then the name is reported missing."""
    prev = Variable(np.array([1.0, 2.0], np.float32), name="w")
    T.Checkpoint(a=prev).save(str(tmp_path / "one" / "ckpt"))
    w = Variable(np.zeros(2, np.float32), name="w")
    assert T.warm_start(str(tmp_path / "one"), variables=[w]) == ["w"]
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])

    twin = Variable(np.array([3.0, 4.0], np.float32), name="w")
    T.Checkpoint(a=prev, b=twin).save(str(tmp_path / "two" / "ckpt"))
    with pytest.raises(ValueError, match="'w' is not in checkpoint"):
        T.warm_start(str(tmp_path / "two"), variables=[w])
