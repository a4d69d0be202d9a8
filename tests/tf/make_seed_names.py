"""Extract every public TF name the seed documents describe into ``seed_names.json``.

The seeds (``/work/shared/seeds/*.txt``, or the folder given as the first argument) are
TensorFlow API documents of several vintages. Three shapes of entry name a public symbol:

- module listings (``Module: tf.compat.v1.train / tf.train``) whose ``Classes`` and
  ``Functions`` sections list ``class Name`` and ``name(...)`` entries;
- page titles: a line holding only a dotted ``tf.`` name (TF 1.x/2.x reference pages);
- the older documents' headings, ``### `class tf.train.X` `` and ``### `tf.X(args)` ``,
  and their table of contents entries (``[class tf.train.X](#X)``).

Each name is kept once, with the module it belongs to, whether it is a class or a
function, the parameter names of its documented signature (a function's own, a class's
``__init__``; from the newest document that gives one) and the seeds that name it.
Run: ``python tests/tf/make_seed_names.py [SEEDS_DIR]``.
"""

import json
import re
import sys
from pathlib import Path

SEEDS_DIR = Path("/work/shared/seeds")
OUTPUT = Path(__file__).with_name("seed_names.json")

# Misspellings in the seed listings, and the names TF actually exports.
SEED_TYPOS = {
    "AdadelataOptimizer": "AdadeltaOptimizer",
    "ByteList": "BytesList",
    "TfLiteConverter": "TFLiteConverter",
    "pieceswise_constant": "piecewise_constant",
    "pieceswise_constant_decay": "piecewise_constant_decay",
    "generate_checkpoint_state_protos": "generate_checkpoint_state_proto",
    "toco convert": "toco_convert",
}
# Lines that look like page titles but name a module, not a symbol.
NOT_SYMBOLS = {"tf.data"}
# Newest document first: its signature wins when several document one name.
SEED_ORDER = ("003", "000", "001", "002")

DOTTED = r"tf(?:\.[A-Za-z_][A-Za-z0-9_]*)+"
MODULE_LINE = re.compile(r"^#*\s*Module:\s*(" + DOTTED + ")")
TITLE_LINE = re.compile(r"^(" + DOTTED + r")$")
LISTING_ENTRY = re.compile(r"^(class\s+)?([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\(\.\.\.\))?\s*(?::.*)?$")
OLD_HEADING = re.compile(r"^###\s+`?(class\s+)?(" + DOTTED + r")(\(.*?\))?`?(?:\s|$)")
OLD_CONTENTS = re.compile(r"\[(class )?(" + DOTTED + r")(\([^\]]*\))?\]\(#")
OLD_INIT = re.compile(r"(" + DOTTED + r")\.__init__(\([^)]*\))")


def _clean(line):
    """A line without markdown decoration: escapes, backticks, links, heading marks."""
    line = line.replace("\\", "").replace("`", "").replace("(#)", "").replace("**", "")
    line = re.sub(r"[\[\]]", "", line).strip()
    return line.lstrip("#").lstrip("•").strip().lstrip("-").strip()


def _fix(name):
    """A dotted name with the seed's misspellings corrected (``tf.compat.v2.X`` is ``tf.X``)."""
    if name.startswith("tf.compat.v2."):
        name = "tf." + name[len("tf.compat.v2.") :]
    module, _, short = name.rpartition(".")
    short = SEED_TYPOS.get(short, short)
    return f"{module}.{short}" if module else short


def _parameters(signature):
    """Parameter names of ``(a, b=1, *args)`` (no ``self``), or None for no signature."""
    if signature is None:
        return None
    inner = signature.strip()[1:-1]
    depth, part, parts = 0, "", []
    for char in inner:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += char
    parts.append(part)
    names = [re.split(r"[=:]", p)[0].strip() for p in parts]
    return [n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) and n != "self"]


def _signature_after(text, start, callee):
    """The ``(...)`` that follows ``callee`` in ``text`` near ``start``, or None."""
    pattern = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(callee) + r"\s*\(")
    window = text[start : start + 6000]
    match = pattern.search(window)
    if match is None:
        return None
    depth, end = 0, match.end() - 1
    for end in range(match.end() - 1, len(window)):
        depth += window[end] == "("
        depth -= window[end] == ")"
        if depth == 0:
            break
    return window[match.end() - 1 : end + 1]


def _code_text(text):
    """The seed text with markdown code decoration removed, for reading signatures."""
    text = text.replace("\\_", "_").replace("```", " ").replace("`", " ")
    return re.sub(r"\s+", " ", text)


def _pages(lines):
    """``{name: page text}`` for each page title; alias lines (same short name) stay in it."""
    marks = []
    for index, line in enumerate(lines):
        cleaned = _clean(line)
        if MODULE_LINE.match(cleaned):
            marks.append((index, None))
        elif TITLE_LINE.match(cleaned) and cleaned not in NOT_SYMBOLS:
            marks.append((index, _fix(cleaned)))
    pages = {}
    for position, (index, name) in enumerate(marks):
        if name is None:
            continue
        short = name.rsplit(".", 1)[1]
        end = len(lines)
        for later_index, later in marks[position + 1 :]:
            if later is None or later.rsplit(".", 1)[1] != short:
                end = later_index
                break
        pages.setdefault(name, _code_text("\n".join(lines[index:end])))
    return pages


def names_of_listing_seed(text):
    """Names from module listings and page titles (the TF 1.x/2.x reference pages)."""
    found = {}
    module, section = None, None
    lines = text.splitlines()
    for line in lines:
        cleaned = _clean(line)
        module_match = MODULE_LINE.match(cleaned)
        if module_match:
            module, section = _fix(module_match.group(1)), None
        elif TITLE_LINE.match(cleaned):
            module, section = None, None
        elif module is not None and cleaned in ("Classes", "Functions", "Modules"):
            section = cleaned
        elif module is not None and section in ("Classes", "Functions"):
            entry = LISTING_ENTRY.match(cleaned)
            if entry and (entry.group(1) or entry.group(3)):
                name = _fix(f"{module}.{entry.group(2).strip()}")
                found[name] = {"kind": "class" if entry.group(1) else "function"}
    pages = _pages(lines)
    for name in pages:
        found.setdefault(name, {"kind": None})
    for name, info in found.items():
        short = name.rsplit(".", 1)[1]
        is_class = info["kind"] == "class" or (info["kind"] is None and short[:1].isupper())
        info["kind"] = "class" if is_class else "function"
        page = pages.get(name)
        signature = None
        if page is not None:
            signature = _signature_after(page, 0, "__init__" if is_class else short)
        info["params"] = _parameters(signature)
    return found


def names_of_heading_seed(text):
    """Names from the older documents' ``### `` headings and contents entries."""
    found = {}
    for line in text.splitlines():
        match = OLD_HEADING.match(line)
        if match:
            found[_fix(match.group(2))] = (match.group(1), match.group(3))
    for match in OLD_CONTENTS.finditer(text):
        found.setdefault(_fix(match.group(2)), (match.group(1), match.group(3)))
    inits = {_fix(m.group(1)): m.group(2) for m in OLD_INIT.finditer(text)}
    result = {}
    for name, (class_mark, signature) in found.items():
        is_class = bool(class_mark)
        params = _parameters(inits.get(name) if is_class else signature)
        result[name] = {"kind": "class" if is_class else "function", "params": params}
    return result


def module_of(name):
    """The module a dotted name lives in: ``tf.train.Saver`` -> ``tf.train``."""
    return name.rsplit(".", 1)[0]


def extract(seeds_dir):
    """Every documented name of the seeds, sorted, as JSON-ready dicts."""
    merged = {}
    paths = sorted(Path(seeds_dir).glob("*.txt"))
    by_prefix = {p.name[:3]: p for p in paths}
    for prefix in sorted(by_prefix, key=lambda p: SEED_ORDER.index(p) if p in SEED_ORDER else 9):
        path = by_prefix[prefix]
        text = path.read_text(encoding="utf-8")
        names = names_of_heading_seed(text)
        names.update(names_of_listing_seed(text) if "Module:" in text else {})
        for name, info in names.items():
            if name in NOT_SYMBOLS:
                continue
            fresh = {"name": name, "module": module_of(name), "kind": info["kind"]}
            entry = merged.setdefault(name, {**fresh, "params": None, "seeds": []})
            if entry["params"] is None:
                entry["params"] = info["params"]
            entry["seeds"].append(path.stem.split("_")[0])
    return [merged[name] for name in sorted(merged)]


def main():
    """Write ``seed_names.json`` beside this script."""
    seeds_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else SEEDS_DIR
    names = extract(seeds_dir)
    lines = ",\n".join(json.dumps(entry) for entry in names)  # one name a line
    OUTPUT.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    print(f"{len(names)} names written to {OUTPUT}")


if __name__ == "__main__":
    main()
