"""nn.functional's activations, distances and Bilinear (and the activation modules) against values recorded
from PyTorch (tests/golden/nn_functional.json; cases in tests/cases_nn_functional.py), evaluated at the
special points (0, ±lambda, ±3, 6, the softplus threshold) where a composition could pick the wrong side of
a tie; inplace forms through a non-leaf; reprs and errors; gradcheck in float64."""

import warnings

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_nn_functional import ACTIVATIONS, CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("nn_functional", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # implicit softmax dims in the reprs case
        check(name, CASES[name], EXPECTED[name])


# away from the kinks, where finite differences are meaningful
SMOOTH_POINTS = np.array([-4.2, -2.7, -1.3, -0.7, -0.3, 0.2, 0.6, 1.2, 2.2, 2.8, 4.1, 7.3]).reshape(2, 6)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_gradcheck(name):
    fn = ACTIVATIONS[name]
    x = SMOOTH_POINTS.reshape(2, 3, 2) if name.startswith("prelu") else SMOOTH_POINTS
    gradcheck(fn, [x])


def test_gradcheck_distances_and_bilinear(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    gradcheck(lambda x, y: F.pairwise_distance(x, y, 3.0), [a, b])
    gradcheck(lambda x, y: F.cosine_similarity(x, y, dim=1), [a, b])
    gradcheck(F.bilinear, [a, rng.standard_normal((3, 2)), rng.standard_normal((5, 4, 2)), rng.standard_normal(5)])


MODULES = {
    "relu": (nn.ReLU, ()),
    "relu6": (nn.ReLU6, ()),
    "selu": (nn.SELU, ()),
    "celu_alpha_2": (nn.CELU, (2.0,)),
    "leaky_relu": (nn.LeakyReLU, (0.1,)),
    "glu_dim0": (nn.GLU, (0,)),
    "gelu_tanh": (nn.GELU, ("tanh",)),
    "logsigmoid": (nn.LogSigmoid, ()),
    "hardshrink_1": (nn.Hardshrink, (1.0,)),
    "softshrink": (nn.Softshrink, ()),
    "tanhshrink": (nn.Tanhshrink, ()),
    "softsign": (nn.Softsign, ()),
    "softplus_beta2": (nn.Softplus, (2.0, 10.0)),
    "softmin": (nn.Softmin, (1,)),
    "softmax": (nn.Softmax, (1,)),
    "log_softmax": (nn.LogSoftmax, (-1,)),
    "silu": (nn.SiLU, ()),
    "mish": (nn.Mish, ()),
    "hardsigmoid": (nn.Hardsigmoid, ()),
    "hardswish": (nn.Hardswish, ()),
    "hardtanh_wide": (nn.Hardtanh, (-2.0, 3.0)),
    "threshold": (nn.Threshold, (0.5, 2.0)),
    "sigmoid": (nn.Sigmoid, ()),
    "tanh": (nn.Tanh, ()),
    "elu_alpha_half": (nn.ELU, (0.5,)),
    "rrelu_eval": (nn.RReLU, (0.1, 0.3)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_its_function(name):
    cls, args = MODULES[name]
    x = fg.tensor(np.linspace(-7, 7, 24).reshape(2, 3, 4))
    module = cls(*args).eval()
    assert module(x).allclose(ACTIVATIONS[name](x), rtol=1e-6, atol=1e-7)


def test_prelu_module_learns_one_slope_per_channel():
    m = nn.PReLU(3, init=0.5)
    assert list(m.weight.shape) == [3] and m.weight.tolist() == [0.5, 0.5, 0.5]
    x = fg.tensor([[-1.0, -2.0, 4.0], [-3.0, 0.0, -1.0]])
    m(x).sum().backward()
    assert m.weight.grad.tolist() == [-4.0, -2.0, -1.0]


def test_rrelu_training_slopes_lie_between_bounds(seeded):
    x = -fg.ones(20000)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y
    assert float(slopes.min()) >= 0.1 and float(slopes.max()) <= 0.3
    assert abs(float(slopes.mean()) - 0.2) < 0.005  # std of the mean ~ 0.0004
    assert F.rrelu(fg.ones(5), training=True).tolist() == [1.0] * 5


def test_gumbel_softmax_is_a_distribution_and_hard_is_one_hot(seeded):
    logits = fg.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]], requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    assert soft.sum(1).allclose(fg.ones(2))
    hard = F.gumbel_softmax(logits, hard=True)
    assert sorted(hard.sum(1).tolist()) == [1.0, 1.0] and set(hard.reshape(-1).tolist()) <= {0.0, 1.0}
    hard.sum().backward()
    assert logits.grad is not None


def test_inplace_on_a_leaf_that_requires_grad_raises():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        F.relu(x, inplace=True)


def test_inplace_without_grad_overwrites_the_input():
    x = fg.tensor([-1.0, 0.5, 7.0])
    y = nn.ReLU6(inplace=True)(x)
    assert y is x and x.tolist() == [0.0, 0.5, 6.0]
    z = fg.tensor([-4.0, 0.0, 1.0])
    nn.Hardswish(inplace=True)(z)
    assert z.allclose(fg.tensor([0.0, 0.0, 2.0 / 3.0]))


def test_normalize_with_p_zero_divides_by_the_count_of_nonzeros():
    # torch 2.15: the 0-norm counts nonzero entries; no gradient flows through the count
    x = fg.tensor([[0.0, 2.0, -3.0], [0.0, 0.0, 0.0]], requires_grad=True)
    y = fg.nn.functional.normalize(x, 0.0, 1)
    assert y.tolist() == [[0.0, 1.0, -1.5], [0.0, 0.0, 0.0]]
    y.sum().backward()
    assert x.grad.tolist() == [[0.5, 0.5, 0.5], [999999995904.0] * 3]


# (found by the differential test, tests/test_differential.py) torch's kernels of these exist for floating types
# only: an integer or bool input raises NotImplementedError (ferrograd's compositions used to promote it)
FLOAT_KERNELS = {
    "mish": "mish_cpu",
    "celu": "elu_cpu",
    "logsigmoid": "log_sigmoid_cpu",
    "softshrink": "softshrink_check",
    "hardshrink": "hardshrink_cpu",
    "glu": "glu_cpu",
}


@pytest.mark.parametrize("name", sorted(FLOAT_KERNELS))
@pytest.mark.parametrize("dtype, word", [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")])
def test_float_only_activations_refuse_integers(name, dtype, word):
    for shape in [(2,), (0,)]:
        x = fg.ones(shape, dtype=getattr(fg, dtype))
        with pytest.raises(NotImplementedError, match=f"\"{FLOAT_KERNELS[name]}\" not implemented for '{word}'"):
            getattr(F, name)(x)


def test_glu_of_an_empty_dimension_has_two_empty_halves():
    assert F.glu(fg.zeros(0), 0).shape == (0,)
    assert F.glu(fg.zeros(2, 0), 1).shape == (2, 0)
    assert F.glu(fg.zeros(4, 0), 0).shape == (2, 0)
    x = fg.tensor([[1.0, 2.0, 3.0, 4.0]], requires_grad=True)
    y = F.glu(x)
    y.sum().backward()
    s = 1 / (1 + np.exp(-np.array([3.0, 4.0])))
    np.testing.assert_allclose(y.detach().numpy(), [[1.0, 2.0] * s], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [np.concatenate([s, [1.0, 2.0] * s * (1 - s)])], rtol=1e-5)
