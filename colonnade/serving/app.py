"""The ASGI app: TF Serving's REST API over a :class:`~.versions.ModelStore`.

Routes (``NAME`` is the served model's name; ``/versions/N`` or ``/labels/LABEL`` picks
a version, else the newest is used; see ``docs/serving.md`` for the JSON):

- ``POST /v1/models/NAME[...]:predict``: ``{"instances": [...]}`` (rows) answers
  ``{"predictions": [...]}``; ``{"inputs": {...}}`` (columns) answers ``{"outputs":
  ...}``. A parsing export also takes serialized ``tf.Example`` records as
  ``{"instances": [{"b64": ...}]}`` (TF Serving's form) or ``{"examples": [{"b64":
  ...}]}``.
- ``POST /v1/models/NAME[...]:classify`` and ``:regress``: ``{"context": {...},
  "examples": [{feature: value}, ...]}`` answers ``{"results": ...}``.
- ``GET /v1/models/NAME[...]``: ``{"model_version_status": [...]}`` (a version swapped
  out is ``END``).
- ``GET /v1/models/NAME[...]/metadata``: every signature the export serves.

A request's ``signature_name`` picks one of the export's signatures
(:mod:`.signatures`); its answer holds that signature's outputs.

No request is decoded, transformed or predicted on the event loop: :mod:`.workers` runs
them on threads and parse processes, under the budgets of :class:`~.workers.Limits`.
Bad input answers 400 ``{"error": "..."}`` naming the field at fault, a request over a
size limit 413, one over its time budget or a full server 503, an unknown model,
version or label 404, anything unexpected 500 with a short message (the traceback goes
to the log, not to the client).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import re
from contextlib import asynccontextmanager

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..estimators.export.directory import export_version
from .answers import answer, classify_answer, metadata, regress_answer
from .requests import BadRequest, InputSpec
from .signatures import names_by_method, select
from .versions import ModelStore, ServedModel
from .workers import Busy, Limits, WorkerPools, predict_arrays

__all__ = [
    "MAX_BODY_BYTES",
    "BadRequest",
    "Limits",
    "create_app",
    "receive_body",
    "refreeze_heap",
]

logger = logging.getLogger("colonnade.serving")

MAX_BODY_BYTES = Limits().max_body_bytes
"""The largest request body read by default (16 MiB), refused with 413 by its
Content-Length before reading or, without one, as soon as the bytes read pass it."""

_PREFIX = "/v1/models/"
_PATH = re.compile(
    r"^(?P<name>[^/:]+)(?:/versions/(?P<version>[^/:]+)|/labels/(?P<label>[^/:]+))?"
    r"(?P<what>:predict|:classify|:regress|/metadata)?$"
)
_ANSWERS = {"classify": classify_answer, "regress": regress_answer}


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
                    "send fewer rows per request",
                    413,
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
                f"request body is over the {limit:,}-byte limit; send fewer rows per request", 413
            )
        if not message.get("more_body", False):
            if not chunks:
                return chunk  # the usual case: the whole body in one message
            chunks.append(chunk)
            return b"".join(chunks)
        chunks.append(chunk)


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


def input_spec(model: ServedModel, limits: Limits) -> InputSpec:
    """What ``model``'s requests are decoded against, with ``limits``' size bounds."""
    return InputSpec(
        model.inputs,
        model.parse_features,
        limits.max_rows,
        limits.max_values,
        optional=model.optional_inputs,
        signatures=names_by_method(model.signatures),
        context=model.example_context,
    )


def _finish(verb: str, model: ServedModel, arrays: dict, decoded) -> bytes:
    """The answer to ``decoded`` of ``verb``: ``arrays`` (the predictions) cut to the
    signature it named, in TF Serving's JSON."""
    key = decoded.signature
    arrays = select(model.signatures[key], key, arrays, verb)
    return answer(arrays, decoded.rows) if verb == "predict" else _ANSWERS[verb](arrays)


def _predict_and_finish(verb: str, model: ServedModel, decoded) -> bytes:
    return _finish(verb, model, predict_arrays(model, decoded.table), decoded)


def create_app(
    store: ModelStore,
    model_name: str = "default",
    max_body_bytes: int | None = None,
    freeze_heap: bool = False,
    limits: Limits | None = None,
    version_labels: dict | None = None,
):
    """The ASGI app serving ``store`` as ``model_name``; its lifespan starts and stops
    the store's version poller and the app's parse processes. ``limits`` sets the
    request budgets (:class:`~.workers.Limits`; ``max_body_bytes`` overrides its body
    limit); ``version_labels`` maps TF Serving version labels (``{"stable": 3}``) to
    versions for ``/labels/LABEL``. ``freeze_heap`` (what ``colonnade serve`` does)
    calls :func:`refreeze_heap` at start and after each version swap.

    POSTs (``/v1/models/...``) are answered by a plain ASGI function straight from the
    server's messages, without Starlette's routing, ``Request`` and ``Response``
    objects (per-request work that a one-row request notices). The rest (status and
    metadata, unknown paths, the lifespan) goes to a Starlette app.

    >>> app = create_app(ModelStore("exports/"), "census")  # doctest: +SKIP
    >>> uvicorn.run(app, port=8501)                          # doctest: +SKIP
    """
    limits = limits or Limits()
    if max_body_bytes is not None:
        limits = dataclasses.replace(limits, max_body_bytes=max_body_bytes)
    labels = dict(version_labels or {})
    pools = WorkerPools(limits)
    specs: dict = {}  # id(model) -> (model, InputSpec): one pickled spec a version

    def spec_of(model: ServedModel) -> InputSpec:
        known = specs.get(id(model))
        if known is None or known[0] is not model:
            specs.clear()
            known = specs[id(model)] = (model, input_spec(model, limits))
        return known[1]

    def version_of(match) -> int | None:
        if match["label"] is not None:
            if match["label"] not in labels:
                raise BadRequest(
                    f"no version of model {model_name!r} is labelled {match['label']!r}; "
                    f"labels: {sorted(labels)}",
                    404,
                )
            return labels[match["label"]]
        if match["version"] is None:
            return None
        number = export_version(match["version"])
        if number is None:
            raise BadRequest(
                f"version {match['version']} of model {model_name!r} is not loaded; serving "
                f"version {store.serving().version}",
                404,
            )
        return number

    def parse_path(path: str):
        match = _PATH.match(path)
        if match is None:
            raise BadRequest(f"no such endpoint: /v1/models/{path}", 404)
        if match["name"] != model_name:
            raise BadRequest(
                f"model {match['name']!r} not found; this server serves {model_name!r}", 404
            )
        return match, version_of(match)

    def loaded(version: int | None) -> ServedModel:
        if version is None:
            return store.serving()
        model = store.get(version)
        if model is None:
            raise BadRequest(
                f"version {version} of model {model_name!r} is not loaded; serving version "
                f"{store.serving().version}",
                404,
            )
        return model

    async def post_answer(scope, receive) -> tuple:
        """``(status, JSON body)`` of the POST ``scope``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limits.request_seconds
        admitted = False
        try:
            match, version = parse_path(scope["path"][len(_PREFIX) :])
            what = match["what"] or ""
            if not what.startswith(":"):
                raise BadRequest(
                    "POST goes to .../models/NAME[/versions/N]:predict, :classify or :regress", 405
                )
            verb = what[1:]
            model = loaded(version)
            raw = await pools.within(deadline, receive_body(scope, receive, limits.max_body_bytes))
            pools.admit()
            admitted = True
            decoded = await pools.decode(verb, raw, spec_of(model), deadline)
            del raw
            if decoded.table.num_rows <= pools.INLINE_ROWS:
                arrays = await pools.within(deadline, pools.batcher.predict(model, decoded.table))
                return 200, await pools.on_thread(deadline, _finish, verb, model, arrays, decoded)
            return 200, await pools.on_thread(deadline, _predict_and_finish, verb, model, decoded)
        except BadRequest as e:
            return e.status, orjson.dumps({"error": str(e)})
        except Busy as e:
            return 503, orjson.dumps({"error": str(e)})
        except ClientGone:
            return None, None
        except Exception as e:
            logger.exception("POST %s failed", scope["path"])
            message = f"internal error ({type(e).__name__}); see the server log"
            return 500, orjson.dumps({"error": message})
        finally:
            if admitted:
                pools.release()

    def version_status(version: int | None) -> dict:
        status = store.status()
        if version is None:
            return {"model_version_status": status}
        rows = [s for s in status if s["version"] == str(version)]
        if not rows:
            raise BadRequest(
                f"version {version} of model {model_name!r} was never seen; versions: "
                f"{[s['version'] for s in status]}",
                404,
            )
        return {"model_version_status": rows}

    async def models(request: Request) -> Response:
        try:
            match, version = parse_path(request.path_params["rest"])
            what = match["what"]
            if what and what.startswith(":"):
                raise BadRequest(f"{what} takes POST", 405)
            if what == "/metadata":
                return _json_response(metadata(model_name, loaded(version)))
            return _json_response(version_status(version))
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
            pools.close()

    async def no_model_name(request: Request) -> Response:
        return _error(
            f"Missing model name in the request: {request.method} {request.url.path}; the "
            f"paths are /v1/models/{model_name}[/versions/N][:predict|:classify|:regress]",
            400,
        )

    routes = [
        Route(_PREFIX + "{rest:path}", models, methods=["GET"]),
        Route(_PREFIX.rstrip("/"), no_model_name, methods=["GET", "POST"]),
    ]
    handlers = {HTTPException: not_found}
    others = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)

    async def app(scope, receive, send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not scope["path"].startswith(_PREFIX)
        ):
            return await others(scope, receive, send)
        status, body = await post_answer(scope, receive)
        if status is None:
            return
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app
