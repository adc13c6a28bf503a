"""Issue 28's differential test: 2000 random calls over the tensor API (tests/differential_calls.py: unary math,
broadcasting arithmetic with Python numbers, comparisons, reductions, scans, sorts, clamp, where, views and
indexing, matmul, softmaxes, activations, losses, casts; edge values, empty and 0-d shapes, non-contiguous
inputs, gradients) whose PyTorch outcomes are recorded in tests/golden/differential.json (by
tests/golden/record_differential.py), replayed in ferrograd: every call must agree, value, dtype, shape,
requires_grad and gradients, or raise where torch raises. `make fuzz` runs a larger live comparison."""

import collections
import copy
import json
import warnings

import differential_calls as dc
import ferrograd
import pytest
from recorded import golden_path

with open(golden_path("differential")) as _f:
    RECORDED = json.load(_f)
CALLS = dc.generate(RECORDED["seed"], RECORDED["calls"])
SHOWN = 4  # calls shown per op and verdict


def test_recording_matches_the_generator():
    assert len(RECORDED["outcomes"]) == len(CALLS)
    assert dc.inputs_digest(CALLS) == RECORDED["inputs"], (
        "the calls or their inputs changed: rerun tests/golden/record_differential.py with torch's Python"
    )


def _replay():
    counts = collections.Counter()
    failures = collections.defaultdict(list)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call, expected in zip(CALLS, RECORDED["outcomes"]):
            got = dc.run(ferrograd, call)
            verdict, detail = dc.compare(call, expected, got)
            counts[verdict] += 1
            if verdict not in ("agree", "both raise", "missing"):
                failures[(verdict, call["op"])].append((call, detail))
    return counts, failures


def test_random_calls_agree_with_torch():
    counts, failures = _replay()
    lines = []
    for (verdict, op), items in sorted(failures.items()):
        lines.append(f"{dc.VERDICT_TEXT[verdict]}: {op} ({len(items)} calls)")
        for call, detail in items[:SHOWN]:
            lines.append(f"  {json.dumps(call)[:300]}\n    {detail}")
    summary = ", ".join(f"{dc.VERDICT_TEXT[v]} {counts[v]}" for v in dc.VERDICTS if counts[v])
    assert not failures, f"{sum(map(len, failures.values()))} of {len(CALLS)} calls disagree ({summary}):\n" + (
        "\n".join(lines)
    )
    # the calls compare values, not only errors; the allowlist stays an exception
    assert counts["agree"] >= 0.85 * len(CALLS), summary
    assert counts["both raise"] >= 0.02 * len(CALLS), summary
    assert counts["missing"] <= 0.01 * len(CALLS), summary


def test_the_calls_cover_the_api():
    ops = dc.ops_of(CALLS)
    assert len(ops) >= 150, ops
    specs = [s for c in CALLS for s in dc._tensor_specs(c["args"])]
    kinds = collections.Counter((s["dtype"], s["layout"]) for s in specs)
    for dtype in ["float32", "float64", "int64", "int32", "bool"]:
        assert kinds[(dtype, "c")] > 20 and kinds[(dtype, "s")] > 5, kinds
    assert sum(1 for s in specs if 0 in s["shape"]) > 50
    assert sum(1 for s in specs if not s["shape"]) > 50
    assert sum(1 for s in specs if s.get("grad")) > 500
    assert sum(1 for o in RECORDED["outcomes"] if o.get("grads")) > 400


@pytest.mark.parametrize(
    "change",
    [
        ("value", lambda t: t["values"].__setitem__(0, 7.5)),
        ("dtype", lambda t: t.__setitem__("dtype", "float64" if t["dtype"] == "float32" else "float32")),
        ("shape", lambda t: t.__setitem__("shape", t["shape"] + [1])),
        ("requires_grad", lambda t: t.__setitem__("rg", not t["rg"])),
    ],
    ids=lambda c: c[0],
)
def test_the_comparison_sees_a_wrong_answer(change):
    # a recorded float result with at least one value, changed: compare must call it wrong
    i = next(
        i
        for i, o in enumerate(RECORDED["outcomes"])
        if "tensor" in o.get("value", {})
        and o["value"]["tensor"]["dtype"] == "float32"
        and len(o["value"]["tensor"]["values"]) > 1
        and o["value"]["tensor"]["values"][0] not in (7.5, "nan")
    )
    wrong = copy.deepcopy(RECORDED["outcomes"][i])
    change[1](wrong["value"]["tensor"])
    assert dc.compare(CALLS[i], RECORDED["outcomes"][i], wrong)[0] == "wrong"
    assert dc.compare(CALLS[i], RECORDED["outcomes"][i], RECORDED["outcomes"][i])[0] == "agree"


def test_the_comparison_sees_a_wrong_gradient_and_a_missing_error():
    i = next(
        i for i, o in enumerate(RECORDED["outcomes"]) if o.get("grads") and o["grads"][0] and o["grads"][0]["values"]
    )
    wrong = copy.deepcopy(RECORDED["outcomes"][i])
    v = wrong["grads"][0]["values"][0]
    wrong["grads"][0]["values"][0] = 1.0 + 2 * abs(v) if isinstance(v, float) else 1.0
    assert dc.compare(CALLS[i], RECORDED["outcomes"][i], wrong)[0] == "wrong"
    j = next(i for i, o in enumerate(RECORDED["outcomes"]) if "raises" in o)
    assert dc.compare(CALLS[j], RECORDED["outcomes"][j], RECORDED["outcomes"][i])[0] == "accepts"
    assert dc.compare(CALLS[i], RECORDED["outcomes"][i], {"raises": "TypeError", "msg": ""})[0] == "refuses"
    assert dc.compare(CALLS[j], RECORDED["outcomes"][j], {"raises": "other:KeyError", "msg": ""})[0] == "crash"
