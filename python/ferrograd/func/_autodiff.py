"""`grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian` and `linearize` over the reverse-mode
engine (`autograd.grad`).

Each transform gives the differentiated inputs fresh identities (a new leaf, or a view of an input that already
tracks gradients, so that the result stays differentiable for the caller) and runs the engine with
`create_graph=True` whenever its result may be differentiated again: when the transform runs inside another
transform's function, or an input already requires grad. That is what makes grad of grad, jacrev of jacrev,
jacfwd of jacrev and vmap of grad compose. Forward mode is the double-vjp trick: uᵀJ is linear in a dummy
cotangent u, and its vjp with a tangent v is J·v; the values are torch's, but every op on the path needs a
differentiable backward formula (all of ferrograd's built-in ops have one).
"""

import contextlib

from .. import _core
from .._core import Tensor
from .._tensor_helpers import _eye, _ones_like, _zeros_like
from ..autograd import forward_ad
from ..autograd.gradients import grad as _engine_grad
from ..grad_mode import enable_grad
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

_depth = [0]


@contextlib.contextmanager
def _nested(forward=False):
    """Marks a transform's function body as running: transforms called inside it keep their graphs. In a
    forward-mode body (`forward`), custom `autograd.Function`s refuse to run (see `forward_ad._jvp_bodies`)."""
    _depth[0] += 1
    forward_ad._jvp_bodies[0] += forward
    try:
        with enable_grad():
            yield
    finally:
        _depth[0] -= 1
        forward_ad._jvp_bodies[0] -= forward


def _no_dual_level():
    # torch's forward-mode transforms take the one forward AD level: inside a user's dual_level there is none left
    if forward_ad._current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")


def _differentiable(x):
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _keeps_graph(flat_inputs):
    return _depth[0] > 0 or any(isinstance(x, Tensor) and x.requires_grad for x in flat_inputs)


def _finish(tree, keep):
    if keep:
        return tree
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


def _engine(outputs, inputs, cotangents, create_graph):
    """Gradients of `outputs` (weighted by `cotangents`) for each of `inputs`, zeros where one is unused."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if pairs:
        got = _engine_grad(
            [o for o, _ in pairs],
            list(inputs),
            [c for _, c in pairs],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    else:
        got = (None,) * len(inputs)
    return [g if g is not None else _zeros_like(x) for g, x in zip(got, inputs)]


def _check_argnums(argnums, num_args):
    def one(a):
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if 0 <= a < num_args:
            return a
        if -num_args <= a < 0:
            return a + num_args
        raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")

    if isinstance(argnums, int):
        return one(argnums)
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(one(a) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _split_args(args, argnums):
    """(the differentiated part of `args` as one pytree, a function putting a new such part back into `args`)."""
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):

        def put(new):
            return args[:argnums] + (new,) + args[argnums + 1 :]

        return args[argnums], put

    def put_many(new):
        out = list(args)
        for i, a in enumerate(argnums):
            out[a] = new[i]
        return tuple(out)

    return tuple(args[a] for a in argnums), put_many


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function giving `(gradient of func's scalar output for the args at argnums, output)`; with
    `has_aux`, `func` returns `(output, aux)` and the result is `(gradient, (output, aux))`."""

    def wrapper(*args, **kwargs):
        diff, put = _split_args(args, argnums)
        flat, spec = tree_flatten(diff)
        keep = _keeps_graph(flat)
        with _nested():
            inputs = [_differentiable(x) for x in flat]
            output = func(*put(tree_unflatten(inputs, spec)), **kwargs)
            output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            grads = _engine([output], inputs, [_ones_like(output)], keep)
        grads = _finish(tree_unflatten(grads, spec), keep)
        output = _finish(output, keep)
        if has_aux:
            return grads, (output, _finish(aux, keep))
        return grads, output

    _copy_name(wrapper, func)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """Returns a function giving the gradient of `func`'s scalar output for the args at `argnums` (an int or a
    tuple of ints; the gradient has the structure of those args); with `has_aux`, `(gradient, aux)`."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    _copy_name(wrapper, func)
    return wrapper


def _copy_name(wrapper, func):
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        if hasattr(func, attr):
            setattr(wrapper, attr, getattr(func, attr))


def _check_outputs(flat_out, api, float_api=None):
    """torch's refusals of what f returned: anything but tensors (`api`), and for reverse mode (`float_api`)
    tensors that are not floating point or complex."""
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
        if float_api is not None and not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError(
                f"{float_api}: All outputs of f must be floating-point or complex Tensors, got Tensor with dtype "
                f"{o.dtype}"
            )


def _vjp_parts(func, primals, kwargs, has_aux, api, forward=False):
    """Runs `func` on fresh differentiable copies of `primals`: (inputs, their spec, output, flat outputs, its
    spec, aux, whether graphs are kept)."""
    flat, spec = tree_flatten(primals)
    keep = _keeps_graph(flat)
    with _nested(forward):
        inputs = [_differentiable(x) for x in flat]
        output = func(*tree_unflatten(inputs, spec), **kwargs)
        output, aux = _split_aux(output, has_aux, api)
    flat_out, out_spec = tree_flatten(output)
    return inputs, spec, output, flat_out, out_spec, aux, keep


def vjp(func, *primals, has_aux=False):
    """Returns `(func(*primals), vjp_fn)` (and `aux` with `has_aux`); `vjp_fn(cotangents)` gives, for each primal,
    the cotangents times the Jacobian, as a tuple with the structure of `primals`."""
    inputs, spec, output, flat_out, out_spec, aux, keep = _vjp_parts(func, primals, {}, has_aux, "vjp(f, *primals)")
    _check_outputs(flat_out, "vjp(f, *primals)", "vjp(f, ...)")

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                f"function. cotangents: {treespec_pprint(cot_spec)}, primal output: {treespec_pprint(out_spec)}"
            )
        graph = keep or _keeps_graph(flat_cot) if create_graph is None else create_graph
        with enable_grad():
            grads = _engine(flat_out, inputs, flat_cot, graph)
        return _finish(tree_unflatten(grads, spec), graph)

    output = _finish(output, keep)
    if has_aux:
        return output, vjp_fn, _finish(aux, keep)
    return output, vjp_fn


def _jvp_flat(flat_out, inputs, flat_tangents, keep):
    """J·v for each output by the double-vjp trick (zeros for an output that does not depend on the inputs)."""
    dummies = [_zeros_like(o).requires_grad_(True) for o in flat_out]
    with enable_grad():
        vjps = _engine(flat_out, inputs, dummies, True)
        used = [(g, t) for g, t in zip(vjps, flat_tangents) if g.requires_grad]
        if not used:
            return [_zeros_like(o) for o in flat_out]
        return _engine([g for g, _ in used], dummies, [t for _, t in used], keep)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Returns `(func(*primals), J·tangents)` (and `aux` with `has_aux`); `primals` is a tuple of arguments and
    `tangents` has its structure and shapes."""
    api = "jvp(f, primals, tangents)"
    _no_dual_level()
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For example, if primals is "
            f"a tuple of 3 tensors, tangents also must be. Got primals with structure {p_spec} and tangents with "
            f"structure {t_spec}"
        )
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, this"
                f" is not supported. Tensor is of size {_size(p)} while the given forward gradient is of size"
                f" {_size(t)}."
            )
    inputs, spec, output, flat_out, out_spec, aux, keep = _vjp_parts(func, primals, {}, has_aux, api, forward=True)
    keep = keep or _keeps_graph(flat_t)
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
    if strict and not any(o.requires_grad for o in flat_out):
        raise RuntimeError(
            "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
            "This is not allowed with strict=True."
        )
    jv = _jvp_flat(flat_out, inputs, flat_t, keep)
    result = (_finish(output, keep), _finish(tree_unflatten(jv, out_spec), keep))
    return result + (_finish(aux, keep),) if has_aux else result


def _size(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _jacobian_blocks(flat_out, inputs, keep, forward):
    """blocks[i][j]: d out_i / d in_j of shape out_i.shape + in_j.shape, one backward pass per output element
    (or, for `forward`, one double-vjp column per input element when that is fewer passes)."""
    n_out = sum(o.numel() for o in flat_out)
    n_in = sum(x.numel() for x in inputs)
    with enable_grad():
        all_float = all(o.is_floating_point() or o.is_complex() for o in flat_out)
        # columns carry the input's tangent through casts as forward mode does (rows round to the input's dtype)
        mixed = any(o.dtype != x.dtype for o in flat_out for x in inputs)
        if forward and all_float and (n_in < n_out or mixed):
            dummies = [_zeros_like(o).requires_grad_(True) for o in flat_out]
            vjps = _engine(flat_out, inputs, dummies, True)
            live = [g.requires_grad for g in vjps]
            columns = [[] for _ in flat_out]  # columns[i]: one tensor of out_i's shape per input element
            for j, x in enumerate(inputs):
                eye = _eye(x.numel(), dtype=x.dtype)
                for e in range(x.numel()):
                    basis = eye[e].reshape(tuple(x.shape))
                    used = [g for g, ok in zip(vjps, live) if ok]
                    tangents = [basis if k == j else _zeros_like(inputs[k]) for k, ok in enumerate(live) if ok]
                    cols = _engine(used, dummies, tangents, keep) if used else [_zeros_like(o) for o in flat_out]
                    for i, c in enumerate(cols):
                        columns[i].append(c)
            blocks = []
            for i, o in enumerate(flat_out):
                row, start = [], 0
                for x in inputs:
                    cols = columns[i][start : start + x.numel()]
                    start += x.numel()
                    stacked = _stack_or_empty(cols, tuple(o.shape), o.dtype)  # (in numel, *out.shape)
                    moved = stacked.reshape((x.numel(), o.numel())).t()
                    row.append(moved.reshape(tuple(o.shape) + tuple(x.shape)))
                blocks.append(row)
            return blocks
        blocks = []
        for o in flat_out:
            eye = _eye(o.numel(), dtype=o.dtype)
            rows = [[] for _ in inputs]
            shape = tuple(o.shape)
            zeros = [_zeros_like(x) for x in inputs]
            for e in range(o.numel()):
                if o.requires_grad:
                    # the engine's entry itself: this loop runs once per output element
                    grads = _core._grad([o], inputs, [eye[e].reshape(shape)], True, keep, True)
                else:
                    grads = zeros
                for j, g in enumerate(grads):
                    rows[j].append(zeros[j] if g is None else g)
            blocks.append(
                [
                    _stack_or_empty(r, tuple(x.shape), x.dtype).reshape(tuple(o.shape) + tuple(x.shape))
                    for r, x in zip(rows, inputs)
                ]
            )
        return blocks


def _stack_or_empty(tensors, shape, dtype):
    if tensors:
        return _core.stack(tensors)
    return _core.zeros((0,) + shape, dtype=dtype)


def _jac(func, argnums, has_aux, api, forward):
    def wrapper(*args, **kwargs):
        diff, put = _split_args(args, argnums)
        flat, spec = tree_flatten(diff)
        keep = _keeps_graph(flat)
        if forward:
            _no_dual_level()
        with _nested(forward):
            inputs = [_differentiable(x) for x in flat]
            output = func(*put(tree_unflatten(inputs, spec)), **kwargs)
            output, aux = _split_aux(output, has_aux, api)
            flat_out, out_spec = tree_flatten(output)
            if forward:
                _check_outputs(flat_out, api)
            else:
                _check_outputs(flat_out, "vjp(f, *primals)", "vjp(f, ...)")
            blocks = _jacobian_blocks(flat_out, inputs, keep, forward)
            if forward:  # forward mode's Jacobian has the output's dtype (tangents are), reverse mode the input's
                blocks = [[b if b.dtype == o.dtype else b.to(o.dtype) for b in row] for row, o in zip(blocks, flat_out)]
        per_output = [_finish(tree_unflatten(row, spec), keep) for row in blocks]
        jac = tree_unflatten(per_output, out_spec)
        return (jac, _finish(aux, keep)) if has_aux else jac

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Returns a function giving the Jacobian of `func` for the args at `argnums`: for each output (its pytree
    outside) and each differentiated input (inside), a tensor of shape `output.shape + input.shape`. Computed
    with one reverse pass per output element."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    w = _jac(func, argnums, has_aux, "vjp(f, *primals)", forward=False)
    _copy_name(w, func)
    return w


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as `jacrev`, with torch's forward-mode signature. Computed by columns (double-vjp, one pass
    per input element) when the inputs have fewer elements than the outputs, else by rows."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    w = _jac(func, argnums, has_aux, "jvp(f, primals, tangents)", forward=True)
    _copy_name(w, func)
    return w


def hessian(func, argnums=0):
    """`jacfwd(jacrev(func, argnums), argnums)`: the second derivatives of `func` for the args at `argnums`."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """Returns `(func(*primals), jvp_fn)`: `jvp_fn(*tangents)` is `jvp(func, primals, tangents)[1]`."""
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the primals {p_spec}")
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            if tuple(p.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the shape {p.shape} of the "
                    "corresponding primal."
                )
        return jvp(func, primals, tangents)[1]

    return _finish(output, _keeps_graph(flat_p)), jvp_fn
