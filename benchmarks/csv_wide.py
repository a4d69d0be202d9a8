"""Wide CSV files: the time colonnade takes to open and read N columns, beside the time
pyarrow's own dataset reader takes for the same file (issue 41: 100,000 columns took
50-120 s, a per-column list lookup repeated per column).

Writes a header of ``--columns`` names and ``--rows`` rows of small integers, then times,
in turns for ``--repeats`` rounds, ``pyarrow.dataset.dataset(path).to_table()`` and
``Dataset.from_csv(path).to_table()`` (open and read separately). Prints one JSON line
per case and round, with the 1-minute load average beside it. Usage::

    python benchmarks/csv_wide.py [--columns 100000] [--rows 3] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import pyarrow.dataset as pads

from colonnade.data import Dataset


def write(path: str, columns: int, rows: int) -> None:
    with open(path, "w") as f:
        f.write(",".join(f"c{i}" for i in range(columns)) + "\n")
        for r in range(rows):
            f.write(",".join(str((i + r) % 7) for i in range(columns)) + "\n")


def arrow(path: str) -> dict:
    start = time.perf_counter()
    dataset = pads.dataset(path, format="csv")
    opened = time.perf_counter()
    dataset.to_table()
    return {"open_s": opened - start, "read_s": time.perf_counter() - opened}


def colonnade(path: str) -> dict:
    start = time.perf_counter()
    dataset = Dataset.from_csv(path)
    opened = time.perf_counter()
    dataset.to_table()
    return {"open_s": opened - start, "read_s": time.perf_counter() - opened}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--columns", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    path = os.path.join(tempfile.mkdtemp(), "wide.csv")
    write(path, args.columns, args.rows)
    for round_ in range(args.repeats):
        for name, case in (("pyarrow", arrow), ("colonnade", colonnade)):
            times = case(path)
            times["total_s"] = times["open_s"] + times["read_s"]
            line = {"case": name, "round": round_, "columns": args.columns}
            line.update({k: round(v, 2) for k, v in times.items()})
            line["load"] = round(os.getloadavg()[0], 1)
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
