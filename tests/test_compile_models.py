"""`ferrograd.compile` over whole models (issue 27): `Module.compile()` and `compile(model)` capture an MLP, a
LeNet, a CNN with BatchNorm, a small ResNet (in-place ReLU and `out += identity`), an LSTM tagger, a GPT block with
a closure tensor and a TransformerEncoder with dropout in one graph each
(`fullgraph=True`), and the compiled model's outputs, losses and gradients over several training steps are
eager's, bit for bit, dropout's masks included (the replay draws them from the same generator in the same order).
Under torch the models compile with backend="aot_eager" and the same checks hold to float rounding."""

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH

nn, F = fg.nn, fg.nn.functional
BACKEND = "aot_eager"


class Block(nn.Module):
    """A causal self-attention block: split, views, SDPA, GELU, LayerNorm, and a closure tensor."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.fc = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(2 * dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + a.transpose(1, 2).contiguous().view(b, t, c)
        return x + self.out(F.gelu(self.fc(x)))


POSITIONS = None


class TinyGPT(nn.Module):
    def __init__(self, vocab=11, ctx=6, dim=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(ctx, dim)
        self.block = Block(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        return self.head(self.block(self.tok(idx) + self.pos(POSITIONS)))


class Tagger(nn.Module):
    """An LSTM (its zero state made inside forward) and a head on the last step."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[-1])


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 4, 3),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(6 * 4 * 4, 10),
        nn.LogSoftmax(dim=1),
    )


def bn_cnn():
    """BatchNorm in training (its running statistics and batch count updated in place) and an in-place ReLU."""
    return nn.Sequential(
        nn.Conv2d(1, 4, 3),
        nn.BatchNorm2d(4),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 6 * 6, 10),
        nn.LogSoftmax(dim=1),
    )


class BasicBlock(nn.Module):
    """torchvision's ResNet block: BatchNorm, `ReLU(inplace=True)`, a downsampling shortcut and `out += identity`."""

    def __init__(self, inp, out, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inp, out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(out, out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out)
        shortcut = stride != 1 or inp != out
        self.downsample = (
            nn.Sequential(nn.Conv2d(inp, out, 1, stride, bias=False), nn.BatchNorm2d(out)) if shortcut else None
        )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
        out += identity
        return self.relu(out)


def resnet():
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, 1, 1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(inplace=True),
        BasicBlock(4, 4),
        BasicBlock(4, 8, 2),
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Flatten(),
        nn.Linear(8, 10),
        nn.LogSoftmax(dim=1),
    )


def mlp():
    return nn.Sequential(nn.Linear(12, 20), nn.ReLU(), nn.Linear(20, 20), nn.ReLU(), nn.Linear(20, 4))


def transformer():
    layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)  # dropout 0.1, in training mode
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def data(key):
    g = fg.Generator().manual_seed(5)
    if key == "mlp":
        return fg.randn(9, 12, generator=g), fg.randint(0, 4, (9,), generator=g)
    if key in ("lenet", "bn_cnn", "resnet"):
        return fg.randn(3, 1, 14, 14, generator=g), fg.randint(0, 10, (3,), generator=g)
    if key == "lstm":
        return fg.randn(7, 4, 5, generator=g), fg.randint(0, 3, (4,), generator=g)
    if key == "gpt":
        return fg.randint(0, 11, (2, 6), generator=g), fg.randint(0, 11, (12,), generator=g)
    return fg.randn(2, 6, 16, generator=g), fg.randn(2, 6, 16, generator=g)


MODELS = {
    "mlp": mlp,
    "lenet": lenet,
    "bn_cnn": bn_cnn,
    "resnet": resnet,
    "lstm": Tagger,
    "gpt": TinyGPT,
    "transformer": transformer,
}


def loss_of(key, model, x, y):
    out = model(x)
    if key == "transformer":
        return F.mse_loss(out, y)
    if key == "gpt":
        out = out.view(-1, out.shape[-1])
    return F.nll_loss(out, y) if key in ("lenet", "bn_cnn", "resnet") else F.cross_entropy(out, y)


def train(key, how):
    """Three SGD steps from the same seed; the losses, the last output and the parameters' last gradients."""
    global POSITIONS
    POSITIONS = fg.arange(6)
    fg._dynamo.reset()  # torch's recompile limit (8 a code object) is reached by the models compiled before
    fg.manual_seed(0)
    model = MODELS[key]()
    # torch 2.15's Dynamo refuses LSTMs under fullgraph ("Dynamo does not support RNN, GRU, or LSTM")
    fullgraph = not (AGAINST_TORCH and key == "lstm")
    if how == "method":
        model.compile(fullgraph=fullgraph, backend=BACKEND)
    elif how == "wrapper":
        model = fg.compile(model, fullgraph=fullgraph, backend=BACKEND)
    opt = fg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = data(key)
    fg.manual_seed(1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = loss_of(key, model, x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    grads = [p.grad.clone() for p in model.parameters()]
    return losses, grads, model


@pytest.mark.parametrize("how", ["method", "wrapper"])
@pytest.mark.parametrize("key", sorted(MODELS))
def test_a_compiled_model_trains_as_eager(key, how):
    want_losses, want_grads, _ = train(key, "eager")
    got_losses, got_grads, model = train(key, how)
    assert len(got_grads) == len(want_grads)
    if AGAINST_TORCH:  # inductor-free aot_eager: the same ops, rounding may differ in the last place
        assert got_losses == pytest.approx(want_losses, rel=1e-5)
        for g, w in zip(got_grads, want_grads):
            assert fg.allclose(g, w, rtol=1e-4, atol=1e-6)
        return
    assert got_losses == want_losses
    for g, w in zip(got_grads, want_grads):
        assert fg.equal(g, w)
    cache = (model._compiled_call_impl if how == "method" else model.forward).cache
    assert len(cache) == 1  # one capture: every later step replayed it


def test_module_compile_keeps_the_module_and_its_state_dict_keys():
    model = mlp()
    keys = list(model.state_dict())
    assert model.compile() is None
    assert list(model.state_dict()) == keys  # unlike compile(model), whose keys gain `_orig_mod.`
    x = fg.randn(2, 12)
    with fg.no_grad():
        assert fg.equal(model(x), model._call_impl(x))


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's compiled call holds its module in a cycle")
def test_a_compiled_module_goes_when_its_last_reference_does():
    import gc
    import weakref

    model = mlp()
    model.compile()
    model(fg.randn(2, 12))
    gone = weakref.ref(model)
    gc.disable()  # reference counting alone must free it: no cycle through the compiled call
    try:
        del model
        assert gone() is None
    finally:
        gc.enable()


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own graph")
def test_a_model_is_one_graph_of_its_ops():
    model = TinyGPT()
    global POSITIONS
    POSITIONS = fg.arange(6)
    fg._dynamo.reset()  # torch's recompile limit (8 a code object) is reached by the models compiled before
    model.compile(fullgraph=True)
    x, _ = data("gpt")
    model(x)
    ((graph, _),) = model._compiled_call_impl.cache.values()
    lines = graph.describe().splitlines()[:-1]
    ops = [line.split(" = ")[1].split("(")[0] for line in lines]
    assert ops[:2] == ["embedding", "embedding"] and "scaled_dot_product_attention" in ops
    assert ops.count("split") == 1 and ops.count("linear") == 4
    # `split`'s 2nd and 3rd outputs are values of their own; the closure's positions are a constant of the graph
    split = next(line for line in lines if " = split(" in line).split(" = ")[0]
    assert sum(line.endswith((f"= {split}[1]", f"= {split}[2]")) for line in lines) == 2
    assert "const[6]" in graph.describe()


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own graph")
def test_a_factory_inside_is_captured_and_a_replay_makes_it_anew():
    def f(x):
        return x + fg.ones(3) * 2 + fg.arange(3)

    compiled = fg.compile(f, fullgraph=True)
    x = fg.tensor([1.0, 2.0, 3.0])
    assert fg.equal(compiled(x), f(x)) and fg.equal(compiled(x * 2), f(x * 2))
    ((graph, _),) = compiled._compiled.cache.values()
    assert "ones()" in graph.describe() and "arange()" in graph.describe()


def test_max_pool_with_indices_replays_both_outputs():
    def f(x):
        values, indices = F.max_pool2d(x, 2, return_indices=True)
        return values * 2, indices

    compiled = fg.compile(f, fullgraph=True, backend=BACKEND)
    for seed in (0, 1):
        x = fg.randn(1, 2, 4, 4, generator=fg.Generator().manual_seed(seed))
        (gv, gi), (wv, wi) = compiled(x), f(x)
        assert fg.equal(gv, wv) and fg.equal(gi, wi)


@pytest.mark.parametrize("key", ["mlp", "transformer"])
def test_a_model_and_its_loss_compile_as_one_function(key):
    """`compile(lambda x, y: loss(model(x), y))`: the loss (nll_loss under cross_entropy, mse_loss) is captured
    with the model, and its value and the parameters' gradients are eager's."""
    fg.manual_seed(0)
    model = MODELS[key]()
    model.eval()  # no dropout: eager and compiled read the same function
    x, y = data(key)
    compiled = fg.compile(lambda x, y: loss_of(key, model, x, y), fullgraph=True, backend=BACKEND)
    for scale in (1.0, 2.0):  # the capture, then a replay
        want = loss_of(key, model, x * scale if key != "gpt" else x, y)
        want.backward()
        want_grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        got = compiled(x * scale, y)
        got.backward()
        got_grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        assert float(got) == pytest.approx(float(want), rel=1e-6)
        for g, w in zip(got_grads, want_grads):
            assert fg.allclose(g, w, rtol=1e-5, atol=1e-7)
        if not AGAINST_TORCH:
            assert float(got) == float(want) and all(fg.equal(g, w) for g, w in zip(got_grads, want_grads))
    if not AGAINST_TORCH:
        ((graph, _),) = compiled._compiled.cache.values()
        assert ("nll_loss(" if key == "mlp" else "mse_loss(") in graph.describe()


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's Dynamo breaks the graph at backward()")
def test_backward_is_captured_and_each_replay_accumulates_the_gradients():
    model = mlp()
    x, y = data("mlp")

    def loss_and_backward():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        return loss

    compiled = fg.compile(loss_and_backward, fullgraph=True)
    compiled()  # the capture
    first = model[0].weight.grad.clone()
    compiled()  # the replay: no zero_grad, so the gradients add up as eager's
    assert fg.equal(model[0].weight.grad, 2 * first)
    ((graph, _),) = compiled._compiled.cache.values()
    assert graph.ops[-1] == "backward"

    def clear(x):
        model[0].weight.grad = None
        return x * 2

    with pytest.raises(fg._dynamo.exc.Unsupported, match=r"^setting Tensor\.grad cannot be captured"):
        fg.compile(clear, fullgraph=True)(x)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_a_compiled_optimizer_step_updates_on_every_call(name):
    """An optimizer's step writes into the parameters in place: no replay may drop it (each call updates)."""

    def run(compiled):
        p = nn.Parameter(fg.ones(3))
        opt = getattr(fg.optim, name)([p], lr=0.1)
        step = fg.compile(opt.step, backend=BACKEND) if compiled else opt.step
        for k in range(3):
            p.grad = fg.full((3,), float(k + 1))
            step()
        return p.detach()

    assert fg.allclose(run(True), run(False))
    assert not fg.allclose(run(True), fg.ones(3) - 0.1)  # more than the first step's move


def test_an_rms_norm_written_with_vector_norm_is_one_graph():
    gain = nn.Parameter(fg.ones(8))

    def rms_norm(x):
        rms = x.norm(2, dim=-1, keepdim=True) / x.size(-1) ** 0.5
        return x / rms * gain

    compiled = fg.compile(rms_norm, fullgraph=True, backend=BACKEND)
    for seed in (0, 1):
        x = fg.randn(3, 8, generator=fg.Generator().manual_seed(seed), requires_grad=True)
        got, want = compiled(x), rms_norm(x)
        assert fg.allclose(got, want, rtol=1e-6)
        (gx,) = fg.autograd.grad(got.sum(), x)
        (wx,) = fg.autograd.grad(want.sum(), x)
        assert fg.allclose(gx, wx, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("how", ["method", "wrapper"])
def test_batch_norm_statistics_update_on_every_replay(how):
    """The in-place updates of BatchNorm's running statistics and batch count are nodes of the graph: after three
    compiled training steps they are eager's, and so is the model in eval mode."""
    _, _, want = train("bn_cnn", "eager")
    _, _, got = train("bn_cnn", how)
    got = getattr(got, "_orig_mod", got)  # compile(model)'s OptimizedModule: its buffers' names gain a prefix
    x, _ = data("bn_cnn")
    close = fg.allclose if AGAINST_TORCH else fg.equal
    for name, buffer in want.named_buffers():
        assert close(dict(got.named_buffers())[name], buffer), name
    assert int(got[1].num_batches_tracked) == 3
    want.eval()
    got.eval()
    with fg.no_grad():
        assert close(got(x), want(x))


def _scale_in_place(x, y):
    x.mul_(2)  # an input written in place: every call writes it again
    y.relu_()
    return x + y


def test_in_place_writes_that_take_no_history_are_replayed():
    compiled = fg.compile(_scale_in_place, backend=BACKEND, fullgraph=True)
    for seed in (0, 1, 2):
        x, y = fg.randn(5, generator=fg.Generator().manual_seed(seed)), fg.linspace(-1, 1, 5)
        x0, y0 = x.clone(), y.clone()
        out = compiled(x, y)
        assert fg.equal(x, x0 * 2) and fg.equal(y, y0.relu()) and fg.equal(out, x0 * 2 + y0.relu())
    if not AGAINST_TORCH:
        assert len(compiled._compiled.cache) == 1


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own reasons")
def test_an_in_place_op_giving_an_argument_history_breaks_the_graph():
    """A replay could not give the caller's tensor object its new history: such a call runs eagerly."""
    w = fg.ones(3, requires_grad=True)

    def f(x):
        x.mul_(w)
        return x.sum()

    with pytest.raises(fg._dynamo.exc.Unsupported, match="an in-place op that records history on a tensor from"):
        fg.compile(f, backend=BACKEND, fullgraph=True)(fg.ones(3))


def test_a_copied_or_pickled_compiled_module_is_compiled_on_its_own_weights():
    """deepcopy and pickle of a module after `compile()`: the copy runs its own weights (compiled anew)."""
    import copy
    import pickle

    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2))
    model.compile(backend=BACKEND)
    x = fg.randn(4, 3)
    want = model(x)
    for twin in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert fg.equal(twin(x), want)
        with fg.no_grad():
            twin[0].weight.add_(1)
        assert not fg.allclose(twin(x), want) and fg.equal(model(x), want)


def test_a_module_holding_its_compiled_wrapper_is_collected():
    """A cycle through a compiled module's cache (the module holds its own `OptimizedModule`) is one the garbage
    collector follows and breaks."""
    import gc
    import weakref

    model = nn.Linear(3, 2)
    wrapper = fg.compile(model, backend=BACKEND)
    wrapper(fg.randn(2, 3))
    model.twin = wrapper
    gone = weakref.ref(model)
    del model, wrapper
    gc.collect()
    assert gone() is None
