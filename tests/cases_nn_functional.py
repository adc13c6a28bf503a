"""Recorded cases for nn.functional's activations, losses and distances (and their module forms).

Run by tests/golden/record_nn_functional.py with PyTorch (into nn_functional.json) and by
tests/test_nn_functional_extra.py and tests/test_nn_losses.py with ferrograd. Inputs are literals or numpy
draws; values sit on the special points (0, ±lambda, ±3, thresholds, hinge ties) on purpose.
"""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from recorded import error

# Every activation's interesting points: 0, ±0.5 (shrink lambdas), ±1, ±3 (hard sigmoid/swish), 6 (relu6),
# ±20/21 (softplus threshold), far tails.
SPECIAL = [-25, -21, -20, -6, -3.5, -3, -2, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.5, 2, 3, 3.5, 6, 6.5, 20, 21, 25, 0.1]
X_SHAPE = (2, 3, 4)


def t64(a):
    return fg.tensor(np.asarray(a, dtype=np.float64), dtype=fg.float64)


def run(fn, *arrays, seed=0, upstream=True):
    """fn on float64 leaves; backward with a fixed upstream gradient; the output and every input's grad."""
    leaves = [t64(a).requires_grad_() for a in arrays]
    out = fn(*leaves)
    v = np.random.default_rng(seed).standard_normal(tuple(out.shape)) if upstream else np.ones(tuple(out.shape))
    out.backward(t64(v))
    result = {"out": out}
    for i, leaf in enumerate(leaves):
        result[f"grad{i}"] = leaf.grad
    return result


def special_input():
    return np.array(SPECIAL, dtype=np.float64).reshape(X_SHAPE)


# name -> the function of one tensor
ACTIVATIONS = {
    "relu": F.relu,
    "relu6": F.relu6,
    "elu": F.elu,
    "elu_alpha_half": lambda x: F.elu(x, 0.5),
    "selu": F.selu,
    "celu": F.celu,
    "celu_alpha_2": lambda x: F.celu(x, 2.0),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
    "rrelu_eval": lambda x: F.rrelu(x, 0.1, 0.3, training=False),
    "glu_last": F.glu,
    "glu_dim0": lambda x: F.glu(x, 0),
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "logsigmoid": F.logsigmoid,
    "hardshrink": F.hardshrink,
    "hardshrink_1": lambda x: F.hardshrink(x, 1.0),
    "softshrink": F.softshrink,
    "softshrink_1": lambda x: F.softshrink(x, 1.0),
    "softshrink_0": lambda x: F.softshrink(x, 0.0),
    "tanhshrink": F.tanhshrink,
    "softsign": F.softsign,
    "softplus": F.softplus,
    "softplus_beta2": lambda x: F.softplus(x, beta=2.0, threshold=10.0),
    "softmin": lambda x: F.softmin(x, dim=1),
    "softmax": lambda x: F.softmax(x, dim=1),
    "log_softmax": lambda x: F.log_softmax(x, dim=-1),
    "silu": F.silu,
    "mish": F.mish,
    "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish,
    "hardtanh": F.hardtanh,
    "hardtanh_wide": lambda x: F.hardtanh(x, -2.0, 3.0),
    "threshold": lambda x: F.threshold(x, 0.5, 2.0),
    "threshold_tie": lambda x: F.threshold(x, 1.0, -1.0),
    "sigmoid": F.sigmoid,
    "tanh": F.tanh,
    "prelu_one": lambda x: F.prelu(x, t64([0.25])),
    "prelu_channels": lambda x: F.prelu(x, t64([0.1, -0.2, 0.3])),
}

# functions with an inplace form, applied to a non-leaf
INPLACE = {
    "relu": lambda x: F.relu(x, inplace=True),
    "relu6": lambda x: F.relu6(x, inplace=True),
    "elu": lambda x: F.elu(x, inplace=True),
    "selu": lambda x: F.selu(x, inplace=True),
    "rrelu_eval": lambda x: F.rrelu(x, 0.1, 0.3, inplace=True),
    "celu": lambda x: F.celu(x, 2.0, inplace=True),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2, inplace=True),
    "silu": lambda x: F.silu(x, inplace=True),
    "mish": lambda x: F.mish(x, inplace=True),
    "hardsigmoid": lambda x: F.hardsigmoid(x, inplace=True),
    "hardswish": lambda x: F.hardswish(x, inplace=True),
    "hardtanh": lambda x: F.hardtanh(x, inplace=True),
    "threshold": lambda x: F.threshold(x, 0.5, 2.0, inplace=True),
}


def _activation_case(fn):
    return lambda: run(fn, special_input())


def _inplace_case(fn):
    def case():
        a = t64(special_input()).requires_grad_()
        x = a * 1
        y = fn(x)
        v = np.random.default_rng(1).standard_normal(X_SHAPE)
        y.backward(t64(v))
        return {"out": y, "same_object": y is x, "grad": a.grad}

    return case


def activation_reprs():
    modules = [
        nn.ReLU(),
        nn.ReLU(inplace=True),
        nn.ReLU6(),
        nn.ReLU6(inplace=True),
        nn.LeakyReLU(),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Softmax(dim=1),
        nn.Softmax(),
        nn.LogSoftmax(dim=-1),
        nn.Softmin(dim=0),
        nn.Softmax2d(),
        nn.GELU(),
        nn.GELU(approximate="tanh"),
        nn.ELU(),
        nn.ELU(alpha=0.5, inplace=True),
        nn.CELU(),
        nn.SELU(),
        nn.SELU(inplace=True),
        nn.Hardtanh(),
        nn.Hardtanh(-2, 3),
        nn.PReLU(),
        nn.PReLU(3, init=0.1),
        nn.SiLU(),
        nn.Mish(),
        nn.Hardswish(),
        nn.Hardswish(inplace=True),
        nn.Hardsigmoid(),
        nn.Sigmoid(),
        nn.Tanh(),
        nn.Softplus(),
        nn.Softplus(beta=2, threshold=10),
        nn.Softsign(),
        nn.LogSigmoid(),
        nn.GLU(),
        nn.Threshold(0.1, 20),
        nn.Threshold(0.1, 20.0, inplace=True),
        nn.Tanhshrink(),
        nn.Softshrink(),
        nn.Hardshrink(lambd=1.0),
        nn.RReLU(),
        nn.RReLU(0.1, 0.3, inplace=True),
    ]
    return {"reprs": [repr(m) for m in modules]}


def activation_errors():
    x = t64(np.ones((2, 3)))
    return {
        "glu_odd": error(F.glu, x, 1),
        "glu_scalar": error(F.glu, t64(1.0)),
        "prelu_mismatch": error(F.prelu, x, t64([1.0, 2.0])),
        "prelu_2d_weight": error(F.prelu, x, t64([[1.0, 2.0, 3.0]])),
        "softshrink_negative": error(F.softshrink, x, -1.0),
        "softshrink_negative_float": error(F.softshrink, x.float(), -0.5),
        "celu_zero": error(F.celu, x, 0.0),
        "hardtanh_bounds": error(nn.Hardtanh, 2.0, 1.0),
        "softmax_dim_type": error(nn.Softmax, 1.5),
        "bilinear_in1": error(F.bilinear, t64(np.ones((2, 3))), t64(np.ones((2, 4))), t64(np.ones((5, 2, 4)))),
        "bilinear_in2": error(F.bilinear, t64(np.ones((2, 3))), t64(np.ones((2, 4))), t64(np.ones((5, 3, 3)))),
        "bilinear_batch": error(F.bilinear, t64(np.ones((2, 3))), t64(np.ones((3, 4))), t64(np.ones((5, 3, 4)))),
        "bilinear_bias": error(
            F.bilinear, t64(np.ones((2, 3))), t64(np.ones((2, 4))), t64(np.ones((5, 3, 4))), t64(np.ones(4))
        ),
        "dropout_p": error(F.dropout, x, 1.5),
        "dropout1d_dims": error(F.dropout1d, t64(np.ones((2, 3, 4, 5)))),
        "dropout_module_p": error(nn.Dropout, -0.1),
        "rrelu_bounds": error(F.rrelu, x, 0.5, 0.1),
        "rrelu_bounds_training": error(F.rrelu, x, 0.5, 0.1, True),
        "rrelu_long": error(F.rrelu, fg.arange(3)),
        "rrelu_long_training": error(F.rrelu, fg.arange(3), training=True),
        "rrelu_half_training": error(F.rrelu, x.half(), training=True),
        "logsigmoid_long": error(F.logsigmoid, fg.arange(3)),
        "selu_long": error(F.selu, fg.arange(3)),
    }


def activation_nodes():
    """The grad_fn each activation records, out of place and in place, with the saved fields torch shows."""
    x = t64(special_input()).requires_grad_()
    selu = F.selu(x).grad_fn
    return {
        "selu": selu.name(),
        "selu_saved": [selu._saved_alpha, selu._saved_scale, float(selu._saved_input_scale)],
        "selu_": F.selu(x * 1, inplace=True).grad_fn.name(),
        "torch_selu_": fg.selu_(x * 1).grad_fn.name(),
        "logsigmoid": F.logsigmoid(x).grad_fn.name(),
        "rrelu": F.rrelu(x).grad_fn.name(),
        "rrelu_training": F.rrelu(x, training=True).grad_fn.name(),
        "rrelu_": F.rrelu(x * 1, inplace=True).grad_fn.name(),
        "rrelu_training_": F.rrelu(x * 1, training=True, inplace=True).grad_fn.name(),
        "relu6_": F.relu6(x * 1, inplace=True).grad_fn.name(),
        "softsign": F.softsign(x).grad_fn.name(),
        "tanhshrink": F.tanhshrink(x).grad_fn.name(),
    }


def _seeded_rrelu(fn, dtype="float64", transposed=False):
    """rrelu's draws against torch's stream: the values, the gradient (the drawn slopes) and the next draw."""

    def case():
        fg.manual_seed(7)
        a = fg.tensor(special_input().reshape(6, 4), dtype=getattr(fg, dtype)).requires_grad_()
        x = a.t() if transposed else a
        y = fn(x)
        y.backward(fg.ones_like(y))
        return {"out": y, "grad": a.grad, "next_draw": fg.rand(2, dtype=fg.float64)}

    return case


def rrelu_generator_case():
    fg.manual_seed(11)  # the default generator from a known state, whatever ran before this case
    g = fg.Generator().manual_seed(3)
    x = t64(special_input())
    first = fg.rrelu(x, 0.0, 1.0, True, g)
    return {"first": first, "second": fg.rrelu(x, 0.0, 1.0, True, generator=g), "default_untouched": fg.rand(1)}


def bilinear_case():
    rng = np.random.default_rng(5)
    x1, x2 = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 5))
    w, b = rng.standard_normal((6, 4, 5)), rng.standard_normal(6)
    return run(F.bilinear, x1, x2, w, b)


def distance_cases():
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    zero = np.zeros((4, 5))
    zero[1:] = b[1:]
    cases = {
        "pairwise_p2": lambda: run(F.pairwise_distance, a, b),
        "pairwise_p1_keepdim": lambda: run(lambda x, y: F.pairwise_distance(x, y, 1.0, keepdim=True), a, b),
        "pairwise_inf": lambda: run(lambda x, y: F.pairwise_distance(x, y, float("inf")), a, b),
        "pairwise_1d": lambda: run(F.pairwise_distance, a[0], b[0]),
        "pairwise_broadcast": lambda: run(F.pairwise_distance, a, b[:1]),
        "cosine_dim1": lambda: run(F.cosine_similarity, a, b),
        "cosine_dim0": lambda: run(lambda x, y: F.cosine_similarity(x, y, dim=0), a, b),
        "cosine_broadcast": lambda: run(F.cosine_similarity, a, b[:1]),
        "cosine_zero_vector": lambda: run(F.cosine_similarity, a, zero),
        "cosine_module": lambda: run(lambda x, y: nn.CosineSimilarity(dim=1, eps=1e-6)(x, y), a, b),
        "pairwise_module": lambda: run(lambda x, y: nn.PairwiseDistance(p=3.0, keepdim=True)(x, y), a, b),
    }
    return cases


CASES = {}
CASES.update({f"act_{name}": _activation_case(fn) for name, fn in ACTIVATIONS.items()})
CASES.update({f"inplace_{name}": _inplace_case(fn) for name, fn in INPLACE.items()})
CASES["activation_reprs"] = activation_reprs
CASES["activation_errors"] = activation_errors
CASES["activation_nodes"] = activation_nodes
CASES["rrelu_seeded"] = _seeded_rrelu(lambda x: F.rrelu(x, 0.1, 0.3, training=True))
CASES["rrelu_seeded_float32_transposed"] = _seeded_rrelu(lambda x: F.rrelu(x, training=True), "float32", True)
CASES["rrelu_seeded_inplace"] = _seeded_rrelu(lambda x: F.rrelu(x * 1, training=True, inplace=True))
CASES["rrelu_seeded_same_bounds"] = _seeded_rrelu(lambda x: F.rrelu(x, 0.2, 0.2 + 1e-7, training=True))
CASES["rrelu_eval_inplace"] = _seeded_rrelu(lambda x: fg.rrelu_(x * 1, 0.1, 0.3))
CASES["rrelu_generator"] = rrelu_generator_case
CASES["bilinear"] = bilinear_case
CASES.update(distance_cases())
