"""The ``model_fn`` of a custom estimator's export, found by an explicit import string.

An export of ``Estimator(model_fn)`` records its model_fn by name, never its code. The
server gets the function the same way ``cn.load(path, model_fns={name: fn})`` does: the
operator names it, ``colonnade serve EXPORT --model-fn NAME=package.module:function``
(``package.module:function`` alone is named by the function's ``__name__``), and it is
imported with :mod:`importlib` from the server's own environment. Nothing inside the
export is imported or run, and the export directory is never put on ``sys.path``.

>>> import_model_fns(["census_model=os.path:join"])["census_model"].__name__
'join'
"""

from __future__ import annotations

import importlib
import inspect
import re

__all__ = ["ModelFnImportError", "import_model_fns", "model_fn_specs"]

_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
FLAG = "--model-fn NAME=package.module:function"
"""The command-line flag that names a model_fn, for messages."""


class ModelFnImportError(ValueError):
    """A ``--model-fn`` import string that is malformed or does not import."""


def _split(spec: str) -> tuple:
    """``(name or None, "module:function")`` of one ``--model-fn`` value."""
    if not isinstance(spec, str):
        raise ModelFnImportError(f"a model_fn import string must be a string, got {spec!r}")
    name, sep, target = spec.partition("=")
    if not sep:
        name, target = None, spec
    if (sep and not name.isidentifier()) or not _TARGET.match(target):
        raise ModelFnImportError(
            f"--model-fn {spec!r}: expected NAME=package.module:function or package.module:function"
        )
    return name, target


def import_target(target: str):
    """The callable ``package.module:function`` names (``function`` may be dotted:
    ``Class.method``), imported from the installed packages."""
    module_name, _, attribute = target.partition(":")
    try:
        value = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any failure of the user's module is named
        raise ModelFnImportError(
            f"--model-fn {target!r}: module {module_name!r} does not import "
            f"({type(e).__name__}: {e}); is it installed, or on PYTHONPATH?"
        ) from e
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ModelFnImportError(
                f"--model-fn {target!r}: module {module_name!r} has no {attribute!r}"
            )
        value = getattr(value, part)
    if not callable(value):
        raise ModelFnImportError(
            f"--model-fn {target!r}: {attribute!r} is a {type(value).__name__}, not a function"
        )
    _check_model_fn_arguments(value, target)
    return value


def _check_model_fn_arguments(function, target: str) -> None:
    """Refuse a callable that cannot be called as a ``model_fn``, ``(features, labels,
    mode)`` (``os:system`` takes one command): named when imported, not a traceback at
    the first request."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # no signature to read (some builtins): taken as is
        return
    try:
        signature.bind_partial(None, None, None)
    except TypeError:
        raise ModelFnImportError(
            f"--model-fn {target!r}: {target.partition(':')[2]!r} takes {signature}, not a "
            "model_fn's (features, labels, mode[, params, config])"
        ) from None


def model_fn_specs(specs) -> dict:
    """``{name: "package.module:function"}`` of ``specs``: ``--model-fn`` values (a list
    of ``NAME=package.module:function`` or ``package.module:function``) or such a dict
    already. Each is imported, so a bad one fails here, naming it; one without a name is
    named by its function's ``__name__``. Two functions under one name are refused."""
    if specs is None:
        return {}
    if isinstance(specs, dict):
        specs = [f"{name}={target}" for name, target in specs.items()]
    elif isinstance(specs, str):
        specs = [specs]
    named: dict = {}
    for spec in specs:
        name, target = _split(spec)
        if name is None:
            name = getattr(import_target(target), "__name__", None) or target.rsplit(".", 1)[-1]
        if named.get(name, target) != target:
            raise ModelFnImportError(
                f"--model-fn names {name!r} twice: {named[name]!r} and {target!r}"
            )
        named[name] = target
    return named


def import_model_fns(specs) -> dict:
    """``{name: model_fn}`` for ``specs`` (as :func:`model_fn_specs` takes them), each
    imported; :class:`ModelFnImportError` names one that does not import."""
    return {name: import_target(target) for name, target in model_fn_specs(specs).items()}
