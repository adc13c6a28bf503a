"""The optimizer problems of test_optim.py, written once for ferrograd and for torch.

`tests/golden/record_optim.py` runs them with torch and records the results into `golden/optim.json`;
test_optim.py runs them with ferrograd (or, under FG_TEST_AGAINST_TORCH=1, with torch again) and compares.
Inputs come from numpy, so both frameworks start from the same numbers.
"""

import numpy as np

STEPS = 6

# name: (optimizer class, options) -- every option that changes the update formula
CASES = {
    "sgd": ("SGD", {"lr": 0.05}),
    "sgd_weight_decay": ("SGD", {"lr": 0.05, "weight_decay": 0.1}),
    "sgd_momentum": ("SGD", {"lr": 0.05, "momentum": 0.9}),
    "sgd_dampening": ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    "sgd_nesterov": ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    "sgd_maximize": ("SGD", {"lr": 0.05, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}),
    "adam": ("Adam", {"lr": 0.05}),
    "adam_weight_decay": ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    "adam_amsgrad": ("Adam", {"lr": 0.05, "amsgrad": True}),
    "adam_maximize": ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    "adam_decoupled": ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "adam_betas_eps": ("Adam", {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-3}),
    "adamw": ("AdamW", {"lr": 0.05}),
    "adamw_amsgrad": ("AdamW", {"lr": 0.05, "weight_decay": 0.2, "amsgrad": True}),
    "adamw_maximize": ("AdamW", {"lr": 0.05, "maximize": True}),
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop_centered": ("RMSprop", {"lr": 0.01, "centered": True}),
    "rmsprop_momentum": ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    "rmsprop_centered_momentum": ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.9, "alpha": 0.9}),
    "rmsprop_weight_decay_maximize": ("RMSprop", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
    "adagrad": ("Adagrad", {"lr": 0.1}),
    "adagrad_lr_decay": ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}),
    "adagrad_weight_decay": ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    "adagrad_maximize": ("Adagrad", {"lr": 0.1, "eps": 1e-3, "maximize": True}),
    "adamax": ("Adamax", {"lr": 0.05}),
    "adamax_weight_decay": ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "betas": (0.8, 0.9)}),
    "adamax_maximize": ("Adamax", {"lr": 0.05, "maximize": True}),
    "nadam": ("NAdam", {"lr": 0.05}),
    "nadam_weight_decay": ("NAdam", {"lr": 0.05, "weight_decay": 0.1}),
    "nadam_decoupled": ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "nadam_momentum_decay_maximize": ("NAdam", {"lr": 0.05, "momentum_decay": 0.1, "maximize": True}),
    "adadelta": ("Adadelta", {}),
    "adadelta_rho_eps": ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-3}),
    "adadelta_weight_decay_maximize": ("Adadelta", {"weight_decay": 0.1, "maximize": True}),
    # beta2 = 0.9: the rectified adaptive step starts at step 6 of STEPS, so both branches run
    "radam": ("RAdam", {"lr": 0.05, "betas": (0.9, 0.9)}),
    "radam_weight_decay_maximize": ("RAdam", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True}),
    "radam_decoupled": ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "rprop": ("Rprop", {}),
    "asgd": ("ASGD", {"lr": 0.05}),
    # t0 = 2: the average starts at step 3 of STEPS; lambd large enough that eta decays visibly
    "asgd_t0_weight_decay_maximize": (
        "ASGD",
        {"lr": 0.05, "lambd": 0.5, "t0": 2, "weight_decay": 0.1, "maximize": True},
    ),
    "rprop_etas_sizes_maximize": (
        "Rprop",
        {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.1), "maximize": True},
    ),
}

# state keys per parameter after a step, and their order (as torch's state dicts list them)
# 16-bit parameters: PyTorch rounds after every op, ferrograd once per step (compared loosely). With the
# default eps (1e-8, zero in float16) torch's float16 Adam divides by zero; these cases use a larger eps.
HALF_CASES = ["sgd_momentum", "adam_betas_eps", "adagrad_maximize"]

STATE_CASES = [
    "sgd_momentum",
    "adam",
    "adam_amsgrad",
    "rmsprop_centered_momentum",
    "adagrad",
    "adamax",
    "nadam",
    "adadelta",
    "radam",
    "rprop",
    "asgd",
]


def data():
    """Linear regression: X (8x3), Y (8x4), and the starting weight (3x4) and bias (4)."""
    rng = np.random.default_rng(0)
    return (
        rng.uniform(-1, 1, (8, 3)),
        rng.uniform(-1, 1, (8, 4)),
        rng.uniform(-1, 1, (3, 4)),
        rng.uniform(-1, 1, (4,)),
    )


def flat(t):
    """A tensor's values as a flat list of Python floats (through float64: numpy has no bfloat16)."""
    return t.detach().double().numpy().ravel().tolist()


def params(lib, dtype):
    _, _, w, b = data()
    return (
        lib.tensor(w, dtype=dtype, requires_grad=True),
        lib.tensor(b, dtype=dtype, requires_grad=True),
    )


def loss_fn(lib, w, b, dtype):
    x, y, _, _ = data()
    x, y = lib.tensor(x, dtype=dtype), lib.tensor(y, dtype=dtype)
    return ((x @ w + b - y) ** 2).mean()


def run_steps(lib, opt, w, b, dtype, steps):
    """`steps` steps of the regression; the parameters after each."""
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(lib, w, b, dtype).backward()
        opt.step()
        out.append([flat(w), flat(b)])
    return out


def trajectory(lib, case, dtype_name, steps=STEPS):
    """The parameters (flattened lists) after each of `steps` steps."""
    dtype = getattr(lib, dtype_name)
    cls_name, options = CASES[case]
    w, b = params(lib, dtype)
    opt = getattr(lib.optim, cls_name)([w, b], **options)
    return run_steps(lib, opt, w, b, dtype, steps)


def groups_trajectory(lib, dtype_name, steps=STEPS):
    """Two param groups with their own options (and a default for the rest)."""
    dtype = getattr(lib, dtype_name)
    w, b = params(lib, dtype)
    opt = lib.optim.SGD([{"params": [w], "momentum": 0.9, "nesterov": True}, {"params": b, "lr": 0.2}], lr=0.05)
    return run_steps(lib, opt, w, b, dtype, steps)


def adam_groups_trajectory(lib, dtype_name, steps=STEPS):
    dtype = getattr(lib, dtype_name)
    w, b = params(lib, dtype)
    opt = lib.optim.Adam(
        [{"params": [w], "amsgrad": True, "weight_decay": 0.1}, {"params": [b], "betas": (0.5, 0.6)}], lr=0.05
    )
    return run_steps(lib, opt, w, b, dtype, steps)


def describe_value(lib, v):
    """A state-dict value as JSON: tensors by dtype name and shape, tuples as lists, the rest as is."""
    if isinstance(v, lib.Tensor):
        return {"tensor": str(v.dtype).split(".")[-1], "shape": list(v.shape)}
    if isinstance(v, tuple):
        return [describe_value(lib, x) for x in v]
    return v


def state_dict_format(lib, case):
    """The state dict after two steps: state keys per parameter index with their types, and the groups."""
    cls_name, options = CASES[case]
    w, b = params(lib, lib.float32)
    opt = getattr(lib.optim, cls_name)([w, b], **options)
    for _ in range(2):
        opt.zero_grad()
        loss_fn(lib, w, b, lib.float32).backward()
        opt.step()
    sd = opt.state_dict()
    return {
        "state": {str(i): [[k, describe_value(lib, v)] for k, v in s.items()] for i, s in sd["state"].items()},
        "param_groups": [[[k, describe_value(lib, v)] for k, v in g.items()] for g in sd["param_groups"]],
        "steps": {str(i): float(s["step"]) for i, s in sd["state"].items() if "step" in s},
    }


REPR_CASES = [
    "sgd",
    "adam_amsgrad",
    "adamw",
    "rmsprop_centered",
    "adagrad",
    "adamax",
    "nadam_decoupled",
    "adadelta",
    "radam",
    "rprop",
    "asgd",
]


def optimizer_repr(lib, case):
    cls_name, options = CASES[case]
    w, b = params(lib, lib.float32)
    return repr(getattr(lib.optim, cls_name)([{"params": [w]}, {"params": [b], "lr": 0.5}], **options))


# Bit for bit: ferrograd's step against torch's fused=True step (Adam, AdamW, Adagrad) and against its default
# step (SGD, Adamax), which take the same operations in the same order; gradients fed from numpy, so only the
# update is compared. 67 elements: four AVX-512 vectors, bit for bit, and a tail. (The other optimizers differ
# from torch's default step where torch's vectorized float32 sqrt is off by up to 0.75 ulp; ours rounds
# correctly.)
EXACT_CASES = {
    **{case: True for case in CASES if CASES[case][0] in ("Adam", "AdamW", "Adagrad")},
    **{case: False for case in CASES if CASES[case][0] in ("SGD", "Adamax")},
}


EXACT_BODY = 64


def exact_trajectory(lib, case, steps=4, n=EXACT_BODY + 3):
    fused = EXACT_CASES[case]
    cls_name, options = CASES[case]
    rng = np.random.default_rng(1)
    p = lib.tensor(rng.uniform(-1, 1, n).astype(np.float32), requires_grad=True)
    opt = getattr(lib.optim, cls_name)([p], **options, **({"fused": True} if fused else {}))
    out = []
    for _ in range(steps):
        p.grad = lib.tensor(rng.uniform(-1, 1, n).astype(np.float32))
        opt.step()
        out.append(flat(p))
    return out
