"""`fg.autograd.gradcheck` / `gradgradcheck`: pass on correct gradients, fail loudly on wrong ones."""

import inspect

import ferrograd as fg
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.autograd.gradcheck import GradcheckError

F64 = fg.float64


def leaf(values):
    return fg.tensor(values, dtype=F64, requires_grad=True)


def test_signature_and_defaults_match_torch():
    p = inspect.signature(gradcheck).parameters
    assert list(p)[:2] == ["func", "inputs"]
    assert (p["eps"].default, p["atol"].default, p["rtol"].default, p["raise_exception"].default) == (
        1e-6,
        1e-5,
        1e-3,
        True,
    )
    assert all(
        p[n].kind is inspect.Parameter.KEYWORD_ONLY
        for n in ("eps", "atol", "rtol", "raise_exception", "nondet_tol", "fast_mode")
    )
    q = inspect.signature(gradgradcheck).parameters
    assert list(q)[:3] == ["func", "inputs", "grad_outputs"] and q["grad_outputs"].default is None
    assert (q["eps"].default, q["atol"].default, q["rtol"].default) == (1e-6, 1e-5, 1e-3)
    assert issubclass(GradcheckError, RuntimeError)
    assert fg.autograd.gradcheck is gradcheck


@pytest.mark.parametrize(
    "func, inputs",
    [
        (lambda a: (a * a).exp(), lambda: (leaf([0.1, -0.3, 0.7]),)),
        (lambda a: (a * a + a).exp() * a, lambda: (leaf([0.1, -0.3, 0.7]),)),
        (lambda a, b: a @ b, lambda: (leaf([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]]), leaf([[0.3], [-0.2]]))),
        (lambda a, b: (a / b).log(), lambda: (leaf([1.0, 2.0]), leaf([[0.5, 0.7], [3.0, 4.0]]))),
        (lambda a: (a.sum(0), a.mean()), lambda: (leaf([[1.0, 2.0], [3.0, 4.0]]),)),
        (lambda a, k: a**k, lambda: (leaf([1.5, 2.5]), 3)),
        (lambda a: a.t().reshape(4) * a.reshape(4), lambda: (leaf([[1.0, 2.0], [3.0, 4.0]]),)),
    ],
)
def test_gradcheck_and_gradgradcheck_pass_on_builtin_ops(func, inputs):
    assert gradcheck(func, inputs()) is True
    assert gradgradcheck(func, inputs()) is True


class WrongGrad(fg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x  # should be 2 * x


class RightGrad(WrongGrad):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x


def test_gradcheck_passes_on_a_correct_custom_function():
    assert gradcheck(RightGrad.apply, (leaf([1.0, -2.0]),))


def test_gradcheck_error_shows_both_jacobians():
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0") as info:
        gradcheck(WrongGrad.apply, (leaf([1.0, -2.0]),))
    msg = str(info.value)
    assert "numerical:tensor([[ 2.0000,  0.0000],\n        [ 0.0000, -4.0000]]" in msg
    # the analytical entry for x[1] = -2 against the zero of the one-hot is 0 * 3 * -2: torch prints "-0."
    assert "analytical:tensor([[ 3.,  0.],\n        [-0., -6.]]" in msg


def test_raise_exception_false_returns_false():
    assert gradcheck(WrongGrad.apply, (leaf([1.0]),), raise_exception=False) is False


def test_gradgradcheck_catches_a_wrong_double_backward():
    # the first derivative is right, but its backward is not differentiable in x the right way
    class F(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # detach: the second derivative is lost

    x = leaf([0.5, 1.5])
    assert gradcheck(F.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(F.apply, (x,))
    assert gradgradcheck(F.apply, (x,), raise_exception=False) is False


def test_gradgradcheck_with_explicit_grad_outputs():
    x = leaf([0.5, 1.5])
    assert gradgradcheck(lambda a: a.exp() * a, (x,), (leaf([1.0, -2.0]),))


def test_nondeterministic_backward_is_reported():
    calls = []

    class Flaky(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * (2 + 0.1 * (len(calls) % 2))

    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Flaky.apply, (leaf([1.0]),))


def test_no_input_requires_grad_is_an_error():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (fg.tensor([1.0], dtype=F64),))


def test_float32_inputs_warn():
    with pytest.warns(UserWarning, match="not a double precision floating point"):
        gradcheck(lambda a: a * 2, (fg.tensor([1.0], requires_grad=True),), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_inputs_are_not_modified():
    x = leaf([1.0, 2.0])
    gradcheck(lambda a: a.exp(), (x,))
    assert x.tolist() == [1.0, 2.0] and x._version == 0 and x.grad is None


def test_a_single_tensor_input_is_accepted():
    assert gradcheck(lambda a: a.log(), leaf([1.0, 2.0]))


def cleaf(values):
    return fg.tensor(values, dtype=fg.complex128, requires_grad=True)


@pytest.mark.parametrize(
    "func, inputs",
    [
        (lambda z: z * z, lambda: (cleaf([1 + 2j, -0.5 + 0.25j]),)),  # C -> C, holomorphic
        (lambda z: z.conj() * z.exp(), lambda: (cleaf([0.3 - 0.2j, 1j]),)),  # C -> C, not holomorphic
        (lambda z: z.abs(), lambda: (cleaf([3 + 4j, -1 - 1j]),)),  # C -> R
        (lambda x: fg.complex(x, x * x).sin(), lambda: (leaf([0.5, -1.5]),)),  # R -> C
        (lambda z, x: z @ x.to(z.dtype), lambda: (cleaf([[1 + 1j, 2j], [0.5, -1]]), leaf([[0.5], [2.0]]))),
    ],
)
def test_gradcheck_complex_inputs_and_outputs(func, inputs):
    """Complex tensors count as their real and imaginary parts, as torch's gradcheck splits them."""
    assert gradcheck(func, inputs())


def test_gradcheck_catches_a_wrong_complex_gradient():
    class MissingConj(fg.autograd.Function):
        """z² with the derivative not conjugated: right for real z, wrong for complex z."""

        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z

    assert gradcheck(MissingConj.apply, (cleaf([1.0 + 0j, -2.0 + 0j]),))  # right on the real axis
    assert gradcheck(MissingConj.apply, (cleaf([1 + 1j, -2 + 0.5j]),), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(MissingConj.apply, (cleaf([1 + 1j]),))


def test_complex64_inputs_warn():
    with pytest.warns(UserWarning, match="not a double precision floating point or complex"):
        z = fg.tensor([1 + 1j], dtype=fg.complex64, requires_grad=True)
        gradcheck(lambda a: a * 2, (z,), eps=1e-2, atol=1e-2, rtol=1e-2)


class _Sinh(fg.autograd.Function):
    """pytorch/tutorials' custom_function_double_backward: the backward reads a saved input and a saved output."""

    @staticmethod
    def forward(ctx, x):
        expx, expnegx = fg.exp(x), fg.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, grad_expx, grad_expnegx):
        expx, expnegx = ctx.saved_tensors
        # the outputs' own gradients count too: the second backward goes through them
        return grad_out * (expx + expnegx) / 2 + grad_expx * expx - grad_expnegx * expnegx


class _Two(fg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a, b = x * 2, x * 3
        ctx.save_for_backward(a, b)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2 + gb * 3


def test_a_custom_functions_saved_outputs_keep_their_places_for_double_backward():
    """A saved output is unpacked as that output of the node (output_nr), so a gradient through the second one
    reaches the node's second place: d/dx of the saved `3x` is 3, not the first output's 2."""
    x = fg.ones(1, requires_grad=True)
    a, b = _Two.apply(x)
    saved_a, saved_b = a.grad_fn.saved_tensors
    assert (a.output_nr, b.output_nr, saved_a.output_nr, saved_b.output_nr) == (0, 1, 0, 1)
    assert fg.autograd.grad(saved_b.sum(), x, retain_graph=True)[0].tolist() == [3.0]
    assert fg.autograd.grad(saved_a.sum(), x)[0].tolist() == [2.0]
    x = fg.rand(3, 3, dtype=fg.float64, requires_grad=True)
    assert gradgradcheck(lambda t: _Sinh.apply(t)[0], (x,))


def test_aminmax_saves_its_max_as_its_second_output():
    x = fg.tensor([[1.0, 4.0], [3.0, 2.0]], requires_grad=True)
    result = fg.aminmax(x, dim=1)
    node = result.max.grad_fn
    assert (result.min.output_nr, result.max.output_nr) == (0, 1)
    assert (node._saved_min.output_nr, node._saved_max.output_nr) == (0, 1)
