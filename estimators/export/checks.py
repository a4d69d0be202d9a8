"""The checks ``cn.load`` makes before it trusts anything in an export directory.

An export may come from someone else, so loading treats it as hostile input:

- every file it reads (``model.json``, the weights' ``index.json`` and ``.npy`` files,
  vocabulary files) must resolve, symlinks followed, to a regular file inside the export;
- JSON files are size-capped before they are read and nesting-capped after;
- ``model.json`` is checked field by field (types, known head and network parts) before
  anything is built from it;
- each ``.npy`` header is read on its own and must agree with the index (shape, dtype, no
  objects) and with the file's length, so no size merely claimed is ever allocated;
- the variables the network will create are computed from the spec and compared with
  the index before any of them is created;
- the recorded serving input receiver is checked by :mod:`.receiver_checks`.

Anything wrong raises :class:`ExportError`, naming the file, the field and what was
expected and found.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np

from ... import feature_columns as fc
from ...core import checkpoint_format

MAX_JSON_BYTES = 64 << 20
"""The largest ``model.json`` or ``index.json`` read (a real one is kilobytes)."""
MAX_JSON_DEPTH = 64
"""The deepest nesting of lists and dicts accepted (a real config nests about 10 deep)."""
MAX_EXPORT_ARRAYS = 2**17
"""The most arrays (variables) ``index.json`` may list, and the most feature columns a
network part may have: 131,072, above a 100,000-column model. Loading costs about 2 ms
a column (a ``.npy`` file each, its header checked, the column built): a hostile export
of 10^6 columns took 292 s; it is refused, before any file is opened, in a second."""
_NUMERIC_KINDS = "biufc"
_CHECKPOINT_INITIALIZER_KEYS = ("ckpt_to_load_from", "tensor_name_in_ckpt")


class ExportError(ValueError):
    """An export directory is malformed, tampered with, or inconsistent with itself."""


# --------------------------------------------------------------------------- paths


def _is_inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def inside_export(root: str, name, what: str) -> str:
    """The real path of ``name`` (relative to the export ``root``, a real path), refusing
    absolute paths, ``..`` and symlinks that lead out of the export, and non-files."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise ExportError(f"{what}: expected a relative path inside the export, got {name!r}")
    if os.path.isabs(name) or ".." in name.replace("\\", "/").split("/"):
        raise ExportError(
            f"{what}: {name!r} names a file outside the export {root}; an export may only "
            "name files inside itself, by relative paths"
        )
    real = os.path.realpath(os.path.join(root, name))
    if not _is_inside(root, real):
        raise ExportError(
            f"{what}: {name!r} resolves to {real}, outside the export {root} (a symlink?); "
            "an export may only name files inside itself"
        )
    if not os.path.isfile(real):
        raise ExportError(f"{what}: expected a regular file at {name!r} in {root}, found none")
    return real


# --------------------------------------------------------------------------- JSON


def read_json(root: str, name: str):
    """Parse the JSON file ``name`` of the export ``root``: inside it, at most
    ``MAX_JSON_BYTES`` long (checked before reading), nested at most ``MAX_JSON_DEPTH``."""
    path = inside_export(root, name, os.path.join(root, name))
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_JSON_BYTES:
            raise ExportError(
                f"{path}: expected at most {MAX_JSON_BYTES} bytes, the file has {size}; "
                "refusing to read it"
            )
        data = f.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise ExportError(f"{path}: grew past {MAX_JSON_BYTES} bytes while being read")
    try:
        value = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ExportError(f"{path}: lists or dicts nested deeper than Python can parse") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ExportError(f"{path} is not valid JSON: {e}") from None
    if _bracket_depth_bound(data) > MAX_JSON_DEPTH:
        check_depth(value, path)
    return value


def _bracket_depth_bound(data: bytes) -> int:
    """An upper bound of the nesting of the JSON text ``data`` (brackets inside strings
    count too), in a few numpy passes: only a text it does not clear is walked."""
    codes = np.frombuffer(data, np.uint8)
    codes = codes[(codes | 0x20) >= ord("{")]  # [ ] { } and a few others: the brackets
    steps = (codes == ord("[")).astype(np.int32) + (codes == ord("{"))
    steps -= (codes == ord("]")).astype(np.int32) + (codes == ord("}"))
    return int(np.cumsum(steps).max(initial=0))


def check_depth(value, where: str) -> None:
    """Refuse JSON nested deeper than ``MAX_JSON_DEPTH`` (walked without recursion), so
    later recursive walks of it cannot exhaust the stack."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ExportError(
                f"{where}: lists or dicts nested deeper than {MAX_JSON_DEPTH} levels; a model "
                "config nests about 10"
            )
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, (dict, list)):
            stack.extend((child, depth + 1) for child in children)


# --------------------------------------------------------------------------- fields


def field(obj: dict, key: str, types, where: str, path: str, required: bool = True):
    """``obj[key]`` checked to be one of ``types`` (bool is not an int here)."""
    name = f"{path}.{key}" if path else key
    if key not in obj:
        if required:
            raise ExportError(f"{where}: field {name} is missing")
        return None
    value = obj[key]
    if isinstance(value, bool) and bool not in _as_tuple(types) or not isinstance(value, types):
        expected = " or ".join(t.__name__ for t in _as_tuple(types))
        raise ExportError(
            f"{where}: field {name}: expected {expected}, got {type(value).__name__} {value!r:.80}"
        )
    return value


def _as_tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def positive_int(value, where: str, name: str) -> int:
    """``value`` if it is an int >= 1 (not a bool, not a float such as ``1e9``)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ExportError(f"{where}: field {name}: expected an integer >= 1, got {value!r:.80}")
    return value


def format_version(meta, where: str) -> int:
    """The ``format_version`` of a parsed ``model.json``, which must be a JSON object."""
    if not isinstance(meta, dict):
        raise ExportError(f"{where}: expected a JSON object, got {type(meta).__name__}")
    return field(meta, "format_version", int, where, "")


def check_model(meta: dict, where: str) -> None:
    """The shape of ``model.json``: a ``head`` object with a string ``type`` and a
    ``network`` with a linear part, a DNN part or both (or a baseline part alone), their
    fields of the right types."""
    head = field(meta, "head", dict, where, "")
    field(head, "type", str, where, "head")
    network = field(meta, "network", dict, where, "")
    unknown = sorted(set(network) - {"linear", "dnn"})
    if list(network) == ["baseline"]:
        part = field(network, "baseline", dict, where, "network")
        positive_int(
            field(part, "units", int, where, "network.baseline"), where, "network.baseline.units"
        )
        return
    if unknown or not network:
        raise ExportError(
            f"{where}: field network: expected a 'linear' part, a 'dnn' part or both (or a "
            f"'baseline' part alone), got {sorted(network)}"
        )
    if "linear" in network:
        check_linear_part(field(network, "linear", dict, where, "network"), where)
    if "dnn" in network:
        check_dnn_part(field(network, "dnn", dict, where, "network"), where)


MAX_MODEL_FN_NAME = 256
"""The longest ``model_fn`` name ``model.json`` may record (a function's ``__name__``)."""


def model_fn_name(meta: dict, where: str) -> str:
    """``model.json``'s ``model_fn``: the name of the function the export was made with,
    a string of at most :data:`MAX_MODEL_FN_NAME` characters (a 10 MB one was quoted
    twice in the error that named it)."""
    name = field(meta, "model_fn", str, where, "")
    if not name or len(name) > MAX_MODEL_FN_NAME:
        raise ExportError(
            f"{where}: field model_fn: expected a function's name of 1 to "
            f"{MAX_MODEL_FN_NAME} characters, got {len(name):,} ({name[:40]!r}...)"
        )
    return name


def forwarded_features(meta: dict, where: str) -> list:
    """``model.json``'s ``forward_features`` (the input columns an export of a
    ``forward_features`` estimator copies into its predictions): a list of strings, ``[]``
    when absent."""
    keys = meta.get("forward_features", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise ExportError(
            f"{where}: field forward_features: expected a list of column names, got {keys!r:.100}"
        )
    return keys


def check_column_count(config, where: str, path: str) -> None:
    """At most :data:`MAX_EXPORT_ARRAYS` feature columns in a part's config (its list,
    or the ``feature_columns`` list of ``fc.to_config``'s object), counted before any is
    built."""
    columns = config.get("feature_columns") if isinstance(config, dict) else config
    count = len(columns) if isinstance(columns, (list, dict)) else 0
    if count > MAX_EXPORT_ARRAYS:
        raise ExportError(
            f"{where}: field {path}.feature_columns: {count:,} columns, more than the "
            f"{MAX_EXPORT_ARRAYS:,} an export may have; refused before any is built"
        )


def check_linear_part(part: dict, where: str) -> None:
    columns = field(part, "feature_columns", (dict, list), where, "network.linear")
    check_column_count(columns, where, "network.linear")
    positive_int(field(part, "units", int, where, "network.linear"), where, "network.linear.units")
    field(part, "sparse_combiner", str, where, "network.linear")


def check_dnn_part(part: dict, where: str) -> None:
    path = "network.dnn"
    check_column_count(field(part, "feature_columns", (dict, list), where, path), where, path)
    hidden = field(part, "hidden_units", list, where, path)
    if not hidden:
        raise ExportError(f"{where}: field {path}.hidden_units: expected a non-empty list, got []")
    for i, units in enumerate(hidden):
        positive_int(units, where, f"{path}.hidden_units[{i}]")
    positive_int(field(part, "units", int, where, path), where, f"{path}.units")
    field(part, "activation_fn", str, where, path)
    field(part, "dropout", (int, float), where, path)
    field(part, "batch_norm", bool, where, path)


# --------------------------------------------------------------------------- column files


def resolve_column_files(config, root: str, where: str, path: str):
    """A copy of a column config with each ``vocabulary_file`` (and a tree column's
    ``trees_file``) resolved inside the export,
    and the checkpoint initializer (``ckpt_to_load_from``) checked and dropped: the
    trained weights are in the export, and a loader opens no checkpoint it names."""
    if isinstance(config, list):
        return [resolve_column_files(c, root, where, f"{path}[{i}]") for i, c in enumerate(config)]
    if not isinstance(config, dict):
        return config
    out = {}
    for key, value in config.items():
        name = f"{path}.{key}"
        if key in ("vocabulary_file", "trees_file"):
            out[key] = inside_export(root, value, f"{where}: field {name}")
        elif key == "ckpt_to_load_from":
            inside_export(root, value, f"{where}: field {name} (re-export with this colonnade)")
        elif key != "tensor_name_in_ckpt":
            out[key] = resolve_column_files(value, root, where, name)
    return out


def check_numeric_shapes(config, limit: int, where: str, path: str) -> None:
    """Refuse a numeric column whose shape holds more than ``limit`` values (the weights
    on disk) before it is built: building one fills its default value to that shape."""
    if isinstance(config, list):
        for i, c in enumerate(config):
            check_numeric_shapes(c, limit, where, f"{path}[{i}]")
        return
    if not isinstance(config, dict):
        return
    if config.get("type") in ("numeric_column", "sequence_numeric_column") and "shape" in config:
        shape = field(config, "shape", list, where, path)
        for i, n in enumerate(shape):
            positive_int(n, where, f"{path}.shape[{i}]")
        if math.prod(shape) > limit:
            raise ExportError(
                f"{where}: field {path}.shape: {shape} holds {math.prod(shape)} values, more "
                f"than the {limit} weights the export has"
            )
    for key, value in config.items():
        check_numeric_shapes(value, limit, where, f"{path}.{key}")


def build_columns(config, where: str, path: str) -> list:
    """Feature columns from a (checked) config; any complaint of the column factories
    becomes an ExportError naming the field."""
    try:
        return fc.from_config(config)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        raise ExportError(f"{where}: field {path}: invalid feature column config: {e}") from None


# --------------------------------------------------------------------------- weights


def read_npy_header(path: str):
    """``(shape, dtype, data_bytes_on_disk)`` of a ``.npy`` file, reading its header only."""
    try:
        return checkpoint_format.read_npy_header(path)
    except (ValueError, OSError) as e:
        raise ExportError(f"{path}: expected a .npy header, cannot read it ({e})") from None


def _index_entry(key, entry, where: str):
    """``(file, shape, dtype)`` of an index entry, each checked for type."""
    if not isinstance(entry, dict) or entry.get("kind", "variable") != "variable":
        raise ExportError(f"{where}: array {key!r}: expected a variable entry, got {entry!r:.120}")
    shape = entry.get("shape")
    if not isinstance(shape, list) or any(
        isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in shape
    ):
        raise ExportError(f"{where}: array {key!r}: expected a shape of ints >= 0, got {shape!r}")
    try:
        if not isinstance(entry.get("dtype"), str):  # np.dtype also builds from lists, dicts
            raise TypeError
        dtype = np.dtype(entry["dtype"])
    except (TypeError, ValueError):
        raise ExportError(
            f"{where}: array {key!r}: unknown dtype {entry.get('dtype')!r:.120}"
        ) from None
    if dtype.kind not in _NUMERIC_KINDS:
        raise ExportError(
            f"{where}: array {key!r}: expected a numeric dtype, got {dtype}; never objects"
        )
    return entry.get("file"), tuple(shape), dtype


def verify_array_file(path: str, key: str, shape: tuple, dtype: np.dtype) -> None:
    """The ``.npy`` file's header must declare the index's ``shape`` and ``dtype`` (no
    objects) and the file must hold exactly that many bytes after it."""
    got_shape, got_dtype, data_bytes = read_npy_header(path)
    if got_dtype.hasobject:
        raise ExportError(f"{path} ({key!r}): holds an object array, which is never loaded")
    if got_shape != shape or got_dtype != dtype:
        raise ExportError(
            f"{path} ({key!r}): expected {dtype}{shape} as the index says, the header says "
            f"{got_dtype}{got_shape}"
        )
    expected = math.prod(shape) * dtype.itemsize
    if data_bytes != expected:
        raise ExportError(
            f"{path} ({key!r}): expected {expected} bytes of {dtype}{shape}, found {data_bytes}"
        )


def verify_weights(root: str, prefix: str) -> dict:
    """``{key: shape}`` of the export's checkpoint at ``prefix`` (relative to ``root``),
    after checking ``index.json`` and every array file it names (header only)."""
    index_name = os.path.join(prefix, "index.json")
    where = os.path.join(root, index_name)
    index = read_json(root, index_name)
    arrays = index.get("arrays") if isinstance(index, dict) else None
    if not isinstance(arrays, dict):
        raise ExportError(f"{where}: expected an object with an 'arrays' object")
    if len(arrays) > MAX_EXPORT_ARRAYS:
        raise ExportError(
            f"{where}: lists {len(arrays):,} arrays, more than the {MAX_EXPORT_ARRAYS:,} an "
            "export may hold; refused before any array file is opened"
        )
    shapes = {}
    for key, entry in arrays.items():
        name, shape, dtype = _index_entry(key, entry, where)
        if not isinstance(name, str) or os.path.basename(name) != name:
            raise ExportError(
                f"{where}: array {key!r}: file {name!r} is outside the export's weights "
                "directory; expected a plain file name"
            )
        path = inside_export(root, os.path.join(prefix, name), f"{where}: array {key!r}")
        verify_array_file(path, key, shape, dtype)
        shapes[key] = shape
    return shapes


# --------------------------------------------------------------------------- shapes


def linear_variable_shapes(columns, units: int, prefix: str) -> dict:
    """The variables ``LinearModel(columns, units)`` creates: per column its weights
    ``(num_buckets or dimension, units)`` (and a dense column's own tables), and the bias."""
    shapes = {}
    for c in columns:
        if isinstance(c, fc.CategoricalColumn):
            rows = c.num_buckets
        elif isinstance(c, fc.DenseColumn):
            rows = c.dimension
            shapes.update({prefix + s.name: tuple(s.shape) for s in c.variable_specs()})
        else:
            raise ExportError(f"column {c.name!r} ({type(c).__name__}) cannot be linear")
        shapes[f"{prefix}{c.name}/weights"] = (rows, units)
    shapes[prefix + "bias_weights"] = (units,)
    return shapes


def dnn_variable_shapes(columns, hidden_units, units: int, batch_norm: bool, prefix: str):
    """The variables ``DNNPart`` creates: the input layer's tables, then per layer a kernel
    ``(fan_in, units)`` and bias (and batch-norm vectors), fan_in starting at the sum of
    the columns' dimensions."""
    shapes = {}
    input_prefix = prefix + "input_from_feature_columns/input_layer/"
    for c in columns:
        if not isinstance(c, fc.DenseColumn):
            raise ExportError(f"column {c.name!r} ({type(c).__name__}) is not a dense column")
        shapes.update({input_prefix + s.name: tuple(s.shape) for s in c.variable_specs()})
    fan_in = sum(c.dimension for c in columns)
    for i, width in enumerate(list(hidden_units) + [units]):
        name = f"hiddenlayer_{i}" if i < len(hidden_units) else "logits"
        shapes[f"{prefix}{name}/kernel"] = (fan_in, width)
        shapes[f"{prefix}{name}/bias"] = (width,)
        if batch_norm and name != "logits":
            for stat in ("gamma", "beta", "moving_mean", "moving_variance"):
                shapes[f"{prefix}{name}/batchnorm_{i}/{stat}"] = (width,)
        fan_in = width
    return shapes


def check_shapes(expected: dict, stored: dict, where: str) -> None:
    """Every variable the network will create must be in the export with its shape."""
    problems = []
    for key, shape in expected.items():
        if key not in stored:
            problems.append(f"{key!r}: expected shape {shape}, the export has no such array")
        elif tuple(stored[key]) != tuple(shape):
            problems.append(
                f"{key!r}: model.json makes shape {shape}, the weights hold {stored[key]}"
            )
    if problems:
        shown = "; ".join(problems[:5]) + (
            f"; and {len(problems) - 5} more" if problems[5:] else ""
        )
        raise ExportError(f"{where} does not match the export's weights: {shown}")
