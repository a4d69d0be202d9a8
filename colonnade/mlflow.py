"""``colonnade.mlflow``: an MLflow flavor for colonnade models, and their ``pyfunc``.

``log_model(model, "model")`` writes the model's pickle-free export (``model.json``, the
weights as ``.npy``, the vocabularies: what ``export_saved_model`` writes and
``colonnade serve`` serves) as an MLflow model of two flavors: ``colonnade``, which
:func:`load_model` reads back as the export's predictor (:func:`colonnade.load`), and
``python_function``, which ``mlflow.pyfunc.load_model`` reads back as a model whose
``predict(rows)`` is the predictor's DataFrame of predictions. Nothing is pickled:
loading reads JSON and arrays only, as ``cn.load`` does (``docs/exports.md``).

An export of a custom ``Estimator(model_fn)`` records its model_fn by name and holds no
code: ``model_fns={name: "package.module:function"}`` records where the loader imports
it from (as ``colonnade serve --model-fn`` names it), or the caller of
:func:`load_model` gives the functions themselves.

Needs the ``mlflow`` extra (``pip install "colonnade[mlflow]"``); ``import colonnade``
never imports MLflow.

>>> import colonnade as cn, mlflow  # doctest: +SKIP
>>> with mlflow.start_run():  # doctest: +SKIP
...     info = cn.mlflow.log_model(classifier, "model")
>>> mlflow.pyfunc.load_model(info.model_uri).predict(df)  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import pkgutil
import platform
import shutil

from .core import library_version

__all__ = ["FLAVOR_NAME", "load_model", "log_model", "save_model"]

FLAVOR_NAME = "colonnade"
EXPORT_DIR = "export"
"""The MLflow model's folder holding the export (a base directory of one version)."""
MLMODEL_FILE = "MLmodel"
MISSING_EXTRA = 'colonnade.mlflow needs MLflow: pip install "colonnade[mlflow]"'


def _mlflow():
    try:
        import mlflow
        import mlflow.pyfunc  # noqa: F401  (the submodule add_to_model lives in)
    except ImportError as e:
        raise ImportError(MISSING_EXTRA) from e
    return mlflow


def _export(model, export_base: str, serving_input_receiver_fn) -> None:
    """Write ``model``'s export under ``export_base``: a fitted estimator or zero-config
    model is exported; a path is taken as an export already written and copied."""
    if isinstance(model, (str, os.PathLike)):
        from .estimators.export.directory import resolve_export_dir

        source = resolve_export_dir(model)
        shutil.copytree(source, os.path.join(export_base, os.path.basename(source)))
        return
    if not callable(getattr(model, "export_saved_model", None)):
        raise TypeError(
            "colonnade.mlflow logs a fitted colonnade estimator (canned, custom Estimator, "
            "TabularClassifier/TabularRegressor) or the path of its export; got "
            f"{type(model).__name__}"
        )
    model.export_saved_model(export_base, serving_input_receiver_fn)


def _import(name: str, target: str):
    """The function ``target`` (``package.module:function``) names, imported from the
    installed packages (:func:`pkgutil.resolve_name`); a failure names both."""
    try:
        function = pkgutil.resolve_name(target) if ":" in target else None
    except (ImportError, AttributeError, ValueError) as e:
        raise ValueError(
            f"model_fns[{name!r}] = {target!r} does not import ({type(e).__name__}: {e}); "
            "is its module installed, or on PYTHONPATH?"
        ) from e
    if not callable(function):
        raise ValueError(
            f"model_fns[{name!r}] = {target!r}: expected 'package.module:function' naming a "
            "function"
        )
    return function


def _checked_model_fns(model_fns) -> dict:
    """``model_fns`` as ``{name: "package.module:function"}``, each imported once to
    fail now, naming it, rather than when the model is loaded."""
    if model_fns is None:
        return {}
    if not isinstance(model_fns, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in model_fns.items()
    ):
        raise TypeError(
            "model_fns must be a dict of model_fn name -> 'package.module:function' import "
            f"string (nothing else is recorded in an MLflow model); got {model_fns!r:.200}"
        )
    for name, target in model_fns.items():
        _import(name, target)
    return dict(model_fns)


def _requirements(pip_requirements, extra_pip_requirements) -> list:
    if pip_requirements is not None:
        return list(pip_requirements)
    return [f"colonnade=={library_version()}", *(extra_pip_requirements or [])]


def _write_environment(path: str, requirements: list) -> None:
    """MLflow's three environment files: ``requirements.txt``, ``python_env.yaml`` and
    ``conda.yaml`` (written as JSON, which is YAML)."""
    python = platform.python_version()
    with open(os.path.join(path, "requirements.txt"), "w", encoding="utf-8") as f:
        f.write("".join(f"{r}\n" for r in requirements))
    python_env = {
        "python": python,
        "build_dependencies": ["pip", "setuptools", "wheel"],
        "dependencies": ["-r requirements.txt"],
    }
    conda = {
        "name": "mlflow-env",
        "channels": ["conda-forge"],
        "dependencies": [f"python={python}", "pip", {"pip": requirements}],
    }
    for name, content in (("python_env.yaml", python_env), ("conda.yaml", conda)):
        with open(os.path.join(path, name), "w", encoding="utf-8") as f:
            json.dump(content, f, indent=2)


def save_model(
    model,
    path,
    mlflow_model=None,
    serving_input_receiver_fn=None,
    model_fns: dict | None = None,
    signature=None,
    metadata: dict | None = None,
    pip_requirements=None,
    extra_pip_requirements=None,
) -> None:
    """Write ``model`` to the new local folder ``path`` as an MLflow model.

    Args:
        model: a fitted estimator (canned, custom ``Estimator``, ``TabularClassifier`` or
            ``TabularRegressor``), or the path of an export it wrote.
        path: the folder to create; an existing one that is not empty is refused.
        mlflow_model: the ``mlflow.models.Model`` to add the flavors to (``log_model``
            gives one), else a new one.
        serving_input_receiver_fn: as ``export_saved_model`` takes it.
        model_fns: for a custom ``Estimator``: ``{name: "package.module:function"}``, where
            ``mlflow.pyfunc.load_model`` imports the export's model_fn from.
        signature: an ``mlflow.models.ModelSignature`` to record.
        metadata: a dict recorded as the model's metadata.
        pip_requirements: the requirements to record instead of ``colonnade==VERSION``;
            ``extra_pip_requirements`` are added to that default.
    """
    mlflow = _mlflow()
    from mlflow.models import Model

    path = os.path.abspath(os.fspath(path))
    if os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
        raise FileExistsError(f"cannot save an MLflow model to {path!r}: it is not an empty folder")
    recorded = _checked_model_fns(model_fns)
    os.makedirs(path, exist_ok=True)
    try:
        _export(model, os.path.join(path, EXPORT_DIR), serving_input_receiver_fn)
        mlflow_model = Model() if mlflow_model is None else mlflow_model
        if signature is not None:
            mlflow_model.signature = signature
        if metadata is not None:
            mlflow_model.metadata = metadata
        mlflow.pyfunc.add_to_model(
            mlflow_model,
            loader_module="colonnade.mlflow",
            data=EXPORT_DIR,
            conda_env="conda.yaml",
            python_env="python_env.yaml",
        )
        mlflow_model.add_flavor(
            FLAVOR_NAME, colonnade_version=library_version(), export=EXPORT_DIR, model_fns=recorded
        )
        mlflow_model.save(os.path.join(path, MLMODEL_FILE))
        _write_environment(path, _requirements(pip_requirements, extra_pip_requirements))
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def log_model(model, artifact_path: str | None = None, *, name: str | None = None, **kwargs):
    """Log ``model`` (as :func:`save_model` takes it, with its keyword arguments) to the
    active MLflow run, or a new one, and return MLflow's ``ModelInfo`` (its
    ``model_uri`` loads it back). ``artifact_path`` is MLflow 2's name for where it goes;
    MLflow 3 calls it ``name``. ``registered_model_name``, ``run_id``... are MLflow's
    ``Model.log`` arguments, passed on."""
    import sys

    mlflow = _mlflow()
    from mlflow.models import Model

    where = name or artifact_path
    if where is None:
        raise TypeError("log_model needs a name to log the model under: log_model(model, 'model')")
    flavor = sys.modules[__name__]
    if int(mlflow.__version__.split(".")[0]) >= 3:
        return Model.log(artifact_path=None, name=where, flavor=flavor, model=model, **kwargs)
    return Model.log(artifact_path=where, flavor=flavor, model=model, **kwargs)


def _flavor(local_path: str) -> dict:
    from mlflow.models import Model

    flavors = Model.load(os.path.join(local_path, MLMODEL_FILE)).flavors
    conf = flavors.get(FLAVOR_NAME)
    if not isinstance(conf, dict):
        raise ValueError(
            f"the MLflow model at {local_path!r} has no {FLAVOR_NAME!r} flavor; it has "
            f"{sorted(flavors)}"
        )
    return conf


def _inside(local_path: str, relative) -> str:
    """``local_path/relative``, refused when ``relative`` (read from the MLmodel file)
    leads outside ``local_path``."""
    root = os.path.realpath(local_path)
    if not isinstance(relative, str):
        raise ValueError(f"{local_path}/{MLMODEL_FILE}: the export folder must be a string")
    target = os.path.realpath(os.path.join(root, relative))
    if os.path.commonpath([root, target]) != root:
        raise ValueError(
            f"{local_path}/{MLMODEL_FILE}: the export folder {relative!r} is outside the model"
        )
    return target


def _model_fns(conf: dict, given) -> dict | None:
    """The model_fns to load with: ``given`` (functions or import strings), else the
    import strings the flavor records, imported."""
    specs = (conf.get("model_fns") or {}) if given is None else given
    if not isinstance(specs, dict):
        raise TypeError(f"model_fns must be a dict of name -> model_fn; got {specs!r:.200}")
    return {
        name: _import(name, fn) if isinstance(fn, str) else fn for name, fn in specs.items()
    } or None


def load_model(model_uri: str, dst_path: str | None = None, model_fns: dict | None = None):
    """The colonnade predictor of the MLflow model at ``model_uri`` (``runs:/...``,
    ``models:/...``, a local path...): what :func:`colonnade.load` returns for its export,
    whose ``predict(rows)`` gives a DataFrame. ``dst_path``: where a remote model is
    downloaded to. ``model_fns``: for a custom Estimator's, ``{name: model_fn}`` (or
    import strings), else those recorded by :func:`save_model`."""
    mlflow = _mlflow()
    from .estimators.loading import load

    local_path = mlflow.artifacts.download_artifacts(artifact_uri=model_uri, dst_path=dst_path)
    conf = _flavor(local_path)
    export = _inside(local_path, conf.get("export", EXPORT_DIR))
    return load(export, model_fns=_model_fns(conf, model_fns))


class _PyFuncModel:
    """What ``mlflow.pyfunc.load_model`` wraps: ``predict`` is the predictor's."""

    def __init__(self, predictor):
        self.predictor = predictor

    def predict(self, model_input, params: dict | None = None):
        """The predictions DataFrame for ``model_input`` (a DataFrame, Arrow table, dict
        of columns or list of row dicts), every prediction key of the model. ``params``
        are refused: the predictor takes none (``load_model(...).predict(rows,
        predict_keys=...)`` selects keys)."""
        if params:
            raise ValueError(
                f"the colonnade pyfunc takes no params, got {sorted(params)}; select "
                "prediction keys with colonnade.mlflow.load_model(uri).predict(rows, "
                "predict_keys=[...])"
            )
        return self.predictor.predict(model_input)

    def get_raw_model(self):
        """The colonnade predictor itself."""
        return self.predictor


def _load_pyfunc(data_path: str, model_config: dict | None = None) -> _PyFuncModel:
    """``mlflow.pyfunc``'s loader: ``data_path`` is the model's export folder, beside
    its MLmodel file. ``model_config={"model_fns": {...}}`` overrides the recorded ones."""
    from .estimators.loading import load

    conf = _flavor(os.path.dirname(os.path.abspath(data_path)))
    given = (model_config or {}).get("model_fns")
    return _PyFuncModel(load(data_path, model_fns=_model_fns(conf, given)))
