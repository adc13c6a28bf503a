"""Records torch's recurrent layers for tests/test_nn_rnn.py; run with torch's Python:
`/work/torchenv/bin/python tests/golden/record_rnn.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import layer_cases as lc
import numpy as np


def cases():
    rng = np.random.default_rng(23)
    out = []
    T, B = 5, 2  # time steps, batch
    seq = [
        ("RNN", (3, 4), {}, None),
        ("RNN", (3, 4), {"nonlinearity": "relu", "num_layers": 2}, None),
        ("RNN", (3, 4, 2), {"bidirectional": True, "batch_first": True}, "h"),
        ("RNN", (3, 4), {"bias": False}, "h"),
        ("LSTM", (3, 4), {}, None),
        ("LSTM", (3, 4), {"num_layers": 2, "bidirectional": True, "batch_first": True}, "hc"),
        ("LSTM", (3, 5), {"proj_size": 2}, "hc"),
        ("LSTM", (3, 5), {"proj_size": 3, "num_layers": 2, "bidirectional": True}, None),
        ("LSTM", (3, 4), {"bias": False, "num_layers": 3}, "hc"),
        ("LSTM", (3, 4), {"num_layers": 2, "dropout": 0.5}, None),  # eval below: no dropout
        ("GRU", (3, 4), {}, None),
        ("GRU", (3, 4), {"num_layers": 2, "bidirectional": True}, "h"),
        ("GRU", (3, 4), {"batch_first": True, "bias": False}, "h"),
    ]
    for i, (target, args, kw, state) in enumerate(seq):
        layers = (args[2] if len(args) > 2 else kw.get("num_layers", 1)) * (2 if kw.get("bidirectional") else 1)
        real = kw.get("proj_size") or args[1]
        x = lc.randn(rng, B, T, 3) if kw.get("batch_first") else lc.randn(rng, T, B, 3)
        inputs = [x]
        if state == "h":
            inputs.append(lc.randn(rng, layers, B, real))
        elif state == "hc":
            inputs.append((lc.randn(rng, layers, B, real), lc.randn(rng, layers, B, args[1])))
        train = "dropout" not in kw
        out.append(lc.module_case(f"{target}-{i}", target, args, kw, seed=i, steps=[lc.step(*inputs, train=train)]))
    # unbatched (L, H_in) input, with and without a state
    out.append(lc.module_case("LSTM-unbatched", "LSTM", (3, 4), {}, seed=30, steps=[lc.step(lc.randn(rng, T, 3))]))
    out.append(
        lc.module_case(
            "LSTM-unbatched-state",
            "LSTM",
            (3, 4),
            {"num_layers": 2},
            seed=31,
            steps=[lc.step(lc.randn(rng, T, 3), (lc.randn(rng, 2, 4), lc.randn(rng, 2, 4)))],
        )
    )
    out.append(
        lc.module_case(
            "GRU-unbatched",
            "GRU",
            (3, 4),
            {"batch_first": True},
            seed=32,
            steps=[lc.step(lc.randn(rng, T, 3), lc.randn(rng, 1, 4))],
        )
    )
    out.append(
        lc.module_case(
            "RNN-unbatched", "RNN", (3, 4), {"bidirectional": True}, seed=33, steps=[lc.step(lc.randn(rng, T, 3))]
        )
    )
    # two steps: the state carried from one call to the next, gradients accumulated
    out.append(
        lc.module_case(
            "LSTM-two-calls",
            "LSTM",
            (3, 4),
            {},
            seed=34,
            steps=[lc.step(lc.randn(rng, T, B, 3)), lc.step(lc.randn(rng, 2, B, 3))],
        )
    )
    cells = [
        ("RNNCell", (3, 4), {}, "h"),
        ("RNNCell", (3, 4), {"nonlinearity": "relu", "bias": False}, None),
        ("LSTMCell", (3, 4), {}, "hc"),
        ("LSTMCell", (3, 4), {"bias": False}, None),
        ("GRUCell", (3, 4), {}, "h"),
        ("GRUCell", (3, 4), {"bias": False}, None),
    ]
    for i, (target, args, kw, state) in enumerate(cells):
        for batched in (True, False):
            lead = (B,) if batched else ()
            inputs = [lc.randn(rng, *lead, 3)]
            if state == "h":
                inputs.append(lc.randn(rng, *lead, 4))
            elif state == "hc":
                inputs.append((lc.randn(rng, *lead, 4), lc.randn(rng, *lead, 4)))
            name = f"{target}-{i}" + ("" if batched else "-unbatched")
            out.append(lc.module_case(name, target, args, kw, seed=40 + i, steps=[lc.step(*inputs)]))
    out.append(
        lc.module_case(
            "LSTM-float32",
            "LSTM",
            (3, 4),
            {"num_layers": 2},
            dtype="float32",
            seed=50,
            steps=[lc.step(lc.randn(rng, T, B, 3, dtype="float32"))],
        )
    )
    return out


if __name__ == "__main__":
    lc.record("rnn", cases())
