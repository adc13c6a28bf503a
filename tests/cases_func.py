"""Cases of torch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, linearize, functional_call,
stack_module_state) and torch.autograd.forward_ad, evaluated by PyTorch into tests/golden/func.json
(tests/golden/record_func.py) and compared with ferrograd by tests/test_func.py."""

import functools

import ferrograd as fg
import ferrograd.autograd.forward_ad as fwAD
import ferrograd.func as ff
import ferrograd.nn as nn
import numpy as np
from recorded import error

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _t(*shape, seed=0, lo=-1.0, hi=1.0):
    rng = np.random.default_rng(seed)
    return fg.tensor(rng.uniform(lo, hi, shape))


def _scalar_fn(x):
    return (x.sin() * x).sum()


def _two_args(x, y):
    return (x * y.exp()).sum() + (x**2).sum()


def _matrix_fn(w, b, x):
    return fg.nn.functional.linear(x, w, b).tanh()


@case
def grad_values():
    x, y = _t(3, 2), _t(3, 2, seed=1)
    g_and_v = ff.grad_and_value(_two_args, argnums=(0, 1))(x, y)
    g_aux, aux = ff.grad(lambda a: (_scalar_fn(a), {"double": a * 2}), has_aux=True)(x)
    return {
        "grad": ff.grad(_scalar_fn)(x),
        "grad_argnum1": ff.grad(_two_args, argnums=1)(x, y),
        "grad_argnum_neg": ff.grad(_two_args, argnums=-1)(x, y),
        "grad_and_value": [list(g_and_v[0]), g_and_v[1]],
        "aux_grad": g_aux,
        "aux": aux,
        "requires_grad": ff.grad(_scalar_fn)(x).requires_grad,
        "dict_input": ff.grad(lambda p: (p["a"] * p["b"]).sum())({"a": x, "b": y}),
        "zero_dim": ff.grad(lambda a: a**3)(fg.tensor(2.0, dtype=fg.float64)),
        "unused": ff.grad(_two_args, argnums=(0, 1))(x, y * 0)[1],
    }


@case
def grad_errors():
    x = _t(3)
    return {
        "non_scalar": error(ff.grad(lambda a: a * 2), x),
        "not_tensor": error(ff.grad(lambda a: 1.0), x),
        "bad_aux": error(ff.grad(lambda a: a.sum(), has_aux=True), x),
        "argnum_range": error(ff.grad(_two_args, argnums=2), x, x),
        "argnums_empty": error(ff.grad(_two_args, argnums=()), x, x),
        "argnums_repeat": error(ff.grad(_two_args, argnums=(0, 0)), x, x),
        "argnums_type": error(ff.grad(_two_args, argnums=[0]), x, x),
        "argnum_float": error(ff.grad(_two_args, argnums=(0, 1.0)), x, x),
        "non_tensor_arg": error(ff.grad(lambda a: fg.ones(1).sum()), 3.0),
    }


@case
def higher_order():
    x = _t(4, seed=2)
    s = fg.tensor(0.7, dtype=fg.float64)
    cube_sin = lambda a: a**3 * a.sin()
    return {
        "grad_of_grad": ff.grad(ff.grad(cube_sin))(s),
        "grad3": ff.grad(ff.grad(ff.grad(cube_sin)))(s),
        "jacrev_jacrev": ff.jacrev(ff.jacrev(lambda a: a.sin() * a.sum()))(x),
        "jacfwd_jacrev": ff.jacfwd(ff.jacrev(lambda a: a.sin() * a.sum()))(x),
        "hessian": ff.hessian(_scalar_fn)(x),
        "hessian_argnums": ff.hessian(_two_args, argnums=1)(x, _t(4, seed=3)),
        "vmap_grad": ff.vmap(ff.grad(_scalar_fn))(_t(3, 4)),
        "jvp_of_grad": ff.jvp(ff.grad(_scalar_fn), (x,), (_t(4, seed=4),))[1],
        "vjp_of_grad": ff.vjp(ff.grad(_scalar_fn), x)[1](_t(4, seed=4))[0],
        "grad_of_vmap": ff.grad(lambda a: ff.vmap(fg.sin)(a).sum())(x),
    }


@case
def vjp_values():
    x, y = _t(3, seed=5), _t(3, seed=6)
    out, fn = ff.vjp(lambda a, b: (a * b, a.exp()), x, y)
    out_aux, fn_aux, aux = ff.vjp(lambda a: (a.sin(), a.cos()), x, has_aux=True)
    out2, fn2 = ff.vjp(lambda a: a * 2, x)
    return {
        "out": list(out),
        "grads": list(fn((_t(3, seed=7), _t(3, seed=8)))),
        "again": list(fn((fg.ones(3, dtype=fg.float64), fg.zeros(3, dtype=fg.float64)))),
        "aux_out": out_aux,
        "aux_grads": list(fn_aux(fg.ones(3, dtype=fg.float64))),
        "aux": aux,
        "structure_error": error(fn2, (fg.ones(3, dtype=fg.float64),)),
        "int_output": error(ff.vjp, lambda a: a.long(), x),
        "bad_aux": error(ff.vjp, lambda a: a, x, has_aux=True),
    }


@case
def jvp_values():
    x, y = _t(3, 2, seed=9), _t(3, 2, seed=10)
    v, w = _t(3, 2, seed=11), _t(3, 2, seed=12)
    out, tan = ff.jvp(lambda a, b: a**2 + b.sin() * a, (x, y), (v, w))
    o2, t2, aux = ff.jvp(lambda a: (a.exp(), a * 3), (x,), (v,), has_aux=True)
    return {
        "out": out,
        "tangent": tan,
        "partial": ff.jvp(functools.partial(_two_args, y=y), (x,), (v,))[1],
        "aux": [o2, t2, aux],
        "multi_out": list(ff.jvp(lambda a: (a.sum(), a.cumsum(0)), (x,), (v,))[1]),
        "constant_out": ff.jvp(lambda a: fg.ones(2, dtype=fg.float64), (x,), (v,))[1],
        "not_tuple": error(ff.jvp, fg.sin, x, v),
        "structure": error(ff.jvp, _two_args, (x, y), (v,)),
        "shape": error(ff.jvp, fg.sin, (x,), (fg.ones(2, dtype=fg.float64),)),
        "strict": error(ff.jvp, lambda a: fg.ones(2), (x,), (v,), strict=True),
    }


@case
def jacobians():
    w, b, x = _t(5, 4, seed=13), _t(5, seed=14), _t(4, seed=15)
    jw, jb = ff.jacrev(_matrix_fn, argnums=(0, 1))(w, b, x)
    fw, fb = ff.jacfwd(_matrix_fn, argnums=(0, 1))(w, b, x)
    jac_aux, aux = ff.jacrev(lambda a: (a.sin(), a.cos()), has_aux=True)(x)
    return {
        "jacrev_x": ff.jacrev(_matrix_fn, argnums=2)(w, b, x),
        "jacfwd_x": ff.jacfwd(_matrix_fn, argnums=2)(w, b, x),
        "jacrev_wb": [jw, jb],
        "jacfwd_wb": [fw, fb],
        "multi_output": list(ff.jacrev(lambda a: (a.sum(), a.outer(a)))(x)),
        "dict_input": ff.jacrev(lambda p: p["w"] @ p["x"])({"w": w, "x": x}),
        "aux": [jac_aux, aux],
        "scalar": ff.jacfwd(lambda a: (a**2).sum())(x),
        "batch_jacobian": ff.vmap(ff.jacrev(_matrix_fn, argnums=2), in_dims=(None, None, 0))(w, b, _t(3, 4)),
        "batch_hessian": ff.vmap(ff.hessian(_matrix_fn, argnums=2), in_dims=(None, None, 0))(w, b, _t(2, 4)),
        "chunk_error": error(ff.jacrev, fg.sin, chunk_size=0),
        "int_output": error(ff.jacrev(lambda a: a.long()), x),
        "int_output_fwd": ff.jacfwd(lambda a: (a * 2).long())(x),
        "mixed_dtype_fwd": ff.jacfwd(lambda a: a.double().sin())(x.float()),
        "mixed_dtype_rev": ff.jacrev(lambda a: a.double().sin())(x.float()),
        "non_tensor_rev": error(ff.jacrev(lambda a: 1), x),
        "non_tensor_fwd": error(ff.jacfwd(lambda a: 1), x),
        "non_tensor_jvp": error(ff.jvp, lambda a: 1, (x,), (x,)),
        "aux_rev": error(ff.jacrev(lambda a: a, has_aux=True), x),
        "aux_fwd": error(ff.jacfwd(lambda a: a, has_aux=True), x),
    }


def _add_mul(x, y):
    return x + y, x * y


def _first(x, y):
    return x


def _one(x):
    return 1


def _ones(x):
    return fg.ones(2)


@case
def vmap_values():
    x, y = _t(3, 4, seed=16), _t(4, 3, seed=17)
    nested = ff.vmap(ff.vmap(lambda a, b: (a * b).sum()), in_dims=(0, None))(_t(2, 3, 5), _t(3, 5, seed=1))
    return {
        "default": ff.vmap(fg.sin)(x),
        "in_dims": list(ff.vmap(_add_mul, in_dims=(0, 1))(x, y)),
        "in_dims_neg": ff.vmap(_first, in_dims=(-1, None))(x, 3),
        "none_arg": ff.vmap(lambda a, b: a @ b, in_dims=(0, None))(x, y),
        "out_dims": ff.vmap(lambda a: a.outer(a), out_dims=1)(x),
        "out_dims_tuple": list(ff.vmap(_add_mul, out_dims=(0, 1))(x, x)),
        "out_dims_none": ff.vmap(_ones, out_dims=None)(x),
        "dict_in": ff.vmap(lambda d: d["a"] * d["b"])({"a": x, "b": x.cos()}),
        "dict_out": ff.vmap(lambda a: {"s": a.sum(), "m": a.max()})(x),
        "nested_in_dims": ff.vmap(lambda p: p[0] + p[1][0], in_dims=((0, (1,)),))((x, (y,))),
        "nested": nested,
        "kwargs": ff.vmap(lambda a, scale=1.0: a * scale)(x, scale=2.0),
        "chunked": ff.vmap(fg.exp, chunk_size=2)(x),
        "same_random": error(ff.vmap(lambda a: a, randomness="same"), x),
        "random_error": error(ff.vmap(lambda a: a + fg.rand(4)), x),
        "dropout_error": error(ff.vmap(lambda a: fg.nn.functional.dropout(a, 0.5)), x),
        "dropout_eval": ff.vmap(lambda a: fg.nn.functional.dropout(a, 0.5, training=False))(x),
        "empty_batch": ff.vmap(lambda a: a * 2)(fg.ones(0, 3, dtype=fg.float64)),
    }


@case
def vmap_errors():
    x = _t(3, 4)
    return {
        "structure": error(ff.vmap(_first, in_dims=(0,)), x, x),
        "sizes": error(ff.vmap(_first), x, _t(4, 3)),
        "non_tensor": error(ff.vmap(_first, in_dims=(0, 0)), x, 2),
        "dim_range": error(ff.vmap(_first, in_dims=(2, None)), x, x),
        "no_tensor": error(ff.vmap(_first, in_dims=(None, None)), x, x),
        "no_inputs": error(ff.vmap(_first)),
        "in_dims_type": error(ff.vmap(_first, in_dims=[0, 0]), x, x),
        "in_dim_value": error(ff.vmap(_first, in_dims=(0, 1.5)), x, x),
        "out_non_tensor": error(ff.vmap(_one), x),
        "out_none_batched": error(ff.vmap(_first, out_dims=None), x, x),
        "out_dims_structure": error(ff.vmap(_add_mul, out_dims=(0, 0, 0)), x, x),
        "out_dims_type": error(ff.vmap(_first, out_dims="a"), x, x),
        "randomness": error(ff.vmap, _first, randomness="other"),
        "chunk_size": error(ff.vmap, _first, chunk_size=0),
    }


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(3, 4)
        self.l2 = nn.Linear(4, 2)
        self.register_buffer("scale", fg.ones(2) * 2)

    def forward(self, x):
        return self.l2(self.l1(x).relu()) * self.scale


class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


def _net():
    fg.manual_seed(0)
    return _Net().double()


@case
def functional_call_values():
    net = _net()
    x = _t(5, 3, seed=18)
    params = {k: v.detach() * 0.5 for k, v in net.named_parameters()}
    buffers = {"scale": fg.ones(2, dtype=fg.float64) * 3}
    before = net(x)
    tied = _Tied().double()
    w = _t(2, 2, seed=19)
    grads = ff.grad(lambda p: ff.functional_call(net, p, (x,)).sum())(params)
    return {
        "dict": ff.functional_call(net, params, (x,)),
        "tuple_of_dicts": ff.functional_call(net, (params, buffers), x),
        "partial": ff.functional_call(net, {"l2.bias": fg.zeros(2, dtype=fg.float64)}, (x,)),
        "kwargs": ff.functional_call(net, params, (), {"x": x}),
        "unchanged": (net(x) - before).abs().max(),
        "param_is_param": type(net.l1.weight).__name__,
        "grads": grads,
        "tied": ff.functional_call(tied, {"a.weight": w}, (x[:, :2],)),
        "untied": ff.functional_call(tied, {"a.weight": w}, (x[:, :2],), tie_weights=False),
        "tied_conflict": error(ff.functional_call, tied, {"a.weight": w, "b.weight": w * 2}, (x[:, :2],)),
        "strict": error(ff.functional_call, net, {"l1.weight": params["l1.weight"], "zz": w}, (x,), strict=True),
        "repeated": error(ff.functional_call, net, (params, params), (x,)),
        "bad_type": error(ff.functional_call, net, 3, (x,)),
        "bad_value": error(ff.functional_call, net, {"l1.bias": 3.0}, (x,)),
        "after_bad_value": ff.functional_call(net, {}, (x,)),
        "bad_list": error(ff.functional_call, net, (params, 3), (x,)),
    }


@case
def stack_module_state_values():
    fg.manual_seed(1)
    models = [_Net().double() for _ in range(3)]
    params, buffers = ff.stack_module_state(models)
    x = _t(3, 4, 3, seed=20)
    base = _Net().double()
    out = ff.vmap(lambda p, b, xx: ff.functional_call(base, (p, b), (xx,)))(params, buffers, x)
    evald = [_Net(), _Net().eval()]
    return {
        "keys": list(params) + list(buffers),
        "shapes": [list(p.shape) for p in params.values()],
        "leaf": [params["l1.weight"].is_leaf, params["l1.weight"].requires_grad, buffers["scale"].requires_grad],
        "ensemble": out,
        "loop": fg.stack([m(xi) for m, xi in zip(models, x)]),
        "empty": error(ff.stack_module_state, []),
        "modes": error(ff.stack_module_state, evald),
        "classes": error(ff.stack_module_state, [_Net(), _Tied()]),
    }


@case
def linearize_values():
    x, v = _t(4, seed=21), _t(4, seed=22)
    out, fn = ff.linearize(lambda a: a.sin() * a, x)
    return {
        "out": out,
        "tangent": fn(v),
        "again": fn(v * 2),
        "shape": error(fn, fg.ones(3, dtype=fg.float64)),
    }


class _Exp(fg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = fg.exp(x)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, g):
        return g * ctx.result


class _NoJvp(fg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


@case
def forward_ad_values():
    p, t = _t(3, 3, seed=23), _t(3, 3, seed=24)
    q = _t(3, 3, seed=25)
    out = {}
    with fwAD.dual_level() as level:
        out["level"] = level
        d = fwAD.make_dual(p, t)
        out["same_tangent"] = fwAD.unpack_dual(d).tangent is t
        out["copied_tangent"] = fwAD.unpack_dual(fwAD.make_dual(p, t.T)).tangent is t.T
        out["copied_values"] = fwAD.unpack_dual(fwAD.make_dual(p, t.T)).tangent
        y = d**2 + q**2
        out["square"] = list(fwAD.unpack_dual(y))
        out["chain"] = fwAD.unpack_dual((d.sin() @ q).softmax(-1).log()).tangent
        out["plain"] = fwAD.unpack_dual(q * 2).tangent
        out["namedtuple"] = [type(fwAD.unpack_dual(y)).__name__, fwAD.unpack_dual(y)._fields]
        out["custom"] = fwAD.unpack_dual(_Exp.apply(d)).tangent
        out["custom_no_jvp"] = error(_NoJvp.apply, d)
        out["func_jvp_in_level"] = error(ff.jvp, fg.sin, (p,), (t,))
        out["jacfwd_in_level"] = error(ff.jacfwd(fg.sin), p)
        out["jacrev_in_level"] = ff.jacrev(fg.sin)(p[0])
        out["nested"] = error(fwAD.enter_dual_level)
        out["int"] = error(fwAD.make_dual, fg.ones(3, dtype=fg.int64), fg.ones(3))
        out["int_tangent"] = error(fwAD.make_dual, p, fg.ones(3, 3, dtype=fg.int64))
        out["size"] = error(fwAD.make_dual, p, fg.ones(3))
        leaf = p.clone().requires_grad_(True)
        (fwAD.make_dual(leaf, t) ** 2).sum().backward()
        out["backward_through_dual"] = leaf.grad
    out["after_exit"] = fwAD.unpack_dual(y).tangent
    out["custom_in_func_jvp"] = error(ff.jvp, _NoJvp.apply, (p,), (t,))
    out["custom_in_jacfwd"] = error(ff.jacfwd(_NoJvp.apply), p)
    out["no_level"] = error(fwAD.make_dual, p, t)
    out["exit_no_level"] = error(fwAD.exit_dual_level)
    out["unpack_no_level"] = fwAD.unpack_dual(p).tangent
    return out


@case
def forward_ad_modules():
    fg.manual_seed(2)
    model = nn.Linear(3, 3).double()
    x = _t(4, 3, seed=26)
    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: _t(*p.shape, seed=27) for name, p in params.items()}
    with fwAD.dual_level():
        dual = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
        jvp_call = fwAD.unpack_dual(ff.functional_call(model, dual, x)).tangent
    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))
        jvp_attr = fwAD.unpack_dual(model(x)).tangent
    fresh = nn.Linear(3, 3).double()
    _, jvp_func = ff.jvp(lambda p: ff.functional_call(fresh, p, x), (params,), (tangents,))
    return {"functional_call": jvp_call, "attributes": jvp_attr, "func_jvp": jvp_func}


@case
def stateless_functional_call():
    import warnings

    net = _net()
    x = _t(2, 3, seed=28)
    params = {k: v.detach() * 2 for k, v in net.named_parameters()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = nn.utils.stateless.functional_call(net, params, (x,))
    return {"out": out, "warning": [str(w.message) for w in caught], "same": ff.functional_call(net, params, (x,))}


@case
def edge_shapes():
    s = fg.tensor(0.3, dtype=fg.float64)
    empty = fg.zeros(0, dtype=fg.float64)
    x = _t(2, 3, seed=29)
    special = fg.tensor([0.0, float("inf"), float("nan"), -1.0], dtype=fg.float64)
    return {
        "jacrev_0d": ff.jacrev(lambda a: a.sin() * 2)(s),
        "jacfwd_0d": ff.jacfwd(lambda a: a.exp())(s),
        "hessian_0d": ff.hessian(lambda a: a**4)(s),
        "jacrev_empty_in": ff.jacrev(lambda a: a.sum() + s)(empty),
        "jacrev_empty_out": ff.jacrev(lambda a: a[:0] * 2)(x[0]),
        "grad_empty": ff.grad(lambda a: a.sum())(empty),
        "grad_special": ff.grad(lambda a: (a.exp() * a).sum())(special),
        "jvp_special": ff.jvp(fg.sqrt, (special,), (fg.ones(4, dtype=fg.float64),))[1],
        "vjp_empty": ff.vjp(lambda a: a * 3, empty)[1](empty)[0],
        "vmap_transposed": ff.vmap(lambda a: a.cumsum(0))(x.t()),
        "vmap_0d_out": ff.vmap(lambda a: a.max())(x),
        "vmap_size1": ff.vmap(lambda a: a * 2)(x[:1]),
        "vmap_noncontig_in_dim1": ff.vmap(lambda a: a.flip(0), in_dims=1)(x.t()),
    }


@case
def autograd_functional_forward_mode():
    x = _t(3, seed=30)
    jac = fg.autograd.functional.jacobian
    return {
        "jacobian": jac(lambda a: a.sin() * a.sum(), x, vectorize=True, strategy="forward-mode"),
        "hessian": fg.autograd.functional.hessian(
            lambda a: (a.exp() * a).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"
        ),
        "not_vectorized": error(jac, fg.sin, x, strategy="forward-mode"),
        "create_graph": error(jac, fg.sin, x, create_graph=True, vectorize=True, strategy="forward-mode"),
        "strict": error(jac, fg.sin, x, strict=True, vectorize=True, strategy="forward-mode"),
        "bad_strategy": error(jac, fg.sin, x, strategy="sideways"),
        "bad_outer": error(fg.autograd.functional.hessian, lambda a: a.sum(), x, outer_jacobian_strategy="up"),
    }


def _add_one_(a):
    b = a.clone()
    b.add_(1)
    return b * 2


@case
def func_misc():
    x = _t(3, seed=31)
    bn = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    ff.replace_all_batch_norm_modules_(bn)
    return {
        "functionalize": ff.functionalize(_add_one_)(x),
        "functionalize_views": ff.vmap(ff.functionalize(_add_one_, remove="mutations_and_views"))(x.reshape(3, 1)),
        "functionalize_bad": error(ff.functionalize, _add_one_, remove="all"),
        "bn_stats": [bn[1].running_mean, bn[1].running_var, bn[1].num_batches_tracked, bn[1].track_running_stats],
        "debug_unwrap": ff.debug_unwrap(x),
        "all": sorted(set(ff.__all__) - {"rearrange"}),  # einops' pattern language: not built
    }
