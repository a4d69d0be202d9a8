"""The op-surface corpus stays covered: colonnade resolves at least the committed share of
the corpus's in-scope TF call sites (with their keywords), and at least the committed
number of its programs miss nothing (``coverage_floor.json``; raise it as names land)."""

import json
import pathlib

import opsurface_coverage as coverage

HERE = pathlib.Path(__file__).parent


def test_corpus_is_at_least_forty_programs_with_sources():
    programs = coverage.load_programs()
    assert len(programs) >= 40
    sources = (HERE / "SOURCES.md").read_text()
    for p in programs:
        assert len(p["commit"]) == 40 and p["licence"]
        assert f"| {p['repo']} | `{p['path']}` |" in sources


def test_coverage_does_not_drop():
    floor = json.loads((HERE / "coverage_floor.json").read_text())
    report = coverage.measure(coverage.load_programs())
    assert report["site_coverage"] >= floor["site_coverage"], report["missing"][:10]
    assert report["programs_missing_nothing"] >= floor["programs_missing_nothing"]


def test_resolution_order_and_keywords():
    import colonnade as cn

    assert coverage.resolve("estimator.EstimatorSpec") is cn.compat.v1.estimator.EstimatorSpec
    assert coverage.resolve("no.such.name") is None
    assert coverage.refused_keywords(lambda x, axis=None: x, ["axis", "keep"]) == ["keep"]
    assert coverage.refused_keywords(lambda x, **kw: x, ["anything"]) == []
    assert not coverage.in_scope("contrib.layers.fully_connected")
    assert not coverage.in_scope("global_variables_initializer")
    assert coverage.in_scope("reduce_sum")
