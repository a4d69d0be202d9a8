"""List the TensorFlow names a Python program calls, for the op-surface corpus.

Run over a file of a public program (no TensorFlow needed):

    python tests/tf/opsurface/extract_tf_calls.py --repo OWNER/NAME --commit SHA \
        --path PATH --licence SPDX --source FILE > tests/tf/opsurface/programs/X.json

It parses the source with ``ast`` and keeps only what measurement needs: for each call
of a TF name (``tf.reduce_sum(x, axis=1)``), the dotted name below ``tensorflow`` with
``compat.v1``/``compat.v2`` dropped (``reduce_sum``), the keyword names given, and the
line; for each TF name read without a call (``tf.GraphKeys.UPDATE_OPS``), the name.
TF aliases are followed: ``import tensorflow as tf``, ``import tensorflow.compat.v1 as
tf``, ``tf = tf.compat.v1``, ``from tensorflow import layers``, ``from tensorflow.x
import y``. Method calls on what a ``tf.train.*Optimizer(...)`` or ``tf.data.*(...)``
call returned are kept as ``train.AdamOptimizer.minimize`` / ``data.Dataset.map``
(a variable assigned once from such a call, or a chain on it). ``tensorflow.python``
imports are recorded under ``private`` (the coverage script leaves them out).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys

_DROP = ("compat.v1.", "compat.v2.")
# the Dataset methods that return a Dataset (a chain on one stays a Dataset)
_DATASET_METHODS = frozenset(
    "apply batch cache concatenate filter flat_map interleave map padded_batch prefetch "
    "repeat shard shuffle skip take unbatch window with_options zip".split()
)


def _normalize(dotted: str) -> str:
    for prefix in _DROP:
        if dotted.startswith(prefix):
            return dotted[len(prefix) :]
    return "" if dotted in ("compat.v1", "compat.v2") else dotted


class _Extractor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}  # local name -> dotted TF path ("" for tf)
        self.typed: dict[str, str] = {}  # local name -> "train.AdamOptimizer"/"data.Dataset"
        self.calls: list[dict] = []
        self.refs: dict[str, int] = {}
        self.private: set[str] = set()
        self._called: set[int] = set()

    # --- imports and aliases -------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name == "tensorflow" or a.name.startswith("tensorflow."):
                if a.name.startswith("tensorflow.python"):
                    self.private.add(a.name)
                    continue
                sub = _normalize(a.name[len("tensorflow.") :]) if "." in a.name else ""
                self.aliases[a.asname or "tensorflow"] = sub if a.asname else ""

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if not (mod == "tensorflow" or mod.startswith("tensorflow.")) or node.level:
            return
        if mod.startswith("tensorflow.python") or mod.startswith("tensorflow_estimator"):
            self.private.update(f"{mod}.{a.name}" for a in node.names)
            return
        base = _normalize(mod[len("tensorflow.") :]) if "." in mod else ""
        for a in node.names:
            self.aliases[a.asname or a.name] = _normalize(f"{base}.{a.name}" if base else a.name)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        target = node.targets[0].id
        dotted = self._dotted(node.value)
        if dotted is not None and not isinstance(node.value, ast.Call):
            if dotted in ("", "compat.v1") or dotted.startswith("compat"):
                self.aliases[target] = _normalize(dotted)  # tf = tf.compat.v1
            return
        kind = self._kind(node.value)
        if kind:
            self.typed[target] = kind

    # --- names --------------------------------------------------------------------
    def _dotted(self, node) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        base = self.aliases[node.id]
        return _normalize(".".join([p for p in [base, *reversed(parts)] if p]))

    def _kind(self, value) -> str | None:
        """What a call returns, when it is an optimizer or a dataset."""
        if not isinstance(value, ast.Call):
            return None
        name = self._dotted(value.func)
        if name is not None:
            if name.startswith("train.") and name.endswith("Optimizer"):
                return name
            if name in ("data.make_one_shot_iterator", "data.make_initializable_iterator"):
                return "data.Iterator"
            if name.startswith("data.") and name[5:6].isupper():
                return "data.Dataset"
            return None
        func = value.func
        if isinstance(func, ast.Attribute):
            owner = self._kind(func.value) or (
                self.typed.get(func.value.id) if isinstance(func.value, ast.Name) else None
            )
            if owner == "data.Dataset" and func.attr in _DATASET_METHODS:
                return owner
            if owner == "data.Dataset" and func.attr.startswith("make_"):
                return "data.Iterator"
        return None

    def visit_Call(self, node: ast.Call) -> None:
        keywords = sorted(k.arg for k in node.keywords if k.arg)
        name = self._dotted(node.func)
        if name is None and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            kind = self._kind(owner) or (
                self.typed.get(owner.id) if isinstance(owner, ast.Name) else None
            )
            if kind:
                name = f"{kind}.{node.func.attr}"
        if name:
            self.calls.append({"name": name, "keywords": keywords, "line": node.lineno})
            self._called.add(id(node.func))
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self._dotted(node)
        if name is None:
            self.generic_visit(node)
        elif id(node) not in self._called:
            self.refs[name] = self.refs.get(name, 0) + 1
        # either way the inner attributes are parts of this one name


def extract(source: str) -> dict:
    """The calls, references and private imports of one program's source."""
    tree = ast.parse(source)
    ex = _Extractor()
    # imports first, so that a function above an import still resolves its names
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            ex.visit(node)
    ex.visit(tree)
    return {
        "calls": ex.calls,
        "refs": dict(sorted(ex.refs.items())),
        "private_imports": sorted(ex.private),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--repo", "--commit", "--path", "--licence", "--source"):
        p.add_argument(flag, required=True)
    args = p.parse_args(argv)
    with open(args.source, encoding="utf-8", errors="replace") as f:
        record = extract(f.read())
    out = {"repo": args.repo, "path": args.path, "commit": args.commit, "licence": args.licence}
    json.dump({**out, **record}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
