"""Recorded cases for nn.Module and the basic layers: traversal names and order, state_dict and
load_state_dict (messages), attribute errors, hooks (order and gradients), containers, Linear / Embedding /
Flatten, dtype conversion, reprs, nn.init's deterministic parts and nn.utils.

Run by tests/golden/record_nn_modules.py with PyTorch (into nn_modules.json) and by the tests/test_nn_*.py
files with ferrograd. Weights are copied in from numpy, so both sides compute with the same numbers.
"""

import copy
from collections import OrderedDict

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
from cases_nn_functional import t64
from recorded import error


def copy_in(module, seed=0, scale=0.5):
    """Overwrites every parameter (and float buffer) with numpy draws: the same numbers for both frameworks."""
    rng = np.random.default_rng(seed)
    with fg.no_grad():
        for t in list(module.parameters()) + [b for b in module.buffers() if b.is_floating_point()]:
            t.copy_(fg.tensor(rng.standard_normal(tuple(t.shape)) * scale, dtype=t.dtype))
    return module


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.register_buffer("running", fg.zeros(4))
        self.register_buffer("scratch", fg.ones(2), persistent=False)
        self.scale = nn.Parameter(fg.ones(1))

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale + self.running


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Sequential(OrderedDict([("lin", nn.Linear(4, 2)), ("drop", nn.Dropout(0.1))]))
        self.shared = self.block.fc
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Tanh()])
        self.extra = nn.ParameterList([nn.Parameter(fg.zeros(2))])
        self.table = nn.ModuleDict({"b": nn.Identity(), "a": nn.Flatten()})
        self.register_parameter("none_param", None)
        self.register_buffer("none_buf", None)
        self.steps = fg.tensor(0)  # a plain tensor attribute: not registered

    def forward(self, x):
        h = self.head(self.block(x))
        for layer in self.layers:
            h = layer(h)
        return h + self.extra[0]


def names(pairs):
    return [n for n, _ in pairs]


def traversal():
    net = Net()
    return {
        "named_parameters": names(net.named_parameters()),
        "named_parameters_dup": names(net.named_parameters(remove_duplicate=False)),
        "named_parameters_prefix": names(net.named_parameters(prefix="model")),
        "own_parameters": names(net.named_parameters(recurse=False)),
        "n_parameters": len(list(net.parameters())),
        "named_buffers": names(net.named_buffers()),
        "named_modules": names(net.named_modules()),
        "named_modules_dup": names(net.named_modules(remove_duplicate=False)),
        "named_modules_prefix": names(net.named_modules(prefix="m")),
        "children": names(net.named_children()),
        "module_types": [type(m).__name__ for m in net.modules()],
        "state_dict": list(net.state_dict()),
        "state_dict_prefix": list(net.state_dict(prefix="p.")),
        "metadata": list(net.state_dict()._metadata),
        "repr": repr(net),
        "dir_has": [k in dir(net) for k in ("block", "running", "scale", "forward", "training", "0")],
        "submodule": type(net.get_submodule("head.lin")).__name__,
        "submodule_self": net.get_submodule("") is net,
        "submodule_missing": error(net.get_submodule, "head.nope"),
        "submodule_not_module": error(net.get_submodule, "block.scale"),
        "parameter": list(net.get_parameter("block.fc.bias").shape),
        "parameter_not_param": error(net.get_parameter, "block.running"),
        "parameter_missing": error(net.get_parameter, "block.nope"),
        "buffer": list(net.get_buffer("block.running").shape),
        "buffer_not_buffer": error(net.get_buffer, "block.scale"),
        "getattr_missing": error(getattr, net, "nope"),
        "none_param": net.none_param is None and net.none_buf is None,
    }


def state_dict_values():
    net = copy_in(Net(), seed=1)
    sd = net.state_dict()
    kept = net.state_dict(keep_vars=True)
    values = {k: v.clone() for k, v in sd.items()}
    sd["block.fc.bias"].add_(1.0)  # the entries share the parameters' storage
    return {
        "values": values,
        "requires_grad": [v.requires_grad for v in sd.values()],
        "keep_vars_types": [type(v).__name__ for v in kept.values()],
        "keep_vars_same": kept["block.fc.weight"] is net.block.fc.weight,
        "shared_bias": net.block.fc.bias,
    }


def load_state_dict():
    lin = nn.Linear(3, 2)
    good = OrderedDict(weight=t64(np.ones((2, 3))).float(), bias=fg.zeros(2))
    missing = OrderedDict(weight=fg.zeros(2, 3))
    unexpected = OrderedDict(weight=fg.zeros(2, 3), bias=fg.zeros(2), extra=fg.zeros(1))
    wrong_shape = OrderedDict(weight=fg.zeros(3, 3), bias=fg.zeros(2))
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    seq_sd = OrderedDict((k.replace("2.", "3."), v) for k, v in seq.state_dict().items())
    seq_sd["0.weight"] = fg.zeros(2, 3)
    result_ok = lin.load_state_dict(good)
    lax = lin.load_state_dict(unexpected, strict=False)
    lax_missing = nn.Linear(3, 2).load_state_dict(missing, strict=False)
    assigned = nn.Linear(3, 2)
    new_weight = fg.full((2, 3), 0.5)
    assigned.load_state_dict(OrderedDict(weight=new_weight, bias=fg.zeros(2)), assign=True)
    scalar = nn.Module()
    scalar.register_buffer("count", fg.tensor(0))
    scalar.load_state_dict({"count": fg.tensor([7])})
    return {
        "ok_repr": repr(result_ok),
        "ok_str": str(result_ok),
        "ok_fields": [result_ok.missing_keys, result_ok.unexpected_keys],
        "copied": lin.weight,
        "copied_is_param": type(lin.weight).__name__,
        "missing": error(nn.Linear(3, 2).load_state_dict, missing),
        "unexpected": error(nn.Linear(3, 2).load_state_dict, unexpected),
        "wrong_shape": error(nn.Linear(3, 2).load_state_dict, wrong_shape),
        "nested": error(copy.deepcopy(seq).load_state_dict, seq_sd),
        "not_tensor": error(nn.Linear(3, 2).load_state_dict, {"weight": [1.0], "bias": fg.zeros(2)}),
        "not_mapping": error(nn.Linear(3, 2).load_state_dict, [1, 2]),
        "lax_repr": repr(lax),
        "lax_missing_repr": repr(lax_missing),
        "assign_type": type(assigned.weight).__name__,
        "assign_requires_grad": assigned.weight.requires_grad,
        "assign_values": assigned.weight,
        "scalar_from_one_element": scalar.count,
    }


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(fg.ones(2))

    def forward(self, x):
        return x * self.w


def attribute_errors():
    m = Plain()

    def set_tensor_param():
        m.w = fg.ones(2)

    def set_module_slot():
        m2 = nn.Sequential(nn.ReLU())
        m2.__setattr__("0", 5)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(fg.ones(1))

    class EarlyModule(nn.Module):
        def __init__(self):
            self.sub = nn.ReLU()

    class EarlyBuffer(nn.Module):
        def __init__(self):
            self.register_buffer("b", fg.ones(1))

    def set_buffer_wrong():
        m3 = nn.Module()
        m3.register_buffer("b", fg.ones(1))
        m3.b = 3

    def delete_then_get():
        m4 = Plain()
        del m4.w
        return m4.w

    return {
        "tensor_as_param": error(set_tensor_param),
        "int_as_module": error(set_module_slot),
        "param_before_init": error(Early),
        "module_before_init": error(EarlyModule),
        "buffer_before_init": error(EarlyBuffer),
        "buffer_wrong_type": error(set_buffer_wrong),
        "buffer_dot": error(nn.Module().register_buffer, "a.b", fg.ones(1)),
        "buffer_empty": error(nn.Module().register_buffer, "", fg.ones(1)),
        "buffer_exists": error(m.register_buffer, "forward", fg.ones(1)),
        "buffer_not_tensor": error(nn.Module().register_buffer, "b", [1.0]),
        "buffer_name_type": error(nn.Module().register_buffer, 1, fg.ones(1)),
        "param_dot": error(nn.Module().register_parameter, "a.b", nn.Parameter(fg.ones(1))),
        "param_not_param": error(nn.Module().register_parameter, "p", fg.ones(1)),
        "param_exists": error(m.register_parameter, "training", nn.Parameter(fg.ones(1))),
        "module_not_module": error(nn.Module().add_module, "m", 3),
        "module_dot": error(nn.Module().add_module, "a.b", nn.ReLU()),
        "module_empty": error(nn.Module().add_module, "", nn.ReLU()),
        "module_name_type": error(nn.Module().add_module, 3, nn.ReLU()),
        "init_kwargs": error(nn.Module, foo=1),
        "init_args": error(nn.Module, 1),
        "no_forward": error(nn.Module(), fg.ones(1)),
        "deleted": error(delete_then_get),
        "train_mode": error(nn.Module().train, 1),
        "to_int_dtype": error(nn.Linear(2, 2).to, fg.int64),
    }


def reassignment():
    m = nn.Module()
    m.x = 5  # a plain attribute
    m.x = nn.Parameter(fg.ones(1))  # becomes a parameter (and leaves __dict__)
    steps = [["x" in m.__dict__, list(m._parameters)]]

    def module_over_parameter():
        m.x = nn.Linear(1, 1)

    replaced = error(module_over_parameter)
    del m.x
    m.x = nn.Linear(1, 1)
    steps.append([list(m._parameters), list(m._modules)])

    def buffer_over_module():
        m.x = nn.Buffer(fg.zeros(2))

    over_module = error(buffer_over_module)
    m.x = None  # a module slot may hold None
    steps.append([list(m._modules), m.x is None])
    m.b = nn.Buffer(fg.zeros(2), persistent=False)
    m.register_buffer("y", fg.ones(1))
    m.y = fg.zeros(3)  # stays a (persistent) buffer
    m.b = fg.ones(4)  # stays non-persistent
    steps.append([list(m._buffers), list(m.state_dict()), list(m.y.shape)])
    return {"steps": steps, "module_over_parameter": replaced, "buffer_over_module": over_module}


def hook_order():
    log = []
    m = Plain()
    h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre1", len(args))))
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre0", len(args))), prepend=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("prekw", sorted(kwargs))), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("fwd", out.tolist())))
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("fwdkw", sorted(kwargs))), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("fwd_first",)), prepend=True)
    m(fg.tensor([1.0, 2.0]))
    h1.remove()
    h1.remove()  # twice is fine
    m(fg.tensor([3.0, 4.0]))

    replaced = Plain()
    replaced.register_forward_pre_hook(lambda mod, args: (args[0] * 10,))
    replaced.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # a single value becomes a 1-tuple
    replaced.register_forward_hook(lambda mod, args, out: out * 2)
    kw = Plain()
    kw.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] - 1,), kwargs), with_kwargs=True)
    bad = Plain()
    bad.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)

    failing = nn.Module()
    failing_log = []
    failing.register_forward_hook(lambda mod, args, out: failing_log.append("always"), always_call=True)
    failing.register_forward_hook(lambda mod, args, out: failing_log.append("normal"))
    failing_error = error(failing, fg.ones(1))
    with fg.no_grad():
        with_handle = Plain()
        with with_handle.register_forward_hook(lambda mod, args, out: out * 0):
            inside = with_handle(fg.ones(2))
        outside = with_handle(fg.ones(2))
    return {
        "log": [list(e) if len(e) > 1 else [e[0]] for e in log],
        "replaced": replaced(fg.tensor([1.0, 2.0])),
        "kw_replaced": kw(fg.tensor([1.0, 2.0])),
        "bad_pre_hook": error(bad, fg.ones(2)),
        "always_call": failing_log,
        "failing_error": failing_error,
        "context_handle": [inside, outside],
    }


class TwoInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(t64([0.5, -1.0, 2.0]))

    def forward(self, x, y, scale=2.0):
        return x * self.w * scale + y, (x * y).sum(), 7


def backward_hooks():
    log = []
    m = TwoInputs()

    def pre(mod, grad_output):
        log.append(["pre", [None if g is None else g.tolist() for g in grad_output]])

    def full(mod, grad_input, grad_output):
        log.append(
            [
                "full",
                [None if g is None else g.tolist() for g in grad_input],
                [None if g is None else g.tolist() for g in grad_output],
            ]
        )

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(full)
    x = t64([1.0, 2.0, 3.0]).requires_grad_()
    y = t64([0.5, 0.25, -1.0])
    out, s, _ = m(x, y, scale=3.0)
    (out.sum() * 2).backward()
    first = (x.grad, m.w.grad)
    y.requires_grad_()
    x.grad = None
    out, s, _ = m(x, y)
    (out * t64([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
    s.backward()
    return {
        "log": log,
        "grads_first": list(first),
        "x_grad": x.grad,
        "y_grad": y.grad,
        "grad_fn": out.grad_fn.name(),
    }


def backward_hook_replacements():
    m = nn.Linear(3, 2).double()
    copy_in(m, seed=3)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
    x = t64([[1.0, -2.0, 0.5]]).requires_grad_()
    m(x).sum().backward()
    no_input_grad = nn.Linear(3, 2).double()
    copy_in(no_input_grad, seed=4)
    seen = []
    no_input_grad.register_full_backward_hook(lambda mod, gi, go: seen.append([gi, [g.tolist() for g in go]]))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        no_input_grad(t64([[1.0, 2.0, 3.0]])).sum().backward()
    wrong_count = nn.Linear(3, 2).double()
    wrong_count.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    wrong = error(lambda: wrong_count(t64([[1.0, 2.0, 3.0]]).requires_grad_()).sum().backward())
    return {
        "x_grad": x.grad,
        "weight_grad": m.weight.grad,
        "no_input_grad": seen,
        "wrong_count": wrong,
        "mixed": error(lambda: _mixed_hooks()),
    }


def _mixed_hooks():
    m = nn.Linear(1, 1)
    m.register_backward_hook(lambda *a: None)
    m.register_full_backward_hook(lambda *a: None)


def sequential_backward_order():
    order = []
    seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)).double()
    copy_in(seq, seed=5)
    for name, mod in seq.named_children():
        mod.register_full_backward_hook(lambda m, gi, go, name=name: order.append(name))
        mod.register_forward_hook(lambda m, a, o, name=name: order.append("f" + name))
    seq(t64([[0.5, -1.0]]).requires_grad_()).sum().backward()
    return {"order": order, "grad": seq[0].weight.grad}


def containers():
    a, b, c, d = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 3), nn.Tanh()
    seq = nn.Sequential(a, b, c)
    out = {
        "len": len(seq),
        "neg_index": type(seq[-1]).__name__,
        "slice": repr(seq[1:]),
        "slice_type": type(seq[::2]).__name__,
        "index_error": error(lambda: seq[3]),
        "neg_index_error": error(lambda: seq[-4]),
        "iter": [type(m).__name__ for m in seq],
    }
    seq.append(d)
    seq.insert(1, nn.Sigmoid())
    seq.insert(-1, nn.Identity())
    out["after_insert"] = repr(seq)
    popped = seq.pop(1)
    del seq[0]
    out["after_pop_del"] = list(seq._modules)
    out["popped"] = type(popped).__name__
    seq[0] = nn.GELU()
    out["after_set"] = repr(seq)
    del seq[1:3]
    out["after_del_slice"] = repr(seq)
    seq.extend([nn.ReLU6(), nn.SiLU()])
    out["extended"] = repr(seq)
    out["added"] = repr(nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh(), nn.Sigmoid()))
    out["times"] = repr(nn.Sequential(nn.ReLU(), nn.Tanh()) * 2)
    iadd = nn.Sequential(nn.ReLU())
    iadd += nn.Sequential(nn.Tanh())
    out["iadd"] = list(iadd._modules)
    out["add_error"] = error(lambda: nn.Sequential() + [nn.ReLU()])
    out["insert_error"] = error(nn.Sequential(nn.ReLU()).insert, 3, nn.ReLU())
    out["ordered"] = repr(nn.Sequential(OrderedDict([("conv", nn.Identity()), ("act", nn.ReLU())])))
    out["empty"] = repr(nn.Sequential())
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Linear(2, 2)])
    out["modulelist_repr"] = repr(ml)
    out["modulelist_slice"] = repr(ml[3:5])
    ml.insert(0, nn.Tanh())
    ml.append(nn.Sigmoid())
    ml.extend([nn.Identity()])
    del ml[1]
    out["modulelist_after"] = [type(m).__name__ for m in ml]
    out["modulelist_keys"] = list(ml._modules)
    out["modulelist_extend_error"] = error(ml.extend, 3)
    out["modulelist_index_error"] = error(lambda: ml[20])
    out["modulelist_empty"] = repr(nn.ModuleList())
    md = nn.ModuleDict({"z": nn.ReLU(), "a": nn.Tanh()})
    md["m"] = nn.Sigmoid()
    md.update([("b", nn.Identity())])
    out["moduledict_keys"] = list(md.keys())
    out["moduledict_repr"] = repr(md)
    out["moduledict_pop"] = type(md.pop("z")).__name__
    out["moduledict_contains"] = ["a" in md, "z" in md]
    out["moduledict_update_error"] = error(md.update, [("x", nn.ReLU(), 1)])
    out["moduledict_update_type"] = error(md.update, 5)
    pl = nn.ParameterList([nn.Parameter(fg.ones(2, 3)), fg.zeros(4)])
    pl.append(fg.ones(1, dtype=fg.float64))
    out["paramlist_repr"] = repr(pl)
    out["paramlist_types"] = [type(p).__name__ for p in pl]
    out["paramlist_names"] = names(pl.named_parameters())
    out["paramlist_call"] = error(pl, 1)
    pd = nn.ParameterDict({"b": nn.Parameter(fg.ones(2)), "a": fg.zeros(3)})
    pd["c"] = fg.ones(1)
    out["paramdict_keys"] = list(pd.keys())
    out["paramdict_repr"] = repr(pd)
    out["paramdict_names"] = names(pd.named_parameters())
    out["paramdict_key_type"] = error(nn.ParameterDict().__setitem__, 1, fg.ones(1))
    out["paramdict_pop"] = list(pd.pop("a").shape)
    out["paramdict_get"] = pd.get("nope", "default")
    out["paramdict_or"] = list((pd | nn.ParameterDict({"z": fg.ones(1)})).keys())
    return out


def linear_layers():
    rng = np.random.default_rng(7)
    lin = copy_in(nn.Linear(3, 2).double(), seed=7)
    nobias = copy_in(nn.Linear(3, 2, bias=False).double(), seed=8)
    results = {"repr": repr(lin), "repr_nobias": repr(nobias), "bias_none": nobias.bias is None}
    for name, shape in [("2d", (4, 3)), ("1d", (3,)), ("3d", (2, 4, 3))]:
        x = t64(rng.standard_normal(shape)).requires_grad_()
        for label, m in (("", lin), ("_nobias", nobias)):
            m.zero_grad()
            out = m(x)
            v = t64(rng.standard_normal(tuple(out.shape)))
            x.grad = None
            out.backward(v)
            results[f"out_{name}{label}"] = out
            results[f"x_grad_{name}{label}"] = x.grad
            results[f"w_grad_{name}{label}"] = m.weight.grad
            if m.bias is not None:
                results[f"b_grad_{name}{label}"] = m.bias.grad
    results["shape_error"] = _matmul_message(error(lin, t64(np.ones((2, 5)))))
    results["vector_error"] = _matmul_message(error(lin, t64(np.ones(5))))
    results["type_error"] = error(lin, [1.0, 2.0, 3.0])
    bil = copy_in(nn.Bilinear(3, 2, 4).double(), seed=9)
    x1, x2 = t64(rng.standard_normal((5, 3))).requires_grad_(), t64(rng.standard_normal((5, 2))).requires_grad_()
    out = bil(x1, x2)
    out.backward(t64(rng.standard_normal((5, 4))))
    results.update(
        bilinear_repr=repr(bil),
        bilinear_out=out,
        bilinear_grads=[x1.grad, x2.grad, bil.weight.grad, bil.bias.grad],
        identity=nn.Identity(3, flag=True)(t64([1.0, 2.0])),
        identity_repr=repr(nn.Identity()),
        bilinear_in_error=error(nn.Bilinear, 0, 2, 3),
    )
    return results


def _matmul_message(raised):
    """The shape phrase of a matmul error (PyTorch prefixes the op name, 'addmm: ')."""
    if raised.message:
        raised.message = raised.message[raised.message.find("mat1") :]
    return raised


def flatten_layers():
    x = t64(np.arange(24.0).reshape(2, 3, 4))
    return {
        "flatten": list(nn.Flatten()(x).shape),
        "flatten_0_1": list(nn.Flatten(0, 1)(x).shape),
        "flatten_repr": repr(nn.Flatten(0, 1)),
        "unflatten": list(nn.Unflatten(2, (2, 2))(x).shape),
        "unflatten_list": list(nn.Unflatten(-1, [1, 4])(x).shape),
        "unflatten_repr": repr(nn.Unflatten(1, (3, 1))),
        "unflatten_type": error(nn.Unflatten, 1, 3),
        "unflatten_elem": error(nn.Unflatten, 1, (3, "a")),
        "values": nn.Unflatten(1, (3, 1))(nn.Flatten()(x)[:, :3]),
    }


def embedding_layers():
    emb = nn.Embedding(6, 3, padding_idx=2).double()
    copy_in(emb, seed=10)
    with fg.no_grad():
        emb.weight[2].fill_(0)
    idx = fg.tensor([[0, 2, 5], [2, 2, 1]])
    out = emb(idx)
    out.backward(t64(np.arange(18.0).reshape(2, 3, 3)))
    freq = copy_in(nn.Embedding(5, 2, scale_grad_by_freq=True).double(), seed=11)
    freq(fg.tensor([1, 1, 3, 1])).backward(t64(np.ones((4, 2))))
    renorm = copy_in(nn.Embedding(4, 3, max_norm=0.5).double(), seed=12, scale=1.0)
    renorm_out = renorm(fg.tensor([0, 2]))
    pretrained = nn.Embedding.from_pretrained(t64(np.arange(6.0).reshape(3, 2)))
    trainable = nn.Embedding.from_pretrained(t64(np.arange(6.0).reshape(3, 2)), freeze=False, padding_idx=-1)
    return {
        "out": out,
        "weight_grad": emb.weight.grad,
        "freq_grad": freq.weight.grad,
        "renorm_out": renorm_out,
        "renorm_weight": renorm.weight,
        "pretrained": pretrained(fg.tensor([2, 0])),
        "pretrained_requires_grad": [pretrained.weight.requires_grad, trainable.weight.requires_grad],
        "pretrained_padding": trainable.padding_idx,
        "reprs": [
            repr(nn.Embedding(10, 3)),
            repr(emb),
            repr(renorm),
            repr(freq),
            repr(nn.Embedding(4, 2, padding_idx=-1, norm_type=1.0)),
        ],
        "padding_error": error(nn.Embedding, 3, 2, padding_idx=3),
        "padding_error_neg": error(nn.Embedding, 3, 2, padding_idx=-4),
        "weight_shape_error": error(nn.Embedding, 3, 2, _weight=fg.zeros(2, 2)),
        "pretrained_dim_error": error(nn.Embedding.from_pretrained, fg.zeros(3)),
        "init_padding_zero": nn.Embedding(4, 3, padding_idx=1).weight[1],
    }


class WithIntBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("count", fg.tensor(3))
        self.register_buffer("mean", fg.zeros(2))


def conversion():
    m = WithIntBuffer()
    m.lin(fg.ones(1, 2)).sum().backward()
    weight = m.lin.weight
    dtypes = {}
    m.double()
    dtypes["double"] = [m.lin.weight.dtype, m.lin.weight.grad.dtype, m.count.dtype, m.mean.dtype]
    dtypes["same_parameter"] = m.lin.weight is weight
    m.half()
    dtypes["half"] = [m.lin.weight.dtype, m.count.dtype]
    m.to(fg.float32)
    dtypes["to_dtype"] = [m.lin.weight.dtype, m.count.dtype, m.mean.dtype]
    m.to(fg.zeros(1, dtype=fg.float64))
    dtypes["to_tensor"] = [m.lin.weight.dtype, m.count.dtype]
    m.to("cpu", fg.bfloat16)
    dtypes["to_device_dtype"] = [m.lin.weight.dtype]
    m.to(device="cpu", dtype=fg.float32)
    m.float()
    dtypes["float"] = [m.lin.weight.dtype, type(m.lin.weight).__name__, m.lin.weight.requires_grad]
    m.cpu()
    m.type(fg.float64)
    dtypes["type"] = [m.lin.weight.dtype, m.count.dtype]
    return {"dtypes": dtypes}


def modes_and_grads():
    net = Net()
    states = [[m.training for m in net.modules()]]
    net.eval()
    states.append([m.training for m in net.modules()])
    net.train()
    net.block.train(False)
    states.append([m.training for m in net.modules()])
    m = nn.Linear(2, 1)
    m(fg.ones(1, 2)).sum().backward()
    m.zero_grad(set_to_none=False)
    zeroed = [m.weight.grad, m.bias.grad]
    m.zero_grad()
    none_after = [m.weight.grad is None, m.bias.grad is None]
    m.requires_grad_(False)
    frozen = [p.requires_grad for p in m.parameters()]
    applied = []
    net.apply(lambda mod: applied.append(type(mod).__name__))
    return {
        "training": states,
        "zeroed": zeroed,
        "none_after": none_after,
        "frozen": frozen,
        "apply_order": applied,
        "train_returns_self": net.train() is net and net.eval() is net,
    }


def parameters():
    p = nn.Parameter(t64([1.0, 2.0]))
    empty = nn.Parameter()
    frozen = nn.Parameter(fg.ones(2, 2), requires_grad=False)
    buf = nn.Buffer(fg.ones(2))
    return {
        "repr": repr(p),
        "str": str(p),
        "repr_frozen": repr(frozen),
        "repr_empty": repr(empty),
        "is_tensor": isinstance(p, fg.Tensor),
        "op_types": [type(p * 2).__name__, type(p[0]).__name__, type(p.detach()).__name__, type(p.data).__name__],
        "requires_grad": [p.requires_grad, frozen.requires_grad, empty.requires_grad],
        "is_leaf": p.is_leaf,
        "buffer_repr": repr(buf),
        "buffer_persistent": [buf.persistent, nn.Buffer(fg.ones(1), persistent=False).persistent],
        "inplace_type": type(p.data.add_(1)).__name__,
        "shared": p,  # the add_ on .data changed p
    }


def init_deterministic():
    eye = fg.zeros(3, 5)
    nn.init.eye_(eye)
    dirac = fg.zeros(4, 2, 3)
    nn.init.dirac_(dirac)
    dirac_groups = fg.zeros(6, 3, 3, 3)
    nn.init.dirac_(dirac_groups, groups=2)
    const = fg.zeros(2, 2)
    nn.init.constant_(const, 0.3)
    gains = [
        nn.init.calculate_gain(n)
        for n in ("linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu", "conv_transpose3d")
    ]
    results = {
        "eye": eye.clone(),
        "dirac": dirac.clone(),
        "dirac_groups": dirac_groups.sum((2, 3)),
        "dirac_centre": dirac_groups[:, :, 1, 1],
        "constant": const.clone(),
        "ones": nn.init.ones_(fg.zeros(2)),
        "zeros": nn.init.zeros_(fg.ones(2)),
        "gains": gains,
        "leaky_gain": [nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("leaky_relu", 1)],
        "gain_errors": [
            error(nn.init.calculate_gain, "softmax"),
            error(nn.init.calculate_gain, "leaky_relu", "x"),
            error(nn.init.calculate_gain, "leaky_relu", True),
        ],
        "fan_error": error(nn.init.xavier_uniform_, fg.zeros(3)),
        "kaiming_fan_error": error(nn.init.kaiming_normal_, fg.zeros(3)),
        "mode_error": error(nn.init.kaiming_uniform_, fg.zeros(3, 3), mode="fan_avg"),
        "eye_error": error(nn.init.eye_, fg.zeros(2, 2, 2)),
        "dirac_error": error(nn.init.dirac_, fg.zeros(2, 2)),
        "dirac_groups_error": error(nn.init.dirac_, fg.zeros(3, 2, 3), groups=2),
        "orthogonal_error": error(nn.init.orthogonal_, fg.zeros(3)),
        "sparse_error": error(nn.init.sparse_, fg.zeros(3, 3, 3), 0.5),
        "requires_grad_kept": nn.init.uniform_(nn.Parameter(fg.zeros(2))).requires_grad,
    }
    results["returns_same"] = [nn.init.normal_(const) is const, nn.init.kaiming_uniform_(dirac) is dirac]
    return results


def clip_grads():
    def params(values):
        ps = [nn.Parameter(t64(np.zeros_like(v))) for v in values]
        for p, v in zip(ps, values):
            p.grad = t64(v)
        return ps

    grads = [np.array([3.0, -4.0]), np.array([[1.0, 2.0], [-2.0, 0.5]]), np.array([12.0])]
    out = {}
    for norm_type in (2.0, 1.0, float("inf"), 0.5, 3):
        ps = params(grads)
        total = nn.utils.clip_grad_norm_(ps, max_norm=5.0, norm_type=norm_type)
        out[f"total_{norm_type}"] = total
        out[f"grads_{norm_type}"] = [p.grad for p in ps]
    ps = params(grads)
    out["below_max"] = [nn.utils.clip_grad_norm_(ps, 100.0), [p.grad for p in ps]]
    with_none = params(grads) + [nn.Parameter(t64([1.0]))]
    out["with_none_grad"] = nn.utils.clip_grad_norm_(with_none, 1.0)
    single = params(grads[:1])[0]
    out["single_tensor"] = [nn.utils.clip_grad_norm_(single, 1.0), single.grad]
    out["empty"] = nn.utils.clip_grad_norm_([], 1.0)
    nan = params([np.array([1.0, float("nan")])])
    out["nonfinite_error"] = error(nn.utils.clip_grad_norm_, nan, 1.0, error_if_nonfinite=True)
    inf = params([np.array([1.0, float("inf")])])
    out["nonfinite_ok"] = [nn.utils.clip_grad_norm_(inf, 1.0), inf[0].grad]
    ps = params(grads)
    nn.utils.clip_grad_value_(ps, 1.5)
    out["clip_value"] = [p.grad for p in ps]
    vec_params = [nn.Parameter(t64(np.arange(6.0).reshape(2, 3))), nn.Parameter(t64([7.0, 8.0]))]
    vec = nn.utils.parameters_to_vector(vec_params)
    nn.utils.vector_to_parameters(t64(np.arange(8.0) * -1), vec_params)
    out["to_vector"] = vec
    out["from_vector"] = [p.data for p in vec_params]
    out["from_vector_types"] = [type(p).__name__ for p in vec_params]
    out["vector_type_error"] = error(nn.utils.vector_to_parameters, [1.0], vec_params)
    return out


def gradient_flow():
    """A small model end to end: forward, loss, backward, a manual SGD step, as the tutorials do."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1), nn.Flatten(0, 1)).double()
    copy_in(model, seed=13)
    x = t64(np.linspace(-1, 1, 15).reshape(5, 3))
    y = t64(np.sin(np.arange(5.0)))
    loss_fn = nn.MSELoss(reduction="sum")
    losses = []
    for _ in range(3):
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with fg.no_grad():
            for p in model.parameters():
                p -= 0.05 * p.grad
    return {"losses": losses, "final": model.state_dict()}


CASES = {
    "traversal": traversal,
    "state_dict_values": state_dict_values,
    "load_state_dict": load_state_dict,
    "attribute_errors": attribute_errors,
    "reassignment": reassignment,
    "hook_order": hook_order,
    "backward_hooks": backward_hooks,
    "backward_hook_replacements": backward_hook_replacements,
    "sequential_backward_order": sequential_backward_order,
    "containers": containers,
    "linear_layers": linear_layers,
    "flatten_layers": flatten_layers,
    "embedding_layers": embedding_layers,
    "conversion": conversion,
    "modes_and_grads": modes_and_grads,
    "parameters": parameters,
    "init_deterministic": init_deterministic,
    "clip_grads": clip_grads,
    "gradient_flow": gradient_flow,
}
