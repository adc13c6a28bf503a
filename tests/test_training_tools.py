"""A training script as people write them for the CPU, all the tools at once: backend flags, `torch.compile`,
`GradScaler("cpu")`, a SummaryWriter logging the losses. The tools must not change the numbers: the weights
after the loop are those of the plain eager loop (a power-of-two loss scale is exact), in either framework."""

import ferrograd as fg
import numpy as np
import pytest

STEPS = 5


def _data():
    rng = np.random.default_rng(7)
    x = fg.tensor(rng.uniform(-1, 1, (16, 6)), dtype=fg.float32)
    y = fg.tensor(rng.integers(0, 3, 16), dtype=fg.int64)
    return x, y


def _model():
    fg.manual_seed(3)
    return fg.nn.Sequential(fg.nn.Linear(6, 12), fg.nn.Tanh(), fg.nn.Linear(12, 3))


def _plain_run():
    x, y = _data()
    model = _model()
    opt = fg.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = fg.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


def test_flags_compile_scaler_and_tensorboard_leave_the_numbers_alone(tmp_path):
    pytest.importorskip("tensorboard")
    from ferrograd.utils.tensorboard import SummaryWriter
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    saved = (fg.backends.cudnn.benchmark, fg.get_float32_matmul_precision())
    fg.backends.cudnn.benchmark = True
    fg.set_float32_matmul_precision("high")
    try:
        x, y = _data()
        model = _model()
        compiled = fg.compile(model, backend="eager")
        opt = fg.optim.SGD(compiled.parameters(), lr=0.5, momentum=0.9)
        scaler = fg.amp.GradScaler("cpu")
        losses = []
        with SummaryWriter(tmp_path) as writer:
            for step in range(STEPS):
                opt.zero_grad()
                loss = fg.nn.functional.cross_entropy(compiled(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
                losses.append(loss.item())
                writer.add_scalar("train/loss", loss.item(), step)
    finally:
        fg.backends.cudnn.benchmark, precision = saved
        fg.set_float32_matmul_precision(precision)

    reference, want_losses = _plain_run()
    assert losses == want_losses and losses[-1] < losses[0]
    for (name, got), want in zip(compiled.state_dict().items(), reference.state_dict().values()):
        assert name.startswith("_orig_mod.")
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=name)
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    logged = events.Scalars("train/loss")
    assert [s.step for s in logged] == list(range(STEPS))
    np.testing.assert_allclose([s.value for s in logged], losses, rtol=1e-7)  # stored as float32
    assert scaler.get_scale() == 65536.0 and scaler.state_dict()["_growth_tracker"] == STEPS
    # the usual way to save a compiled model's weights for a plain one
    plain = _model()
    plain.load_state_dict(compiled._orig_mod.state_dict())
    assert fg.equal(plain(x), compiled(x))
