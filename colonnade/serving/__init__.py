"""``colonnade serve``: TF Serving's REST API for colonnade exports.

Users leaving TF Serving keep their clients: ``POST /v1/models/NAME:predict`` with
``{"instances": [...]}`` or ``{"inputs": {...}}``, ``:classify`` and ``:regress``,
``GET /v1/models/NAME`` and ``/metadata`` (``docs/serving.md``). ``EXPORT`` is one
export or a base directory of numbered versions; the newest is served and newer ones
are swapped in while the server runs.

- :mod:`.versions`: :class:`ModelStore`, the versions on disk, the loaded one, the poller;
- :mod:`.app`: the ASGI app (:func:`create_app`);
- :mod:`.requests`, :mod:`.answers`: request bodies to Arrow, predictions to JSON;
- :mod:`.workers`: the threads, parse processes and budgets (:class:`Limits`).

``serve(..., workers=N)`` (``colonnade serve --workers N``) runs ``N`` server processes
on one listening socket (uvicorn's workers): each loads the model, polls for new
versions and swaps them in on its own, and the kernel hands each new connection to one
of them. One process (the default) uses one core for the model; on a machine whose
cores are free for serving, ``--workers`` set to the number of cores answers more
requests per second, at the cost of one copy of the model per process.

The server needs the ``serve`` extra (``pip install "colonnade[serve]"``: starlette and
uvicorn); ``import colonnade`` never imports them.

>>> from colonnade.serving import serve
>>> serve("exports/", port=8501, model_name="census")  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket

from .limits import WORKER_SETTINGS_ENV, Limits
from .model_fns import ModelFnImportError, import_target, model_fn_specs

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MODEL_NAME",
    "DEFAULT_PORT",
    "MISSING_EXTRA",
    "ModelFnImportError",
    "ModelStore",
    "Limits",
    "ServedModel",
    "create_app",
    "listening_socket",
    "serve",
    "worker_app",
]

_FROM_VERSIONS = ("DEFAULT_POLL_INTERVAL", "ModelStore", "ServedModel")


def __getattr__(name):
    """:mod:`.versions`' names, imported when first used: they need the ``serve`` extra
    (orjson), which ``colonnade``'s other commands, reading :class:`Limits` for their
    help, do not."""
    if name in _FROM_VERSIONS:
        from . import versions

        return getattr(versions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_PORT = 8501  # TF Serving's REST port
DEFAULT_HOST = "127.0.0.1"  # local only unless asked: the API has no authentication
DEFAULT_MODEL_NAME = "default"  # tensorflow_model_server's --model_name default
DEFAULT_WORKERS = 1
"""Server processes unless told: one, so a server shares the machine politely and holds
one copy of the model; give ``workers`` (the cores free for serving) for throughput."""
MISSING_EXTRA = (
    'colonnade serve needs starlette, uvicorn, httptools and orjson: pip install "colonnade[serve]"'
)


def create_app(store, model_name=DEFAULT_MODEL_NAME, model_fns=None, **kwargs):
    """The ASGI app serving ``store`` (a :class:`ModelStore`, or an export path to make
    one of, with ``model_fns``: ``{name: function or "package.module:function"}`` for
    custom Estimators' exports) as ``model_name``; see
    :func:`colonnade.serving.app.create_app`. Needs the ``serve`` extra."""
    from .app import create_app as _create_app
    from .versions import ModelStore

    if not isinstance(store, ModelStore):
        functions = {
            name: import_target(fn) if isinstance(fn, str) else fn
            for name, fn in (model_fns or {}).items()
        }
        store = ModelStore(store, model_fns=functions)
    elif model_fns is not None:
        raise ValueError("model_fns goes to the ModelStore: ModelStore(path, model_fns=...)")

    return _create_app(store, model_name, **kwargs)


def serve(
    export,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    model_name: str = DEFAULT_MODEL_NAME,
    poll_interval: float | None = None,
    workers: int = DEFAULT_WORKERS,
    version_labels: dict | None = None,
    limits: Limits | None = None,
    model_fns=None,
) -> None:
    """Serve ``export`` (an export directory, or a base directory of numbered versions)
    over HTTP at ``host:port`` until interrupted, in ``workers`` processes sharing the
    listening socket (each with its own model and version poller). Raises
    ``ImportError`` without the ``serve`` extra, ``FileNotFoundError`` when ``export``
    holds no export, ``ExportError`` when its newest version cannot be loaded (checked
    before any worker starts), and ``ValueError`` for ``workers`` < 1.
    ``version_labels`` maps TF Serving version labels to versions (``{"stable": 3}``)
    for ``/v1/models/NAME/labels/LABEL``. ``limits`` sets the request budgets (default
    :class:`Limits`' values, in ``docs/serving.md``). ``model_fns`` names the model_fn
    of a custom Estimator's export by import string: ``["NAME=package.module:function",
    ...]`` (``colonnade serve --model-fn``; ``package.module:function`` alone takes the
    function's ``__name__``) or ``{NAME: "package.module:function"}``; each is imported
    from this environment (:mod:`.model_fns`), in every worker process, and a bad one
    raises :class:`ModelFnImportError` naming it. ``poll_interval``: seconds between looks
    for a newer version (default :data:`.versions.DEFAULT_POLL_INTERVAL`)."""
    import uvicorn

    from .versions import DEFAULT_POLL_INTERVAL, ModelStore

    if poll_interval is None:
        poll_interval = DEFAULT_POLL_INTERVAL

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    targets = model_fn_specs(model_fns)
    functions = {name: import_target(target) for name, target in targets.items()}
    store = ModelStore(export, poll_interval=poll_interval, model_fns=functions)
    where = f"http://{host}:{port}/v1/models/{model_name}"
    processes = f" ({workers} worker processes)" if workers > 1 else ""
    print(f"serving {model_name!r} at {where}{processes}", flush=True)
    from .protocol import uvicorn_options

    options = {"host": host, "port": port, **uvicorn_options(limits, workers=workers > 1)}
    if workers == 1:
        app = create_app(
            store, model_name, freeze_heap=True, version_labels=version_labels, limits=limits
        )
        uvicorn.run(app, **options)
        return
    del store  # each worker loads its own; this one only checked that it loads
    settings = {
        "export": os.path.abspath(os.fspath(export)),
        "model_name": model_name,
        "poll_interval": poll_interval,
        "version_labels": version_labels,
        "limits": dataclasses.asdict(limits or Limits()),
        "model_fns": targets,  # import strings: each worker imports them itself
    }
    os.environ[WORKER_SETTINGS_ENV] = json.dumps(settings)  # inherited by the workers
    del options["host"], options["port"]
    with listening_socket(host, port) as sock:
        fd = sock.fileno()
        uvicorn.run(f"{__name__}:worker_app", factory=True, workers=workers, fd=fd, **options)


def listening_socket(host: str, port: int) -> socket.socket:
    """The TCP socket the workers share, bound to ``host:port``, with ``TCP_NODELAY`` set
    so that the connections accepted from it have it too (Linux copies it to them).

    uvicorn's workers accept from a socket it binds with ``proto`` 0, on whose
    connections asyncio then leaves Nagle's algorithm on (uvicorn issue 3149): a
    response's body, sent after its headers, waits for the client's delayed ACK, ~40 ms
    a request on keep-alive connections.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def worker_app():
    """The app of one worker process of :func:`serve` with ``workers`` > 1 (uvicorn's
    app factory, called in each worker): its own :class:`ModelStore` and version poller,
    from the settings ``serve`` left in the environment."""
    from .versions import ModelStore

    settings = json.loads(os.environ[WORKER_SETTINGS_ENV])
    functions = {name: import_target(t) for name, t in settings["model_fns"].items()}
    store = ModelStore(
        settings["export"], poll_interval=settings["poll_interval"], model_fns=functions
    )
    labels, limits = settings["version_labels"], Limits(**settings["limits"])
    return create_app(
        store, settings["model_name"], freeze_heap=True, version_labels=labels, limits=limits
    )
