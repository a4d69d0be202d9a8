"""``colonnade serve``: TF Serving's REST API for colonnade exports.

Users leaving TF Serving keep their clients: ``POST /v1/models/NAME:predict`` with
``{"instances": [...]}`` or ``{"inputs": {...}}``, ``GET /v1/models/NAME`` and
``/metadata``. ``EXPORT`` is one export or a base directory of numbered versions; the
newest is served and newer ones are swapped in while the server runs.

- :mod:`.versions`: :class:`ModelStore`, the versions on disk, the loaded one, the poller;
- :mod:`.app`: the Starlette app (:func:`create_app`).

The server needs the ``serve`` extra (``pip install "colonnade[serve]"``: starlette and
uvicorn); ``import colonnade`` never imports them.

>>> from colonnade.serving import serve
>>> serve("exports/", port=8501, model_name="census")  # doctest: +SKIP
"""

from __future__ import annotations

from .versions import DEFAULT_POLL_INTERVAL, ModelStore, ServedModel

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MODEL_NAME",
    "DEFAULT_PORT",
    "MISSING_EXTRA",
    "ModelStore",
    "ServedModel",
    "create_app",
    "serve",
]

DEFAULT_PORT = 8501  # TF Serving's REST port
DEFAULT_HOST = "127.0.0.1"  # local only unless asked: the API has no authentication
DEFAULT_MODEL_NAME = "default"  # tensorflow_model_server's --model_name default
MISSING_EXTRA = (
    'colonnade serve needs starlette, uvicorn, httptools and orjson: pip install "colonnade[serve]"'
)


def create_app(store, model_name=DEFAULT_MODEL_NAME, **kwargs):
    """The ASGI app serving ``store`` (a :class:`ModelStore`) as ``model_name``; see
    :func:`colonnade.serving.app.create_app`. Needs the ``serve`` extra."""
    from .app import create_app as _create_app

    return _create_app(store, model_name, **kwargs)


def serve(
    export,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    model_name: str = DEFAULT_MODEL_NAME,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
) -> None:
    """Serve ``export`` (an export directory, or a base directory of numbered versions)
    over HTTP at ``host:port`` until interrupted. Raises ``ImportError`` without the
    ``serve`` extra, ``FileNotFoundError`` when ``export`` holds no export, and
    ``ExportError`` when its newest version cannot be loaded."""
    import uvicorn

    store = ModelStore(export, poll_interval=poll_interval)
    app = create_app(store, model_name, freeze_heap=True)
    print(f"serving {model_name!r} at http://{host}:{port}/v1/models/{model_name}", flush=True)
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning")
