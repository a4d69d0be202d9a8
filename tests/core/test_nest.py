"""cn.nest against tf.nest: every expected value below is what TF 2.15 printed for the
same call (tests/core/golden/make_tf_nest.py)."""

import collections

import pytest

import colonnade as cn

nest = cn.nest
Point = collections.namedtuple("Point", "x y")


def test_flatten_as_tf():
    assert nest.flatten({"b": (1, 2), "a": [3, {"d": 4, "c": None}]}) == [3, None, 4, 1, 2]
    assert nest.flatten("ab") == ["ab"] and nest.flatten(None) == [None]
    assert nest.flatten(Point(1, [2, 3])) == [1, 2, 3]


def test_pack_sequence_as_and_map_structure_as_tf():
    assert nest.pack_sequence_as({"b": (0, 0), "a": [0]}, [30, 10, 20]) == {
        "b": (10, 20),
        "a": [30],
    }
    assert nest.pack_sequence_as(Point(0, [0, 0]), [1, 2, 3]) == Point(1, [2, 3])
    assert nest.map_structure(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 1 items"):
        nest.pack_sequence_as((0, 0), [1])


def test_is_nested_as_tf():
    values = ([1], (), {}, "s", None, Point(1, 2), 3)
    assert [nest.is_nested(v) for v in values] == [True, True, True, False, False, True, False]


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "error"),
    [
        ((1, 2), [1, 2], {}, TypeError),
        ((1, 2), [1, 2], {"check_types": False}, None),
        ((1, 2), (1, 2, 3), {}, ValueError),
        ({"a": 1}, {"b": 1}, {}, ValueError),
        ((1, (2,)), (1, 2), {}, ValueError),
    ],
)
def test_assert_same_structure_as_tf(a, b, kwargs, error):
    if error is None:
        nest.assert_same_structure(a, b, **kwargs)
    else:
        with pytest.raises(error, match="The two"):
            nest.assert_same_structure(a, b, **kwargs)
