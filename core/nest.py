"""``tf.nest``: flatten and rebuild nested structures of lists, tuples, namedtuples and dicts.

A structure is nested when it is a list, a tuple (namedtuples included) or a mapping;
anything else (arrays, Tensors, strings, None) is a leaf. Mappings flatten in the sorted
order of their keys, as TF's, so two dicts with the same keys flatten alike whatever
their insertion order.

>>> flatten({"b": (1, 2), "a": [3]})
[3, 1, 2]
>>> pack_sequence_as({"b": (0, 0), "a": [0]}, [30, 10, 20])
{'b': (10, 20), 'a': [30]}
>>> map_structure(lambda x, y: x + y, (1, [2]), (10, [20]))
(11, [22])
"""

from __future__ import annotations

import collections.abc

__all__ = [
    "assert_same_structure",
    "flatten",
    "is_nested",
    "map_structure",
    "pack_sequence_as",
]


def is_nested(seq) -> bool:
    """True for a list, a tuple (namedtuples included) or a mapping: what :func:`flatten`
    descends into; False for leaves (strings and bytes included)."""
    return isinstance(seq, (list, tuple, collections.abc.Mapping))


def _children(structure) -> list:
    if isinstance(structure, collections.abc.Mapping):
        return [structure[key] for key in _sorted_keys(structure)]
    return list(structure)


def _sorted_keys(mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(
            f"nest only supports dicts with sortable keys; got keys {list(mapping)!r}"
        ) from None


def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, depth first (mappings by sorted key); a leaf alone
    flattens to ``[leaf]``. ``expand_composites`` is accepted for TF compatibility."""
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _rebuild(structure, children: list):
    if isinstance(structure, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(structure), children))
        return type(structure)((key, by_key[key]) for key in structure)
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):  # a namedtuple
        return type(structure)(*children)
    return type(structure)(children)


def _pack(structure, leaves):
    if not is_nested(structure):
        return next(leaves)
    return _rebuild(structure, [_pack(child, leaves) for child in _children(structure)])


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced, in :func:`flatten`'s order, by the items of
    ``flat_sequence``; ValueError when their counts differ."""
    flat_sequence = list(flat_sequence)
    count = len(flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence: the structure has {count} leaves but flat_sequence "
            f"has {len(flat_sequence)} items; structure: {structure!r}"
        )
    return _pack(structure, iter(flat_sequence))


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """Raise ValueError unless ``nest1`` and ``nest2`` nest alike (same lengths, same
    mapping keys), and, with ``check_types``, TypeError when a sequence type differs
    (a list where the other has a tuple)."""
    _compare(nest1, nest2, check_types, nest1, nest2)


def _compare(a, b, check_types, whole1, whole2) -> None:
    if is_nested(a) != is_nested(b):
        raise ValueError(
            "The two structures don't have the same nested structure: "
            f"{a!r} is {'' if is_nested(a) else 'not '}a sequence while {b!r} is "
            f"{'' if is_nested(b) else 'not '}; first structure: {whole1!r}, "
            f"second structure: {whole2!r}"
        )
    if not is_nested(a):
        return
    if check_types and _sequence_type(a) is not _sequence_type(b):
        raise TypeError(
            "The two structures don't have the same sequence type: "
            f"{type(a).__name__} and {type(b).__name__}; first structure: {whole1!r}, "
            f"second structure: {whole2!r}"
        )
    if isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping):
        if set(a) != set(b):
            raise ValueError(
                f"The two dictionaries don't have the same set of keys: {sorted(a)} and {sorted(b)}"
            )
    if len(a) != len(b):
        raise ValueError(
            "The two structures don't have the same number of elements: "
            f"{len(a)} and {len(b)}; first structure: {whole1!r}, second structure: {whole2!r}"
        )
    for x, y in zip(_children(a), _children(b)):
        _compare(x, y, check_types, whole1, whole2)


def _sequence_type(structure) -> type:
    # TF treats every mapping as one kind when comparing types
    return dict if isinstance(structure, collections.abc.Mapping) else type(structure)


def map_structure(func, *structure, check_types=True, expand_composites=False):
    """``func`` applied to the corresponding leaves of one or more structures of the same
    shape (see :func:`assert_same_structure`), packed as the first structure."""
    if not structure:
        raise ValueError("map_structure needs at least one structure")
    if not callable(func):
        raise TypeError(f"map_structure needs a callable func, got {func!r}")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat)])
