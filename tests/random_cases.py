"""Seeded draws whose bits must be PyTorch's: recorded once with torch (tests/golden/record_random.py writes
tests/golden/random.json) and compared exactly by tests/test_random_torch.py.

Each case seeds the default generator (or a Generator object) itself, so the cases are independent of
their order. Large results are recorded as a SHA-256 of their bytes (plus a few values, to see what
differs when they do not match).
"""

import hashlib

import ferrograd as fg
import numpy as np

SIZES = (1, 2, 3, 15, 16, 17, 31, 33, 100, 1000, 1001)
COMPLEX = (fg.complex64, fg.complex128)
BIG = 100_003  # odd, past the sizes ferrograd splits across threads


def digest(t):
    """A large tensor as the hash of its bytes, its length and its first and last values."""
    a = np.ascontiguousarray(t.detach().numpy())
    flat = a.reshape(-1)
    return {"sha256": hashlib.sha256(a.tobytes()).hexdigest(), "n": int(flat.size), "ends": [flat[:3], flat[-3:]]}


def _ends(d):
    return {"sha256": d["sha256"], "n": d["n"], "head": fg.tensor(d["ends"][0]), "tail": fg.tensor(d["ends"][1])}


def _name(dtype):
    return str(dtype).rpartition(".")[2]


def _sizes(draw, dtypes=(fg.float32, fg.float64)):
    def case():
        out = {}
        for dtype in dtypes:
            for n in SIZES:
                fg.manual_seed(n)
                t = draw(n, dtype)
                out[f"{n}-{_name(dtype)}"] = t if n < 100 else _ends(digest(t))
            fg.manual_seed(7)
            out[f"big-{_name(dtype)}"] = _ends(digest(draw(BIG, dtype)))
        return out

    return case


def _interleaved():
    """Small and large normals, uniforms and integers one after another on one generator: the float64
    normal cache carries from one small call to the next, and the 16-wide fill leaves it alone."""
    fg.manual_seed(123)
    return {
        "a": fg.randn(3),
        "b": fg.randn(5, dtype=fg.float64),
        "c": fg.randn(20),
        "d": fg.rand(2),
        "e": fg.randn(1),
        "f": fg.randint(0, 10, (7,)),
        "g": fg.randn(17, dtype=fg.float64),
        "h": fg.randn(2, 3),
        "i": fg.empty(4).normal_(2.0, 0.5),
    }


def _generator_objects():
    g = fg.Generator().manual_seed(2024)
    fresh = fg.Generator()
    return {
        "rand": fg.rand(5, generator=g),
        "randn": fg.randn(18, generator=g),
        "randint": fg.randint(-5, 5, (6,), generator=g),
        "randperm": fg.randperm(9, generator=g),
        "fresh": fg.rand(4, generator=fresh),  # the default seed 67280421310721
        "seed": fresh.initial_seed(),
    }


def _state_round_trip():
    fg.manual_seed(5)
    fg.randn(3)  # a float64 normal cached
    state = fg.get_rng_state()
    a = fg.randn(3)
    fg.set_rng_state(state)
    b = fg.randn(3)
    fg.manual_seed(6)
    fg.rand(700)  # past one 624-word block
    s2 = fg.get_rng_state()
    return {
        "size": int(state.numel()),
        "state": digest(state)["sha256"],
        "state_after_block": digest(s2)["sha256"],
        "a": a,
        "same": bool((a == b).all()),
    }


def _randint_cases():
    out = {}
    for k, (low, high) in enumerate([(0, 10), (-3, 3), (0, 2**31), (0, 2**32), (-(2**40), 2**40), (5, 6)]):
        fg.manual_seed(k)
        out[f"{low}-{high}"] = fg.randint(low, high, (9,))
    fg.manual_seed(3)
    out["int32"] = fg.randint(0, 1000, (8,), dtype=fg.int32)
    fg.manual_seed(3)
    out["float"] = fg.randint(0, 1000, (8,), dtype=fg.float32)
    fg.manual_seed(4)
    out["big"] = _ends(digest(fg.randint(0, 2**33, (BIG,))))
    return out


def _randperm_cases():
    out = {}
    for n in (0, 1, 2, 5, 17, 100):
        fg.manual_seed(n)
        out[str(n)] = fg.randperm(n)
    fg.manual_seed(1)
    out["big"] = _ends(digest(fg.randperm(BIG)))
    return out


def _bernoulli_cases():
    rng = np.random.default_rng(0)
    p32 = fg.tensor(rng.random(1000).astype(np.float32))
    p64 = fg.tensor(rng.random(1000))
    out = {}
    fg.manual_seed(1)
    out["tensor32"] = _ends(digest(fg.bernoulli(p32)))
    fg.manual_seed(1)
    out["tensor64"] = _ends(digest(fg.bernoulli(p64)))
    for p in (0.0, 0.1, 0.5, 0.9, 1.0):
        fg.manual_seed(2)
        out[f"scalar-{p}"] = _ends(digest(fg.empty(1001).bernoulli_(p)))
    fg.manual_seed(2)
    out["scalar-f64"] = fg.empty(33, dtype=fg.float64).bernoulli_(0.3)
    fg.manual_seed(3)
    out["big"] = _ends(digest(fg.empty(BIG).bernoulli_(0.7)))
    return out


def _dropout_cases():
    out = {}
    x = fg.ones(1000)
    for p in (0.1, 0.3, 0.5):
        fg.manual_seed(11)
        out[f"dropout-{p}"] = _ends(digest(fg.nn.functional.dropout(x, p)))
    fg.manual_seed(12)
    out["module"] = fg.nn.Dropout(0.2)(fg.ones(4, 25))
    fg.manual_seed(13)
    out["f64"] = fg.nn.functional.dropout(fg.ones(40, dtype=fg.float64), 0.4)
    fg.manual_seed(14)
    out["big"] = _ends(digest(fg.nn.functional.dropout(fg.ones(BIG), 0.1)))
    return out


def _multinomial_cases():
    w = fg.tensor([0.1, 0.0, 0.3, 0.6, 2.0])
    w2 = fg.tensor([[1.0, 2.0, 3.0, 4.0], [4.0, 0.5, 0.0, 1.0]], dtype=fg.float64)
    out = {}
    fg.manual_seed(1)
    out["one"] = fg.multinomial(w, 1)
    fg.manual_seed(1)
    out["without"] = fg.multinomial(w, 4)
    fg.manual_seed(1)
    out["with"] = fg.multinomial(w, 20, replacement=True)
    fg.manual_seed(2)
    out["rows-without"] = fg.multinomial(w2, 3)
    fg.manual_seed(2)
    out["rows-with"] = fg.multinomial(w2, 12, replacement=True)
    return out


def _count_cases():
    """Poisson and binomial counts: rejection samplers whose rounds depend on the draws, so every value and the
    generator's position after them must be torch's (its `sample_poisson` and `sample_binomial`)."""
    out = {}
    for dtype in (fg.float32, fg.float64):
        name = _name(dtype)
        rates = fg.tensor([0.0, 1e-3, 0.5, 3.0, 9.99, 10.0, 50.0, 123.4, 1e6], dtype=dtype)
        fg.manual_seed(0)
        out[f"poisson-{name}"] = [fg.poisson(rates), fg.rand(2)]
        fg.manual_seed(1)
        out[f"poisson-many-{name}"] = _ends(digest(fg.poisson(fg.rand(3000, dtype=dtype) * 40)))
        # counts and chances at the bounds: <= 0, >= 1, NaN, an infinite or fractional count, p above 1/2
        count = fg.tensor([2.5, -1.0, 10.0, 10.0, 100.0, 100.0, 1000.0, 5.0, float("inf"), 5.0, 5.0, 3e7, 17.5, 1e9])
        prob = fg.tensor([0.5, 0.5, 1.5, -0.5, 0.3, 0.8, 0.5, float("nan"), 0.5, 0.0, 1.0, 0.3, 0.9, 1e-8])
        fg.manual_seed(0)
        out[f"binomial-{name}"] = [fg.binomial(count.to(dtype), prob.to(dtype)), fg.rand(2)]
        fg.manual_seed(3)
        n, p = (fg.rand(3000, dtype=dtype) * 200).floor(), fg.rand(3000, dtype=dtype)
        out[f"binomial-many-{name}"] = _ends(digest(fg.binomial(n, p)))
        # count and prob broadcast together: drawn in the result's order
        fg.manual_seed(4)
        counts, chances = fg.tensor([[5.0], [50.0]], dtype=dtype), fg.tensor([0.2, 0.5, 0.9], dtype=dtype)
        out[f"binomial-broadcast-{name}"] = [fg.binomial(counts, chances), fg.rand(2)]
    gen = fg.Generator().manual_seed(5)
    out["generator"] = [
        fg.poisson(fg.full((4,), 30.0), generator=gen),
        fg.binomial(fg.full((4,), 50.0), fg.full((4,), 0.4), generator=gen),
    ]
    return out


def _init_cases():
    out = {}
    fg.manual_seed(0)
    out["linear"] = [p for p in fg.nn.Linear(3, 2).parameters()]
    fg.manual_seed(0)
    out["linear-big"] = [p for p in fg.nn.Linear(40, 30).parameters()]
    fg.manual_seed(0)
    out["conv2d"] = [p for p in fg.nn.Conv2d(2, 3, 3).parameters()]
    fg.manual_seed(0)
    out["embedding"] = fg.nn.Embedding(10, 4).weight
    fg.manual_seed(0)
    out["lstm"] = [p for p in fg.nn.LSTM(3, 4).parameters()]
    fg.manual_seed(0)
    out["gru"] = [p for p in fg.nn.GRU(3, 2, num_layers=2).parameters()]
    fg.manual_seed(0)
    out["transformer-layer"] = [p for p in fg.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16).parameters()]
    init = fg.nn.init
    for name, fn in [
        ("uniform_", lambda t: init.uniform_(t, -2.0, 3.0)),
        ("normal_", lambda t: init.normal_(t, 1.0, 0.5)),
        ("xavier_uniform_", init.xavier_uniform_),
        ("xavier_normal_", init.xavier_normal_),
        ("kaiming_uniform_", init.kaiming_uniform_),
        ("kaiming_normal_", init.kaiming_normal_),
        ("trunc_normal_", lambda t: init.trunc_normal_(t, std=0.02)),
    ]:
        for shape in ((3, 4), (6, 5)):
            fg.manual_seed(1)
            out[f"{name}{shape}"] = fn(fg.empty(*shape))
    return out


def _normal_function_cases():
    out = {}
    for k, (mean, std) in enumerate(
        [(2.0, 3.0), (fg.arange(20.0), 2.0), (1.0, fg.full((5,), 0.5)), (fg.zeros(18), fg.full((18,), 0.25))]
    ):
        fg.manual_seed(k)
        out[str(k)] = fg.normal(mean, std, (20,)) if k == 0 else fg.normal(mean, std)
    return out


def _data_cases():
    data = fg.utils.data
    fg.manual_seed(0)
    loader = [int(b[0]) for (b,) in data.DataLoader(data.TensorDataset(fg.arange(20)), batch_size=1, shuffle=True)]
    fg.manual_seed(0)
    sampler = list(data.RandomSampler(range(10)))
    fg.manual_seed(1)
    with_replacement = list(data.RandomSampler(range(10), replacement=True, num_samples=40))
    split = data.random_split(range(10), [3, 7], generator=fg.Generator().manual_seed(3))
    fg.manual_seed(2)
    weighted = list(data.WeightedRandomSampler([0.1, 0.5, 2.0, 1.0], 12))
    return {
        "loader": loader,
        "sampler": sampler,
        "with_replacement": with_replacement,
        "split": [list(s.indices) for s in split],
        "weighted": weighted,
    }


CASES = {
    "rand": _sizes(lambda n, dt: fg.rand(n, dtype=dt)),
    "randn": _sizes(lambda n, dt: fg.randn(n, dtype=dt)),
    "uniform_": _sizes(lambda n, dt: fg.empty(n, dtype=dt).uniform_(-0.7, 2.3)),
    "normal_": _sizes(lambda n, dt: fg.empty(n, dtype=dt).normal_(1.5, 0.3)),
    "exponential_": _sizes(lambda n, dt: fg.empty(n, dtype=dt).exponential_(2.5)),
    "randn-2d": _sizes(lambda n, dt: fg.randn(n, 3, dtype=dt)),
    # complex draws fill the (re, im) pairs as one real tensor; normals with variance 1/2 per part
    "rand-complex": _sizes(lambda n, dt: fg.rand(n, dtype=dt), COMPLEX),
    "randn-complex": _sizes(lambda n, dt: fg.randn(n, 2, dtype=dt), COMPLEX),
    "uniform_-complex": _sizes(lambda n, dt: fg.empty(n, dtype=dt).uniform_(-0.7, 2.3), COMPLEX),
    "normal_-complex": _sizes(lambda n, dt: fg.empty(n, dtype=dt).normal_(1.5, 0.3), COMPLEX),
    "interleaved": _interleaved,
    "generator": _generator_objects,
    "state": _state_round_trip,
    "randint": _randint_cases,
    "randperm": _randperm_cases,
    "bernoulli": _bernoulli_cases,
    "dropout": _dropout_cases,
    "multinomial": _multinomial_cases,
    "counts": _count_cases,
    "init": _init_cases,
    "data": _data_cases,
    "normal": _normal_function_cases,
}
