"""A whole training step under `ferrograd.compile`: `zero_grad()`, the forward, `backward()` (or `autograd.grad`),
gradient clipping and the optimizer's update are one graph, which trains exactly as the eager step does: the same
losses, parameters, gradients and optimizer state after every step, with the options a scheduler sets read at each
call. torch's Dynamo breaks the graph at `backward()` (and refuses `fullgraph=True` there): under torch these run
with `fullgraph=False` and check the values only."""

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH

nn = fg.nn
F = nn.functional
BACKEND = "aot_eager"
FULL = not AGAINST_TORCH  # torch's Dynamo breaks at Tensor.backward()

OPTIMIZERS = {
    "sgd_nesterov": lambda ps: fg.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "adam": lambda ps: fg.optim.Adam(ps, lr=0.01),
    "adamw_amsgrad": lambda ps: fg.optim.AdamW(ps, lr=0.01, amsgrad=True),
    "rmsprop": lambda ps: fg.optim.RMSprop(ps, lr=0.01, momentum=0.5),
    "adagrad": lambda ps: fg.optim.Adagrad(ps, lr=0.1),
}


def _model(seed=0):
    fg.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def _data(seed=1):
    fg.manual_seed(seed)
    return fg.randn(16, 4), fg.randn(16, 3)


def _trainer(make_opt, clip=None, set_to_none=True):
    """A model, its optimizer and a step closing over them, as a training script writes it."""
    model = _model()
    opt = make_opt(model.parameters())

    def step(x, y):
        opt.zero_grad(set_to_none=set_to_none)
        loss = F.mse_loss(model(x), y)
        loss.backward()
        if clip is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        return loss

    return model, opt, step


def _assert_same(a, b):
    if AGAINST_TORCH:  # aot_eager's decompositions may round differently
        assert fg.allclose(a, b, rtol=1e-4, atol=1e-6)
    else:
        assert fg.equal(a, b)


def _assert_trained_alike(model_a, opt_a, model_b, opt_b):
    for p, q in zip(model_a.parameters(), model_b.parameters()):
        _assert_same(p, q)
        _assert_same(p.grad, q.grad)
    for state_a, state_b in zip(opt_a.state.values(), opt_b.state.values()):
        assert state_a.keys() == state_b.keys()
        for key in state_a:
            _assert_same(state_a[key], state_b[key])


def _graphs(compiled):
    return len(compiled._compiled.cache)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_a_whole_step_is_one_graph_that_trains_as_eager(name):
    x, y = _data()
    model, opt, step = _trainer(OPTIMIZERS[name])
    ref_model, ref_opt, ref_step = _trainer(OPTIMIZERS[name])
    compiled = fg.compile(step, backend=BACKEND, fullgraph=FULL)
    for _ in range(5):
        _assert_same(compiled(x, y), ref_step(x, y))
    _assert_trained_alike(model, opt, ref_model, ref_opt)
    if not AGAINST_TORCH:
        assert _graphs(compiled) == 1
        ops = fg._dynamo.explain(step)(x, y).graphs[0].ops
        assert ops[0] == "zero_grad" and ops[-1] == "optimizer.step" and "backward" in ops


def test_gradient_clipping_and_zeroing_in_place_are_part_of_the_graph():
    x, y = _data()
    # max_norm small enough that every step clips
    model, opt, step = _trainer(OPTIMIZERS["adam"], clip=0.05, set_to_none=False)
    ref_model, ref_opt, ref_step = _trainer(OPTIMIZERS["adam"], clip=0.05, set_to_none=False)
    compiled = fg.compile(step, backend=BACKEND, fullgraph=FULL)
    for _ in range(4):
        _assert_same(compiled(x, y), ref_step(x, y))
        norm = fg.stack([p.grad.norm() for p in model.parameters()]).norm()
        assert float(norm) == pytest.approx(0.05, rel=1e-4)
    _assert_trained_alike(model, opt, ref_model, ref_opt)


def test_a_schedulers_learning_rate_is_read_at_each_call_without_a_new_capture():
    x, y = _data()
    model, opt, step = _trainer(OPTIMIZERS["sgd_nesterov"])
    ref_model, ref_opt, ref_step = _trainer(OPTIMIZERS["sgd_nesterov"])
    sched = fg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    ref_sched = fg.optim.lr_scheduler.StepLR(ref_opt, step_size=2, gamma=0.1)
    compiled = fg.compile(step, backend=BACKEND, fullgraph=FULL)
    for _ in range(6):
        _assert_same(compiled(x, y), ref_step(x, y))
        sched.step()
        ref_sched.step()
    _assert_trained_alike(model, opt, ref_model, ref_opt)
    if not AGAINST_TORCH:
        assert _graphs(compiled) == 1


def test_an_optimizer_rebound_is_captured_anew():
    x, y = _data()
    model, ref_model = _model(), _model()
    state = {"opt": fg.optim.SGD(model.parameters(), lr=0.1)}
    ref_opt = fg.optim.SGD(ref_model.parameters(), lr=0.1)
    opt = state["opt"]

    def step(x, y):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    compiled = fg.compile(step, backend=BACKEND, fullgraph=FULL)
    compiled(x, y)
    ref_opt.zero_grad()
    F.mse_loss(ref_model(x), y).backward()
    ref_opt.step()
    opt = fg.optim.Adam(model.parameters(), lr=0.01)  # the closure's cell now holds another optimizer
    ref_opt = fg.optim.Adam(ref_model.parameters(), lr=0.01)
    for _ in range(3):
        got = compiled(x, y)
        ref_opt.zero_grad()
        want = F.mse_loss(ref_model(x), y)
        want.backward()
        ref_opt.step()
        _assert_same(got, want)
    _assert_trained_alike(model, opt, ref_model, ref_opt)


def _functional_sgd(model):
    def step(x, y):
        loss = F.mse_loss(model(x), y)
        grads = fg.autograd.grad(loss, list(model.parameters()))
        with fg.no_grad():
            for p, g in zip(model.parameters(), grads):
                p.sub_(0.1 * g)
        return loss

    return step


def _train_by_hand(make_step, steps=4):
    """A step made by `make_step(model)`, compiled, against the same step eager on a twin model: the losses, then
    the parameters and their `.grad`s (none, or the same) after `steps` calls; returns the compiled step."""
    x, y = _data()
    model, ref_model = _model(), _model()
    compiled = fg.compile(make_step(model), backend=BACKEND, fullgraph=FULL)
    ref_step = make_step(ref_model)
    for _ in range(steps):
        _assert_same(compiled(x, y), ref_step(x, y))
    for p, q in zip(model.parameters(), ref_model.parameters()):
        _assert_same(p, q)
        assert (p.grad is None) == (q.grad is None)
        if p.grad is not None:
            _assert_same(p.grad, q.grad)
    return compiled


def test_a_step_through_autograd_grad_updates_as_eager():
    _train_by_hand(_functional_sgd)


def _penalised(model, opt):
    """A gradient penalty (WGAN-GP's): the gradient with respect to the input, made with create_graph=True, is
    part of the loss that backward() differentiates again."""

    def step(x):
        opt.zero_grad()
        out = model(x)
        (g,) = fg.autograd.grad(out.sum(), x, create_graph=True)
        loss = out.mean() + ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    return step


def test_a_gradient_penalty_step_differentiates_twice_as_eager():
    model, ref_model = _model(), _model()
    opt, ref_opt = fg.optim.Adam(model.parameters(), lr=0.01), fg.optim.Adam(ref_model.parameters(), lr=0.01)
    compiled = fg.compile(_penalised(model, opt), backend=BACKEND, fullgraph=FULL)
    ref_step = _penalised(ref_model, ref_opt)
    x, _ = _data()
    for _ in range(3):
        xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
        _assert_same(compiled(xa), ref_step(xb))
        _assert_same(xa.grad, xb.grad)  # the input, a leaf, gets its gradient at each call
    _assert_trained_alike(model, opt, ref_model, ref_opt)


def _with_gradient(model):
    def step(x, g):
        out = model(x)
        out.backward(g, retain_graph=True)
        out.backward(g * 2)  # through the retained graph: the gradients add up
        return out

    return step


def test_backward_with_a_gradient_and_a_retained_graph_accumulates_as_eager():
    x, _ = _data()
    g = fg.randn(16, 3)
    model, ref_model = _model(), _model()
    compiled = fg.compile(_with_gradient(model), backend=BACKEND, fullgraph=FULL)
    for _ in range(2):  # no zero_grad: the second call adds to the first's gradients
        _assert_same(compiled(x, g), _with_gradient(ref_model)(x, g))
    for p, q in zip(model.parameters(), ref_model.parameters()):
        _assert_same(p.grad, q.grad)


def _hooked_step(model, opt):
    def step(x, y):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()

    return step


def test_what_a_replay_cannot_repeat_breaks_the_graph():
    x, y = _data()
    model = _model()
    opt = fg.optim.SGD(model.parameters(), lr=0.1)
    handle = opt.register_step_post_hook(lambda *args: None)
    match = None if AGAINST_TORCH else "^an optimizer step hook cannot be captured"
    with pytest.raises(fg._dynamo.exc.Unsupported, match=match):
        fg.compile(_hooked_step(model, opt), backend=BACKEND, fullgraph=True)(x, y)
    handle.remove()

    def drops_grads_itself(x):
        for p in model.parameters():
            p.grad = None
        model(x).sum().backward()

    match = None if AGAINST_TORCH else "^setting Tensor.grad cannot be captured"
    with pytest.raises(fg._dynamo.exc.Unsupported, match=match):
        fg.compile(drops_grads_itself, backend=BACKEND, fullgraph=True)(x)

    extra = fg.ones(1, requires_grad=True)  # not reached from the outputs

    def unused(x):
        out = model(x).sum()
        return fg.autograd.grad(out, [x, extra], allow_unused=True)[0]

    match = None if AGAINST_TORCH else r"^autograd.grad\(\) with an input the outputs do not reach"
    with pytest.raises(fg._dynamo.exc.Unsupported, match=match):
        fg.compile(unused, backend=BACKEND, fullgraph=True)(x.clone().requires_grad_())


def test_a_graph_holds_its_optimizer_weakly():
    import gc
    import weakref

    x, y = _data()
    model = _model()
    opt = fg.optim.SGD(model.parameters(), lr=0.1)
    compiled = fg.compile(_hooked_step(model, opt), backend=BACKEND, fullgraph=FULL)
    compiled(x, y)
    compiled(x, y)
    gone = weakref.ref(opt)
    del opt, compiled
    gc.collect()
    assert gone() is None


class _PlainSGD(fg.optim.Optimizer):
    """An optimizer written in Python, as tutorials write one: its `step()` reads `lr` from the group each call."""

    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    @fg.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])


def test_a_python_optimizers_step_is_captured_and_a_new_lr_captures_anew():
    x, y = _data()
    model, opt, step = _trainer(lambda ps: _PlainSGD(ps, lr=0.1))
    ref_model, ref_opt, ref_step = _trainer(lambda ps: _PlainSGD(ps, lr=0.1))
    compiled = fg.compile(step, backend=BACKEND, fullgraph=FULL)
    for lr in (0.1, 0.1, 0.05, 0.05, 0.01):
        opt.param_groups[0]["lr"] = ref_opt.param_groups[0]["lr"] = lr  # the graph read 0.1 as a constant
        _assert_same(compiled(x, y), ref_step(x, y))
    _assert_trained_alike(model, opt, ref_model, ref_opt)
    if not AGAINST_TORCH:
        assert "add_" in fg._dynamo.explain(step)(x, y).graphs[0].ops


def _word_language_model_step(model):
    """pytorch/examples' word_language_model `train()`: zero_grad on the module, clipping, then SGD by hand
    through `p.data`."""

    def step(x, y):
        model.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-5.0)
        return loss

    return step


def test_a_hand_written_update_through_p_data_is_captured():
    compiled = _train_by_hand(_word_language_model_step)
    if not AGAINST_TORCH:
        assert _graphs(compiled) == 1


def _gan_step(generator, discriminator, opt_g, opt_d):
    """pytorch/examples' DCGAN iteration: the discriminator on real and detached fake samples, then the generator
    through it, two optimizers and a label tensor refilled in place."""
    criterion = nn.BCELoss()

    def step(real, noise):
        discriminator.zero_grad()
        label = fg.full((real.shape[0],), 1.0)
        err_real = criterion(discriminator(real).view(-1), label)
        err_real.backward()
        fake = generator(noise)
        label.fill_(0.0)
        err_fake = criterion(discriminator(fake.detach()).view(-1), label)
        err_fake.backward()
        opt_d.step()
        generator.zero_grad()
        label.fill_(1.0)
        err_g = criterion(discriminator(fake).view(-1), label)
        err_g.backward()
        opt_g.step()
        return err_real + err_fake, err_g

    return step


def test_a_gan_iteration_with_two_optimizers_is_one_graph():
    def trainer():
        fg.manual_seed(0)
        generator = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4), nn.Tanh())
        discriminator = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2, inplace=True), nn.Linear(8, 1), nn.Sigmoid())
        opt_g = fg.optim.Adam(generator.parameters(), lr=2e-3, betas=(0.5, 0.999))
        opt_d = fg.optim.Adam(discriminator.parameters(), lr=2e-3, betas=(0.5, 0.999))
        return generator, discriminator, _gan_step(generator, discriminator, opt_g, opt_d)

    generator, discriminator, step = trainer()
    ref_generator, ref_discriminator, ref_step = trainer()
    # torch 2.15's compile of this step (aot_eager, broken at each backward()) raises "Trying to backward through
    # the graph a second time" at err_g.backward(), which eager torch runs: there the step runs uncompiled
    compiled = step if AGAINST_TORCH else fg.compile(step, backend=BACKEND, fullgraph=True)
    real = fg.randn(6, 4)
    for k in range(4):
        fg.manual_seed(10 + k)
        noise = fg.randn(6, 3)
        for got, want in zip(compiled(real, noise), ref_step(real, noise)):
            _assert_same(got, want)
    for p, q in zip(
        [*generator.parameters(), *discriminator.parameters()],
        [*ref_generator.parameters(), *ref_discriminator.parameters()],
    ):
        _assert_same(p, q)
    if not AGAINST_TORCH:
        assert _graphs(compiled) == 1
