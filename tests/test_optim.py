"""ferrograd.optim against PyTorch: every optimizer and every option that changes its update, several steps
of a linear regression in float32 and float64 compared with torch's recorded parameters; param groups;
state dicts (torch's format, round trips); zero_grad; closures; bad arguments with torch's errors."""

import copy
import warnings

import ferrograd as fg
import numpy as np
import optim_cases as cases
import pytest
from helpers import AGAINST_TORCH, MODULE_PREFIX, TOL, golden

GOLDEN = golden("optim")


def assert_trajectory(got, want, dtype_name, rtol=None, atol=None):
    tol = dict(TOL[dtype_name]) if dtype_name in TOL else {}
    if rtol is not None:
        tol = {"rtol": rtol, "atol": atol}
    for step, (g_step, w_step) in enumerate(zip(got, want)):
        for which, g, w in zip(("weight", "bias"), g_step, w_step):
            np.testing.assert_allclose(g, w, **tol, err_msg=f"{which} after step {step + 1}")


# ---------------------------------------------------------------------------
# updates against torch
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", list(cases.CASES))
def test_parameters_follow_torch_step_by_step(case, dtype_name):
    got = cases.trajectory(fg, case, dtype_name)
    assert_trajectory(got, GOLDEN["trajectories"][case][dtype_name], dtype_name)


@pytest.mark.parametrize("case", list(cases.EXACT_CASES))
def test_updates_are_bit_for_bit_torchs(case):
    # against torch's fused=True step, or its default one where that takes the same operations; torch's fused
    # kernel computes the elements after the last full 16-wide vector with scalar code of its own, which can
    # round differently: that tail is compared to float32 rounding
    body = cases.EXACT_BODY
    for step, (got, want) in enumerate(zip(cases.exact_trajectory(fg, case), GOLDEN["exact"][case])):
        np.testing.assert_array_equal(got[:body], want[:body], err_msg=f"after step {step + 1}")
        np.testing.assert_allclose(got[body:], want[body:], rtol=1e-6, atol=1e-7, err_msg=f"tail, step {step + 1}")


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", cases.HALF_CASES)
def test_half_precision_parameters_keep_their_dtype_and_follow_torch_loosely(case, dtype_name):
    # torch rounds to 16 bits after every op, ferrograd once per step: a few units of the last place apart
    got = cases.trajectory(fg, case, dtype_name)
    assert_trajectory(got, GOLDEN["half"][case][dtype_name], dtype_name, rtol=3e-2, atol=3e-2)
    w, b = cases.params(fg, getattr(fg, dtype_name))
    opt = fg.optim.Adam([w, b])
    cases.loss_fn(fg, w, b, getattr(fg, dtype_name)).backward()
    opt.step()
    assert opt.state[w]["exp_avg"].dtype == getattr(fg, dtype_name)
    assert opt.state[w]["step"].dtype == fg.float32


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_param_groups_with_their_own_options(dtype_name):
    assert_trajectory(cases.groups_trajectory(fg, dtype_name), GOLDEN["groups"][dtype_name], dtype_name)
    assert_trajectory(cases.adam_groups_trajectory(fg, dtype_name), GOLDEN["adam_groups"][dtype_name], dtype_name)


def test_param_groups_fill_every_default_and_keep_their_own():
    w, b = cases.params(fg, fg.float32)
    opt = fg.optim.SGD([{"params": [w], "momentum": 0.9}, {"params": b}], lr=0.1)
    assert opt.param_groups[0]["momentum"] == 0.9 and opt.param_groups[1]["momentum"] == 0
    assert set(opt.param_groups[1]) == {"params", *opt.defaults}
    assert opt.param_groups[1]["params"] == [b]
    assert opt.defaults["lr"] == 0.1


def test_a_parameter_without_a_gradient_is_skipped_and_gets_no_state():
    w, b = cases.params(fg, fg.float32)
    before = b.detach().clone()
    opt = fg.optim.Adam([w, b], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert b.grad is None
    assert fg.equal(b.detach(), before)
    assert b not in opt.state and w in opt.state
    assert list(opt.state_dict()["state"]) == [0]


def test_a_step_writes_in_place_and_bumps_the_version():
    w, b = cases.params(fg, fg.float32)
    storage_view = w.detach()  # shares memory with w
    opt = fg.optim.SGD([w, b], lr=0.1, momentum=0.9)
    cases.loss_fn(fg, w, b, fg.float32).backward()
    version = w._version
    opt.step()
    assert w._version > version
    assert fg.equal(storage_view, w.detach())
    assert w.is_leaf and w.requires_grad


def test_strided_and_numpy_backed_parameters_are_updated_in_their_memory():
    rng = np.random.default_rng(3)
    values = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    grads = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    # the same parameter as a transposed leaf and as a contiguous one
    strided = fg.tensor(values).t().requires_grad_()
    plain = fg.tensor(values.T.copy(), requires_grad=True)
    backing = values.T.copy()
    shared = fg.from_numpy(backing).requires_grad_()
    opts = [fg.optim.Adam([t], lr=0.1, amsgrad=True) for t in (strided, plain, shared)]
    for _ in range(3):
        for t, opt in zip((strided, plain, shared), opts):
            t.grad = fg.tensor(grads)
            opt.step()
    np.testing.assert_array_equal(strided.detach().numpy(), plain.detach().numpy())
    np.testing.assert_array_equal(backing, plain.detach().numpy())


def test_many_parameters_and_large_ones_in_one_step_match_one_by_one():
    rng = np.random.default_rng(4)
    shapes = [(300, 700), (5,), (1000,), (2, 3, 4), (0,), (1,)]
    values = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    grads = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    together = [fg.tensor(v, requires_grad=True) for v in values]
    alone = [fg.tensor(v, requires_grad=True) for v in values]
    opt = fg.optim.NAdam(together, lr=0.01, weight_decay=0.1)
    singles = [fg.optim.NAdam([p], lr=0.01, weight_decay=0.1) for p in alone]
    for _ in range(2):
        for p, q, g in zip(together, alone, grads):
            p.grad, q.grad = fg.tensor(g), fg.tensor(g)
        opt.step()
        for s in singles:
            s.step()
    for p, q in zip(together, alone):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


# ---------------------------------------------------------------------------
# state dicts
# ---------------------------------------------------------------------------


def _as_json(value):
    return cases.describe_value(fg, value)


@pytest.mark.parametrize("case", cases.STATE_CASES)
def test_state_dict_has_torchs_format(case):
    got = cases.state_dict_format(fg, case)
    want = GOLDEN["state_dicts"][case]
    assert got["state"] == want["state"]
    assert got["param_groups"] == want["param_groups"]
    assert got["steps"] == want["steps"]


def test_state_dict_numbers_parameters_across_groups():
    w, b = cases.params(fg, fg.float32)
    extra = fg.tensor([1.0, 2.0], requires_grad=True)
    opt = fg.optim.Adam([{"params": [w, b]}, {"params": [extra], "lr": 0.1}])
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["state"] == {}
    assert sd["param_groups"][1]["lr"] == 0.1


def _clone_state_dict(sd):
    """A saved copy (what torch.save + torch.load give): tensors cloned, the rest copied."""
    state = {i: {k: v.clone() for k, v in s.items()} for i, s in sd["state"].items()}
    return {"state": state, "param_groups": copy.deepcopy(sd["param_groups"])}


@pytest.mark.parametrize(
    "case",
    [
        "sgd_nesterov",
        "adam_maximize",
        "adamw_amsgrad",
        "rmsprop_centered_momentum",
        "adagrad_lr_decay",
        "adamax",
        "nadam_decoupled",
    ],
)
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_state_dict_round_trip_continues_as_if_uninterrupted(case, dtype_name):
    dtype = getattr(fg, dtype_name)
    cls_name, options = cases.CASES[case]
    cls = getattr(fg.optim, cls_name)

    def run(opt, w, b, steps):
        for _ in range(steps):
            opt.zero_grad()
            cases.loss_fn(fg, w, b, dtype).backward()
            opt.step()

    w, b = cases.params(fg, dtype)
    straight = cls([w, b], **options)
    run(straight, w, b, 6)

    w1, b1 = cases.params(fg, dtype)
    first = cls([w1, b1], **options)
    run(first, w1, b1, 3)
    saved = _clone_state_dict(first.state_dict())
    w2 = w1.detach().clone().requires_grad_()
    b2 = b1.detach().clone().requires_grad_()
    second = cls([w2, b2], **{**options, "lr": 123.0})  # the loaded groups bring their own lr back
    second.load_state_dict(saved)
    assert second.param_groups[0]["lr"] == options["lr"]
    assert second.param_groups[0]["params"] == [w2, b2]
    run(second, w2, b2, 3)
    if case.startswith("nadam") and dtype_name == "float64":
        # as in torch, loading casts the float32 `mu_product` to the parameter's dtype, so it continues in
        # float64 where the uninterrupted run rounds it to float32
        assert second.state[w2]["mu_product"].dtype == fg.float64
        np.testing.assert_allclose(w2.detach().numpy(), w.detach().numpy(), rtol=1e-9)
        return
    np.testing.assert_array_equal(w2.detach().numpy(), w.detach().numpy())
    np.testing.assert_array_equal(b2.detach().numpy(), b.detach().numpy())


def test_a_module_and_its_optimizer_saved_mid_training_resume_exactly():
    import io

    x, y, w0, b0 = cases.data()
    x, y = fg.tensor(x, dtype=fg.float32), fg.tensor(y, dtype=fg.float32)

    def model():
        m = fg.nn.Linear(3, 4)
        with fg.no_grad():
            m.weight.copy_(fg.tensor(w0.T.copy(), dtype=fg.float32))
            m.bias.copy_(fg.tensor(b0, dtype=fg.float32))
        return m

    def train(m, opt, sched, steps):
        for _ in range(steps):
            opt.zero_grad()
            ((m(x) - y) ** 2).mean().backward()
            opt.step()
            sched.step()

    def make(m):
        opt = fg.optim.AdamW(m.parameters(), lr=0.05, amsgrad=True)
        return opt, fg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)

    straight = model()
    train(straight, *make(straight), 6)

    first = model()
    opt, sched = make(first)
    train(first, opt, sched, 3)
    buffer = io.BytesIO()
    fg.save({"model": first.state_dict(), "optim": opt.state_dict(), "sched": sched.state_dict()}, buffer)
    buffer.seek(0)
    saved = fg.load(buffer)
    second = fg.nn.Linear(3, 4)
    second.load_state_dict(saved["model"])
    opt2, sched2 = make(second)
    opt2.load_state_dict(saved["optim"])
    sched2.load_state_dict(saved["sched"])
    train(second, opt2, sched2, 3)
    np.testing.assert_array_equal(second.weight.detach().numpy(), straight.weight.detach().numpy())
    np.testing.assert_array_equal(second.bias.detach().numpy(), straight.bias.detach().numpy())


def test_load_state_dict_casts_state_to_the_parameter_dtype_but_not_step():
    w64, b64 = cases.params(fg, fg.float64)
    opt64 = fg.optim.Adam([w64, b64])
    cases.loss_fn(fg, w64, b64, fg.float64).backward()
    opt64.step()
    w32, b32 = cases.params(fg, fg.float32)
    opt32 = fg.optim.Adam([w32, b32])
    opt32.load_state_dict(_clone_state_dict(opt64.state_dict()))
    state = opt32.state[w32]
    assert state["exp_avg"].dtype == fg.float32
    assert state["exp_avg_sq"].dtype == fg.float32
    assert state["step"].dtype == fg.float32 and float(state["step"]) == 1.0
    cases.loss_fn(fg, w32, b32, fg.float32).backward()
    opt32.step()
    assert float(opt32.state[w32]["step"]) == 2.0


def test_load_state_dict_rejects_other_group_layouts_with_torchs_messages():
    w, b = cases.params(fg, fg.float32)
    opt = fg.optim.SGD([w, b], lr=0.1)
    two_groups = fg.optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict has a different number of parameter groups$"):
        opt.load_state_dict(two_groups.state_dict())
    one = fg.optim.SGD([w], lr=0.1)
    with pytest.raises(
        ValueError,
        match="^loaded state dict contains a parameter group that doesn't match the size of optimizer's group$",
    ):
        opt.load_state_dict(one.state_dict())


def test_adagrad_makes_its_state_in_the_constructor():
    w, b = cases.params(fg, fg.float32)
    opt = fg.optim.Adagrad([w, b], initial_accumulator_value=0.25)
    sd = opt.state_dict()
    assert list(sd["state"]) == [0, 1]
    assert list(sd["state"][0]) == ["step", "sum"]
    assert float(sd["state"][0]["step"]) == 0.0
    np.testing.assert_array_equal(sd["state"][1]["sum"].numpy(), np.full(4, 0.25, np.float32))


# ---------------------------------------------------------------------------
# reprs, zero_grad, closures, hooks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases.REPR_CASES)
def test_repr_is_torchs(case):
    assert cases.optimizer_repr(fg, case) == GOLDEN["reprs"][case]


def test_zero_grad_sets_none_by_default_or_zeroes_in_place():
    w, b = cases.params(fg, fg.float32)
    opt = fg.optim.SGD([w, b], lr=0.1)
    cases.loss_fn(fg, w, b, fg.float32).backward()
    opt.zero_grad()
    assert w.grad is None and b.grad is None
    cases.loss_fn(fg, w, b, fg.float32).backward()
    grad_view = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((3, 4), np.float32))
    np.testing.assert_array_equal(grad_view.numpy(), np.zeros((3, 4), np.float32))
    # the zeroed gradient accumulates again
    cases.loss_fn(fg, w, b, fg.float32).backward()
    assert float(w.grad.abs().sum()) > 0


def test_step_with_a_closure_returns_its_loss_and_runs_it_with_grad_enabled():
    w, b = cases.params(fg, fg.float64)
    opt = fg.optim.SGD([w, b], lr=0.1)
    seen = []

    def closure():
        seen.append(fg.is_grad_enabled())
        opt.zero_grad()
        loss = cases.loss_fn(fg, w, b, fg.float64)
        loss.backward()
        return loss

    with fg.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    expected = cases.loss_fn(fg, *cases.params(fg, fg.float64), fg.float64)
    assert float(loss.detach()) == pytest.approx(float(expected.detach()), rel=1e-12)
    assert opt.step() is None


def test_step_hooks_run_around_the_step_and_can_be_removed():
    w, b = cases.params(fg, fg.float32)
    opt = fg.optim.SGD([w, b], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", o is opt)))
    opt.step()
    pre.remove()
    opt.step()
    assert calls == [("pre", True), ("post", True), ("post", True)]


def test_a_user_defined_optimizer_on_the_base_class():
    class PlainSGD(fg.optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, {"lr": lr})

        def step(self, closure=None):
            with fg.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.sub_(p.grad * group["lr"])
                            self.state[p]["steps"] = self.state[p].get("steps", 0) + 1

    w, b = cases.params(fg, fg.float64)
    opt = PlainSGD([w, b], lr=0.05)
    got = cases.run_steps(fg, opt, w, b, fg.float64, cases.STEPS)
    assert_trajectory(got, GOLDEN["trajectories"]["sgd"]["float64"], "float64")
    assert opt.state_dict()["state"] == {0: {"steps": 6}, 1: {"steps": 6}}
    sched = fg.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == 0.025


def test_foreach_fused_and_capturable_are_accepted():
    w, b = cases.params(fg, fg.float32)
    for opt in (
        fg.optim.Adam([w], fused=True),
        fg.optim.Adam([w], foreach=True),
        fg.optim.SGD([w], fused=True),
        fg.optim.Adagrad([w], foreach=False),
        fg.optim.RMSprop([w], foreach=True),
    ):
        cases.loss_fn(fg, w, b, fg.float32).backward()
        opt.step()
        opt.zero_grad()
    assert fg.optim.Adam([w], fused=True).defaults["fused"] is True


def test_fused_adam_keeps_a_float32_step():
    w, b = cases.params(fg, fg.float64)
    opt = fg.optim.Adam([w], fused=True)
    cases.loss_fn(fg, w, b, fg.float64).backward()
    opt.step()
    assert opt.state[w]["step"].dtype == fg.float32
    assert opt.state[w]["exp_avg"].dtype == fg.float64


# ---------------------------------------------------------------------------
# bad arguments: torch's exception types and messages
# ---------------------------------------------------------------------------


def _leaf():
    return fg.tensor([1.0, 2.0], requires_grad=True)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: fg.optim.SGD([p], lr=-1.0), "Invalid learning rate: -1.0"),
        (lambda p: fg.optim.Adam([p], lr=-0.5), "Invalid learning rate: -0.5"),
        (lambda p: fg.optim.SGD([p], momentum=-0.1), "Invalid momentum value: -0.1"),
        (lambda p: fg.optim.SGD([p], weight_decay=-1), "Invalid weight_decay value: -1"),
        (lambda p: fg.optim.SGD([p], nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
        (
            lambda p: fg.optim.SGD([p], momentum=0.9, dampening=0.1, nesterov=True),
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (lambda p: fg.optim.Adam([p], betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
        (lambda p: fg.optim.Adam([p], betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
        (lambda p: fg.optim.Adam([p], eps=-1e-8), "Invalid epsilon value: -1e-08"),
        (lambda p: fg.optim.Adam([p], betas=(0, 0.9)), "betas must be either both floats or both Tensors"),
        (lambda p: fg.optim.AdamW([p], weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
        (lambda p: fg.optim.RMSprop([p], alpha=-0.5), "Invalid alpha value: -0.5"),
        (lambda p: fg.optim.Adagrad([p], lr_decay=-1.0), "Invalid lr_decay value: -1.0"),
        (
            lambda p: fg.optim.Adagrad([p], initial_accumulator_value=-1.0),
            "Invalid initial_accumulator_value value: -1.0",
        ),
        (lambda p: fg.optim.Adamax([p], betas=(0.9, 1.5)), "Invalid beta parameter at index 1: 1.5"),
        (lambda p: fg.optim.NAdam([p], momentum_decay=-1.0), "Invalid momentum_decay value: -1.0"),
        (lambda p: fg.optim.Adadelta([p], rho=1.5), "Invalid rho value: 1.5"),
        (lambda p: fg.optim.Adadelta([p], lr=-1.0), "Invalid learning rate: -1.0"),
        (lambda p: fg.optim.RAdam([p], betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
        (lambda p: fg.optim.RAdam([p], weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
        (lambda p: fg.optim.Rprop([p], etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
        (lambda p: fg.optim.ASGD([p], lambd=-1.0), "Invalid lambd value: -1.0"),
        (lambda p: fg.optim.SGD([], lr=0.1), "optimizer got an empty parameter list"),
        (lambda p: fg.optim.SGD([p, p * 2], lr=0.1), "can't optimize a non-leaf Tensor"),
        (
            lambda p: fg.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
            "some parameters appear in more than one parameter group",
        ),
    ],
)
def test_bad_arguments_raise_torchs_value_errors(make, message):
    with pytest.raises(ValueError) as info:
        make(_leaf())
    assert str(info.value) == message


def test_bad_param_containers_raise_torchs_type_errors():
    p = _leaf()
    with pytest.raises(TypeError) as info:
        fg.optim.SGD(p, lr=0.1)
    assert str(info.value) == (
        "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
        f"{MODULE_PREFIX}FloatTensor"
    )
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        fg.optim.SGD(5, lr=0.1)
    with pytest.raises(TypeError) as info:
        fg.optim.SGD([p, 3], lr=0.1)
    assert str(info.value) == "optimizer can only optimize Tensors, but one of the params is int"
    opt = fg.optim.SGD([p], lr=0.1)
    with pytest.raises(TypeError) as info:
        opt.add_param_group({"params": {_leaf()}})
    assert str(info.value).startswith("optimizer parameters need to be organized in ordered collections")
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([_leaf()])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fg.optim.SGD({_leaf()}, lr=0.1)
    assert any(issubclass(w.category, FutureWarning) for w in caught)


def test_add_param_group_after_construction():
    w, b = cases.params(fg, fg.float32)
    opt = fg.optim.SGD([w], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["momentum"] == 0.9
    with pytest.raises(ValueError, match="^some parameters appear in more than one parameter group$"):
        opt.add_param_group({"params": [w]})
    assert len(opt.param_groups) == 2


def test_differentiable_is_refused_clearly():
    if AGAINST_TORCH:  # torch differentiates through its step; ferrograd says plainly that it does not
        assert fg.optim.Adam([_leaf()], differentiable=True).defaults["differentiable"] is True
        return
    with pytest.raises(NotImplementedError, match="differentiable=True is not supported"):
        fg.optim.Adam([_leaf()], differentiable=True)


def test_fused_and_foreach_together_is_an_error():
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        fg.optim.Adam([_leaf()], fused=True, foreach=True)
