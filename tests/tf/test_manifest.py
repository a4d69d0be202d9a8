"""tests/tf/MANIFEST.md gives every in-scope TensorFlow test file a state, and names only
port files that exist (issue 38)."""

import re
from pathlib import Path

HERE = Path(__file__).parent
STATES = {"ported", "out of scope", "to port"}


def _rows() -> dict:
    rows = {}
    for line in (HERE / "MANIFEST.md").read_text().splitlines():
        match = re.match(r"\| `([^`]+)` \|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|", line)
        if match:
            files = [f.strip() for f in match.group(3).split(",") if f.strip()]
            rows[match.group(1)] = (match.group(2), files)
    return rows


def test_every_listed_tf_file_has_a_state():
    listed = [line for line in (HERE / "tf_test_files.txt").read_text().splitlines() if line]
    rows = _rows()
    assert len(listed) > 100
    missing = [f for f in listed if f not in rows]
    assert not missing, f"TF test files with no MANIFEST.md row: {missing}"
    bad = {f: state for f, (state, _) in rows.items() if state not in STATES}
    assert not bad, f"rows whose state is not one of {sorted(STATES)}: {bad}"
    unknown = sorted(set(rows) - set(listed))
    assert not unknown, f"MANIFEST.md rows not in tf_test_files.txt: {unknown}"


def test_ported_rows_name_existing_files():
    for tf_file, (state, files) in _rows().items():
        if state == "ported":
            assert files, f"{tf_file} is ported but names no test file"
        for name in files:
            assert (HERE / name).is_file(), f"{tf_file}: {name} does not exist in tests/tf/"


def test_every_port_is_in_the_manifest():
    named = {name for _, files in _rows().values() for name in files}
    ports = {p.name for p in HERE.glob("test_tf_*.py")}
    assert not ports - named, f"ported test files in no MANIFEST.md row: {sorted(ports - named)}"
