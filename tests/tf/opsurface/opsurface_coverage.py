"""How much of the corpus's TF surface colonnade resolves: ``tf.X`` as
``cn.compat.v1.X``, then ``cn.X``, with every keyword given at the call accepted by the
resolved signature (a ``**kwargs`` accepts all).

Left out of scope, as TF itself would leave them to other libraries or to graph mode:
``tf.contrib`` (gone from TF 2), TPU names, the Session machinery (``Session``,
``*_initializer()`` ops run in a session, queue runners) and private
``tensorflow.python`` imports (recorded by the extractor, never resolved).

    python tests/tf/opsurface/opsurface_coverage.py           # figures as JSON, then the misses
"""

from __future__ import annotations

import collections
import inspect
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).parent

OUT_OF_SCOPE_PREFIXES = ("contrib.", "tpu.", "estimator.tpu.", "distribute.cluster_resolver.")
SESSION_MACHINERY = frozenset(
    {
        "Session",
        "InteractiveSession",
        "global_variables_initializer",
        "local_variables_initializer",
        "tables_initializer",
        "initialize_all_variables",
        "variables_initializer",
        "train.MonitoredTrainingSession",
        "train.Coordinator",
        "train.start_queue_runners",
        "train.SessionRunHook",
        "get_default_graph",
        "reset_default_graph",
        "Graph",
        "enable_eager_execution",
        "disable_eager_execution",
        "disable_v2_behavior",
    }
)


def in_scope(name: str) -> bool:
    if name.startswith(OUT_OF_SCOPE_PREFIXES) or name.split(".")[0] in ("contrib", "tpu"):
        return False
    return name not in SESSION_MACHINERY


def exists(name: str) -> bool:
    """Whether ``tf.<name>`` maps to a colonnade name (whose value may be None: tf.newaxis)."""
    return resolve(name, missing=_MISSING) is not _MISSING


def resolve(name: str, missing=None):
    """The colonnade object ``tf.<name>`` maps to, or ``None``. ``data.Iterator.X`` (the
    extractor's name for a method of what ``make_one_shot_iterator()`` returned) is looked
    up on colonnade's one-shot iterator."""
    import colonnade as cn
    from colonnade.data.iterators import OneShotIterator

    if name.startswith("data.Iterator."):
        return getattr(OneShotIterator, name.rsplit(".", 1)[1], missing)
    for root in (cn.compat.v1, cn):
        obj = root
        for part in name.split("."):
            obj = getattr(obj, part, _MISSING)
            if obj is _MISSING:
                break
        if obj is not _MISSING:
            return obj
    return missing


_MISSING = object()  # a name whose value is None (tf.newaxis) still resolves


def refused_keywords(obj, keywords) -> list[str]:
    """The keywords ``obj``'s signature does not take (none when it takes ``**kwargs``)."""
    if not keywords:
        return []
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    params = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return []
    names = {p.name for p in params if p.kind is not p.POSITIONAL_ONLY}
    return [k for k in keywords if k not in names]


def measure(programs: list[dict]) -> dict:
    sites = resolved = 0
    missing_names: collections.Counter = collections.Counter()
    missing_programs: dict = collections.defaultdict(set)
    refused: collections.Counter = collections.Counter()
    names, ok_names = set(), set()
    complete = 0
    cache: dict = {}
    for prog in programs:
        misses = 0
        for call in prog["calls"]:
            name = call["name"]
            if not in_scope(name):
                continue
            sites += 1
            names.add(name)
            if name not in cache:
                cache[name] = resolve(name)
            obj = cache[name]
            if obj is None:
                missing_names[name] += 1
                missing_programs[name].add(prog["repo"] + "/" + prog["path"])
                misses += 1
                continue
            bad = refused_keywords(obj, call["keywords"])
            if bad:
                refused[f"{name}({', '.join(k + '=' for k in bad)})"] += 1
                misses += 1
                continue
            resolved += 1
            ok_names.add(name)
        for ref in prog["refs"]:
            if in_scope(ref) and not exists(ref):
                missing_names[ref + " (ref)"] += prog["refs"][ref]
                missing_programs[ref + " (ref)"].add(prog["repo"] + "/" + prog["path"])
                misses += 1
        complete += misses == 0
    return {
        "programs": len(programs),
        "repositories": len({p["repo"] for p in programs}),
        "call_sites": sites,
        "call_sites_resolved": resolved,
        "site_coverage": round(resolved / sites, 4) if sites else 1.0,
        "distinct_names": len(names),
        "distinct_names_resolved": len(ok_names),
        "programs_missing_nothing": complete,
        "missing": [(n, c, len(missing_programs[n])) for n, c in missing_names.most_common()],
        "refused_keywords": refused.most_common(),
    }


def load_programs() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((HERE / "programs").glob("*.json"))]


def main() -> int:
    report = measure(load_programs())
    missing, refused = report.pop("missing"), report.pop("refused_keywords")
    print(json.dumps(report))
    print("missing (sites / programs):")
    for name, count, progs in missing:
        print(f"  {name}: {count}/{progs}")
    print("refused keywords (sites):")
    for name, count in refused:
        print(f"  {name}: {count}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[2]))
    raise SystemExit(main())
