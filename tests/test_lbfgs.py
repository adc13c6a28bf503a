"""ferrograd.optim.LBFGS against PyTorch: several step() calls on Rosenbrock, a least-squares and a regularised
logistic regression, and a concave quadratic maximized, with and without the strong-Wolfe line search, in
float32 and float64, compared with torch's recorded losses, parameters and evaluation counts; the state dict's
layout and a round trip through it; hooks, closures and bad arguments."""

import copy

import ferrograd as fg
import lbfgs_cases as cases
import numpy as np
import pytest
from helpers import golden

GOLDEN = golden("lbfgs")

# float32 (cases.FLOAT32_CASES stop before the tolerances decide, which rounding does in float32): a rounding
# apart in a 0-dim step size moves the next iterate by about as much, and an ill-conditioned
# problem (Rosenbrock's valley) grows that over tens of iterations
TOLERANCES = {"float64": {"rtol": 1e-7, "atol": 1e-9}, "float32": {"rtol": 2e-3, "atol": 2e-4}}


@pytest.mark.parametrize(
    ("case", "dtype_name"), [(c, "float64") for c in cases.CASES] + [(c, "float32") for c in cases.FLOAT32_CASES]
)
def test_steps_follow_torch(case, dtype_name):
    got = cases.trajectory(fg, case, dtype_name)
    want = GOLDEN["trajectories" if dtype_name == "float64" else "float32"][case][dtype_name]
    tol = TOLERANCES[dtype_name]
    for step, (g, w) in enumerate(zip(got, want), 1):
        assert (g["func_evals"], g["n_iter"]) == (w["func_evals"], w["n_iter"]), f"counts after step {step}"
        np.testing.assert_allclose(g["loss"], w["loss"], **tol, err_msg=f"loss of step {step}")
        for i, (gp, wp) in enumerate(zip(g["params"], w["params"])):
            np.testing.assert_allclose(gp, wp, **tol, err_msg=f"parameter {i} after step {step}")


def test_rosenbrock_converges_to_its_minimum():
    params, opt, closure = cases.make(fg, "rosenbrock_wolfe", "float64")
    for _ in range(5):
        opt.step(closure)
    np.testing.assert_allclose(params[0].detach().numpy(), [1.0, 1.0], atol=1e-5)


@pytest.mark.parametrize("case", ["rosenbrock_wolfe", "logistic_plain"])
def test_state_dict_has_torchs_layout(case):
    assert cases.state_dict_format(fg, case) == GOLDEN["state_dicts"][case]


def test_repr_and_defaults_are_torchs():
    assert cases.optimizer_repr(fg) == GOLDEN["repr"]
    opt = fg.optim.LBFGS([fg.zeros(2, requires_grad=True)], max_iter=8)
    assert opt.defaults["max_eval"] == 10  # max_iter * 5 // 4
    assert opt.defaults["line_search_fn"] is None and opt.defaults["history_size"] == 100


def test_bad_arguments_raise_torchs_errors():
    assert cases.errors(fg) == GOLDEN["errors"]


def test_a_loaded_state_dict_continues_the_same_run():
    params, opt, closure = cases.make(fg, "logistic_wolfe", "float64")
    opt.step(closure)
    saved_params = [p.detach().clone() for p in params]
    saved_state = copy.deepcopy(opt.state_dict())
    opt.step(closure)
    want = [p.detach().clone() for p in params]

    params2, opt2, closure2 = cases.make(fg, "logistic_wolfe", "float64")
    with fg.no_grad():
        for p, s in zip(params2, saved_params):
            p.copy_(s)
    opt2.load_state_dict(saved_state)
    opt2.step(closure2)
    for p, w in zip(params2, want):
        np.testing.assert_array_equal(p.detach().numpy(), w.numpy())


def test_step_returns_the_first_loss_and_runs_the_closure_under_grad_mode():
    w = fg.tensor([3.0, -1.0], requires_grad=True)
    opt = fg.optim.LBFGS([w])
    modes = []

    def closure():
        modes.append(fg.is_grad_enabled())
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    with fg.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 8.0 and loss.requires_grad
    assert modes and all(modes)
    np.testing.assert_allclose(w.detach().numpy(), [1.0, 1.0], atol=1e-6)


def test_a_zero_gradient_stops_at_once_and_a_missing_one_counts_as_zero():
    w = fg.tensor([1.0, 1.0], requires_grad=True)
    unused = fg.tensor([5.0], requires_grad=True)
    opt = fg.optim.LBFGS([w, unused])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert len(calls) == 1  # the gradient is already below tolerance_grad
    assert w.tolist() == [1.0, 1.0] and unused.tolist() == [5.0] and unused.grad is None
    assert opt.state[w]["func_evals"] == 1 and opt.state[w]["n_iter"] == 0


def test_step_hooks_run_around_the_whole_step():
    (w,), loss_of = cases.PROBLEMS["rosenbrock"](fg, fg.float64)
    opt = fg.optim.LBFGS([w], max_iter=3, max_eval=100)
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", o.state[w].get("n_iter"))))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", o.state[w].get("n_iter"))))

    def closure():
        opt.zero_grad()
        loss = loss_of()
        loss.backward()
        return loss

    opt.step(closure)
    assert seen == [("pre", None), ("post", 3)]


def test_step_without_a_closure_is_a_type_error():
    opt = fg.optim.LBFGS([fg.zeros(1, requires_grad=True)])
    with pytest.raises(TypeError):
        opt.step()
