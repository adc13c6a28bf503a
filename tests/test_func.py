"""torch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, linearize, functional_call, stack_module_state) and
torch.autograd.forward_ad: values, errors and structures against PyTorch (tests/golden/func.json; cases in
tests/cases_func.py), against autograd.functional and numpy, and the new differentiable paths (the results of
the transforms, differentiated again) gradchecked in float64."""

import ferrograd as fg
import ferrograd.autograd.forward_ad as fwAD
import ferrograd.func as ff
import numpy as np
import pytest
from cases_func import CASES
from recorded import check, expected

EXPECTED = expected("func", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _x(rng, *shape, grad=False):
    return fg.tensor(rng.uniform(-1, 1, shape), requires_grad=grad)


def test_jacrev_and_jacfwd_match_autograd_functional(rng):
    w, b, x = _x(rng, 6, 3), _x(rng, 6), _x(rng, 3)

    def f(x):
        return fg.nn.functional.linear(x, w, b).tanh()

    ref = fg.autograd.functional.jacobian(f, x)
    np.testing.assert_allclose(ff.jacrev(f)(x).numpy(), ref.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ff.jacfwd(f)(x).numpy(), ref.numpy(), rtol=1e-12)
    href = fg.autograd.functional.hessian(lambda x: f(x).sum(), x)
    np.testing.assert_allclose(ff.hessian(lambda x: f(x).sum())(x).numpy(), href.numpy(), rtol=1e-10)


def test_vmap_matches_a_loop_and_stacks_per_sample_grads(rng):
    x, y = _x(rng, 5, 4), _x(rng, 4)
    got = ff.vmap(ff.grad(lambda a, b: (a * b).sin().sum(), argnums=(0, 1)), in_dims=(0, None))(x, y)
    for i in range(5):
        xi = x[i].clone().requires_grad_(True)
        yi = y.clone().requires_grad_(True)
        gx, gy = fg.autograd.grad((xi * yi).sin().sum(), (xi, yi))
        np.testing.assert_allclose(got[0][i].numpy(), gx.numpy(), rtol=1e-12)
        np.testing.assert_allclose(got[1][i].numpy(), gy.numpy(), rtol=1e-12)


def test_results_do_not_track_gradients_unless_inputs_do(rng):
    x = _x(rng, 3)
    assert not ff.grad(lambda a: (a**2).sum())(x).requires_grad
    assert not ff.vjp(fg.sin, x)[0].requires_grad
    assert not ff.jacrev(fg.sin)(x).requires_grad
    assert ff.grad(lambda a: (a**3).sum())(x.clone().requires_grad_(True)).requires_grad


def test_grad_ignores_an_outer_no_grad(rng):
    x = _x(rng, 3)
    with fg.no_grad():
        g = ff.grad(lambda a: (a**2).sum())(x)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())


def test_vmap_randomness_same_repeats_the_draw():
    fg.manual_seed(0)
    out = ff.vmap(lambda a: a + fg.rand(2), randomness="same")(fg.zeros(3, 2))
    assert fg.equal(out[0], out[1]) and fg.equal(out[1], out[2])
    out = ff.vmap(lambda a: a + fg.rand(2), randomness="different")(fg.zeros(3, 2))
    assert not fg.equal(out[0], out[1])


def test_functional_call_restores_the_module_on_error(rng):
    net = fg.nn.Linear(2, 2)
    weight = net.weight

    def boom(x):
        raise ValueError("boom")

    net.register_forward_pre_hook(lambda m, args: boom(args))
    with pytest.raises(ValueError, match="boom"):
        ff.functional_call(net, {"weight": fg.zeros(2, 2)}, (fg.ones(1, 2),))
    assert net.weight is weight and isinstance(net.weight, fg.nn.Parameter)


# the transforms' results are differentiable again (create_graph under the hood): gradcheck them


def test_gradcheck_grad_result(rng):
    x = _x(rng, 4, grad=True)
    assert fg.autograd.gradcheck(ff.grad(lambda a: (a.sin() * a**2).sum()), (x,))


def test_gradcheck_jacrev_and_jacfwd_results(rng):
    x = _x(rng, 3, grad=True)
    assert fg.autograd.gradcheck(ff.jacrev(lambda a: a.tanh() * a.sum()), (x,))
    assert fg.autograd.gradcheck(ff.jacfwd(lambda a: a.tanh() * a.sum()), (x,))


def test_gradcheck_jvp_and_vjp_results(rng):
    x, v = _x(rng, 3, grad=True), _x(rng, 3, grad=True)
    assert fg.autograd.gradcheck(lambda a, t: ff.jvp(lambda z: z.exp() * z, (a,), (t,))[1], (x, v))
    assert fg.autograd.gradcheck(lambda a, t: ff.vjp(lambda z: z.exp() * z, a)[1](t)[0], (x, v))


def test_gradcheck_vmap_result(rng):
    x = _x(rng, 3, 2, grad=True)
    assert fg.autograd.gradcheck(ff.vmap(lambda a: a.softmax(0) * a), (x,))


def test_gradcheck_forward_ad_tangent(rng):
    x, v = _x(rng, 3, grad=True), _x(rng, 3)

    def tangent_of(a):
        with fwAD.dual_level():
            return fwAD.unpack_dual(fwAD.make_dual(a, v).sin() * 3).tangent

    np.testing.assert_allclose(tangent_of(x).detach().numpy(), (x.detach().cos() * 3 * v).numpy(), rtol=1e-12)


def test_gradcheck_checks_forward_ad():
    class Exp(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.result = x.exp()
            return ctx.result

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.result

    class WrongJvp(Exp):
        @staticmethod
        def jvp(ctx, g):
            return g * 2

    x = fg.tensor([0.3, -0.2], dtype=fg.float64, requires_grad=True)
    kwargs = dict(check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False, check_batched_grad=False)
    assert fg.autograd.gradcheck(Exp.apply, (x,), **kwargs)
    with pytest.raises(RuntimeError, match="Jacobian computed with forward mode mismatch"):
        fg.autograd.gradcheck(WrongJvp.apply, (x,), **kwargs)
