"""``tf.nest``: flatten and rebuild nested structures, with TF 2.15's rules.

Nested (descended into) are what TF's ``tf.nest`` descends into: mappings, dict views
(``keys()``, ``values()``, ``items()``), every ``collections.abc.Sequence`` other than
``str`` and ``bytes`` (lists, tuples, namedtuples, ``range``, custom sequences), ``attrs``
classes, and objects with TF's ``__tf_flatten__`` / ``__tf_unflatten__`` protocol.
Anything else (arrays, Tensors, strings, sets, None) is a leaf. Mappings flatten in the
sorted order of their keys, as TF's, so two dicts with the same keys flatten alike whatever
their insertion order; views and attrs fields flatten in their own order.

>>> flatten({"b": (1, 2), "a": [3]})
[3, 1, 2]
>>> pack_sequence_as({"b": (0, 0), "a": [0]}, [30, 10, 20])
{'b': (10, 20), 'a': [30]}
>>> map_structure(lambda x, y: x + y, (1, [2]), (10, [20]))
(11, [22])
"""

from __future__ import annotations

import collections
import collections.abc

__all__ = [
    "assert_same_structure",
    "flatten",
    "is_nested",
    "map_structure",
    "pack_sequence_as",
]


def _is_attrs(value) -> bool:
    # TF's test: the class declares ``__attrs_attrs__`` (a non-iterable one fails in flatten)
    return hasattr(type(value), "__attrs_attrs__")


def _is_custom(value) -> bool:
    # TF's CustomNestProtocol: an instance flattening to (metadata, components)
    return hasattr(value, "__tf_flatten__") and hasattr(type(value), "__tf_unflatten__")


def _is_namedtuple(value) -> bool:
    fields = getattr(type(value), "_fields", None)
    return (
        isinstance(value, tuple)
        and isinstance(fields, tuple)
        and all(isinstance(f, str) for f in fields)
    )


def is_nested(seq) -> bool:
    """True for what :func:`flatten` descends into (see the module docstring); False for
    leaves: strings, bytes, arrays, sets and scalars."""
    if isinstance(seq, (str, bytes)):
        return False
    return (
        isinstance(seq, (collections.abc.Mapping, collections.abc.MappingView))
        or isinstance(seq, collections.abc.Sequence)
        or _is_attrs(seq)
        or _is_custom(seq)
    )


def _sorted_keys(mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(
            f"nest only supports dicts with sortable keys; got keys {list(mapping)!r}"
        ) from None


def _children(structure) -> list:
    if isinstance(structure, collections.abc.Mapping):
        return [structure[key] for key in _sorted_keys(structure)]
    if _is_custom(structure):
        return list(structure.__tf_flatten__()[1])
    if _is_attrs(structure) and not isinstance(structure, collections.abc.Sequence):
        return [getattr(structure, a.name) for a in structure.__attrs_attrs__]
    return list(structure)


def _rebuild(structure, children: list):
    """A structure like ``structure`` holding ``children`` (TF's ``_sequence_like``)."""
    if isinstance(structure, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(structure), children))
        if isinstance(structure, collections.defaultdict):
            rebuilt = type(structure)(structure.default_factory)
            for key in structure:
                rebuilt[key] = by_key[key]
            return rebuilt
        return type(structure)((key, by_key[key]) for key in structure)
    if isinstance(structure, collections.abc.MappingView):
        return list(children)
    if _is_custom(structure):
        metadata = structure.__tf_flatten__()[0]
        return type(structure).__tf_unflatten__(metadata, tuple(children))
    if _is_namedtuple(structure) or (
        _is_attrs(structure) and not isinstance(structure, collections.abc.Sequence)
    ):
        return type(structure)(*children)
    if isinstance(structure, range):
        return list(children)
    return type(structure)(children)


def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, depth first (mappings by sorted key); a leaf alone
    flattens to ``[leaf]``. ``expand_composites`` is accepted for TF compatibility."""
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _truncate(value, length: int = 100) -> str:
    text = str(value)
    return text[:length] + ("..." if len(text) > length else "")


def _pack(structure, leaves):
    if not is_nested(structure):
        return next(leaves)
    return _rebuild(structure, [_pack(child, leaves) for child in _children(structure)])


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced, in :func:`flatten`'s order, by the items of
    ``flat_sequence`` (itself nested: a list or tuple); ValueError when their counts
    differ, TypeError when ``flat_sequence`` is not a sequence. TF's messages."""
    if not is_nested(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {_truncate(flat_sequence)}\ninto a structure, but "
            f"found incompatible type `{type(flat_sequence)}` instead."
        )
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {_truncate(structure)}"
                f"\nHowever the input is a sequence ({type(flat_sequence)}) of length "
                f"{len(flat_sequence)}.\n  {_truncate(flat_sequence)}\nnest cannot guarantee "
                "that it is safe to map one to the other."
            )
        return flat_sequence[0]
    count = len(flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {count} atoms, but flat_sequence had "
            f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: "
            f"{flat_sequence}."
        )
    return _pack(structure, iter(flat_sequence))


class _Dot:
    """A leaf shown as ``.`` in the skeletons of TF's structure-mismatch messages."""

    def __repr__(self) -> str:
        return "."


def _skeleton(structure) -> str:
    return str(pack_sequence_as(structure, [_Dot()] * len(flatten(structure))))


def _describe(value) -> str:
    return f"type={type(value).__name__} str={value}"


class _Mismatch(Exception):
    def __init__(self, error_type: type, detail: str):
        super().__init__(detail)
        self.error_type, self.detail = error_type, detail


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """Raise ValueError unless ``nest1`` and ``nest2`` nest alike (same lengths, same
    mapping keys), and, with ``check_types``, TypeError when a sequence type differs (a
    list where the other has a tuple; namedtuples match by name and fields, and any two
    mappings match). TF's messages: both structures, the first difference, and both
    skeletons."""
    check_types, _ = bool(check_types), bool(expand_composites)
    try:
        _compare(nest1, nest2, check_types)
    except _Mismatch as mismatch:
        raise mismatch.error_type(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\n"
            f"More specifically: {mismatch.detail}\n"
            f"Entire first structure:\n{_skeleton(nest1)}\n"
            f"Entire second structure:\n{_skeleton(nest2)}"
        ) from None


def _same_type(a, b) -> bool:
    if type(a) is type(b):
        return True
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and type(a)._fields == type(b)._fields
    mapping = collections.abc.Mapping
    return isinstance(a, mapping) and isinstance(b, mapping)


def _compare(a, b, check_types: bool) -> None:
    if is_nested(a) != is_nested(b):
        seq, other = (a, b) if is_nested(a) else (b, a)
        raise _Mismatch(
            ValueError,
            f'Substructure "{_describe(seq)}" is a sequence, while substructure '
            f'"{_describe(other)}" is not',
        )
    if not is_nested(a):
        return
    if check_types and not _same_type(a, b):
        raise _Mismatch(
            TypeError,
            "The two namedtuples don't have the same sequence type. First structure "
            f"{_describe(a)} has type {type(a).__name__}, while second structure "
            f"{_describe(b)} has type {type(b).__name__}",
        )
    mapping = collections.abc.Mapping
    if isinstance(a, mapping) and isinstance(b, mapping) and set(a) != set(b):
        raise _Mismatch(
            ValueError,
            "The two dictionaries don't have the same set of keys. First structure has keys "
            f"{_describe(list(a))}, while second structure has keys {_describe(list(b))}",
        )
    children_a, children_b = _children(a), _children(b)
    for x, y in zip(children_a, children_b):  # TF reports a deeper mismatch first
        _compare(x, y, check_types)
    if len(children_a) != len(children_b):
        raise _Mismatch(
            ValueError,
            "The two structures don't have the same number of elements. First structure: "
            f"{_describe(a)}. Second structure: {_describe(b)}",
        )


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the corresponding leaves of one or more structures of the same
    shape (see :func:`assert_same_structure`), packed as the first structure. Keyword
    arguments: ``check_types`` (default True) and ``expand_composites`` (accepted for TF
    compatibility); any other is a ValueError, as TF's."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: `"
            + "`, `".join(kwargs)
            + "`"
        )
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat)])
