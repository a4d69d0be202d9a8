"""Predictions written as TF Serving's JSON answers, and the model's metadata.

- :func:`answer`: ``:predict``'s row (``predictions``) and column (``outputs``) formats;
- :func:`classify_answer`, :func:`regress_answer`: ``:classify``'s ``results`` of
  ``[label, score]`` pairs per example and ``:regress``'s one value per example (TF
  Serving's key ``results``: ``kClassifyRegressResponseKey`` in its ``json_tensor.cc``);
- :func:`metadata`: ``GetModelMetadata``'s signatures.
"""

from __future__ import annotations

import numpy as np
import orjson
import pyarrow as pa

from .errors import BadRequest
from .typed_columns import base_type

__all__ = ["answer", "classify_answer", "metadata", "regress_answer"]

_TF_DTYPES = {
    "float": "DT_FLOAT",
    "double": "DT_DOUBLE",
    "halffloat": "DT_HALF",
    "int8": "DT_INT8",
    "int16": "DT_INT16",
    "int32": "DT_INT32",
    "int64": "DT_INT64",
    "uint8": "DT_UINT8",
    "uint16": "DT_UINT16",
    "uint32": "DT_UINT32",
    "uint64": "DT_UINT64",
    "bool": "DT_BOOL",
    "string": "DT_STRING",
    "large_string": "DT_STRING",
}


def answer(arrays: dict, rows: bool) -> bytes:
    """The JSON response body of predictions ``arrays``: TF Serving's row format
    (``{"predictions": [{output: value, ...}, ...]}``) when the request sent
    ``instances``, else its columnar format (``{"outputs": {output: [values...]}}``); a
    single output is given bare in both. Numbers are written by orjson straight from the
    arrays (float32 as the shortest text that reads back the same float32).

    The row format is written without a Python dict, or list, per row: each output's
    JSON is cut into its rows' texts, which are joined with the keys between them. That
    is several times faster than building the rows as objects for orjson to write.

    >>> answer({"logistic": np.array([[0.25], [0.75]], np.float32)}, rows=True)
    b'{"predictions":[[0.25],[0.75]]}'
    """
    if len(arrays) == 1:
        (values,) = arrays.values()
        return _dumps({"predictions" if rows else "outputs": _jsonable(values)})
    if not rows:
        return _dumps({"outputs": {key: _jsonable(v) for key, v in arrays.items()}})
    # Row i is  {"k0":<text0[i]>,"k1":<text1[i]>,...}: the texts of all rows go into one
    # list at a stride, between the constant pieces, and are joined once.
    texts, keys_text = [], []
    for key, values in arrays.items():
        row_texts, bracketed = _row_texts(values)
        if row_texts is None:  # a value's text could not be cut safely: objects after all
            return _dumps({"predictions": _row_objects(arrays)})
        texts.append(row_texts)
        keys_text.append((orjson.dumps(key), bracketed))
    n = len(texts[0])
    if n == 0:
        return b'{"predictions":[]}'
    stride = 2 * len(texts) + 1
    parts: list = [None] * (n * stride)
    closing = b""
    for i, ((key, bracketed), row_texts) in enumerate(zip(keys_text, texts)):
        opening = (b",{" if i == 0 else b",") + key + (b":[" if bracketed else b":")
        parts[2 * i :: stride] = [closing + opening] * n if i else [opening] * n
        parts[2 * i + 1 :: stride] = row_texts
        closing = b"]" if bracketed else b""
    parts[stride - 1 :: stride] = [closing + b"}"] * n
    parts[0] = parts[0][1:]  # no comma before the first row
    return b'{"predictions":[' + b"".join(parts) + b"]}"


def _dumps(payload) -> bytes:
    return orjson.dumps(payload, option=orjson.OPT_SERIALIZE_NUMPY)


def _jsonable(values: np.ndarray):
    """What orjson writes for ``values``: numeric arrays as they are, others as lists."""
    if values.dtype.kind in "biuf" and values.flags.c_contiguous:
        return values
    return values.tolist()


def _row_texts(values: np.ndarray):
    """``(texts, bracketed)``: the JSON of each row of ``values`` (without its brackets
    when ``bracketed``, for a 2-D array), or ``(None, False)`` if the text cannot be cut
    at row boundaries unambiguously (a string holding the separator). An output whose
    rows are all the same (``all_classes``, ``all_class_ids``) is written once."""
    n = values.shape[0]
    if n > 1 and values.dtype.kind in "biuO" and bool(np.all(values == values[:1])):
        texts, bracketed = _row_texts(values[:1])
        return (None if texts is None else texts * n), bracketed
    text = _dumps(_jsonable(np.ascontiguousarray(values)))
    if n == 0:
        return [], False
    if values.ndim == 2:
        parts = text[2:-2].split(b"],[")
        bracketed = True
    else:
        parts = text[1:-1].split(b",")
        bracketed = False
    # Each row boundary gives one separator; any more came from inside a string.
    return (parts, bracketed) if len(parts) == n else (None, False)


def _row_objects(arrays: dict) -> list:
    outputs = {key: values.tolist() for key, values in arrays.items()}
    keys = list(outputs)
    return [dict(zip(keys, row)) for row in zip(*outputs.values())]


def classify_answer(arrays: dict) -> bytes:
    """``:classify``'s answer: ``{"results": [[[label, score], ...], ...]}``, each
    example's ``classes`` with their ``scores`` (a classification signature's outputs;
    a missing ``classes`` gives the label ``""``, a missing ``scores`` the score 0, as
    TF Serving's ``ClassificationResult`` defaults are written).

    >>> classify_answer({"classes": np.array([["0", "1"]], object),
    ...                  "scores": np.array([[0.25, 0.75]], np.float32)})
    b'{"results":[[["0",0.25],["1",0.75]]]}'
    """
    scores, classes = arrays.get("scores"), arrays.get("classes")
    if scores is None and classes is None:
        raise BadRequest("the classification signature has neither 'classes' nor 'scores'")
    scores = None if scores is None else _per_example(np.asarray(scores), "scores")
    classes = None if classes is None else _per_example(np.asarray(classes), "classes")
    if scores is None:
        scores = np.zeros(classes.shape, np.float32)
    if classes is None:
        classes = np.full(scores.shape, "", object)
    if classes.shape != scores.shape:
        raise BadRequest(
            f"the classification signature's classes {list(classes.shape)} and scores "
            f"{list(scores.shape)} differ in shape"
        )
    labels = [[_label(c) for c in row] for row in classes.tolist()]
    pairs = zip(labels, scores.tolist())
    results = [list(map(list, zip(names, values))) for names, values in pairs]
    return orjson.dumps({"results": results})


def _per_example(values: np.ndarray, name: str) -> np.ndarray:
    if values.ndim == 1:
        return values.reshape(-1, 1)
    if values.ndim != 2:
        raise BadRequest(
            f"the classification signature's {name!r} has shape {list(values.shape)}; "
            "it takes one list of classes an example"
        )
    return values


def _label(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def regress_answer(arrays: dict) -> bytes:
    """``:regress``'s answer: ``{"results": [value, ...]}``, one number an example: a
    regression signature's ``outputs`` (a regressor's ``predictions``, a binary
    classifier's ``logistic``).

    >>> regress_answer({"outputs": np.array([[1.5], [2.5]], np.float32)})
    b'{"results":[1.5,2.5]}'
    """
    values = np.asarray(arrays["outputs"])
    if values.ndim == 1 or (values.ndim == 2 and values.shape[1] == 1):
        return _dumps({"results": np.ascontiguousarray(values.reshape(-1))})
    raise BadRequest(
        f"the regression signature's outputs have shape {list(values.shape)}, not one value "
        "an example: this model takes no :regress; use :predict"
    )


def _tensor_info(name: str, dtype: str, dims: list) -> dict:
    shape = {"dim": [{"size": str(d), "name": ""} for d in dims], "unknown_rank": False}
    return {
        "dtype": dtype,
        "tensor_shape": shape,
        "name": name,
    }


def _input_info(name: str, arrow_type) -> dict:
    base = base_type(arrow_type)
    dtype = _TF_DTYPES.get(str(base), "DT_INVALID")
    if pa.types.is_fixed_size_list(arrow_type):
        dims = [-1, arrow_type.list_size]
    elif pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        dims = [-1, -1]
    else:
        dims = [-1]
    return _tensor_info(name, dtype, dims)


def _output_info(name: str, dtype, width: int) -> dict:
    kind = np.dtype(dtype).kind
    tf_dtype = "DT_STRING" if kind in "OUS" else _TF_DTYPES.get(np.dtype(dtype).name, "DT_INVALID")
    if tf_dtype == "DT_INVALID" and np.dtype(dtype) == np.float32:
        tf_dtype = "DT_FLOAT"
    return _tensor_info(name, tf_dtype, [-1] if width == 0 else [-1, width])


def metadata(name: str, model) -> dict:
    """TF Serving's ``GetModelMetadata`` answer for ``model`` (a ``ServedModel``): each
    signature it serves (:mod:`.signatures`), with the inputs every signature reads and
    the outputs it answers."""
    inputs = {k: _input_info(k, t) for k, t in (model.inputs or {}).items()}
    every = {k: _output_info(k, model.output_dtypes[k], w) for k, w in model.outputs.items()}
    definitions = {}
    for key, signature in model.signatures.items():
        if signature.outputs is None or signature.predict_all:
            outputs = every
        else:
            outputs = {out: every[pred] for out, pred in signature.outputs.items() if pred in every}
            outputs = {out: {**info, "name": out} for out, info in outputs.items()}
        definitions[key] = {
            "inputs": inputs,
            "outputs": outputs,
            "method_name": f"tensorflow/serving/{signature.method}",
        }
    return {
        "model_spec": {"name": name, "signature_name": "", "version": str(model.version)},
        "metadata": {"signature_def": {"signature_def": definitions}},
    }
