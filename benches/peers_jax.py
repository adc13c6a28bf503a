"""Hand-written JAX (jax.numpy + optax) versions of benches/workloads.py's T1-T7 cells and the expsum chain,
for benches/peers.py's JAX column. Each builder returns (step, init check, seconds spent building) like the
workloads builders: the weights come from workloads.init_arrays (same names, shapes and seeds as the torch
models' named_parameters, so the same numbers), the data from the same numpy generators, and one step is one
`jax.jit` over forward, loss, backward and the optax update (buffers donated, so the update is in place like
the eager frameworks'). The step returns the loss (or the output) after blocking until it is ready.

Dropout (T3's TransformerEncoderLayer has p = 0.1 in four places per layer) uses jax.random with a key folded
with the step count: the masks differ from torch's and ferrograd's, so T3's loss after 5 steps is not
comparable across frameworks (peers.py compares its eval-mode loss at the start only).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
from workloads import init_arrays

# ---------------------------------------------------------------------------------------------------------
# Pieces
# ---------------------------------------------------------------------------------------------------------


def linear(p, name, x):
    return x @ p[name + ".weight"].T + p[name + ".bias"]


def layer_norm(p, name, x, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * p[name + ".weight"] + p[name + ".bias"]


def cross_entropy(logits, y):
    return (jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, y[:, None], -1)[:, 0]).mean()


def dropout(key, x, rate, train):
    if not train:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def params_of(named_shapes, seed):
    return {name: jnp.asarray(a) for (name, _), a in zip(named_shapes, init_arrays(named_shapes, seed))}


def trainer(loss_fn, params, opt, batch, uses_key=False):
    """One jitted step over forward, backward and the update; returns (step, eval-mode loss at the start)."""

    def update(params, state, step_no, *batch):
        key = jax.random.fold_in(jax.random.PRNGKey(0), step_no)
        loss, grads = jax.value_and_grad(lambda q: loss_fn(q, *batch, key=key, train=True))(params)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    jstep = jax.jit(update, donate_argnums=(0, 1))
    eval_loss = float(jax.jit(lambda q, *b: loss_fn(q, *b, key=None, train=False))(params, *batch))
    box = {"params": params, "state": opt.init(params), "n": 0}

    def step():
        box["params"], box["state"], loss = jstep(box["params"], box["state"], box["n"], *batch)
        box["n"] += 1
        jax.block_until_ready((loss, box["params"]))
        return loss

    return step, eval_loss


# ---------------------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------------------


def lenet():
    shapes = [("0.weight", (6, 1, 5, 5)), ("0.bias", (6,)), ("3.weight", (16, 6, 5, 5)), ("3.bias", (16,))]
    shapes += [("7.weight", (120, 400)), ("7.bias", (120,)), ("9.weight", (84, 120)), ("9.bias", (84,))]
    shapes += [("11.weight", (10, 84)), ("11.bias", (10,))]
    params = params_of(shapes, 1)
    r = np.random.default_rng(11)
    x = jnp.asarray(r.standard_normal((64, 1, 32, 32)).astype(np.float32))
    y = jnp.asarray(r.integers(0, 10, 64).astype(np.int32))

    def conv_relu_pool(p, name, h):
        h = jax.lax.conv_general_dilated(
            h, p[name + ".weight"], (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW")
        )
        h = jax.nn.relu(h + p[name + ".bias"][None, :, None, None])
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(p, x, y, key, train):
        h = conv_relu_pool(p, "3", conv_relu_pool(p, "0", x)).reshape(x.shape[0], -1)
        h = jax.nn.relu(linear(p, "9", jax.nn.relu(linear(p, "7", h))))
        return cross_entropy(linear(p, "11", h), y)

    return trainer(loss_fn, params, optax.sgd(0.01, momentum=0.9), (x, y))


MLP_T2 = [("0.weight", (512, 784)), ("0.bias", (512,)), ("2.weight", (512, 512)), ("2.bias", (512,))]
MLP_T2 += [("4.weight", (10, 512)), ("4.bias", (10,))]


def mlp(p, x):
    return linear(p, "4", jax.nn.relu(linear(p, "2", jax.nn.relu(linear(p, "0", x)))))


def mlp_adam():
    params = params_of(MLP_T2, 2)
    r = np.random.default_rng(12)
    x = jnp.asarray(r.standard_normal((128, 784)).astype(np.float32))
    y = jnp.asarray(r.integers(0, 10, 128).astype(np.int32))
    return trainer(lambda p, x, y, key, train: cross_entropy(mlp(p, x), y), params, optax.adam(1e-3), (x, y))


def transformer():
    d, heads, ff = 128, 4, 512
    shapes = []
    for i in range(2):
        n = f"layers.{i}."
        shapes += [(n + "self_attn.in_proj_weight", (3 * d, d)), (n + "self_attn.in_proj_bias", (3 * d,))]
        shapes += [(n + "self_attn.out_proj.weight", (d, d)), (n + "self_attn.out_proj.bias", (d,))]
        shapes += [(n + "linear1.weight", (ff, d)), (n + "linear1.bias", (ff,))]
        shapes += [(n + "linear2.weight", (d, ff)), (n + "linear2.bias", (d,))]
        shapes += [
            (n + "norm1.weight", (d,)),
            (n + "norm1.bias", (d,)),
            (n + "norm2.weight", (d,)),
            (n + "norm2.bias", (d,)),
        ]
    params = params_of(shapes, 3)
    r = np.random.default_rng(13)
    x = jnp.asarray(r.standard_normal((16, 64, d)).astype(np.float32))
    target = jnp.asarray(r.standard_normal((16, 64, d)).astype(np.float32))

    def encoder_layer(p, n, x, keys, train):
        b, t, _ = x.shape
        qkv = x @ p[n + "self_attn.in_proj_weight"].T + p[n + "self_attn.in_proj_bias"]
        q, k, v = (z.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3) for z in jnp.split(qkv, 3, -1))
        weights = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(d // heads), -1)
        a = (dropout(keys[0], weights, 0.1, train) @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
        x = layer_norm(p, n + "norm1", x + dropout(keys[1], linear(p, n + "self_attn.out_proj", a), 0.1, train))
        h = dropout(keys[2], jax.nn.relu(linear(p, n + "linear1", x)), 0.1, train)
        return layer_norm(p, n + "norm2", x + dropout(keys[3], linear(p, n + "linear2", h), 0.1, train))

    def loss_fn(p, x, target, key, train):
        keys = jax.random.split(key, 8) if train else [None] * 8
        for i in range(2):
            x = encoder_layer(p, f"layers.{i}.", x, keys[4 * i : 4 * i + 4], train)
        return ((x - target) ** 2).mean()

    return trainer(loss_fn, params, optax.adamw(1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01), (x, target))


def lstm():
    hidden = 128
    shapes = [("lstm.weight_ih_l0", (4 * hidden, 64)), ("lstm.weight_hh_l0", (4 * hidden, hidden))]
    shapes += [("lstm.bias_ih_l0", (4 * hidden,)), ("lstm.bias_hh_l0", (4 * hidden,))]
    shapes += [("head.weight", (10, hidden)), ("head.bias", (10,))]
    params = params_of(shapes, 4)
    r = np.random.default_rng(14)
    x = jnp.asarray(r.standard_normal((35, 32, 64)).astype(np.float32))
    y = jnp.asarray(r.integers(0, 10, 32).astype(np.int32))

    def loss_fn(p, x, y, key, train):
        gates_x = x @ p["lstm.weight_ih_l0"].T + p["lstm.bias_ih_l0"] + p["lstm.bias_hh_l0"]

        def cell(carry, gx):
            h, c = carry
            i, f, g, o = jnp.split(gx + h @ p["lstm.weight_hh_l0"].T, 4, -1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), None

        zeros = jnp.zeros((x.shape[1], hidden), x.dtype)
        (h, _), _ = jax.lax.scan(cell, (zeros, zeros), gates_x)
        return cross_entropy(linear(p, "head", h), y)

    return trainer(loss_fn, params, optax.sgd(0.1), (x, y))


def mlp_inference():
    shapes = [("0.weight", (128, 64)), ("0.bias", (128,)), ("2.weight", (128, 128)), ("2.bias", (128,))]
    shapes += [("4.weight", (10, 128)), ("4.bias", (10,))]
    params = params_of(shapes, 5)
    x = jnp.asarray(np.random.default_rng(15).standard_normal((1, 64)).astype(np.float32))
    forward = jax.jit(mlp)

    def step():
        return forward(params, x).block_until_ready()

    return step, float(step().sum())


def adam_alone():
    params = params_of(MLP_T2, 2)
    r = np.random.default_rng(16)
    grads = {name: jnp.asarray(r.standard_normal(shape).astype(np.float32)) for name, shape in MLP_T2}
    opt = optax.adam(1e-3)

    def update(params, state):
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    jstep = jax.jit(update, donate_argnums=(0, 1))
    box = {"params": params, "state": opt.init(params)}
    first = np.asarray(params["0.weight"]).copy()

    def step():
        box["params"], box["state"] = jstep(box["params"], box["state"])
        jax.block_until_ready(box["params"])

    step()
    return step, float(np.abs(np.asarray(box["params"]["0.weight"]) - first).sum())


def char_gpt():
    vocab, dim, heads, ctx, batch = 65, 64, 4, 32, 8
    shapes = [("tok.weight", (vocab, dim)), ("pos.weight", (ctx, dim))]
    for i in range(2):
        n = f"blocks.{i}."
        shapes += [(n + "ln1.weight", (dim,)), (n + "ln1.bias", (dim,))]
        shapes += [(n + "qkv.weight", (3 * dim, dim)), (n + "qkv.bias", (3 * dim,))]
        shapes += [(n + "proj.weight", (dim, dim)), (n + "proj.bias", (dim,))]
        shapes += [(n + "ln2.weight", (dim,)), (n + "ln2.bias", (dim,))]
        shapes += [(n + "fc.weight", (4 * dim, dim)), (n + "fc.bias", (4 * dim,))]
        shapes += [(n + "out.weight", (dim, 4 * dim)), (n + "out.bias", (dim,))]
    shapes += [("ln_f.weight", (dim,)), ("ln_f.bias", (dim,)), ("head.weight", (vocab, dim)), ("head.bias", (vocab,))]
    params = params_of(shapes, 7)
    r = np.random.default_rng(17)
    idx = jnp.asarray(r.integers(0, vocab, (batch, ctx)).astype(np.int32))
    targets = jnp.asarray(r.integers(0, vocab, (batch * ctx,)).astype(np.int32))
    causal = jnp.tril(jnp.ones((ctx, ctx), bool))

    def block(p, n, x):
        b, t, c = x.shape
        q, k, v = jnp.split(linear(p, n + "qkv", layer_norm(p, n + "ln1", x)), 3, -1)
        q, k, v = (z.reshape(b, t, heads, c // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
        scores = jnp.where(causal, q @ k.transpose(0, 1, 3, 2) / math.sqrt(c // heads), -jnp.inf)
        a = (jax.nn.softmax(scores, -1) @ v).transpose(0, 2, 1, 3).reshape(b, t, c)
        x = x + linear(p, n + "proj", a)
        return x + linear(
            p, n + "out", jax.nn.gelu(linear(p, n + "fc", layer_norm(p, n + "ln2", x)), approximate=False)
        )

    def loss_fn(p, idx, targets, key, train):
        x = p["tok.weight"][idx] + p["pos.weight"][jnp.arange(ctx)]
        for i in range(2):
            x = block(p, f"blocks.{i}.", x)
        logits = linear(p, "head", layer_norm(p, "ln_f", x))
        return cross_entropy(logits.reshape(batch * ctx, vocab), targets)

    return trainer(loss_fn, params, optax.adamw(1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01), (idx, targets))


def expsum():
    x = jnp.asarray(np.random.default_rng(40).uniform(-1, 1, 10**6).astype(np.float32))
    f = jax.jit(lambda x: jnp.exp(x * x + x).sum())

    def step():
        return f(x).block_until_ready()

    return step, float(step())


BUILDERS = {
    "T1": lenet,
    "T2": mlp_adam,
    "T3": transformer,
    "T4": lstm,
    "T5": mlp_inference,
    "T6": adam_alone,
    "T6f": adam_alone,
    "T7": char_gpt,
    "expsum": expsum,
}
