"""``Dataset.from_generator``: the elements a Python generator yields, as TF's.

Each pass calls ``generator(*args)`` again (as TF does) and gathers what it yields into
record batches of :data:`CHUNK_ROWS` rows. An element is a dict of features or a
``(features, labels)`` pair (labels one value or a dict), every value converted to its
``output_types`` dtype and checked against its ``output_shapes`` (``None`` dimensions
are free), as TF checks them; an element that does not fit is a ``ValueError`` naming
the component, what was expected and what came. Rows have named columns here, so an
element that is not a dict (a bare value, a tuple of values) is refused, naming what to
yield instead.

The one Python step per element is the generator's own; the conversion to columns is a
numpy stack per chunk.

>>> source, label = generator_source(lambda: ({"x": i} for i in range(3)), {"x": "int64"})
>>> [b.column("x").to_pylist() for u in source.units() for b in source.read(u)], label
([[0, 1, 2]], None)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from ..core.tf_array_ops import numpy_dtype
from .sources import Unit
from .tensor_slices import LABEL_NAME, table_from_columns

__all__ = ["CHUNK_ROWS", "GeneratorSource", "generator_source"]

CHUNK_ROWS = 1024
OP = "Dataset.from_generator"


def _structure(types, shapes, signature):
    """``(features, labels)``: each ``{name: (dtype, shape or None)}`` (labels None for
    dict elements; ``{LABEL_NAME: ...}`` for one label value)."""
    if (types is None) == (signature is None):
        raise TypeError(
            f"{OP} takes output_types (with optional output_shapes) or output_signature, "
            "exactly one of them"
        )
    if signature is not None:
        if shapes is not None:
            raise TypeError(f"{OP}: output_shapes goes with output_types, not output_signature")
        types = _map(signature, lambda spec: spec.dtype)
        shapes = _map(signature, lambda spec: spec.shape)
    if isinstance(types, tuple):
        if len(types) != 2 or not isinstance(types[0], Mapping):
            raise TypeError(
                f"{OP}: elements are a dict of features or a (features dict, labels) pair; "
                f"got output types {types!r}"
            )
        shape_pair = shapes if shapes is not None else (None, None)
        features = _components(types[0], shape_pair[0])
        labels = types[1]
        if isinstance(labels, Mapping):
            return features, _components(labels, shape_pair[1])
        return features, _components({LABEL_NAME: labels}, {LABEL_NAME: shape_pair[1]})
    if not isinstance(types, Mapping):
        raise TypeError(
            f"{OP}: colonnade's rows have named columns: give output types as a dict of "
            f"features or a (features dict, labels) pair; got {type(types).__name__}"
        )
    return _components(types, shapes), None


def _map(structure, fn):
    if isinstance(structure, tuple):
        return tuple(_map(s, fn) for s in structure)
    if isinstance(structure, Mapping):
        return {k: _map(v, fn) for k, v in structure.items()}
    return fn(structure)


def _components(types, shapes) -> dict:
    shapes = shapes if shapes is not None else {}
    if not isinstance(shapes, Mapping):
        shapes = {name: shapes for name in types}
    return {str(name): (numpy_dtype(t), _shape(shapes.get(name))) for name, t in types.items()}


def _shape(shape):
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        if getattr(shape, "rank", 0) is None:
            return None
        shape = shape.as_list()
    return tuple(None if d is None else int(d) for d in shape)


def _arrow_type(dtype, shape):
    value = pa.string() if dtype.kind == "O" else pa.from_numpy_dtype(dtype)
    if shape is None:
        return None
    if not shape:
        return value
    if len(shape) == 1 and shape[0] is None:
        return pa.list_(value)
    if None in shape:
        return None
    return pa.list_(value, int(np.prod(shape)))


class GeneratorSource:
    """What a generator yields, as the rows of one unit (read again each pass)."""

    read_rows = CHUNK_ROWS

    def __init__(self, generator, features, labels=None, args=()):
        self.generator, self.args = generator, args
        self.components = {**features, **(labels or {})}
        self.label = None if labels is None else list(labels)
        self.single_label = labels is not None and list(labels) == [LABEL_NAME]
        types = {name: _arrow_type(*spec) for name, spec in self.components.items()}
        self.schema = None if None in types.values() else pa.schema(list(types.items()))

    def describe(self):
        return f"from_generator({getattr(self.generator, '__name__', self.generator)})"

    def num_rows(self):
        return None

    def units(self, filter=None, split=False):
        return [Unit("generator", None)]

    def read(self, unit, columns=None, filter=None, batch_rows=None):
        elements = iter(self.generator(*self.args))
        while True:
            chunk = list(itertools.islice(elements, batch_rows or CHUNK_ROWS))
            if not chunk:
                return
            table = self._table(chunk)
            if filter is not None:
                table = table.filter(filter)
            if columns is not None:
                table = table.select(list(columns))
            yield from table.to_batches()

    def _table(self, chunk) -> pa.Table:
        values = {name: [] for name in self.components}
        for element in chunk:
            for name, value in self._flat(element).items():
                values[name].append(self._checked(name, value))
        columns = {}
        for name, column in values.items():
            dtype, shape = self.components[name]
            kind = None if self.schema is None else self.schema.field(name).type
            if kind is not None and pa.types.is_list(kind):
                columns[name] = pa.array(column, type=kind)
            elif kind is not None and pa.types.is_fixed_size_list(kind):
                flat = np.stack(column).reshape(-1)
                columns[name] = pa.FixedSizeListArray.from_arrays(
                    pa.array(flat, type=kind.value_type), kind.list_size
                )
            else:
                columns[name] = np.array(column, dtype=dtype) if not shape else column
        table = table_from_columns(columns, OP)
        return table.cast(self.schema) if self.schema is not None else table

    def _flat(self, element) -> dict:
        if self.label is None:
            if not isinstance(element, Mapping):
                raise TypeError(
                    f"{OP}: the generator yielded a {type(element).__name__} where a dict of "
                    f"features {sorted(self.components)} was expected"
                )
            return self._keys(element, [n for n in self.components])
        if not (isinstance(element, tuple) and len(element) == 2):
            raise TypeError(
                f"{OP}: the generator yielded a {type(element).__name__} where a "
                "(features, labels) pair was expected"
            )
        features, labels = element
        names = [n for n in self.components if n not in self.label]
        flat = self._keys(features, names)
        if self.single_label:
            flat[LABEL_NAME] = labels
        else:
            flat.update(self._keys(labels, self.label))
        return flat

    def _keys(self, mapping, names) -> dict:
        if not isinstance(mapping, Mapping) or sorted(map(str, mapping)) != sorted(names):
            got = sorted(map(str, mapping)) if isinstance(mapping, Mapping) else mapping
            raise ValueError(
                f"{OP}: the generator yielded {got!r} where the components {sorted(names)} "
                "were expected"
            )
        return {str(k): v for k, v in mapping.items()}

    def _checked(self, name, value):
        dtype, shape = self.components[name]
        try:
            array = np.asarray(value, dtype=dtype)
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"{OP}: component {name!r}: the generator yielded {value!r}, which cannot be "
                f"converted to the expected {dtype if dtype.kind != 'O' else 'string'}: {e}"
            ) from None
        if dtype.kind == "O":
            array = np.vectorize(_text, otypes=[object])(array) if array.size else array
        if shape is not None and (
            len(shape) != array.ndim or any(d not in (None, s) for d, s in zip(shape, array.shape))
        ):
            raise ValueError(
                f"{OP}: component {name!r}: the generator yielded an element of shape "
                f"{array.shape} where an element of shape {shape} was expected"
            )
        return array if array.ndim else array[()]


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def _argument(value):
    """An ``args`` entry as TF hands it to the generator: a numpy value, text as bytes."""
    if isinstance(value, str):
        return value.encode()
    array = np.asarray(value)
    return array[()] if array.ndim == 0 else array


def generator_source(
    generator, output_types=None, output_shapes=None, args=None, output_signature=None
) -> tuple:
    """``(source, label)`` of the dataset of what ``generator(*args)`` yields (see the
    module docstring): a :class:`GeneratorSource` and its label name(s), or None."""
    if not callable(generator):
        raise TypeError(f"{OP} takes a callable that returns an iterator, got {generator!r}")
    features, labels = _structure(output_types, output_shapes, output_signature)
    arguments = tuple(_argument(a) for a in (args or ()))
    source = GeneratorSource(generator, features, labels, arguments)
    label = None if labels is None else (LABEL_NAME if source.single_label else source.label)
    return source, label
