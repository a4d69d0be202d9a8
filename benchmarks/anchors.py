"""colonnade, PyTorch and TensorFlow on ``ctr.py``'s job in one sitting, alternated.

Each library runs in its own process and environment (PyTorch and TensorFlow are not
colonnade dependencies): ``ctr.py`` with this interpreter, ``torch_ctr.py`` and
``tf_ctr.py`` with the interpreters given. For every round and model, each library's
variants run one after the other (the order reversed in odd rounds, so drift in the
machine's load does not favour one side); every JSON line they print comes back with
the round, the library, the CPU seconds its whole process used (start-up, reading,
training and predicting: a figure the machine's load moves less than the wall-clock
ones) and the load average before and after it::

    python benchmarks/anchors.py [--rows 200000] [--rounds 2] [--models linear,dnn,wide_deep]
        [--torch-python /tmp/torchenv/bin/python] [--tf-python /tmp/tfenv/bin/python]
        [--threads 2] [--torch-omp-wait-policy PASSIVE] [--skip tensorflow]

Variants per model: colonnade ``linear`` (Ftrl), ``dnn`` / ``wide_deep`` (Adagrad) and
their ``_lazyadam`` twins; PyTorch ``*_adagrad`` and ``*_sparseadam``; TensorFlow 2.15's
canned estimators. The data is ``ctr.py``'s generated file, made first if missing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = {
    "colonnade": {
        "linear": ["linear"],
        "dnn": ["dnn", "dnn_lazyadam"],
        "wide_deep": ["wide_deep", "wide_deep_lazyadam"],
    },
    "pytorch": {m: [f"{m}_adagrad", f"{m}_sparseadam"] for m in ("linear", "dnn", "wide_deep")},
    "tensorflow": {m: [m] for m in ("linear", "dnn", "wide_deep")},
}


def command(library: str, variant: str, args) -> list:
    """The command line running one variant of one library."""
    rows = ["--rows", str(args.rows), "--models", variant]
    if library == "colonnade":
        return [sys.executable, os.path.join(HERE, "ctr.py"), *rows, "--in-process"]
    if library == "pytorch":
        script = os.path.join(HERE, "torch_ctr.py")
        return [args.torch_python, script, *rows, "--threads", str(args.threads)]
    return [args.tf_python, os.path.join(HERE, "tf_ctr.py"), *rows, "--in-process"]


def environment(library: str, args) -> dict:
    """This environment, TensorFlow's start-up logging quietened and PyTorch's OpenMP
    threads told how to wait (``--torch-omp-wait-policy``). Thread counts are each
    library's own choice on this machine (colonnade sizes its BLAS threads per product;
    PyTorch gets ``--threads``)."""
    env = dict(os.environ)
    if library == "tensorflow":
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    if library == "pytorch" and args.torch_omp_wait_policy:
        env["OMP_WAIT_POLICY"] = args.torch_omp_wait_policy
    return env


NEEDS = {
    "colonnade": "colonnade, pyarrow",
    "pytorch": "torch, numpy, pandas, pyarrow, sklearn",
    "tensorflow": "tensorflow, numpy, pandas",
}


def check_environments(libraries: list, args) -> None:
    """Stop before the sitting when an environment lacks what its script imports (the
    sitting would otherwise die at that library's first turn)."""
    for library in libraries:
        python = command(library, "", args)[0]
        done = subprocess.run([python, "-c", f"import {NEEDS[library]}"], capture_output=True)
        if done.returncode:
            raise SystemExit(
                f"{python} cannot run the {library} anchor: it needs {NEEDS[library]} "
                f"({done.stderr.decode().strip().splitlines()[-1]}); install them there, "
                f"or leave {library} out with --skip {library}"
            )


def run_one(library: str, variant: str, round_: int, args) -> None:
    """Run one variant and print its JSON lines, with the round, library and load."""
    load = os.getloadavg()[0]
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        command(library, variant, args),
        env=environment(library, args),
        capture_output=True,
        text=True,
        cwd=HERE,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(
            f"{library} {variant} failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    process_cpu = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
    for line in lines:
        record = {"round": round_, "library": library, **json.loads(line)}
        if library == "pytorch":
            record["omp_wait_policy"] = args.torch_omp_wait_policy or "default"
        record["process_cpu_seconds"] = round(process_cpu / len(lines), 2)
        record["load_before"] = round(load, 2)
        record["load_after"] = round(os.getloadavg()[0], 2)
        print(json.dumps(record), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--models", default="linear,dnn,wide_deep")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--torch-python", default="/tmp/torchenv/bin/python")
    parser.add_argument("--tf-python", default="/tmp/tfenv/bin/python")
    parser.add_argument(
        "--torch-omp-wait-policy",
        default="PASSIVE",
        help="OMP_WAIT_POLICY for PyTorch ('' for OpenMP's default): its default spinning "
        "slows it many times over on a machine busier than its threads",
    )
    parser.add_argument("--skip", default="", help="libraries to leave out, comma-separated")
    args = parser.parse_args()
    skipped = set(filter(None, args.skip.split(",")))
    unknown = sorted(skipped - set(VARIANTS))
    if unknown:
        raise SystemExit(f"--skip names {unknown}: expected some of {list(VARIANTS)}")
    libraries = [name for name in VARIANTS if name not in skipped]
    check_environments(libraries, args)
    subprocess.run(
        [sys.executable, "-c", f"import ctr; ctr.data_paths({args.rows})"], check=True, cwd=HERE
    )
    for round_ in range(args.rounds):
        order = libraries if round_ % 2 == 0 else libraries[::-1]
        for model in args.models.split(","):
            for library in order:
                for variant in VARIANTS[library][model]:
                    run_one(library, variant, round_, args)


if __name__ == "__main__":
    main()
