"""Training through elementwise chains over 1e6 float32: the forward and the input's gradient, for minGPT's
NewGELU (written out, with `y.backward(g)`), SiLU (`x * sigmoid(x)`), `(x*x + x).exp().sum() / N`, LLaMA's
RMSNorm over rows of 1000 (its weight's gradient too), LayerNorm written out (its weight's and bias's gradients
too) and softmax written out (the row's max taken first), both over rows of 1000. Columns: ferrograd eager and
ferrograd.compile (the chain fused, one CompiledFunctionBackward node whose backward is eager's rules fused), torch
eager and torch.compile (inductor), jax.jit of the value and the gradient (`vjp`). Each framework runs in its own
process pinned to `--threads` cores; the processes alternate for `--rounds` rounds of `--reps` timed steps after a
warm-up; the medians of wall time per step are reported, with ratios against ferrograd compiled.

Run: `.venv/bin/python benches/compile_chain_grad.py` (torch from /work/torchvenv, jax from /work/jaxenv, as
`benches/compile_chain.py`). `--worker NAME THREADS REPS` is one measurement."""

import json
import os
import statistics

from compile_chain import N, arguments, data, frameworks, measure, timed

CHAINS = ("new_gelu", "silu", "expsum", "rms_norm", "layer_norm", "softmax")
ROW = 1000


def torch_like(lib, threads):
    lib.set_num_threads(threads)
    x = lib.tensor(data()).requires_grad_()
    g = lib.tensor(data()[::-1].copy())

    def new_gelu(x):
        return 0.5 * x * (1.0 + lib.tanh(0.7978845608028654 * (x + 0.044715 * lib.pow(x, 3.0))))

    def silu(x):
        return x * lib.sigmoid(x)

    def expsum(x):
        return (x * x + x).exp().sum() / N

    # LLaMA's RMSNorm over rows of 1000, with its weight (a closure's parameter, as a module's)
    w = lib.tensor(data()[:ROW] + 1.0).requires_grad_()

    def rms_norm(x):
        x = x.view(-1, ROW)
        return x * lib.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    b = lib.tensor(data()[ROW : 2 * ROW]).requires_grad_()

    def layer_norm(x):
        x = x.view(-1, ROW)
        centred = x - x.mean(-1, keepdim=True)
        return centred * lib.rsqrt((centred * centred).mean(-1, keepdim=True) + 1e-5) * w + b

    def softmax(x):
        x = x.view(-1, ROW)
        e = (x - x.amax(-1, keepdim=True)).exp()
        return e / e.sum(-1, keepdim=True)

    def step(f, grad):
        def run():
            f(x).backward(grad)
            x.grad = w.grad = b.grad = None

        return run

    fns = {}
    rows = g.view(-1, ROW)
    for name, f, grad in (
        ("new_gelu", new_gelu, g),
        ("silu", silu, g),
        ("expsum", expsum, None),
        ("rms_norm", rms_norm, rows),
        ("layer_norm", layer_norm, rows),
        ("softmax", softmax, rows),
    ):
        fns[f"eager {name}"] = step(f, grad)
        fns[f"compiled {name}"] = step(lib.compile(f), grad)
    return fns


def jax_fns():
    import jax
    import jax.numpy as jnp

    x, g = jnp.asarray(data()), jnp.asarray(data()[::-1].copy())

    def new_gelu(x):
        return 0.5 * x * (1.0 + jnp.tanh(0.7978845608028654 * (x + 0.044715 * jnp.power(x, 3.0))))

    def silu(x):
        return x * jax.nn.sigmoid(x)

    w0 = jnp.asarray(data()[:ROW] + 1.0)

    def rms_norm(x, w):
        x = x.reshape(-1, ROW)
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * w

    def forward_and_gradient(f):
        # the value too, as the other columns' steps make it (a layer's output feeds the next)
        def run(x, g):
            y, pullback = jax.vjp(f, x)
            return y, pullback(g)[0]

        return jax.jit(run)

    def rms_norm_step(x, g):
        y, pullback = jax.vjp(rms_norm, x, w0)
        return y, pullback(g.reshape(-1, ROW))

    b0 = jnp.asarray(data()[ROW : 2 * ROW])

    def layer_norm(x, w, b):
        x = x.reshape(-1, ROW)
        centred = x - jnp.mean(x, axis=-1, keepdims=True)
        return centred * jax.lax.rsqrt(jnp.mean(centred * centred, axis=-1, keepdims=True) + 1e-5) * w + b

    def layer_norm_step(x, g):
        y, pullback = jax.vjp(layer_norm, x, w0, b0)
        return y, pullback(g.reshape(-1, ROW))

    def softmax(x):
        x = x.reshape(-1, ROW)
        e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
        return e / jnp.sum(e, axis=-1, keepdims=True)

    def softmax_step(x, g):
        y, pullback = jax.vjp(softmax, x)
        return y, pullback(g.reshape(-1, ROW))

    steps = {
        "new_gelu": forward_and_gradient(new_gelu),
        "silu": forward_and_gradient(silu),
        "expsum": jax.jit(lambda x, g: jax.value_and_grad(lambda x: jnp.exp(x * x + x).sum() / N)(x)),
        "rms_norm": jax.jit(rms_norm_step),
        "layer_norm": jax.jit(layer_norm_step),
        "softmax": jax.jit(softmax_step),
    }
    return {f"jit {name}": (lambda f=f: jax.block_until_ready(f(x, g))) for name, f in steps.items()}


def worker(name, threads, reps):
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:threads]))
    fns = jax_fns() if name == "jax" else torch_like(__import__("torch" if name == "torch" else "ferrograd"), threads)
    print(json.dumps({label: timed(f, reps)[1] for label, f in fns.items()}))


def main():
    a = arguments(rounds=4, reps=40, threads="2")
    if a.worker:
        return worker(a.worker[0], int(a.worker[1]), int(a.worker[2]))
    samples = {}
    for _ in range(a.rounds):
        for name, python in frameworks(a).items():
            for label, wall in measure(__file__, name, python, int(a.threads), a.reps).items():
                samples.setdefault(f"{name} {label}", []).extend(wall)
    medians = {k: statistics.median(v) * 1e6 for k, v in samples.items()}
    columns = ["ferrograd eager", "ferrograd compiled", "torch eager", "torch compiled", "jax jit"]
    print(f"threads={a.threads}, median wall µs per step (ratio: that column ÷ ferrograd compiled)")
    print("| chain | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for chain in CHAINS:
        ref = medians[f"ferrograd compiled {chain}"]
        cells = [medians.get(f"{c} {chain}") for c in columns]
        text = [f"{v:.0f} ({v / ref:.2f}×)" if v else "n/a" for v in cells]
        print(f"| {chain} | " + " | ".join(text) + " |")


if __name__ == "__main__":
    main()
