"""complex64/complex128 (issue 28): the recorded cases of tests/cases_complex.py against PyTorch
(tests/golden/complex.json), values against numpy on random inputs, gradients against finite differences in
float64 through real -> complex -> real chains, torch's cast warning, and the refusal of the real-only ops that
ferrograd has no complex kernel for (torch computes some of them)."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from cases_complex import CASES
from ferrograd.autograd import gradgradcheck
from helpers import AGAINST_TORCH, gradcheck
from recorded import check, expected

EXPECTED = expected("complex", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the casts to real (checked below)
        check(name, CASES[name], EXPECTED[name])


def _random_complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_arithmetic_against_numpy(rng, dtype):
    a, b = _random_complex(rng, (3, 4), dtype), _random_complex(rng, (4,), dtype)
    x, y = fg.tensor(a), fg.tensor(b)
    tol = {"rtol": 1e-5} if dtype == "complex64" else {"rtol": 1e-12}
    for got, want in [
        (x + y, a + b),
        (x - y, a - b),
        (x * y, a * b),
        (x / y, a / b),
        (x.t().contiguous().t() * 2.5, a * 2.5),
        (x.abs(), np.abs(a)),
        (x.angle(), np.angle(a)),
        (x.conj().resolve_conj(), np.conj(a)),
        (x.sum(0), a.sum(0)),
        (x.mean(), a.mean()),
    ]:
        np.testing.assert_allclose(got.numpy(), want, **tol)
    assert (x.t() == fg.tensor(a.T.copy())).all().item()


def test_numpy_shares_memory():
    a = np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
    t = fg.from_numpy(a)
    a[0] = 9j
    assert t[0].item() == 9j
    t.real.add_(1)
    assert a[1] == 4 - 4j
    assert t.numpy().dtype == np.complex64


def test_cast_to_real_warns_as_torch():
    z = fg.tensor([1 + 2j])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = z.to(fg.float32)
    assert out.tolist() == [1.0]
    # torch warns once per process: only the text is checked when it does
    for w in caught:
        assert issubclass(w.category, UserWarning)
        assert str(w.message).startswith("Casting complex values to real discards the imaginary part")


DIFFERENTIABLE = [
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) * fg.complex(y, x)), id="mul"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) / fg.complex(y + 3, x)), id="div"),
    pytest.param(lambda x, y: fg.complex(x, y).abs(), id="abs"),
    pytest.param(lambda x, y: fg.complex(x, y).angle(), id="angle"),
    pytest.param(lambda x, y: fg.view_as_real(fg.polar(x.abs() + 0.1, y)), id="polar"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).conj() * (1 + 2j)), id="conj"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).sum(0) - fg.complex(y, x).mean(1)), id="sum_mean"),
    pytest.param(lambda x, y: fg.view_as_complex(fg.stack([x, y], -1)).imag * x, id="view_as_complex_imag"),
    pytest.param(lambda x, y: fg.view_as_real(1 / fg.complex(x + 3, y)), id="reciprocal"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) * x - y), id="real_times_complex"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).exp()), id="exp"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).log()), id="log"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).sqrt()), id="sqrt"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).sin()), id="sin"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).cos()), id="cos"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).tanh()), id="tanh"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y).sigmoid()), id="sigmoid"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) ** 1.5), id="pow_number"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) ** 2), id="pow_two"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) ** (0.5 - 0.25j)), id="pow_complex_number"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) ** fg.complex(y, x)), id="pow_tensors"),
    pytest.param(lambda x, y: fg.view_as_real((x.abs() + 0.1) ** fg.complex(y, x)), id="pow_real_base"),
    pytest.param(lambda x, y: fg.view_as_real(2 ** fg.complex(x, y)), id="pow_number_base"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) @ fg.complex(y, x)), id="matmul"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y)[0] @ fg.complex(y, x)[1]), id="dot"),
    pytest.param(lambda x, y: fg.view_as_real(fg.complex(x, y) @ fg.complex(y, x)[1]), id="mv"),
    pytest.param(
        lambda x, y: fg.view_as_real(fg.complex(x, y).expand(2, 3, 3).bmm(fg.complex(y, x)[None].expand(2, 3, 3))),
        id="bmm",
    ),
    pytest.param(lambda x, y: fg.angle(x * y), id="angle_real"),
]


@pytest.mark.parametrize("fn", DIFFERENTIABLE)
def test_gradgradcheck(rng, fn):
    inputs = [fg.tensor(rng.standard_normal((3, 3)) + c, requires_grad=True) for c in (0.5, -0.5)]
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("fn", DIFFERENTIABLE)
def test_gradcheck(rng, fn):
    gradcheck(fn, [rng.standard_normal((3, 3)) + 0.5, rng.standard_normal((3, 3)) - 0.5])


def test_abs_gradient_at_zero_is_zero():
    z = fg.zeros(2, dtype=fg.complex128, requires_grad=True)
    z.abs().sum().backward()
    assert z.grad.tolist() == [0j, 0j]


@pytest.mark.skipif(AGAINST_TORCH, reason="torch computes these; ferrograd has no complex kernel for them yet")
@pytest.mark.parametrize(
    "op",
    [
        pytest.param(lambda z: z.acos(), id="acos"),
        pytest.param(lambda z: z.asin(), id="asin"),
        pytest.param(lambda z: fg.nn.functional.conv1d(z.reshape(1, 1, 4), z.reshape(1, 1, 4)), id="conv1d"),
        pytest.param(lambda z: fg.nn.functional.conv2d(z.reshape(1, 1, 2, 2), z.reshape(1, 1, 2, 2)), id="conv2d"),
        pytest.param(lambda z: z.cumsum(0), id="cumsum"),
        pytest.param(lambda z: z.prod(), id="prod"),
        pytest.param(lambda z: z.sort(), id="sort"),
    ],
)
def test_ops_without_complex_kernels_refuse(op):
    z = fg.tensor([1 + 2j, 3 - 1j, 0j, -1j])
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        op(z)


@pytest.mark.skipif(AGAINST_TORCH, reason="torch saves complex tensors; ferrograd's checkpoint writer does not yet")
def test_save_refuses_complex(tmp_path):
    with pytest.raises(NotImplementedError, match="complex64"):
        fg.save(fg.tensor([1 + 2j]), tmp_path / "z.pt")


@pytest.mark.parametrize("dtype", [fg.complex64, fg.complex128])
def test_adjoints_conjugate(rng, dtype):
    """`H` and `mH` are conjugate transposes for complex input (the transpose alone is the real case)."""
    a = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    t = fg.tensor(a, dtype=dtype)
    np.testing.assert_allclose(t.mH.resolve_conj().numpy(), np.conj(np.swapaxes(a, -2, -1)), rtol=1e-6)
    np.testing.assert_allclose(t[0].H.resolve_conj().numpy(), np.conj(a[0].T), rtol=1e-6)
    np.testing.assert_array_equal(t.adjoint().resolve_conj().numpy(), t.mH.resolve_conj().numpy())
    np.testing.assert_array_equal(fg.adjoint(t).resolve_conj().numpy(), t.mH.resolve_conj().numpy())
    assert t.requires_grad_().adjoint().grad_fn.name() == "ConjBackward0"
    real = fg.tensor(a.real)
    np.testing.assert_array_equal(real.mH.numpy(), np.swapaxes(a.real, -2, -1))
    assert real.adjoint()._base is real  # a view for real dtypes (for complex, torch's is a lazy-conj view)
