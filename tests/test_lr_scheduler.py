"""ferrograd.optim.lr_scheduler against PyTorch's recorded sequences (exact), and the scheduler API: initial_lr,
get_last_lr, state dicts, the step-order warning, bad arguments."""

import warnings

import ferrograd as fg
import lr_scheduler_cases as cases
import pytest
from helpers import golden

GOLDEN = golden("lr_scheduler")
lr_scheduler = fg.optim.lr_scheduler


@pytest.mark.parametrize("name", list(cases.cases(fg)))
def test_sequences_equal_torchs(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # stepping in the right order warns about nothing
        got = cases.run(fg, name)
    want = GOLDEN["schedules"][name]
    assert len(got["lr"]) == len(want["lr"])
    for step, (g, w) in enumerate(zip(got["lr"], want["lr"])):
        assert g == w, f"lr at step {step}: {g} != {w}"
    assert got["momentum"] == want["momentum"]


@pytest.mark.parametrize("name", list(cases.PLATEAU_CASES))
def test_reduce_lr_on_plateau_equals_torch(name):
    got = cases.run_plateau(fg, name)
    want = GOLDEN["plateau"][name]
    for step, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"step {step}: {g} != {w}"


def test_closed_forms_of_step_epoch_equal_torchs():
    assert cases.run_closed_form(fg) == GOLDEN["closed_form"]


def _sgd():
    return cases._sgd(fg)


def test_a_scheduler_sets_initial_lr_and_starts_at_epoch_zero():
    opt = _sgd()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05]
    assert sched.base_lrs == [0.1, 0.05]
    assert sched.last_epoch == 0
    assert sched.get_last_lr() == [0.1, 0.05]


def test_resuming_needs_initial_lr():
    opt = _sgd()
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)


def test_stepping_the_scheduler_first_warns_as_torch_does():
    opt = _sgd()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_overriding_optimizer_step_after_the_scheduler_warns():
    opt = _sgd()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match="Seems like `optimizer.step\\(\\)` has been overridden"):
        sched.step()


def test_get_lr_outside_step_warns():
    sched = lr_scheduler.StepLR(_sgd(), step_size=2)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


@pytest.mark.parametrize(
    "make",
    [
        lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=9, eta_min=0.01),
        lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.4, total_steps=30),
        lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
        lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2),
        lambda o: lr_scheduler.SequentialLR(
            o, [lr_scheduler.LinearLR(o, total_iters=3), lr_scheduler.StepLR(o, step_size=2)], milestones=[3]
        ),
        lambda o: lr_scheduler.ChainedScheduler(
            [lr_scheduler.LinearLR(o, total_iters=3), lr_scheduler.ExponentialLR(o, gamma=0.9)]
        ),
    ],
)
def test_state_dict_round_trip_resumes_the_sequence(make):
    def momentum_sgd():
        return fg.optim.SGD([fg.tensor([1.0], requires_grad=True)], lr=0.1, momentum=0.9)

    opt = momentum_sgd()
    sched = make(opt)
    straight = []
    for _ in range(20):
        opt.step()
        sched.step()
        straight.append(sched.get_last_lr())

    opt1 = momentum_sgd()
    sched1 = make(opt1)
    for _ in range(8):
        opt1.step()
        sched1.step()
    saved_opt, saved_sched = opt1.state_dict(), sched1.state_dict()
    opt2 = momentum_sgd()
    sched2 = make(opt2)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    resumed = []
    for _ in range(12):
        opt2.step()
        sched2.step()
        resumed.append(sched2.get_last_lr())
    assert resumed == straight[8:]


def test_lambda_state_dict_keeps_callable_objects_only():
    class Halving:
        def __init__(self):
            self.base = 0.5

        def __call__(self, epoch):
            return self.base**epoch

    opt = _sgd()
    sched = lr_scheduler.LambdaLR(opt, [Halving(), lambda e: 1.0])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"base": 0.5}, None]
    assert "optimizer" not in sd


def test_reduce_lr_on_plateau_accepts_tensor_metrics():
    opt = _sgd()
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    sched.step(fg.tensor(1.0))
    sched.step(fg.tensor(2.0))
    assert sched.get_last_lr() == pytest.approx([0.01, 0.005])


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda o: lr_scheduler.ConstantLR(o, factor=1.5), ValueError, "Constant multiplicative factor expected"),
        (lambda o: lr_scheduler.LinearLR(o, start_factor=0.0), ValueError, "Starting multiplicative factor"),
        (lambda o: lr_scheduler.LinearLR(o, end_factor=2.0), ValueError, "Ending multiplicative factor"),
        (lambda o: lr_scheduler.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
        (lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="mid"), ValueError, "mode mid is unknown!"),
        (lambda o: lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, "expected 2 min_lrs, got 1"),
        (
            lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.1),
            ValueError,
            "You must define either total_steps OR \\(epochs AND steps_per_epoch\\)",
        ),
        (
            lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="exp"),
            ValueError,
            "anneal_strategy must be one of 'cos' or 'linear', instead got exp",
        ),
        (
            lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0),
            ValueError,
            "Expected positive integer T_0, but got 0",
        ),
        (lambda o: lr_scheduler.LambdaLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
        (lambda o: lr_scheduler.StepLR(object(), step_size=1), TypeError, "object is not an Optimizer"),
        (
            lambda o: lr_scheduler.CyclicLR(o, base_lr=0.1, max_lr=1.0, mode="sine"),
            ValueError,
            "mode is invalid and scale_fn is None",
        ),
        (
            lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.StepLR(o, 2)], milestones=[3]),
            ValueError,
            "Sequential Schedulers expects number of schedulers provided to be one more than the number",
        ),
    ],
)
def test_bad_arguments_raise_torchs_errors(make, error, message):
    with pytest.raises(error, match=message):
        make(_sgd())


def test_one_cycle_refuses_to_step_past_total_steps():
    opt = _sgd()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3, cycle_momentum=False)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        sched.step()


def test_cycle_momentum_needs_momentum_or_betas():
    opt = fg.optim.Adagrad([fg.tensor([1.0], requires_grad=True)])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with `cycle_momentum` option"):
        lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
