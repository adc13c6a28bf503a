"""`ferrograd.autograd.functional`: vjp, jvp, jacobian, hessian, hvp and vhp of a Python function.

All of them are built on reverse mode (`autograd.grad`): `jvp` uses the double-vjp trick (J·v = d/du [uᵀJ]·v
for a dummy cotangent u) and `jacobian` runs one backward pass per output element. Signatures and result
structure follow `torch.autograd.functional`: a tensor argument gives tensor results, a tuple gives tuples.
"""

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad
from .gradients import grad as autograd_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, arg_name, fn_name):
    is_tuple = isinstance(x, (tuple, list))
    items = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                    f" value at index {i} has type {type(t).__name__}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                f" given {arg_name} has type {type(t).__name__}."
            )
    return is_tuple, items


def _tuple_postprocess(res, is_tuple):
    return res if is_tuple else res[0]


def _prepare_inputs(inputs, create_graph):
    # with create_graph the result must stay connected to the caller's graph: use a view
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(True) for t in inputs)


def _finish(ts, create_graph):
    if create_graph:
        return tuple(ts)
    return tuple(t.detach() if isinstance(t, Tensor) else t for t in ts)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if tuple(el_v.shape) != tuple(el_other.shape):
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {tuple(el_other.shape)} but got {tuple(el_v.shape)}."
            )


def _grad(outputs, inputs, grad_outputs, create_graph, strict, stage="back"):
    """autograd.grad that tolerates outputs without history and fills unused inputs with zeros
    (or raises in strict mode)."""

    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        grads = autograd_grad(
            [o for o, _ in pairs],
            inputs,
            [g for _, g in pairs],
            create_graph=create_graph,
            retain_graph=True,
            allow_unused=True,
        )
    else:
        grads = (None,) * len(inputs)
    result = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                if stage == "back":
                    raise RuntimeError(
                        f"The output of the user-provided function is independent of input {i}. "
                        "This is not allowed in strict mode."
                    )
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."
                )
            g = _core.zeros(*x.shape, dtype=x.dtype)
        result.append(g)
    return tuple(result)


def _check_outputs(outputs, fn_name):
    is_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    return is_tuple, outs


def _v_or_ones(v, against, is_tuple, fn_name, what):
    """`v` checked against `against` (shapes, count), or ones when `against` is a single one-element tensor."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        _validate_v(v, against, is_tuple)
        return v
    if len(against) != 1 or against[0].numel() != 1:
        raise RuntimeError(f"The vector v can only be None if {what} a single Tensor with a single element.")
    return (_core.ones(*against[0].shape, dtype=against[0].dtype),)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns `(func(inputs), vᵀ·J)`; `v` may be omitted when the output has a single element."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare_inputs(inputs, create_graph)
        is_outputs_tuple, outputs = _check_outputs(func(*inputs), "vjp")
        v = _v_or_ones(v, outputs, is_outputs_tuple, "vjp", "the user-provided function returns")
        grads = _grad(outputs, inputs, v, create_graph, strict)
    return (
        _tuple_postprocess(_finish(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_finish(grads, create_graph), is_inputs_tuple),
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns `(func(inputs), J·v)`, computed with two reverse passes (the double-vjp trick)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare_inputs(inputs, create_graph)
        v = _v_or_ones(v, inputs, is_inputs_tuple, "jvp", "the input to the user-provided function is")
        is_outputs_tuple, outputs = _check_outputs(func(*inputs), "jvp")
        # u ↦ uᵀJ is linear in u; its vjp with v is J·v
        dummy = tuple(_core.zeros(*o.shape, dtype=o.dtype, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummy, True, strict)
        if strict and create_graph:
            for i, g in enumerate(grad_inputs):
                if not g.requires_grad:
                    raise RuntimeError(
                        f"The jacobian of the user-provided function is independent of input {i}. "
                        "This is not allowed in strict mode when create_graph=True."
                    )
        jv = _grad(grad_inputs, dummy, v, create_graph, strict, stage="double_back")
    return (
        _tuple_postprocess(_finish(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_finish(jv, create_graph), is_outputs_tuple),
    )


def _stack_rows(rows, out_shape, in_shape, dtype):
    """Differentiably assembles rows[e] (each of shape in_shape) into a tensor of shape out_shape + in_shape."""
    n = len(rows)
    in_shape = tuple(in_shape)
    flat = None
    for e, r in enumerate(rows):
        basis = [0.0] * n
        basis[e] = 1.0
        b = _core.tensor(basis, dtype=dtype).reshape((n,) + (1,) * len(in_shape))
        term = b * r.unsqueeze(0)
        flat = term if flat is None else flat + term
    if flat is None:
        flat = _core.zeros(*((0,) + in_shape), dtype=dtype)
    return flat.reshape(tuple(out_shape) + in_shape)


def _check_forward_mode(create_graph, strict, vectorize):
    """torch's refusals for `strategy="forward-mode"`; what it then computes is the same Jacobian, which
    ferrograd computes by reverse mode."""
    if create_graph:
        raise NotImplementedError(
            'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
            'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
            'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    if not vectorize:
        # torch's message, its missing space included
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
            "`vectorize=True`."
        )


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: shape `output.shape + input.shape` per (output, input) pair.

    A tensor input and output give a tensor; tuples give a tuple (per input) or a tuple of tuples
    (per output, then per input). `vectorize` is accepted and ignored; `strategy="forward-mode"` gives the
    same values (computed by reverse mode) after torch's checks of its options.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        _check_forward_mode(create_graph, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare_inputs(inputs, create_graph)
        is_outputs_tuple, outputs = _check_outputs(func(*inputs), "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            rows_per_input = [[] for _ in inputs]
            n = out.numel()
            for e in range(n):
                onehot = [0.0] * n
                onehot[e] = 1.0
                g_out = _core.tensor(onehot, dtype=out.dtype).reshape(tuple(out.shape))
                if not out.requires_grad:
                    grads = (None,) * len(inputs)
                else:
                    grads = autograd_grad(
                        [out], inputs, [g_out], retain_graph=True, create_graph=create_graph, allow_unused=True
                    )
                for j, (g, x) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {j}. "
                                "This is not allowed in strict mode."
                            )
                        g = _core.zeros(*x.shape, dtype=x.dtype)
                    rows_per_input[j].append(g)
            jac.append(tuple(_stack_rows(rows, out.shape, x.shape, x.dtype) for rows, x in zip(rows_per_input, inputs)))
        jac = tuple(_finish(row, create_graph) for row in jac)
    if is_outputs_tuple:
        return tuple(_tuple_postprocess(row, is_inputs_tuple) for row in jac)
    return _tuple_postprocess(jac[0], is_inputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: shape `input.shape + input.shape` (tuples of tuples for tuple inputs)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                f"The Tensor returned by the function given to hessian should contain a single "
                f"element, but it has {out.numel()} elements"
            )
        return out.squeeze()

    def jac_func(*inp):
        return jacobian(ensure_single_output_function, inp, create_graph=True, strict=strict)

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    if is_inputs_tuple:
        return res
    # jac_func returns a tuple (one entry per input), so res is a tuple of tuples: unwrap both levels
    return res[0][0]


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns `(func(inputs), vᵀ·H)` for a scalar function."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare_inputs(inputs, create_graph)
        v = _v_or_ones(v, inputs, is_inputs_tuple, "vhp", "the input to the user-provided function is")
        is_outputs_tuple, outputs = _check_outputs(func(*inputs), "vhp")
        if is_outputs_tuple or not isinstance(outputs[0], Tensor):
            raise RuntimeError("The function given to vhp should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError(
                f"The Tensor returned by the function given to vhp should contain a single element, "
                f"but it has {outputs[0].numel()} elements"
            )
        jac = _grad(outputs, inputs, (_core.ones(*outputs[0].shape, dtype=outputs[0].dtype),), True, strict)
        res = _grad(jac, inputs, v, create_graph, strict, stage="double_back")
    return (_finish(outputs, create_graph)[0], _tuple_postprocess(_finish(res, create_graph), is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns `(func(inputs), H·v)` for a scalar function (equal to vhp since H is symmetric)."""
    return vhp(func, inputs, v, create_graph=create_graph, strict=strict)
