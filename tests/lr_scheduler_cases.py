"""The learning-rate schedules of test_lr_scheduler.py, written once for ferrograd and for torch.

`tests/golden/record_lr_scheduler.py` records torch's sequences into `golden/lr_scheduler.json`.
"""

STEPS = 60


def _sgd(lib, momentum=0.0):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0], requires_grad=True)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1, momentum=momentum)


def _adam(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    return lib.optim.Adam([a], lr=0.1)


# name: (optimizer maker, scheduler maker, steps)
def cases(lib):
    s = lib.optim.lr_scheduler
    return {
        "step": (_sgd, lambda o: s.StepLR(o, step_size=7, gamma=0.5), STEPS),
        "multistep": (_sgd, lambda o: s.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3), STEPS),
        "constant": (_sgd, lambda o: s.ConstantLR(o, factor=0.25, total_iters=8), STEPS),
        "linear": (_sgd, lambda o: s.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=20), STEPS),
        "exponential": (_sgd, lambda o: s.ExponentialLR(o, gamma=0.93), STEPS),
        "cosine": (_sgd, lambda o: s.CosineAnnealingLR(o, T_max=17, eta_min=0.001), STEPS),
        "lambda": (_sgd, lambda o: s.LambdaLR(o, lr_lambda=lambda e: 0.95**e), STEPS),
        "lambda_per_group": (
            _sgd,
            lambda o: s.LambdaLR(o, lr_lambda=[lambda e: 1.0 / (e + 1), lambda e: (e % 5) * 0.5]),
            STEPS,
        ),
        "multiplicative": (_sgd, lambda o: s.MultiplicativeLR(o, lr_lambda=lambda e: 0.97), STEPS),
        "polynomial": (_sgd, lambda o: s.PolynomialLR(o, total_iters=25, power=2.0), STEPS),
        "warm_restarts": (_sgd, lambda o: s.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01), STEPS),
        "warm_restarts_flat": (_sgd, lambda o: s.CosineAnnealingWarmRestarts(o, T_0=7), STEPS),
        "one_cycle_cos": (lambda lib: _sgd(lib, 0.9), lambda o: s.OneCycleLR(o, max_lr=0.5, total_steps=60), 59),
        "one_cycle_linear": (
            lambda lib: _sgd(lib, 0.9),
            lambda o: s.OneCycleLR(o, max_lr=[0.5, 0.2], epochs=6, steps_per_epoch=10, anneal_strategy="linear"),
            59,
        ),
        "one_cycle_three_phase": (
            lambda lib: _sgd(lib, 0.9),
            lambda o: s.OneCycleLR(o, max_lr=0.5, total_steps=60, three_phase=True, pct_start=0.25),
            59,
        ),
        "one_cycle_betas": (_adam, lambda o: s.OneCycleLR(o, max_lr=0.01, total_steps=40), 40),
        "one_cycle_no_momentum": (
            _sgd,
            lambda o: s.OneCycleLR(o, max_lr=0.3, total_steps=30, cycle_momentum=False, div_factor=10.0),
            30,
        ),
        "cyclic_triangular": (
            lambda lib: _sgd(lib, 0.9),
            lambda o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7),
            STEPS,
        ),
        "cyclic_triangular2": (
            lambda lib: _sgd(lib, 0.9),
            lambda o: s.CyclicLR(
                o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=4, step_size_down=6, mode="triangular2"
            ),
            STEPS,
        ),
        "cyclic_exp_range": (
            _adam,
            lambda o: s.CyclicLR(o, base_lr=0.001, max_lr=0.01, step_size_up=5, mode="exp_range", gamma=0.97),
            STEPS,
        ),
        "sequential": (
            _sgd,
            lambda o: s.SequentialLR(
                o,
                schedulers=[s.LinearLR(o, start_factor=0.1, total_iters=5), s.ExponentialLR(o, gamma=0.9)],
                milestones=[5],
            ),
            STEPS,
        ),
        "sequential_three": (
            _sgd,
            lambda o: s.SequentialLR(
                o,
                schedulers=[
                    s.ConstantLR(o, factor=0.5, total_iters=3),
                    s.CosineAnnealingLR(o, T_max=10),
                    s.StepLR(o, step_size=4, gamma=0.5),
                ],
                milestones=[4, 20],
            ),
            STEPS,
        ),
        "chained": (
            _sgd,
            lambda o: s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=4), s.ExponentialLR(o, gamma=0.9)]),
            STEPS,
        ),
    }


def run(lib, name):
    """lr (and momentum or beta1) of every group after construction and after each step."""
    make_opt, make_sched, steps = cases(lib)[name]
    opt = make_opt(lib)
    sched = make_sched(opt)
    lrs = [list(sched.get_last_lr())]
    momenta = [_momenta(opt)]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(list(sched.get_last_lr()))
        momenta.append(_momenta(opt))
        assert [g["lr"] for g in opt.param_groups] == lrs[-1]
    return {"lr": lrs, "momentum": momenta}


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


# ReduceLROnPlateau: options, and the metric fed at each step
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.80001, 0.8, 0.8, 0.8, 0.8] * 3
PLATEAU_CASES = {
    "min_rel": {"patience": 2},
    "min_abs_cooldown": {"patience": 1, "threshold": 0.05, "threshold_mode": "abs", "cooldown": 2, "factor": 0.5},
    "max_rel": {"mode": "max", "patience": 0, "factor": 0.7},
    "max_abs_min_lr": {"mode": "max", "threshold_mode": "abs", "patience": 1, "min_lr": [0.02, 0.01]},
    "eps": {"patience": 0, "factor": 0.9, "eps": 0.004},
}


def run_plateau(lib, name):
    opt = _sgd(lib)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU_CASES[name])
    out = []
    for metric in PLATEAU_METRICS:
        opt.step()
        sched.step(metric)
        out.append([list(sched.get_last_lr()), sched.num_bad_epochs, sched.cooldown_counter, sched.best])
    return out


def run_closed_form(lib):
    """The deprecated `step(epoch)` (closed forms), with its warning silenced."""
    import warnings

    s = lib.optim.lr_scheduler
    out = {}
    makers = {
        "step": lambda o: s.StepLR(o, step_size=3, gamma=0.5),
        "multistep": lambda o: s.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.5),
        "cosine": lambda o: s.CosineAnnealingLR(o, T_max=10, eta_min=0.01),
        "linear": lambda o: s.LinearLR(o, start_factor=0.2, total_iters=6),
        "exponential": lambda o: s.ExponentialLR(o, gamma=0.8),
        "warm_restarts": lambda o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    }
    for name, make in makers.items():
        opt = _sgd(lib)
        sched = make(opt)
        seq = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [4, 1, 9, 0, 13, 7]:
                opt.step()
                sched.step(epoch)
                seq.append(list(sched.get_last_lr()))
        out[name] = seq
    return out
