"""Cases for torch.special recorded from torch (tests/golden/record_special.py) and checked by
tests/test_special.py: each function's values over edge inputs (±0, ±inf, NaN, poles, large arguments) in
float64 and float32, its gradient there, its grad_fn name, the dtype of int and bool inputs; xlogy, xlog1py
and zeta with numbers in either position; the incomplete gamma functions over a grid of edges in both places;
kl_div's gradients at a zero target."""

import ferrograd as fg
import ferrograd.special as special
from recorded import error

INF, NAN = float("inf"), float("nan")
EDGES = [0.0, -0.0, 1e-300, 1e-8, 0.25, 0.5, 0.999, 1.0, 1.5, -0.75, -2.5, 2.0, 5.0, 12.5, 31.0, 80.0, -40.0, 700.0]
EDGES += [1e10, INF, -INF, NAN]

UNARY = [
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erfc", "erfcx", "erfinv", "gammaln",
    "i0", "i0e", "i1", "i1e", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "ndtri", "psi", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc",
    "spherical_bessel_j0", "ndtr", "expit", "exp2", "expm1", "log1p", "erf", "logit", "airy_ai",
]  # fmt: skip
# ndtri and erfinv are only defined on [0, 1] and [-1, 1]
PROBABILITIES = [0.0, 1e-300, 1e-20, 1e-5, 0.01, 0.25, 0.5, 0.75, 0.999, 1.0 - 1e-12, 1.0, -0.5, 1.5, NAN]
ERFINV = [-1.0, -0.999999, -0.9, -0.5, -1e-10, 0.0, -0.0, 1e-300, 0.3, 0.75, 0.9999999999, 1.0, 1.5, NAN]


def _inputs(name):
    return {"ndtri": PROBABILITIES, "erfinv": ERFINV}.get(name, EDGES)


def _unary(name):
    def case():
        f = getattr(special, name)
        x = fg.tensor(_inputs(name), dtype=fg.float64)
        xf = fg.tensor(_inputs(name), dtype=fg.float32)
        return {
            "float64": f(x),
            "float32": f(xf),
            "int": f(fg.tensor([0, 1, 2, 3])),
            "bool": f(fg.tensor([True, False])),
        }

    return case


# gradients at interior points (away from poles and branch points, where finite differences mean nothing)
GRAD_POINTS = [0.1, 0.25, 0.5, 0.9, 1.5, 3.0, 7.0, 33.0]
GRAD_PROBABILITIES = [0.01, 0.2, 0.5, 0.7, 0.95]
DIFFERENTIABLE = [n for n in UNARY if not n.startswith(("scaled_", "spherical_", "airy_"))]


def _grad(name):
    def case():
        points = GRAD_PROBABILITIES if name in ("ndtri", "erfinv", "logit") else GRAD_POINTS
        x = fg.tensor(
            points + [-p for p in points if name in ("sinc", "erfinv", "i1", "i1e", "erfcx")], dtype=fg.float64
        )
        x.requires_grad_(True)
        y = getattr(special, name)(x)
        y.sum().backward()
        # torch's ndtr is at::mul(Tensor, Scalar) in C++ (MulBackward1); ferrograd's composition gives MulBackward0
        return {"grad": x.grad, "grad_fn": None if name == "ndtr" else type(y.grad_fn).__name__}

    return case


def _not_differentiable():
    x = fg.tensor([0.5, 2.0], requires_grad=True)
    return {n: getattr(special, n)(x).requires_grad for n in UNARY if n.startswith(("scaled_", "spherical_", "airy_"))}


def _binary():
    x = fg.tensor([0.0, 0.0, 1.0, 2.0, -1.5, 3.0], dtype=fg.float64, requires_grad=True)
    y = fg.tensor([0.0, -1.0, 0.0, NAN, 0.5, 4.0], dtype=fg.float64, requires_grad=True)
    out = {}
    for name in ("xlogy", "xlog1py"):
        r = getattr(special, name)(x, y)
        gx, gy = fg.autograd.grad(r.sum(), [x, y])
        out[name] = {"value": r, "gx": gx, "gy": gy, "grad_fn": type(r.grad_fn).__name__}
        out[name + "_numbers"] = {
            "left": getattr(special, name)(2, y.detach()),
            "right": getattr(special, name)(x.detach(), 3.0),
            "int": getattr(special, name)(fg.tensor([1, 2]), fg.tensor([3, 0])),
            "left_fn": type(getattr(special, name)(2.0, y).grad_fn).__name__,
            "right_fn": type(getattr(special, name)(x, 2.0).grad_fn).__name__,
            "both_numbers": error(getattr(special, name), 2, 3),
        }
    s = fg.tensor([2.0, 3.0, 1.0, 0.5, 4.5], dtype=fg.float64)
    q = fg.tensor([1.0, 0.5, 2.0, 2.0, -1.5], dtype=fg.float64, requires_grad=True)
    z = special.zeta(s, q)
    out["zeta"] = {"value": z, "gq": fg.autograd.grad(z.sum(), [q])[0], "grad_fn": type(z.grad_fn).__name__}
    out["torch_xlogy"] = fg.xlogy(fg.tensor([0.0, 2.0]), fg.tensor([0.0, 3.0]))
    out["method_xlogy"] = fg.tensor([0.0, 2.0]).xlogy(3)
    return out


def _polygamma():
    # not at the negative integers: torch's trigamma gives 6.6e32 at -1 from sin(π·-1) ≈ 1e-16, ferrograd +inf
    x = fg.tensor([0.1, 0.5, 1.0, 2.5, 10.0, -0.5, -1.25, 0.0], dtype=fg.float64)
    xg = fg.tensor([0.3, 1.0, 4.0], dtype=fg.float64, requires_grad=True)
    out = {f"n{n}": special.polygamma(n, x) for n in range(4)}
    out["grad"] = fg.autograd.grad(fg.polygamma(2, xg).sum(), [xg])[0]
    out["grad_fn"] = type(fg.polygamma(1, xg).grad_fn).__name__
    out["negative_n"] = error(fg.polygamma, -1, x)
    out["mvlgamma"] = special.multigammaln(fg.tensor([1.5, 2.0, 7.25], dtype=fg.float64), 3)
    out["mvlgamma_grad"] = fg.autograd.grad(fg.mvlgamma(xg + 2, 2).sum(), [xg])[0]
    out["mvlgamma_p0"] = error(fg.mvlgamma, x, 0)
    return out


def _kl_div():
    target = fg.tensor([0.0, 0.25, 0.75], dtype=fg.float64, requires_grad=True)
    inp = fg.tensor([-1.0, -2.0, -0.5], dtype=fg.float64, requires_grad=True)
    loss = fg.nn.functional.kl_div(inp, target, reduction="sum")
    g_in, g_target = fg.autograd.grad(loss, [inp, target])
    return {"loss": loss, "grad_input": g_in, "grad_target": g_target}


# the incomplete gamma functions' edges: 0, tiny, the bounds where the methods meet (x around 1 and 1.1, a
# around 20 and 200 where Temme's expansion starts, |x - a| against 0.4a), large, ±inf, NaN and negatives
IGAMMA_A = [0.0, -0.0, 1e-10, 0.001, 0.3, 0.5, 1.0, 1.5, 3.0, 10.0, 25.0, 80.0, 150.0, 250.0, 1e3, 1e5, INF, -1.0, NAN]
IGAMMA_X = [0.0, -0.0, 1e-10, 0.01, 0.3, 0.5, 0.9, 1.05, 1.1, 1.5, 3.0, 10.0, 24.0, 28.0, 75.0, 160.0, 255.0, 1e3]
IGAMMA_X += [1.01e5, 1e6, INF, -1.0, NAN]


def _incomplete_gamma(dtype):
    def case():
        a = fg.tensor(IGAMMA_A, dtype=dtype).unsqueeze(1)
        x = fg.tensor(IGAMMA_X, dtype=dtype)
        return {
            "igamma": fg.igamma(a, x),
            "igammac": fg.igammac(a, x),
            "gammainc": special.gammainc(a, x),
            "gammaincc": special.gammaincc(a, x),
        }

    return case


def _incomplete_gamma_api():
    f64 = fg.float64
    a = fg.tensor([0.5, 2.0, 7.5, 30.0], dtype=f64, requires_grad=True)
    x = fg.tensor([0.25, 3.0, 6.0, 33.0], dtype=f64, requires_grad=True)
    p, q = fg.igamma(a.detach(), x), fg.igammac(a.detach(), x)
    out = {
        "grad_p": fg.autograd.grad(p.sum(), [x])[0],
        "grad_q": fg.autograd.grad(q.sum(), [x])[0],
        "grad_fn_p": type(p.grad_fn).__name__,
        "grad_fn_q": type(q.grad_fn).__name__,
        "grad_fn_gammainc": type(special.gammainc(a, x).grad_fn).__name__,
        "grad_fn_gammaincc": type(special.gammaincc(a, x).grad_fn).__name__,
        "grad_a": error(fg.autograd.grad, fg.igamma(a, x).sum(), [a]),
        "grad_a_c": error(fg.autograd.grad, fg.igammac(a, x.detach()).sum(), [a]),
        "method": a.detach().igamma(x.detach()),
        "method_c": a.detach().igammac(x.detach()),
        # float32 with float64 is float64; a 0-d float64 tensor does not lift float32; halves compute in float32
        "mixed": fg.igamma(fg.tensor([1.0, 2.5]), fg.tensor([0.5, 3.0], dtype=f64)),
        "zero_dim": fg.igammac(fg.tensor([1.0, 2.5]), fg.tensor(2.0, dtype=f64)),
        "half": fg.igamma(fg.tensor([1.0, 2.5], dtype=fg.float16), fg.tensor([0.5, 3.0], dtype=fg.float16)),
        "bfloat16": fg.igammac(fg.tensor([1.0, 2.5], dtype=fg.bfloat16), fg.tensor([0.5, 3.0])),
        "int_and_float": fg.igamma(fg.tensor([1, 3]), fg.tensor([0.5, 2.0])),
        "broadcast": fg.igamma(fg.tensor([[1.0], [4.0]]), fg.tensor([0.5, 2.0, 8.0])),
        "empty": fg.igamma(fg.zeros(0), fg.zeros(0)),
        "non_contiguous": fg.igammac(fg.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), fg.tensor([[0.5, 1.5], [2.5, 3.5]])),
        "ints": error(fg.igamma, fg.tensor([1, 2]), fg.tensor([1, 2])),
        "bools": error(fg.igammac, fg.tensor([True]), fg.tensor([True])),
        "int_special": error(special.gammainc, fg.tensor([1, 2]), fg.tensor([1, 2])),
        "complex": error(fg.igamma, fg.tensor([1.0 + 1j]), fg.tensor([1.0])),
        # torch takes no Python number in either place
        "number_other": error(fg.igamma, fg.tensor([1.0]), 2),
        "number_input": error(fg.igammac, 2.5, fg.tensor([1.0])),
        "number_special": error(special.gammainc, fg.tensor([1.0]), 2.0),
        "number_special_input": error(special.gammaincc, 2, fg.tensor([1.0])),
        "number_method": error(fg.tensor([1.0]).igamma, 2),
        "numbers": error(fg.igamma, 2, 3),
        "broadcast_error": error(fg.igamma, fg.zeros(2), fg.zeros(3)),
    }
    return out


def _incomplete_gamma_out_inplace():
    f64 = fg.float64
    a, x = fg.tensor([1.0, 2.0, 5.0]), fg.tensor([1.0, 2.0, 4.0])
    out = {}
    o = fg.empty(3, dtype=f64)
    out["out_is_out"] = fg.igamma(a.double(), x.double(), out=o) is o
    out["out_float64"] = o
    o = fg.empty(3)
    special.gammaincc(a, x, out=o)
    out["out_special"] = o
    o = fg.empty(0)
    fg.igammac(a, x, out=o)
    out["out_resized"] = o
    out["out_int"] = error(fg.igamma, a, x, out=fg.empty(3, dtype=fg.int64))
    out["out_requires_grad"] = error(fg.igamma, a.clone().requires_grad_(), x, out=fg.empty(3))
    out["out_special_requires_grad"] = error(special.gammainc, a, x.clone().requires_grad_(), out=fg.empty(3))
    t = a.clone()
    out["inplace_is_self"] = t.igamma_(x.double()) is t
    out["inplace"] = t
    t = a.double()
    t.igammac_(x)
    out["inplace_c"] = t
    out["inplace_int"] = error(fg.tensor([1, 2, 3]).igamma_, x)
    out["inplace_broadcast"] = error(fg.tensor([1.0]).igamma_, x)
    out["inplace_number"] = error(fg.tensor([1.0]).igammac_, 2.0)
    out["inplace_leaf"] = error(fg.tensor([1.0], requires_grad=True).igammac_, fg.tensor([1.0]))
    # x's gradient through an in-place result; a's raises at backward
    xg = fg.tensor([1.0, 2.0, 4.0], requires_grad=True)
    t = a.clone()
    t.igamma_(xg)
    out["inplace_grad_fn"] = type(t.grad_fn).__name__
    out["inplace_grad"] = fg.autograd.grad(t.sum(), [xg])[0]
    ag = fg.tensor([1.0, 2.0, 4.0], requires_grad=True)
    t = ag * 1
    t.igammac_(xg)
    out["inplace_grad_fn_c"] = type(t.grad_fn).__name__
    out["inplace_grad_a"] = error(t.sum().backward)
    return out


POLYNOMIALS = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
]  # fmt: skip
# the ends of [-1, 1] and [0, 1], points inside and out, and the degrees where torch switches from the
# recurrence to the closed forms (above 4, 6 or 8) and Hermite's NaN limits (128 in float32, 512 in float64)
POLY_X = [-2.0, -1.5, -1.0, -0.999, -0.5, -0.0, 0.0, 0.3, 0.5, 0.75, 0.999, 1.0, 1.5, 2.0, 10.0, NAN, INF, -INF]
POLY_N = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 25, 100, 129, 513]


def _polynomial(name):
    def case():
        f = getattr(special, name)
        x64 = fg.tensor(POLY_X, dtype=fg.float64).unsqueeze(1)
        n64 = fg.tensor(POLY_N, dtype=fg.float64)
        x_grad = fg.tensor([0.25, 0.5], requires_grad=True)
        return {
            "float64": f(x64, n64),
            "float32": f(x64.float(), n64.float()),
            "int_n": f(x64, fg.tensor(POLY_N)),
            "fractional_n": f(fg.tensor([0.3, 0.3, 0.3, 0.3, 0.3]), fg.tensor([2.7, 7.9, -0.5, NAN, INF])),
            "number_n": f(fg.tensor([0.3, -0.8]), 3),
            "number_x": f(0.3, fg.tensor([2, 9])),
            "int_x": f(fg.tensor([0, 1, 2]), fg.tensor([3, 3, 3])),
            "bool_x": f(fg.tensor([True, False]), 2),
            "zero_dim_n_keeps_dtype": f(fg.tensor([0.5]), fg.tensor(3.0, dtype=fg.float64)),
            "no_grad": f(x_grad, 2).requires_grad,
            "numbers": error(f, 0.5, 2),
            "half": error(f, fg.tensor([0.5], dtype=fg.float16), 2),
            "broadcast": error(f, fg.zeros(2), fg.zeros(3)),
        }

    return case


CASES = {f"values_{n}": _unary(n) for n in UNARY}
CASES.update({f"polynomial_{n}": _polynomial(n) for n in POLYNOMIALS})
CASES.update({f"grad_{n}": _grad(n) for n in DIFFERENTIABLE})
CASES.update({"not_differentiable": _not_differentiable, "binary": _binary, "polygamma": _polygamma, "kl_div": _kl_div})
CASES.update({"igamma_float64": _incomplete_gamma(fg.float64), "igamma_float32": _incomplete_gamma(fg.float32)})
CASES.update({"igamma_api": _incomplete_gamma_api, "igamma_out_inplace": _incomplete_gamma_out_inplace})
