"""The ASGI app: TF Serving's REST API over a :class:`~.versions.ModelStore`.

Routes (``NAME`` is the served model's name, ``N`` a version number):

- ``POST /v1/models/NAME[/versions/N]:predict``: ``{"instances": [{column: value, ...},
  ...]}`` (rows) answers ``{"predictions": [{output: value, ...}, ...]}``, one object a
  row; ``{"inputs": {column: [values...]}}`` (columns) answers ``{"outputs": {output:
  [values...]}}``. As in TF Serving, a model with a single output answers bare values
  (``{"predictions": [v, ...]}``, ``{"outputs": [v, ...]}``), and a model with a single
  input takes bare values too. Each output keeps its TF shape: ``probabilities`` is a
  list of ``k`` per row, ``class_ids`` a list of one. An export made with
  ``build_parsing_serving_input_receiver_fn`` also takes ``{"examples": [{"b64":
  "<base64 of a serialized tf.Example>"}, ...]}`` (answered as ``instances``); others
  answer it 400.
- ``GET /v1/models/NAME[/versions/N]``: ``{"model_version_status": [...]}``.
- ``GET /v1/models/NAME[/versions/N]/metadata``: the ``serving_default`` signature:
  inputs and outputs with their TF dtypes and shapes.

A whole request is predicted at once (:func:`.inference.predict_table`, the steps of
``Predictor.predict`` without its per-call thread and frame), and small requests that
arrive together share one model call (:class:`Batcher`); JSON becomes Arrow a column at
a time. Bad input answers 400 ``{"error": "..."}`` naming the field at fault, an unknown
model or version 404, anything unexpected 500 with a short message (the traceback goes
to the log, not to the client).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import gc
import logging
import re
from contextlib import asynccontextmanager

import numpy as np
import orjson
import pyarrow as pa
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..estimators.export import export_version
from .inference import predict_table
from .versions import ModelStore, ServedModel

__all__ = [
    "MAX_BODY_BYTES",
    "SIGNATURE_NAMES",
    "BadRequest",
    "Batcher",
    "create_app",
    "refreeze_heap",
]

logger = logging.getLogger("colonnade.serving")

MAX_BODY_BYTES = 64 << 20
"""The largest request body read (64 MiB), refused by its Content-Length before reading
or, without one, as soon as the bytes read pass it."""
SIGNATURE_NAMES = ("serving_default", "predict")
"""The signature names a request may give: TF's estimator exports name their prediction
signature ``predict`` and serve it as ``serving_default`` too."""
INLINE_ROWS = 64
"""Requests of at most this many rows run on the event loop, merged with those that
arrive with them (:class:`Batcher`): a hop to the thread pool costs more than predicting
a few rows. Larger ones run in the pool, so one big request does not stall the small
ones."""

_PREFIX = "/v1/models/"
_PATH = re.compile(
    r"^(?P<name>[^/:]+)(?:/versions/(?P<version>[^/:]+))?(?P<what>:predict|/metadata)?$"
)
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


class BadRequest(Exception):
    """A client error: answered with ``status`` (400 unless said) and ``{"error": message}``."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _json_response(payload, status: int = 200) -> Response:
    body = orjson.dumps(payload)  # several times json's speed; NaN becomes null
    return Response(body, status_code=status, media_type="application/json")


def _error(message: str, status: int) -> Response:
    return _json_response({"error": message}, status)


# --------------------------------------------------------------------------- body


class ClientGone(Exception):
    """The client closed the connection before its request body was read."""


async def receive_body(scope, receive, limit: int) -> bytes:
    """The body of the ASGI request ``scope``, refusing one over ``limit`` bytes: by its
    Content-Length before reading anything, else by stopping the read as soon as it
    passes the limit. Raises :class:`ClientGone` if the client disconnects first."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            if not value.isdigit():
                given = value.decode(errors="replace")
                raise BadRequest(f"Content-Length must be a number of bytes, got {given!r}")
            if int(value) > limit:
                raise BadRequest(
                    f"request body of {int(value):,} bytes is over the {limit:,}-byte limit; "
                    "send fewer rows per request"
                )
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BadRequest(
                f"request body is over the {limit:,}-byte limit; send fewer rows per request"
            )
        if not message.get("more_body", False):
            if not chunks:
                return chunk  # the usual case: the whole body in one message
            chunks.append(chunk)
            return b"".join(chunks)
        chunks.append(chunk)


def parse_request(raw: bytes) -> dict:
    """The JSON object of a predict request, checked for its top-level fields."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise BadRequest(f"malformed JSON in the request body: {e}") from None
    if not isinstance(body, dict):
        raise BadRequest(
            f"the request body must be a JSON object with 'instances' or 'inputs', got a "
            f"JSON {type(body).__name__}"
        )
    signature = body.get("signature_name", "serving_default")
    if signature not in SIGNATURE_NAMES:
        raise BadRequest(
            f"signature_name {signature!r} is not served; this export has {list(SIGNATURE_NAMES)}"
        )
    given = [k for k in ("instances", "inputs", "examples") if k in body]
    if "examples" in body and len(given) == 1:
        return body
    if len(given) != 1:
        what = "neither" if not given else "both"
        raise BadRequest(
            f"the request has {what} 'instances' and 'inputs'; send exactly one: "
            "'instances' (a list of rows) or 'inputs' (a dict of columns)"
        )
    return body


def examples_to_table(model: ServedModel, examples) -> pa.Table:
    """The model's input columns parsed from ``examples`` (``[{"b64": base64 of a
    serialized tf.Example}, ...]``) with the export's recorded parse spec; an export
    without a parsing serving input receiver takes none."""
    if not model.predictor.takes_examples:
        raise BadRequest(
            "this export takes no serialized examples ('examples'): it was exported without "
            "build_parsing_serving_input_receiver_fn; send 'instances' (a list of rows) or "
            "'inputs' (a dict of columns)"
        )
    if not isinstance(examples, list):
        raise BadRequest(f"'examples' must be a list, got a JSON {_kind_of(examples)}")
    serialized = []
    for i, example in enumerate(examples):
        if not isinstance(example, dict) or set(example) != {"b64"}:
            raise BadRequest(
                f'examples[{i}] must be {{"b64": "<base64 of a serialized tf.Example>"}}'
            )
        try:
            serialized.append(base64.b64decode(example["b64"], validate=True))
        except (binascii.Error, TypeError, ValueError):
            raise BadRequest(f"examples[{i}].b64 is not valid base64") from None
    try:
        table = model.predictor.parse_examples(serialized)
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        raise BadRequest(f"the examples cannot be parsed: {e}") from None
    return table.select([name for name in model.inputs if name in table.column_names])


# --------------------------------------------------------------------------- JSON -> Arrow


def rows_to_columns(instances, names: list) -> dict:
    """``{column: [value per row]}`` of the ``instances`` list, checking each row holds
    every input ``names`` (a model of one input also takes bare values)."""
    if not isinstance(instances, list):
        raise BadRequest(f"'instances' must be a list of rows, got a JSON {_kind_of(instances)}")
    if len(names) == 1 and instances and not isinstance(instances[0], dict):
        return {names[0]: instances}
    try:  # the common case, checked only when it fails: one pass a column
        return {name: [row[name] for row in instances] for name in names}
    except (KeyError, TypeError):
        pass
    wanted = set(names)
    for i, row in enumerate(instances):
        if not isinstance(row, dict):
            raise BadRequest(
                f"instances[{i}] must be an object of input columns, got a JSON {_kind_of(row)}"
            )
        if not wanted <= row.keys():
            missing = sorted(wanted - row.keys())
            raise BadRequest(
                f"instances[{i}] lacks input column(s) {missing}; the model reads {names}"
            )
    raise AssertionError("unreachable: a row above lacks a column or is not an object")


def inputs_to_columns(inputs, names: list) -> dict:
    """``{column: values}`` of the columnar ``inputs``, checking every input is there and
    all columns have as many values (a model of one input also takes a bare list)."""
    if len(names) == 1 and isinstance(inputs, list):
        inputs = {names[0]: inputs}
    if not isinstance(inputs, dict):
        raise BadRequest(
            f"'inputs' must be an object of input columns, got a JSON {_kind_of(inputs)}"
        )
    missing = [name for name in names if name not in inputs]
    if missing:
        raise BadRequest(f"'inputs' lacks input column(s) {missing}; the model reads {names}")
    columns = {}
    for name in names:
        values = inputs[name]
        if not isinstance(values, list):
            raise BadRequest(
                f"inputs[{name!r}] must be a list of values, one a row, got a JSON "
                f"{_kind_of(values)}"
            )
        columns[name] = values
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        first = names[0]
        odd = next(n for n in names if lengths[n] != lengths[first])
        raise BadRequest(
            f"ragged inputs: column {odd!r} has {lengths[odd]} values but {first!r} has "
            f"{lengths[first]}; every column needs one value a row"
        )
    return columns


def _kind_of(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "null" if value is None else "number"
    )


def _base_type(arrow_type):
    while (
        pa.types.is_list(arrow_type)
        or pa.types.is_large_list(arrow_type)
        or (pa.types.is_fixed_size_list(arrow_type))
    ):
        arrow_type = arrow_type.value_type
    return arrow_type


def _accepts(expected, got) -> bool:
    """Whether values of Arrow type ``got`` can feed an input of type ``expected``."""
    expected, got = _base_type(expected), _base_type(got)
    if pa.types.is_null(got):
        return True
    if pa.types.is_floating(expected):
        return pa.types.is_floating(got) or pa.types.is_integer(got)
    if pa.types.is_integer(expected):
        return pa.types.is_integer(got)
    if pa.types.is_string(expected) or pa.types.is_large_string(expected):
        return pa.types.is_string(got) or pa.types.is_large_string(got)
    return got == expected


def _describe(arrow_type) -> str:
    base = _base_type(arrow_type)
    if pa.types.is_floating(base):
        return f"numbers ({base})"
    if pa.types.is_integer(base):
        return f"integers ({base})"
    if pa.types.is_string(base) or pa.types.is_large_string(base):
        return "strings"
    if pa.types.is_struct(base):
        return "objects"
    if pa.types.is_boolean(base):
        return "booleans"
    return str(base)


def columns_to_table(columns: dict, inputs: dict) -> pa.Table:
    """One Arrow column per input, each checked against the type the model reads."""
    arrays = {}
    for name, values in columns.items():
        try:
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise BadRequest(
                f"input column {name!r}: its values do not make one column: {e}"
            ) from None
        if not _accepts(inputs[name], array.type):
            raise BadRequest(
                f"input column {name!r} takes {_describe(inputs[name])}, got "
                f"{_describe(array.type)}"
            )
        arrays[name] = array
    return pa.table(arrays)


# --------------------------------------------------------------------------- predictions


def request_table(model: ServedModel, body: dict) -> pa.Table:
    """The checked predict request ``body`` as one Arrow table of the model's inputs."""
    names = list(model.inputs)
    if "examples" in body:
        return examples_to_table(model, body["examples"])
    if "instances" in body:
        columns = rows_to_columns(body["instances"], names)
    else:
        columns = inputs_to_columns(body["inputs"], names)
    return columns_to_table(columns, model.inputs)


def predict_arrays(model: ServedModel, table: pa.Table) -> dict:
    """``{output: array}`` of ``model``'s predictions for ``table``; a model that cannot
    take these inputs is the client's error."""
    try:
        return predict_table(model.predictor, table, list(model.outputs), model.value_ids)
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        raise BadRequest(f"the model cannot predict these inputs: {message}") from None


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


def predict(model: ServedModel, body: dict) -> bytes:
    """The JSON response body of a checked predict request ``body``: one predictor call."""
    arrays = predict_arrays(model, request_table(model, body))
    return answer(arrays, "inputs" not in body)


class Batcher:
    """Merges the small predict requests that arrive together into one model call, as
    TF Serving's batching does: a model call costs nearly the same for one row as for a
    few dozen, so concurrent clients share it.

    Runs on the event loop. The first request of a batch schedules a flush one loop turn
    later; the requests parsed meanwhile join it. Tables of one model and one schema are
    concatenated and predicted at once, and each request gets its own rows back. Should
    the merged call fail, each request is predicted alone so only a bad one gets its
    error.
    """

    def __init__(self, max_rows: int = INLINE_ROWS * 4):
        self.max_rows = max_rows
        self._pending: list = []  # (model, table, future)
        self._rows = 0
        self._flush_scheduled = False

    async def predict(self, model: ServedModel, table: pa.Table) -> dict:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((model, table, future))
        self._rows += table.num_rows
        if self._rows >= self.max_rows:
            self._flush()
        elif not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush_soon, loop)
        return await future

    def _flush_soon(self, loop) -> None:
        # One more loop turn: handlers of requests read in the same turn reach the queue.
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        pending, self._pending, self._rows = self._pending, [], 0
        self._flush_scheduled = False
        groups: dict = {}
        for item in pending:
            model, table, _ = item
            groups.setdefault((id(model), table.schema), []).append(item)
        for group in groups.values():
            self._predict_group(group)

    @staticmethod
    def _predict_group(group: list) -> None:
        model = group[0][0]
        if len(group) > 1:
            try:
                arrays = predict_arrays(model, pa.concat_tables([t for _, t, _ in group]))
            except Exception:  # noqa: BLE001 - retried one by one below, for each its own error
                arrays = None
            if arrays is not None:
                start = 0
                for _, table, future in group:
                    stop = start + table.num_rows
                    if not future.done():
                        future.set_result({k: v[start:stop] for k, v in arrays.items()})
                    start = stop
                return
        for _, table, future in group:
            if future.done():  # the client went away
                continue
            try:
                future.set_result(predict_arrays(model, table))
            except Exception as e:  # noqa: BLE001 - handed to the request's handler
                future.set_exception(e)


def _request_rows(body: dict) -> int:
    data = body.get("instances", body.get("inputs", body.get("examples")))
    if isinstance(data, dict):
        data = next(iter(data.values()), [])
    return len(data) if isinstance(data, list) else 0


# --------------------------------------------------------------------------- metadata


def _tensor_info(name: str, dtype: str, dims: list) -> dict:
    shape = {"dim": [{"size": str(d), "name": ""} for d in dims], "unknown_rank": False}
    return {
        "dtype": dtype,
        "tensor_shape": shape,
        "name": name,
    }


def _input_info(name: str, arrow_type) -> dict:
    base = _base_type(arrow_type)
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


def metadata(name: str, model: ServedModel) -> dict:
    """TF Serving's ``GetModelMetadata`` answer: the ``serving_default`` signature."""
    signature = {
        "inputs": {k: _input_info(k, t) for k, t in model.inputs.items()},
        "outputs": {
            k: _output_info(k, model.output_dtypes[k], w) for k, w in model.outputs.items()
        },
        "method_name": "tensorflow/serving/predict",
    }
    return {
        "model_spec": {"name": name, "signature_name": "", "version": str(model.version)},
        "metadata": {"signature_def": {"signature_def": {"serving_default": signature}}},
    }


# --------------------------------------------------------------------------- the app


def refreeze_heap() -> None:
    """Move every object alive now (the loaded model, the server's own) out of the
    cyclic garbage collector's view (``gc.freeze``), first collecting what an earlier
    freeze kept: a request's answer allocates thousands of lists and dicts, and the
    collections they trigger would otherwise walk the whole model each time (a third of
    a 1,024-row request's time; ``benchmarks/RESULTS.md``)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def create_app(
    store: ModelStore,
    model_name: str = "default",
    max_body_bytes: int = MAX_BODY_BYTES,
    freeze_heap: bool = False,
):
    """The ASGI app serving ``store`` as ``model_name``; its lifespan starts and stops
    the store's version poller. ``freeze_heap`` (what ``colonnade serve`` does) calls
    :func:`refreeze_heap` at start and after each version swap.

    Predict requests (``POST /v1/models/...``) are answered by a plain ASGI function
    straight from the server's messages, without Starlette's routing, ``Request`` and
    ``Response`` objects (per-request work that a one-row request notices). The rest
    (status and metadata, unknown paths, the lifespan) goes to a Starlette app.

    >>> app = create_app(ModelStore("exports/"), "census")  # doctest: +SKIP
    >>> uvicorn.run(app, port=8501)                          # doctest: +SKIP
    """

    batcher = Batcher()

    def resolve(path: str):
        match = _PATH.match(path)
        if match is None:
            raise BadRequest(f"no such endpoint: /v1/models/{path}", 404)
        if match["name"] != model_name:
            raise BadRequest(
                f"model {match['name']!r} not found; this server serves {model_name!r}", 404
            )
        version = match["version"]
        if version is None:
            return store.serving(), match["what"], False
        number = export_version(version)
        model = store.get(number) if number is not None else None
        if model is None:
            raise BadRequest(
                f"version {version} of model {model_name!r} is not loaded; serving version "
                f"{store.serving().version}",
                404,
            )
        return model, match["what"], True

    async def predict_answer(scope, receive) -> tuple:
        """``(status, JSON body)`` of the predict request ``scope``."""
        try:
            model, what, _ = resolve(scope["path"][len(_PREFIX) :])
            if what != ":predict":
                raise BadRequest("POST goes to .../models/NAME[/versions/N]:predict", 405)
            body = parse_request(await receive_body(scope, receive, max_body_bytes))
            if _request_rows(body) <= INLINE_ROWS:
                arrays = await batcher.predict(model, request_table(model, body))
                return 200, answer(arrays, "inputs" not in body)
            loop = asyncio.get_running_loop()
            return 200, await loop.run_in_executor(None, predict, model, body)
        except BadRequest as e:
            return e.status, orjson.dumps({"error": str(e)})
        except ClientGone:
            return None, None
        except Exception as e:
            logger.exception("POST %s failed", scope["path"])
            message = f"internal error ({type(e).__name__}); see the server log"
            return 500, orjson.dumps({"error": message})

    async def models(request: Request) -> Response:
        try:
            model, what, versioned = resolve(request.path_params["rest"])
            if what == ":predict":
                raise BadRequest(":predict takes POST", 405)
            if what == "/metadata":
                return _json_response(metadata(model_name, model))
            status = store.status()
            if versioned:  # a version's own status
                status = [s for s in status if s["version"] == str(model.version)]
            return _json_response({"model_version_status": status})
        except BadRequest as e:
            return _error(str(e), e.status)
        except Exception as e:
            logger.exception("%s %s failed", request.method, request.url.path)
            return _error(f"internal error ({type(e).__name__}); see the server log", 500)

    async def not_found(request: Request, exc: HTTPException) -> Response:
        return _error(f"{exc.detail}: {request.method} {request.url.path}", exc.status_code)

    @asynccontextmanager
    async def lifespan(app):
        if freeze_heap:
            refreeze_heap()
            store.on_swap = refreeze_heap
        store.start()
        try:
            yield
        finally:
            store.stop()

    routes = [Route(_PREFIX + "{rest:path}", models, methods=["GET"])]
    handlers = {HTTPException: not_found}
    others = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)

    async def app(scope, receive, send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not scope["path"].startswith(_PREFIX)
        ):
            return await others(scope, receive, send)
        status, body = await predict_answer(scope, receive)
        if status is None:
            return
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app
