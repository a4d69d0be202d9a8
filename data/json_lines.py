"""JSON lines (``.jsonl``, ``.ndjson``: one object a line) refused by Arrow's reader,
said again with the line, key and value at fault: Arrow names a row of the block it
was reading, and not the value."""

from __future__ import annotations

__all__ = ["JSON_SCAN_LINES", "json_lines_clash"]

# Lines of a JSON lines file read at most to find the line its reader refused.
JSON_SCAN_LINES = 10_000_000


def _json_kind(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def json_lines_clash(path) -> str | None:
    """Where a local JSON lines file first gives a key a value of another kind than its
    first (a string where the lines before hold numbers), or a line is not JSON: "line N,
    key 'k' holds ..." (lines from 1), or None. Read only after Arrow's reader refused
    the file, whose message names a row of its block and not the value."""
    import json

    first = {}  # key -> (kind, line)
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if number > JSON_SCAN_LINES:
                    return None
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as err:
                    return f"line {number} is not JSON ({err}): {line.strip()[:80]!r}"
                if not isinstance(row, dict):
                    return f"line {number} holds {_json_kind(row)}, not an object of columns"
                for key, value in row.items():
                    kind = _json_kind(value)
                    seen = first.setdefault(key, (kind, number)) if kind else None
                    if seen is not None and seen[0] != kind:
                        return (
                            f"line {number}, key {key!r} holds {value!r} ({kind}) where line "
                            f"{seen[1]} holds {seen[0]}"
                        )
    except (OSError, UnicodeDecodeError):
        return None
    return None
