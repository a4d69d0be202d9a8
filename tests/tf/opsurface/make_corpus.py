"""Rebuild ``programs/*.json`` from snapshots of the repositories in ``sources.txt``.

Each line of ``sources.txt`` names a repository, a path and its licence; the snapshot
of ``OWNER/NAME`` is a git directory under ``--mirrors`` (``OWNER+NAME/repo``). Only
the extraction (:mod:`extract_tf_calls`) is committed, never a program's source.

    python tests/tf/opsurface/make_corpus.py --mirrors /work/.mirror
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
from extract_tf_calls import extract  # noqa: E402


def _git(git_dir: pathlib.Path, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True
    ).stdout.decode("utf-8", errors="replace")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mirrors", required=True, type=pathlib.Path)
    args = p.parse_args(argv)
    out_dir = HERE / "programs"
    out_dir.mkdir(exist_ok=True)
    rows = []
    for line in (HERE / "sources.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        repo, path, licence = line.split("\t")
        git_dir = args.mirrors / repo.replace("/", "+") / "repo"
        if (git_dir / ".git").is_dir():
            git_dir = git_dir / ".git"
        commit = _git(git_dir, "rev-parse", "HEAD").strip()
        try:
            record = extract(_git(git_dir, "show", f"{commit}:{path}"))
        except SyntaxError as e:  # Python 2 only: not measurable with ast
            print(f"skipped {repo} {path}: {e}", file=sys.stderr)
            continue
        name = re.sub(r"[^A-Za-z0-9]+", "_", f"{repo}/{path}").strip("_") + ".json"
        body = {"repo": repo, "path": path, "commit": commit, "licence": licence, **record}
        (out_dir / name).write_text(json.dumps(body, indent=1) + "\n")
        rows.append((repo, path, commit, licence, len(record["calls"])))
    with open(HERE / "SOURCES.md", "w") as f:
        f.write(
            "# The op-surface corpus: public programs with a custom `model_fn`\n\n"
            "Only the TF names and keywords each program calls are kept (`programs/`), "
            "extracted by `extract_tf_calls.py`; rebuild with `make_corpus.py`.\n\n"
            "| repository | path | commit | licence | TF call sites |\n|---|---|---|---|---|\n"
        )
        for repo, path, commit, licence, n in rows:
            f.write(f"| {repo} | `{path}` | `{commit[:12]}` | {licence} | {n} |\n")
    print(f"{len(rows)} programs from {len({r[0] for r in rows})} repositories")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
