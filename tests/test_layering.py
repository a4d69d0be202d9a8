"""The package's layers, as docs/architecture.md draws them, checked on the source.

Every module's imports (at module level and inside functions, relative ones resolved) are read
with ``ast`` into a graph of module -> module edges. ``from pkg import name`` is an edge to
``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``). The folders are mapped to
``colonnade.*`` names as pyproject.toml maps them. The rules:

* no import cycles between modules;
* the layers, bottom to top, are LAYERS: a layer imports only itself and the layers below it
  (so core imports no other layer, and data stands on core alone);
* only the command line (``colonnade.cli``) imports the server (``colonnade.serving``) and the
  scikit-learn adapters (``colonnade.sklearn``).
"""

import ast
import sys
from collections import deque
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LAYERS = [  # bottom to top
    "colonnade.core",
    "colonnade.data",
    "colonnade.feature_columns",
    "colonnade.estimators",
    "colonnade.distribute",
    "colonnade",
]
CLI_ONLY = ["colonnade.serving", "colonnade.sklearn"]
CLI = "colonnade.cli"


def package_dirs():
    """pyproject.toml's ``package-dir``: package name -> its folder."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in mapping.items()}


def module_files(dirs):
    """Dotted module name -> source file, for every ``.py`` file below each mapped folder."""
    modules = {}
    for package, folder in dirs.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def within(name, prefix):
    """Whether module ``name`` is ``prefix`` or below it."""
    return name == prefix or name.startswith(prefix + ".")


def import_graph(dirs):
    """Module -> the set of modules it imports, over the packages in ``dirs``."""
    modules = module_files(dirs)

    def known(name):  # the module ``name`` names, or the package above it that exists
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # ``from ..x import y``: up level - 1 packages, then x
                    base = package.rsplit(".", node.level - 1)[0] + (f".{base}" if base else "")
                targets += [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
        graph[name] = {known(t) for t in targets} - {None, name}
    return graph


def cycles(graph):
    """A shortest import cycle through each module that is on one, each as a list
    ``[a, b, ..., a]``; a cycle is listed once however many of its modules it passes."""
    found = {}
    for start in sorted(graph):
        came_from = {start: None}
        queue = deque([start])
        while queue:
            module = queue.popleft()
            if start in graph.get(module, ()):
                path = [module]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                path = path[::-1] + [start]
                found.setdefault(frozenset(path), path)
                break
            for target in sorted(graph.get(module, ())):
                if target not in came_from:
                    came_from[target] = module
                    queue.append(target)
    return sorted(found.values())


def layer(module):
    """The layer in LAYERS a module belongs to (the longest that contains it)."""
    return max((name for name in LAYERS if within(module, name)), key=len)


def edges(graph):
    return sorted((src, dst) for src, targets in graph.items() for dst in targets)


def describe(pairs):
    return "\n".join(f"  {src} imports {dst}" for src, dst in pairs)


GRAPH = import_graph(package_dirs())


def test_graph_builder_finds_a_cycle(tmp_path):
    """A cycle through a relative, a function-level and an absolute import is found."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (pkg / "c.py").write_text("import numpy\nimport pkg.a\ng = 1\n")
    graph = import_graph({"pkg": pkg})
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]


def test_graph_covers_every_layer():
    for name in LAYERS + CLI_ONLY + [CLI, "colonnade.data.tfrecord", "colonnade.core.crc"]:
        assert name in GRAPH, name
    assert "colonnade.core.crc" in GRAPH["colonnade.core.tf_bundle"]


def test_no_import_cycles():
    found = cycles(GRAPH)
    assert not found, "import cycles:\n" + "\n".join("  " + " -> ".join(c) for c in found)


def test_core_imports_no_other_package():
    bad = [(s, d) for s, d in edges(GRAPH) if layer(s) == LAYERS[0] and layer(d) != LAYERS[0]]
    assert not bad, "core must stand alone:\n" + describe(bad)


def test_data_does_not_import_feature_columns_or_estimators():
    above = {"colonnade.feature_columns", "colonnade.estimators"}
    bad = [(s, d) for s, d in edges(GRAPH) if layer(s) == "colonnade.data" and layer(d) in above]
    assert not bad, "data stands on core and pyarrow only:\n" + describe(bad)


def test_layers_import_only_layers_below():
    bad = [(s, d) for s, d in edges(GRAPH) if LAYERS.index(layer(d)) > LAYERS.index(layer(s))]
    assert not bad, f"a layer imports only itself and those left of it in {LAYERS}:\n" + describe(
        bad
    )


def test_only_the_cli_imports_the_server_and_sklearn_adapters():
    bad = [
        (s, d)
        for s, d in edges(GRAPH)
        for name in CLI_ONLY
        if within(d, name) and not within(s, name) and not within(s, CLI)
    ]
    assert not bad, f"only {CLI} imports {CLI_ONLY}:\n" + describe(bad)


ROOMS = [  # colonnade.estimators' sub-packages, bottom to top (docs/architecture.md)
    ["hooks", "inputs"],
    ["spec"],
    ["heads", "networks"],
    ["export"],
    ["runtime"],
    ["canned"],
    ["tabular"],
    ["loading", "experimental"],
]


def room_floor(module):
    """The floor of the estimators room a module is in, or None outside the rooms."""
    prefix = "colonnade.estimators."
    if not module.startswith(prefix):
        return None
    room = module[len(prefix) :].split(".")[0]
    return next((i for i, rooms in enumerate(ROOMS) if room in rooms), None)


def test_estimator_rooms_import_only_rooms_below():
    bad = [
        (s, d)
        for s, d in edges(GRAPH)
        if room_floor(s) is not None and room_floor(d) is not None and room_floor(d) > room_floor(s)
    ]
    assert not bad, f"a room imports only itself and the rooms below it in {ROOMS}:\n" + describe(
        bad
    )


def test_every_estimators_module_is_in_a_room():
    loose = [m for m in GRAPH if m.startswith("colonnade.estimators.") and room_floor(m) is None]
    assert not loose, f"modules outside the rooms {ROOMS}: {loose}"


def test_the_estimator_asks_its_model_not_its_kind():
    """``Estimator``'s module reads no ``.custom`` attribute (what differs between a
    ``model_fn`` and a canned model is a method of the ``Model``) and imports no canned
    module."""
    name = "colonnade.estimators.runtime.estimator"
    path = module_files(package_dirs())[name]
    tree = ast.parse(path.read_text(), str(path))
    reads = [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "custom"
    ]
    assert not reads, f"{path} reads .custom at lines {reads}"
    canned = sorted(m for m in GRAPH[name] if within(m, "colonnade.estimators.canned"))
    assert not canned, f"{path} imports {canned}"


def test_the_kind_checks_see_a_custom_read_and_a_canned_import(tmp_path):
    """The two checks above find what they look for."""
    pkg = tmp_path / "pkg"
    (pkg / "canned").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "canned" / "__init__.py").write_text("")
    (pkg / "canned" / "model.py").write_text("")
    (pkg / "est.py").write_text("def f(m):\n    from .canned import model\n    return m.custom\n")
    tree = ast.parse((pkg / "est.py").read_text())
    assert [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)] == ["custom"]
    assert import_graph({"pkg": pkg})["pkg.est"] == {"pkg.canned.model"}
