"""The nn.utils cases that tests/golden/record_nn_utils.py runs on torch and tests/test_nn_utils_rnn.py,
tests/test_nn_utils_prune_parametrize.py run on ferrograd: each returns plain lists/numbers to compare."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.utils.prune as prune
import numpy as np
from ferrograd.nn.utils import parametrizations, rnn

# (module, args, kwargs, lengths, enforce_sorted, batch_first, with initial state)
PACKED_RNN_CASES = [
    ("RNN", (3, 4), {}, [5, 3, 3, 1], True, False, False),
    ("RNN", (3, 4), {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}, [2, 5, 1], False, True, True),
    ("GRU", (3, 4), {}, [4, 4, 2], True, False, True),
    ("GRU", (3, 4), {"num_layers": 2, "bidirectional": True, "batch_first": True}, [3, 1, 5, 5], False, True, False),
    ("LSTM", (3, 4), {}, [5, 2, 2, 1], True, False, True),
    ("LSTM", (3, 4), {"num_layers": 2, "bidirectional": True}, [1, 5, 3], False, False, True),
    ("LSTM", (3, 5), {"proj_size": 2, "bidirectional": True, "batch_first": True}, [4, 2, 4], False, True, True),
    ("LSTM", (3, 4), {"bias": False}, [3, 3, 3], True, False, False),
]


def _arr(t):
    return t.detach().double().numpy().tolist()


def _filled(module, rng):
    with fg.no_grad():
        for p in module.parameters():
            p.copy_(fg.tensor(rng.uniform(-0.6, 0.6, tuple(p.shape))))
    return module


def packed_rnn_case(i):
    """A packed batch through an RNN/LSTM/GRU (float64): output data and final states, and the gradients of a
    weighted sum of them with respect to the padded input, the initial states and every weight."""
    kind, args, kw, lengths, enforce_sorted, batch_first, with_state = PACKED_RNN_CASES[i]
    rng = np.random.default_rng(100 + i)
    module = _filled(getattr(nn, kind)(*args, **kw).double(), rng)
    steps, batch = max(lengths), len(lengths)
    shape = (batch, steps, args[0]) if batch_first else (steps, batch, args[0])
    x = fg.tensor(rng.standard_normal(shape), requires_grad=True)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    real = kw.get("proj_size") or args[1]
    leaves = [x]
    hx = None
    if with_state:
        h0 = fg.tensor(rng.standard_normal((layers, batch, real)), requires_grad=True)
        leaves.append(h0)
        hx = h0
        if kind == "LSTM":
            c0 = fg.tensor(rng.standard_normal((layers, batch, args[1])), requires_grad=True)
            leaves.append(c0)
            hx = (h0, c0)
    packed = rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    out, state = module(packed, hx)
    h_n, c_n = state if kind == "LSTM" else (state, None)
    loss = (out.data * fg.tensor(rng.standard_normal(tuple(out.data.shape)))).sum()
    loss = loss + (h_n * fg.tensor(rng.standard_normal(tuple(h_n.shape)))).sum()
    if c_n is not None:
        loss = loss + (c_n * fg.tensor(rng.standard_normal(tuple(c_n.shape)))).sum()
    params = list(module.parameters())
    grads = fg.autograd.grad(loss, leaves + params)
    padded, out_lengths = rnn.pad_packed_sequence(out, batch_first=batch_first)
    return {
        "type": type(out).__name__,
        "data": _arr(out.data),
        "batch_sizes": out.batch_sizes.tolist(),
        "padded": _arr(padded),
        "lengths": out_lengths.tolist(),
        "h_n": _arr(h_n),
        "c_n": None if c_n is None else _arr(c_n),
        "grads": [_arr(g) for g in grads],
    }


def packing_cases():
    """pack/pad/unpad results on fixed small inputs."""
    x = fg.arange(24.0).reshape(4, 3, 2)
    out = {}
    p = rnn.pack_padded_sequence(x, [4, 2, 1])
    out["sorted"] = [_arr(p.data), p.batch_sizes.tolist(), p.sorted_indices, p.unsorted_indices]
    p = rnn.pack_padded_sequence(x, fg.tensor([1, 4, 2]), enforce_sorted=False)
    out["unsorted"] = [_arr(p.data), p.batch_sizes.tolist(), p.sorted_indices.tolist(), p.unsorted_indices.tolist()]
    padded, lengths = rnn.pad_packed_sequence(p, batch_first=True, padding_value=-1.0, total_length=6)
    out["pad_back"] = [_arr(padded), lengths.tolist(), list(padded.shape)]
    p = rnn.pack_padded_sequence(x.transpose(0, 1), [2, 3, 2], batch_first=True, enforce_sorted=False)
    out["batch_first_ties"] = [_arr(p.data), p.batch_sizes.tolist(), p.sorted_indices.tolist()]
    seqs = [fg.ones(2, 2), 2 * fg.ones(3, 2), 3 * fg.ones(1, 2)]
    out["pad_sequence"] = _arr(rnn.pad_sequence(seqs))
    out["pad_sequence_left"] = _arr(rnn.pad_sequence(seqs, batch_first=True, padding_value=9, padding_side="left"))
    out["pad_sequence_int"] = rnn.pad_sequence([fg.tensor([1, 2]), fg.tensor([3.5])]).tolist()
    p = rnn.pack_sequence(seqs, enforce_sorted=False)
    out["pack_sequence"] = [_arr(p.data), p.batch_sizes.tolist(), p.sorted_indices.tolist()]
    out["unpack_sequence"] = [_arr(s) for s in rnn.unpack_sequence(p)]
    padded = rnn.pad_sequence(seqs)
    out["unpad_sequence"] = [_arr(s) for s in rnn.unpad_sequence(padded, fg.tensor([2, 3, 1]))]
    out["unpad_transposes_in_place"] = list(padded.shape)
    out["invert_permutation"] = rnn.invert_permutation(fg.tensor([2, 0, 3, 1])).tolist()
    out["repr"] = repr(rnn.PackedSequence(fg.tensor([1.0, 2.0, 3.0]), fg.tensor([2, 1])))
    return out


def packing_errors():
    """(exception type, message) of bad packing calls."""
    x = fg.ones(4, 3, 2)
    calls = [
        lambda: rnn.pack_padded_sequence(x, [4, 2]),
        lambda: rnn.pack_padded_sequence(x, [2, 4, 1]),
        lambda: rnn.pack_padded_sequence(x, [4, 2, 0]),
        lambda: rnn.pack_padded_sequence(x, [4, -2, 1], enforce_sorted=False),
        lambda: rnn.pack_padded_sequence(x, fg.tensor([[4, 2, 1]])),
        lambda: rnn.pack_padded_sequence(fg.ones(0, 3, 2), [1, 1, 1]),
        lambda: rnn.pad_packed_sequence(rnn.pack_padded_sequence(x, [4, 2, 1]), total_length=3),
        lambda: rnn.pad_sequence([]),
        lambda: rnn.pad_sequence([fg.ones(2, 3)], padding_side="middle"),
        lambda: rnn.pad_sequence([fg.ones(2, 3), fg.ones(3, 2)]),
        lambda: rnn.pack_sequence([fg.ones(2), fg.ones(3)]),
    ]
    out = []
    for call in calls:
        try:
            call()
            out.append(None)
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out


def _lenet_like():
    rng = np.random.default_rng(7)
    conv = nn.Conv2d(2, 4, 3).double()
    lin = nn.Linear(6, 5).double()
    for m in (conv, lin):
        _filled(m, rng)
    return conv, lin


def _mask_names(module):
    return [n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()]


def prune_cases():
    """Masks, pruned weights and the parameter/buffer names of each pruning function on fixed weights."""
    out = {}
    conv, lin = _lenet_like()
    prune.l1_unstructured(conv, "weight", amount=0.3)
    prune.l1_unstructured(conv, "bias", amount=2)
    out["l1"] = [_arr(conv.weight_mask), _arr(conv.bias_mask), _mask_names(conv)]
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    hook = [h for h in conv._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    out["ln_after_l1"] = [_arr(conv.weight_mask), type(hook).__name__, [type(m).__name__ for m in hook]]
    prune.ln_structured(lin, "weight", amount=2, n=1, dim=1)
    out["ln_dim1"] = _arr(lin.weight_mask)
    y = conv(fg.ones(1, 2, 4, 4, dtype=fg.float64))
    out["forward"] = _arr(y)
    prune.remove(conv, "weight")
    out["removed"] = [_mask_names(conv), _arr(conv.weight), prune.is_pruned(conv)]
    prune.remove(conv, "bias")
    out["is_pruned_after"] = prune.is_pruned(conv)
    conv, lin = _lenet_like()
    prune.global_unstructured([(conv, "weight"), (lin, "weight")], pruning_method=prune.L1Unstructured, amount=0.25)
    out["global"] = [_arr(conv.weight_mask), _arr(lin.weight_mask)]
    conv, lin = _lenet_like()
    mask = fg.tensor(np.arange(30).reshape(5, 6) % 3 != 0).double()
    prune.custom_from_mask(lin, "weight", mask)
    prune.identity(lin, "bias")
    out["custom"] = [_arr(lin.weight), _arr(lin.bias_mask)]
    fg.manual_seed(3)
    conv, lin = _lenet_like()
    prune.random_unstructured(conv, "weight", amount=0.4)
    prune.random_structured(lin, "weight", amount=2, dim=0)
    out["random"] = [_arr(conv.weight_mask), _arr(lin.weight_mask)]
    w = fg.tensor(np.linspace(-1, 1, 8).reshape(2, 4))
    out["prune_method"] = _arr(prune.L1Unstructured(amount=3).prune(w))
    return out


def prune_errors():
    calls = [
        lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5),
        lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=-1),
        lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5),
        lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount="a"),
        lambda: prune.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0),
        lambda: prune.ln_structured(nn.Linear(2, 2), "weight", amount=1, n=2, dim=2),
        lambda: prune.remove(nn.Linear(2, 2), "weight"),
        lambda: prune.global_unstructured(
            [(nn.Linear(2, 2), "weight")], pruning_method=prune.RandomStructured, amount=1
        ),
    ]
    out = []
    for call in calls:
        try:
            call()
            out.append(None)
        except Exception as e:
            out.append([type(e).__name__, str(e).replace("torch.", "ferrograd.")])
    return out


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


class Scale(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, X):
        return X / 2


class SplitSum(nn.Module):
    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return X / 4, 3 * X / 4


def parametrize_cases():
    """Names, class names, values and gradients through registered parametrizations."""
    P = nn.utils.parametrize
    out = {}
    rng = np.random.default_rng(9)
    layer = _filled(nn.Linear(3, 3).double(), rng)
    w0 = layer.weight.detach().clone()
    P.register_parametrization(layer, "weight", Skew())
    out["names"] = [type(layer).__name__, [n for n, _ in layer.named_parameters()], P.is_parametrized(layer)]
    out["repr"] = repr(layer)
    out["weight"] = _arr(layer.weight)
    out["original_is_w0"] = bool((layer.parametrizations.weight.original == w0.triu(1)).all())
    P.register_parametrization(layer, "weight", Scale())
    y = layer(fg.tensor(rng.standard_normal((2, 3))))
    y.sum().backward()
    out["chain"] = [_arr(layer.weight), _arr(layer.parametrizations.weight.original.grad)]
    target = fg.tensor(rng.standard_normal((3, 3)))
    layer.weight = target - target.T
    out["assigned_original"] = _arr(layer.parametrizations.weight.original)
    P.remove_parametrizations(layer, "weight")
    out["removed"] = [type(layer).__name__, [n for n, _ in layer.named_parameters()], _arr(layer.weight)]
    layer = _filled(nn.Linear(2, 2).double(), rng)
    P.register_parametrization(layer, "weight", SplitSum())
    out["split"] = [[n for n, _ in layer.named_parameters()], _arr(layer.parametrizations.weight.original0)]
    P.remove_parametrizations(layer, "weight")
    out["split_removed"] = [type(layer).__name__, [n for n, _ in layer.named_parameters()]]
    layer = _filled(nn.Linear(2, 2).double(), rng)
    P.register_parametrization(layer, "weight", Skew())
    P.remove_parametrizations(layer, "weight", leave_parametrized=False)
    out["left_original"] = _arr(layer.weight)
    return out


def norm_cases():
    """weight_norm / spectral_norm (both APIs): names, values, gradients; spectral_norm's u from the seed."""
    out = {}
    rng = np.random.default_rng(11)
    x = fg.tensor(rng.standard_normal((2, 4)))
    for api in ("old", "new"):
        for dim in (0, 1, None):
            layer = _filled(nn.Linear(4, 3).double(), np.random.default_rng(12))
            if api == "old":
                layer = nn.utils.weight_norm(layer, dim=dim)
            else:
                layer = parametrizations.weight_norm(layer, dim=dim)
            layer(x).sum().backward()
            names = [n for n, _ in layer.named_parameters()]
            grads = [_arr(p.grad) for _, p in layer.named_parameters()]
            out[f"weight_norm_{api}_{dim}"] = [type(layer).__name__, names, _arr(layer.weight), grads]
        layer = _filled(nn.Linear(4, 3).double(), np.random.default_rng(12))
        fg.manual_seed(5)
        if api == "old":
            layer = nn.utils.spectral_norm(layer)
        else:
            layer = parametrizations.spectral_norm(layer)
        y = layer(x)
        y2 = layer(x)
        layer.eval()
        y3 = layer(x)
        buffers = [[n, _arr(b)] for n, b in layer.named_buffers()]
        out[f"spectral_norm_{api}"] = [_arr(y), _arr(y2), _arr(y3), buffers, _arr(layer.weight)]
    conv = _filled(nn.ConvTranspose2d(2, 3, 2).double(), np.random.default_rng(13))
    fg.manual_seed(6)
    conv = nn.utils.spectral_norm(conv)
    out["spectral_norm_convT"] = [list(conv.weight_u.shape), list(conv.weight_v.shape)]
    layer = nn.utils.weight_norm(_filled(nn.Linear(4, 3).double(), np.random.default_rng(12)))
    nn.utils.remove_weight_norm(layer)
    out["weight_norm_removed"] = [[n for n, _ in layer.named_parameters()], _arr(layer.weight)]
    fg.manual_seed(5)
    layer = nn.utils.spectral_norm(_filled(nn.Linear(4, 3).double(), np.random.default_rng(12)))
    nn.utils.remove_spectral_norm(layer)
    out["spectral_norm_removed"] = [[n for n, _ in layer.named_parameters()], _arr(layer.weight)]
    out["orthogonal"] = orthogonal_cases()
    return out


def orthogonal_cases():
    """parametrizations.orthogonal over square, tall and wide weights and each map: the weight (its completion
    to a square base is seeded), gradients, and the weight after assigning an orthogonal matrix."""
    out = []
    configs = [
        ((3, 3), None, True),
        ((3, 5), None, True),
        ((5, 3), None, True),
        ((3, 5), "cayley", True),
        ((5, 3), "matrix_exp", True),
        ((3, 5), "householder", False),
        ((4, 4), "householder", False),
    ]
    for i, ((fan_in, fan_out), orth_map, trivial) in enumerate(configs):
        rng = np.random.default_rng(40 + i)
        layer = _filled(nn.Linear(fan_in, fan_out).double(), rng)
        fg.manual_seed(i)
        parametrizations.orthogonal(layer, orthogonal_map=orth_map, use_trivialization=trivial)
        w = layer.weight
        layer(fg.tensor(rng.standard_normal((2, fan_in)))).pow(2).sum().backward()
        grads = [_arr(p.grad) for _, p in layer.named_parameters()]
        names = [n for n, _ in layer.named_parameters()] + [n for n, _ in layer.named_buffers()]
        q = fg.linalg.qr(fg.tensor(rng.standard_normal((max(fan_in, fan_out), min(fan_in, fan_out)))))[0]
        layer.weight = q if fan_out >= fan_in else q.T
        out.append([names, _arr(w), grads, _arr(layer.weight)])
    return out


def fusion_cases():
    rng = np.random.default_rng(15)
    conv = _filled(nn.Conv2d(2, 3, 2).double(), rng).eval()
    bn = nn.BatchNorm2d(3).double().eval()
    with fg.no_grad():
        bn.running_mean.copy_(fg.tensor(rng.standard_normal(3)))
        bn.running_var.copy_(fg.tensor(rng.uniform(0.5, 2, 3)))
    _filled(bn, rng)
    x = fg.tensor(rng.standard_normal((1, 2, 4, 4)))
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    lin = _filled(nn.Linear(3, 4).double(), rng).eval()
    bn1 = _filled(nn.BatchNorm1d(4).double(), rng).eval()
    x1 = fg.tensor(rng.standard_normal((2, 3)))
    fused_lin = nn.utils.fuse_linear_bn_eval(lin, bn1)
    return {
        "conv": [_arr(bn(conv(x))), _arr(fused(x)), type(fused.weight).__name__],
        "linear": [_arr(bn1(lin(x1))), _arr(fused_lin(x1))],
    }


def transfer_case():
    """transfer_parametrizations_and_params: names on the target, shared originals, values."""
    P = nn.utils.parametrize
    rng = np.random.default_rng(21)
    source = _filled(nn.Linear(3, 3).double(), rng)
    P.register_parametrization(source, "weight", Skew())
    P.register_parametrization(source, "bias", Scale())
    target = _filled(nn.Linear(3, 3).double(), rng)
    P.transfer_parametrizations_and_params(source, target)
    shared = target.parametrizations.weight.original is source.parametrizations.weight.original
    split = parametrizations.weight_norm(_filled(nn.Linear(2, 2).double(), rng))
    fresh = nn.Module()
    P.transfer_parametrizations_and_params(split, fresh, "weight")
    return [
        type(target).__name__,
        [n for n, _ in target.named_parameters()],
        shared,
        _arr(target.weight),
        _arr(target.bias),
        [n for n, _ in fresh.named_parameters()],
        _arr(fresh.weight),
    ]
