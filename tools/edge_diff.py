"""Differential check of ferrograd against PyTorch at edge values: the same calls run under both, and every
disagreement in values, dtype, shape, requires_grad, grad_fn or exception type is printed.

    .venv/bin/python tools/edge_diff.py                    # every case
    .venv/bin/python tools/edge_diff.py --only pool,norm   # the cases whose name contains one of these
    .venv/bin/python tools/edge_diff.py --list             # the case names

Each side runs in its own child process (torch's under TORCH_PY, default /work/torchenv/bin/python; ferrograd's
under this Python), so a crash shows as a missing result. A case is a few lines of Python with `torch` and `F`
bound to either library; it leaves its result in `out` (a tensor, number, or list/tuple/dict of them). `grad(f,
*xs)` runs f, backpropagates the sum of its outputs weighted 1, 2, 3, ... and returns the outputs and each
input's gradient. Needs torch, so it is not part of `make test`: what it finds becomes recorded-golden tests.
"""

import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = os.environ.get("TORCH_PY", "/work/torchenv/bin/python")

INF, NAN = math.inf, math.nan
# float32 edges: signed zeros, infinities, NaN, huge and tiny normals, a denormal, ordinary values
E32 = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, INF, -INF, NAN, 1e38, -1e38, 3.4e38, -3.4e38, 1e-38, 1e-45, 100.0, -100.0]
E64 = E32 + [1e308, -1.7e308, 5e-324]
FLOAT_DTYPES = ["float32", "float64"]


def _unary_cases():
    ops = [
        "F.relu",
        "F.relu6",
        "F.sigmoid",
        "F.tanh",
        "F.softplus",
        "F.logsigmoid",
        "F.hardsigmoid",
        "F.hardswish",
        "F.hardtanh",
        "F.silu",
        "F.mish",
        "F.elu",
        "F.celu",
        "F.selu",
        "F.gelu",
        "F.softsign",
        "F.tanhshrink",
        "F.softshrink",
        "F.hardshrink",
        "F.leaky_relu",
        "lambda x: F.gelu(x, approximate='tanh')",
        "lambda x: F.softplus(x, beta=2.0, threshold=5.0)",
        "lambda x: F.threshold(x, 1.0, -2.0)",
        "lambda x: F.softmax(x, 0)",
        "lambda x: F.log_softmax(x, 0)",
        "lambda x: F.normalize(x, dim=0)",
        "torch.exp",
        "torch.expm1",
        "torch.log",
        "torch.log1p",
        "torch.log2",
        "torch.log10",
        "torch.sqrt",
        "torch.rsqrt",
        "torch.sin",
        "torch.cos",
        "torch.tan",
        "torch.asin",
        "torch.acos",
        "torch.atan",
        "torch.sinh",
        "torch.cosh",
        "torch.asinh",
        "torch.acosh",
        "torch.atanh",
        "torch.erf",
        "torch.erfc",
        "torch.abs",
        "torch.sign",
        "torch.reciprocal",
        "torch.floor",
        "torch.ceil",
        "torch.round",
        "torch.trunc",
        "torch.frac",
        "torch.square",
        "torch.neg",
        "torch.exp2",
        "torch.logit",
        "torch.sgn",
        "torch.nan_to_num",
        "torch.sigmoid",
        "torch.lgamma",
        "torch.digamma",
        "torch.erfinv",
        "torch.sinc",
        "torch.deg2rad",
        "torch.rad2deg",
        "lambda x: x ** 2",
        "lambda x: x ** 0.5",
        "lambda x: x ** -1",
        "lambda x: 2 ** x",
        "lambda x: x.clamp(-1, 1)",
        "lambda x: x.clamp(min=0)",
        "torch.logsumexp_0",
    ]
    for op in ops:
        fn = "lambda x: torch.logsumexp(x, 0)" if op == "torch.logsumexp_0" else op
        for dt, edges in (("float32", E32), ("float64", E64)):
            yield f"unary {op} {dt}", f"x = T({edges!r}, '{dt}', rg=True)\nout = grad({fn}, x)"


# windows holding huge values, infinities, NaN and all -inf rows
POOL_ROWS = [
    [1e38, 1e38, 3.4e38, 3.4e38, -3.4e38, -3.4e38],
    [3.4e38, 3.4e38, 3.4e38, -3.4e38, 1e38, 1e38],
    [INF, 1.0, 2.0, 3.0, 4.0, 5.0],
    [-INF, -INF, -INF, -INF, 1.0, 2.0],
    [NAN, 1.0, 2.0, NAN, 3.0, 3.0],
    [1.0, 1.0, 2.0, 2.0, NAN, NAN],
    [-INF, NAN, -INF, -INF, 0.0, -0.0],
    [INF, -INF, 1e-45, 1e-45, -0.0, 0.0],
]


def _pool_cases():
    pools1 = [
        "lambda x: F.avg_pool1d(x, 2)",
        "lambda x: F.avg_pool1d(x, 3, 1, 1)",
        "lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)",
        "lambda x: F.avg_pool1d(x, 6)",
        "lambda x: F.avg_pool1d(x, 4, 3, ceil_mode=True)",
        "lambda x: F.adaptive_avg_pool1d(x, 1)",
        "lambda x: F.adaptive_avg_pool1d(x, 4)",
        "lambda x: F.adaptive_avg_pool1d(x, 5)",
        "lambda x: F.max_pool1d(x, 2, return_indices=True)",
        "lambda x: F.max_pool1d(x, 3, 1, 1, return_indices=True)",
        "lambda x: F.max_pool1d(x, 2, 1, dilation=2, return_indices=True)",
        "lambda x: F.max_pool1d(x, 4, 3, ceil_mode=True, return_indices=True)",
        "lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True)",
        "lambda x: F.adaptive_max_pool1d(x, 1, return_indices=True)",
    ]
    pools2 = [
        "lambda x: F.avg_pool2d(x, 2)",
        "lambda x: F.avg_pool2d(x, 3, 1, 1)",
        "lambda x: F.avg_pool2d(x, 2, 1)",
        "lambda x: F.avg_pool2d(x, 2, divisor_override=3)",
        "lambda x: F.adaptive_avg_pool2d(x, 1)",
        "lambda x: F.adaptive_avg_pool2d(x, (2, 2))",
        "lambda x: F.adaptive_avg_pool2d(x, (1, 2))",
        "lambda x: F.max_pool2d(x, 2, return_indices=True)",
        "lambda x: F.max_pool2d(x, 3, 1, 1, return_indices=True)",
        "lambda x: F.max_pool2d(x, 2, 1, dilation=(1, 2), return_indices=True)",
        "lambda x: F.max_pool2d(x, (1, 3), return_indices=True)",
        "lambda x: F.adaptive_max_pool2d(x, 1, return_indices=True)",
        "lambda x: F.adaptive_max_pool2d(x, (2, 2), return_indices=True)",
        "lambda x: F.lp_pool2d(x, 2, 2)",
        "lambda x: F.lp_pool1d(x[0], 2, 2)",
    ]
    for r, row in enumerate(POOL_ROWS):
        for dt in FLOAT_DTYPES:
            for p in pools1:
                yield f"pool1d {p} row{r} {dt}", f"x = T({row!r}, '{dt}', (1, 1, 6), rg=True)\nout = grad({p}, x)"
            for p in pools2:
                yield f"pool2d {p} row{r} {dt}", f"x = T({row!r}, '{dt}', (1, 1, 2, 3), rg=True)\nout = grad({p}, x)"
                yield (
                    f"pool2d {p} row{r}x2 {dt}",
                    f"x = T({row + row[::-1]!r}, '{dt}', (1, 1, 3, 4), rg=True)\nout = grad({p}, x)",
                )


NORM_ROWS = [
    [1.0, INF, 2.0, 3.0],
    [NAN, 1.0, 2.0, 3.0],
    [INF, INF, 1.0, 2.0],
    [-INF, INF, 0.0, 0.0],
    [3.4e38, 3.4e38, -3.4e38, 1.0],
    [1e38, 1e38, 1e38, 1e38],
    [1e-45, 0.0, -1e-45, 0.0],
    [2.0, 2.0, 2.0, 2.0],
    [0.0, 0.0, 0.0, 0.0],
    [1e20, 1e20, 1e20, 1e20],
]


def _norm_cases():
    norms = [
        "lambda x: F.layer_norm(x, (4,))",
        "lambda x: F.layer_norm(x, (2, 4))",
        "lambda x: F.layer_norm(x, (4,), torch.ones(4, dtype=x.dtype) * 2, torch.zeros(4, dtype=x.dtype))",
        "lambda x: F.group_norm(x.reshape(2, 2, 2), 1)",
        "lambda x: F.group_norm(x.reshape(1, 4, 2), 2)",
        "lambda x: F.group_norm(x.reshape(1, 4, 2), 4)",
        "lambda x: F.instance_norm(x.reshape(1, 2, 4))",
        "lambda x: F.instance_norm(x.reshape(2, 2, 2))",
        "lambda x: F.batch_norm(x.reshape(4, 2), None, None, training=True)",
        "lambda x: F.batch_norm(x.reshape(2, 4), None, None, training=True)",
        "lambda x: F.batch_norm(x.reshape(2, 2, 2), torch.zeros(2, dtype=x.dtype), torch.ones(2, dtype=x.dtype), "
        "training=True)",
        "lambda x: F.batch_norm(x.reshape(2, 2, 2), torch.zeros(2, dtype=x.dtype), torch.ones(2, dtype=x.dtype))",
        "lambda x: F.normalize(x)",
        "lambda x: F.normalize(x, dim=0)",
        "lambda x: F.normalize(x, p=1)",
        "lambda x: F.normalize(x, p=float('inf'))",
        "lambda x: F.normalize(x, p=3)",
        "lambda x: F.cosine_similarity(x[0], x[1], dim=0)",
        "lambda x: F.cosine_similarity(x, x.flip(0))",
        "lambda x: F.pairwise_distance(x[0:1], x[1:2])",
        "lambda x: x.norm(dim=1)",
        "lambda x: x.norm(p=1, dim=1)",
        "lambda x: torch.linalg.vector_norm(x, ord=float('inf'), dim=1)",
        "lambda x: x.var(1)",
        "lambda x: x.std(1)",
        "lambda x: x.mean(1)",
        "lambda x: x.sum(1)",
        "lambda x: F.rms_norm(x, (4,))",
        "lambda x: torch.var_mean(x, 1)",
        "lambda x: torch.std_mean(x, 1)",
    ]
    for i, a in enumerate(NORM_ROWS):
        for j, b in enumerate(NORM_ROWS):
            if j not in (0, 1, 7, i):
                continue
            for dt in FLOAT_DTYPES:
                for n in norms:
                    yield (f"norm {n} rows{i},{j} {dt}", f"x = T({[a, b]!r}, '{dt}', rg=True)\nout = grad({n}, x)")


LOSS_INPUTS = [0.0, -0.0, 1.0, -1.0, 0.5, 30.0, -30.0, 100.0, -100.0, 1e38, -1e38, 3.4e38, INF, -INF, NAN]


def _loss_cases():
    xs = LOSS_INPUTS
    pairs = {
        "margin": (xs * 2, [1.0] * len(xs) + [-1.0] * len(xs)),
        "binary": (xs * 3, [0.0] * len(xs) + [1.0] * len(xs) + [0.5] * len(xs)),
        "prob": (
            [0.0, 1.0, 0.5, 1e-45, 1e-38, 1.0 - 1e-7, NAN] * 3,
            [0.0] * 7 + [1.0] * 7 + [0.25] * 7,
        ),
        "kl": (
            [0.0, -1.0, -INF, INF, NAN, -100.0, 1.0, -1e38] * 4,
            [0.0] * 8 + [0.3] * 8 + [1.0] * 8 + [-INF] * 8,
        ),
        "regress": (xs * 2, [0.0] * len(xs) + [1e38] * len(xs)),
    }
    # each loss as a call of (x, y) with {red} for the reduction
    losses = {
        "margin": [
            "F.soft_margin_loss(x, y, reduction='{red}')",
            "F.hinge_embedding_loss(x, y, reduction='{red}')",
            "F.margin_ranking_loss(x, x.flip(0) * 0, y, reduction='{red}')",
        ],
        "binary": [
            "F.binary_cross_entropy_with_logits(x, y, reduction='{red}')",
            "F.multilabel_soft_margin_loss(x.reshape(3, -1), y.reshape(3, -1), reduction='{red}')",
            "F.binary_cross_entropy_with_logits(x, y, pos_weight=torch.full_like(x, 2.0), reduction='{red}')",
            "F.poisson_nll_loss(x, y, reduction='{red}')",
            "F.poisson_nll_loss(x, y, log_input=False, reduction='{red}')",
        ],
        "prob": [
            "F.binary_cross_entropy(x, y, reduction='{red}')",
            "F.binary_cross_entropy(x, y, weight=torch.full_like(x, 2), reduction='{red}')",
        ],
        "kl": ["F.kl_div(x, y, reduction='{red}')", "F.kl_div(x, y, reduction='{red}', log_target=True)"],
        "regress": [
            "F.mse_loss(x, y, reduction='{red}')",
            "F.l1_loss(x, y, reduction='{red}')",
            "F.smooth_l1_loss(x, y, reduction='{red}')",
            "F.huber_loss(x, y, reduction='{red}')",
            "F.smooth_l1_loss(x, y, beta=0.0, reduction='{red}')",
            "F.gaussian_nll_loss(x, y, torch.ones_like(x), reduction='{red}')",
        ],
    }
    for kind, (x, y) in pairs.items():
        for loss in losses[kind]:
            reds = ["none", "sum", "mean"] + (["batchmean"] if kind == "kl" else [])
            for red in reds:
                call = "lambda x, y: " + loss.format(red=red)
                for dt in FLOAT_DTYPES:
                    src = f"x = T({x!r}, '{dt}', rg=True)\ny = T({y!r}, '{dt}')\nout = grad({call}, x, [y])"
                    yield f"loss {call} {kind} {dt}", src
                    if kind == "kl":
                        src = f"x = T({x!r}, '{dt}')\ny = T({y!r}, '{dt}', rg=True)\nout = grad({call}, [x], y)"
                        yield f"loss {call} {kind} target-grad {dt}", src
    for dt in FLOAT_DTYPES:
        for beta, thr in [(1.0, 20.0), (2.0, 5.0), (0.5, 100.0), (-1.0, 20.0)]:
            call = f"lambda x: F.softplus(x, beta={beta}, threshold={thr})"
            yield f"loss softplus {beta} {thr} {dt}", f"x = T({E32!r}, '{dt}', rg=True)\nout = grad({call}, x)"


DT_ALL = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


def _clamp_cases():
    bounds = [
        "1",
        "1.5",
        "True",
        "T(1.5, '{d}')",
        "T([1.5], '{d}')",
        "T([[1.5], [0.5]], '{d}')",
        "T(1, '{d}')",
    ]
    for x_dt in DT_ALL:
        x = f"T([0, 1, 2], '{x_dt}')"
        for b in bounds:
            for b_dt in DT_ALL if "{d}" in b else [None]:
                bound = b.format(d=b_dt)
                for form in [
                    "torch.clamp(x, {b})",
                    "torch.clamp(x, max={b})",
                    "torch.clamp(x, {b}, {b})",
                    "torch.clip(x, {b})",
                    "x.clamp(min={b})",
                    "torch.clamp_min(x, {b})",
                    "torch.clamp_max(x, {b})",
                    "x.clone().clamp_({b})",
                    "x.clone().clamp_max_({b})",
                    "x.clone().clip_(max={b})",
                ]:
                    call = form.format(b=bound)
                    yield f"clamp {call} x:{x_dt}", f"x = {x}\nout = {call}"


ARANGE_ARGS = [
    (-5.3, 2.1, 0.7),
    (-5, 1.0, 0.1),
    (0, 1, 0.1),
    (0.0, 0.3, 0.1),
    (1.0, 0.0, -0.1),
    (0, 10, 0.3),
    (-1.0, 1.0, 0.2),
    (0.1, 0.9, 0.2),
    (2.5, -2.5, -0.5),
    (0, 3.0000001, 1),
    (0, 1e-3, 1e-4),
    (1, 2.5),
    (-3.7,),
    (5.5,),
    (0.5, 10.5, 1.5),
    (-10, -1, 0.9),
    (1e6, 1e6 + 1, 0.1),
    (0, 100, 7.7),
    (0.3, -0.3, -0.1),
    (-2.0, 5.0, 0.35),
    (10, 0, -3.3),
    (0, 1, 1 / 3),
    (0, 2, 2 / 3),
    (-1, 0, 0.05),
]


def _arange_cases():
    for args in ARANGE_ARGS:
        for dt in [None, "float32", "float64", "int64", "int32", "float16", "bfloat16", "int8", "uint8"]:
            extra = "" if dt is None else f", dtype=torch.{dt}"
            call = f"torch.arange({', '.join(map(repr, args))}{extra})"
            yield f"arange {call}", f"out = {call}"
    for args in [(0, 1, 0.1), (-5.3, 2.1, 0.7), (0, 10, 3)]:
        yield f"range {args}", f"out = torch.range({', '.join(map(repr, args))})"


def _setitem_cases():
    leaves = {
        "leaf": "t = T([1.0, 2.0, 3.0, 4.0], 'float32')",
        "leaf-rg": "t = T([1.0, 2.0, 3.0, 4.0], 'float32', rg=True)",
        "nonleaf": "t = T([1.0, 2.0, 3.0, 4.0], 'float32', rg=True) * 1",
        "nonleaf-detached": "t = (T([1.0, 2.0, 3.0, 4.0], 'float32', rg=True) * 1).detach()",
        "view-of-leaf-rg": "b = T([0.0, 1.0, 2.0, 3.0, 4.0], 'float32', rg=True)\nt = b[1:]",
        "view-of-nonleaf": "b = T([0.0, 1.0, 2.0, 3.0, 4.0], 'float32', rg=True) * 1\nt = b[1:]",
        "view-of-plain": "b = T([0.0, 1.0, 2.0, 3.0, 4.0], 'float32')\nt = b[1:]",
        "float64": "t = T([1.0, 2.0, 3.0, 4.0], 'float64')",
        "int64": "t = T([1, 2, 3, 4], 'int64')",
    }
    values = {
        "number": "v = 5.0",
        "tensor": "v = T(5.0, 'float32')",
        "tensor-rg": "v = T(5.0, 'float32', rg=True)",
        "tensor-rg-nonleaf": "v = T(5.0, 'float32', rg=True) * 2",
        "int-tensor": "v = T(5, 'int64')",
        "f64-tensor-rg": "v = T(5.0, 'float64', rg=True)",
        "vector-rg": "v = T([5.0], 'float32', rg=True)",
        "f64-vector": "v = T([5.0], 'float64')",
        "bool": "v = True",
    }
    indices = ["1", "slice(1, 3)", "T([0, 2], 'int64')", "T([True, False, True, False], 'bool')", "Ellipsis", "(1,)"]
    for tl, t in leaves.items():
        for vl, v in values.items():
            for i in indices:
                for ng in [False, True]:
                    body = f"{t}\n{v}\nt[{i}] = v"
                    if ng:
                        body = f"{t}\n{v}\nwith torch.no_grad():\n    t[{i}] = v"
                    src = body + "\nout = [t, t.requires_grad, t.is_leaf, type(t.grad_fn).__name__]"
                    if tl.startswith("view"):
                        src += "\nout += [b, b.requires_grad, type(b.grad_fn).__name__]"
                    yield f"setitem {tl} {vl} [{i}] no_grad={ng}", src


CASES = {}
for _gen in (_unary_cases, _pool_cases, _norm_cases, _loss_cases, _clamp_cases, _arange_cases, _setitem_cases):
    for _name, _src in _gen():
        CASES.setdefault(_name, _src)


# ---------------------------------------------------------------------------- worker


def _worker(names):
    if os.environ.get("EDGE_DIFF_SIDE") == "torch":
        import torch
    else:
        import ferrograd as torch
    F = torch.nn.functional

    def T(vals, dt="float32", shape=None, rg=False):
        t = torch.tensor(vals, dtype=getattr(torch, dt))
        if shape is not None:
            t = t.reshape(shape)
        return t.requires_grad_(rg) if rg else t

    def grad(fn, *xs):
        """fn's outputs and the gradient of each input that requires grad (inputs in a list: passed, no grad)."""
        args = [x[0] if isinstance(x, list) else x for x in xs]
        out = fn(*args)
        outs = list(out) if isinstance(out, tuple) else [out]
        loss = None
        for o in outs:
            if isinstance(o, torch.Tensor) and o.requires_grad:
                w = torch.arange(1, o.numel() + 1, dtype=o.dtype).reshape(o.shape)
                term = (o * w).sum()
                loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
        return {"out": outs, "grads": [None if isinstance(x, list) else x.grad for x in xs]}

    def enc(v):
        if isinstance(v, torch.Tensor):
            d = v.detach()
            if d.dtype in (torch.float16, torch.bfloat16):
                d = d.float()
            vals = d.reshape(-1).tolist()
            return {
                "dtype": str(v.dtype).rpartition(".")[2],
                "shape": list(v.shape),
                "values": vals,
                "requires_grad": v.requires_grad,
                "grad_fn": type(v.grad_fn).__name__ if v.grad_fn else None,
            }
        if isinstance(v, (list, tuple)):
            return [enc(x) for x in v]
        if isinstance(v, dict):
            return {k: enc(x) for k, x in v.items()}
        if isinstance(v, float) or v is None or isinstance(v, (bool, int, str)):
            return v
        return repr(v)

    for name in names:
        env = {"torch": torch, "F": F, "T": T, "grad": grad, "inf": INF, "nan": NAN}
        try:
            exec(CASES[name], env)
            res = enc(env["out"])
        except Exception as e:  # what a call raises is part of the result
            res = {"raised": type(e).__name__, "message": str(e)[:200]}
        print(json.dumps([name, res]), flush=True)


# ---------------------------------------------------------------------------- driver


def _run_side(side, names):
    py = TORCH_PY if side == "torch" else sys.executable
    env = dict(os.environ, EDGE_DIFF_SIDE=side)
    proc = subprocess.run(
        [py, os.path.abspath(__file__), "--worker"], input="\n".join(names), capture_output=True, text=True, env=env
    )
    results = {}
    for line in proc.stdout.splitlines():
        name, res = json.loads(line)
        results[name] = res
    if proc.returncode != 0:
        print(f"{side} worker exited with {proc.returncode}: {proc.stderr[-2000:]}", file=sys.stderr)
    return results


RTOL = {"float64": 1e-12, "float32": 2e-6, "float16": 1e-3, "bfloat16": 8e-3}


def _same_number(a, e, rtol):
    if isinstance(a, bool) or isinstance(e, bool) or not isinstance(a, (int, float)) or not isinstance(e, (int, float)):
        return a == e
    if math.isnan(e) or math.isnan(a):
        return math.isnan(e) and math.isnan(a)
    if math.isinf(e) or math.isinf(a):
        return a == e
    return math.isclose(a, e, rel_tol=rtol, abs_tol=rtol * 1e-30)


def _diff(a, e, where=""):
    """A list of (kind, where, detail) for each way `a` (ferrograd) differs from `e` (torch)."""
    if isinstance(e, dict) and "raised" in e:
        if not (isinstance(a, dict) and "raised" in a):
            return [("torch raises", where, f"{e['raised']}: {e['message']}")]
        return [] if a["raised"] == e["raised"] else [("error type", where, f"{a['raised']} vs {e['raised']}")]
    if isinstance(a, dict) and "raised" in a:
        kind = "unsupported" if a["raised"] in ("AttributeError", "NotImplementedError") else "fg raises"
        return [(kind, where, f"{a['raised']}: {a['message']}")]
    if isinstance(e, dict) and "dtype" in e:
        if not (isinstance(a, dict) and "dtype" in a):
            return [("type", where, f"{a!r} vs a tensor")]
        out = []
        for key in ("dtype", "shape", "requires_grad", "grad_fn"):
            if a[key] != e[key]:
                out.append((key, where, f"{a[key]} vs {e[key]}"))
        if a["shape"] == e["shape"]:
            rtol = RTOL.get(e["dtype"], 0)
            bad = [i for i, (x, y) in enumerate(zip(a["values"], e["values"])) if not _same_number(x, y, rtol)]
            if bad:
                nonfinite = any(
                    isinstance(e["values"][i], float)
                    and (not math.isfinite(e["values"][i]) or not math.isfinite(a["values"][i]))
                    for i in bad
                )
                shown = ", ".join(f"[{i}] {a['values'][i]!r} vs {e['values'][i]!r}" for i in bad[:4])
                out.append(("non-finite" if nonfinite else "values", where, shown))
        return out
    if isinstance(e, dict):
        if not isinstance(a, dict) or sorted(a) != sorted(e):
            return [("structure", where, f"{a!r} vs {e!r}")]
        return [d for k in e for d in _diff(a[k], e[k], f"{where}.{k}")]
    if isinstance(e, list):
        if not isinstance(a, list) or len(a) != len(e):
            return [("structure", where, f"{str(a)[:100]} vs {str(e)[:100]}")]
        return [d for i, (x, y) in enumerate(zip(a, e)) for d in _diff(x, y, f"{where}[{i}]")]
    return [] if _same_number(a, e, 1e-12) else [("value", where, f"{a!r} vs {e!r}")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only", default="", help="comma-separated substrings of case names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--show-unsupported", action="store_true", help="also list what ferrograd does not have")
    args = ap.parse_args()
    if args.worker:
        _worker([n for n in sys.stdin.read().splitlines() if n])
        return
    names = [n for n in CASES if not args.only or any(s in n for s in args.only.split(","))]
    if args.list:
        print("\n".join(names))
        return
    theirs, ours = _run_side("torch", names), _run_side("ferrograd", names)
    unsupported, found = 0, 0
    for name in names:
        if name not in ours or name not in theirs:
            print(f"MISSING {name}: {'ferrograd' if name not in ours else 'torch'} gave no result")
            found += 1
            continue
        diffs = _diff(ours[name], theirs[name])
        if diffs and all(k == "unsupported" for k, _, _ in diffs):
            unsupported += 1
            if not args.show_unsupported:
                continue
        for kind, where, detail in diffs:
            print(f"{kind:>13}  {name}{where}: {detail}")
        found += bool(diffs)
    print(f"{len(names)} cases, {found} disagree, {unsupported} unsupported by ferrograd", file=sys.stderr)


if __name__ == "__main__":
    main()
