"""`gradcheck` and `gradgradcheck`: compare autograd's gradients with finite differences.

The analytical Jacobian is built one row at a time: for each element of each output, a one-hot
`grad_outputs` goes through `autograd.grad`. The numerical one perturbs each input element by
`±eps` (on a fresh copy of the input, so the caller's tensors are never written to) and takes
central differences. Jacobians are laid out as torch's: one `(input.numel(), output.numel())`
matrix per (input, output) pair.

A complex tensor counts as its (re, im) pairs (`view_as_real`), as torch's checks split complex inputs and
outputs into real and imaginary parts: a complex input's rows are d/d re and d/d im of each element, a complex
output's columns its real and imaginary parts, whose gradients are the one-hot `grad_outputs` 1 and 1j (torch's
convention: the gradient of a real L is dL/d re + i dL/d im).
"""

import warnings

from .. import _core
from .._core import Tensor
from .._lazy_numpy import np
from .._tensor_helpers import _eye
from .gradients import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by `gradcheck` / `gradgradcheck` when the analytical and numerical gradients differ."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float(t):
    return isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _np(t):
    """The tensor's values as float64 numpy, a complex tensor as its (re, im) pairs (a last dim of 2)."""
    t = t.detach()
    if t.is_complex():
        t = _core.view_as_real(t)
    return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _from_np(values, like, requires_grad=False):
    """`values` (laid out as `_np(like)`) as a fresh tensor of `like`'s dtype."""
    if not like.is_complex():
        return _core.tensor(values.tolist(), dtype=like.dtype, requires_grad=requires_grad)
    part = _core.float64 if like.dtype == _core.complex128 else _core.float32
    out = _core.view_as_complex(_core.tensor(values.tolist(), dtype=part)).clone()
    return out.requires_grad_(requires_grad)


def _reals(t):
    """How many real numbers the tensor holds: two per complex element."""
    return t.numel() * (2 if t.is_complex() else 1)


def _show(a):
    return repr(_core.tensor(a.tolist(), dtype=_core.float64))  # signed zeros stay, as torch prints them


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _differentiable_outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if _is_float(o))


def _numerical_jacobians(func, inputs, diff_idx, eps):
    """jac[i][k]: (inputs[diff_idx[i]].numel(), outputs[k].numel()) central differences."""
    base = [_np(o).ravel() for o in _differentiable_outputs(func, inputs)]
    jacs = []
    for i in diff_idx:
        x = inputs[i]
        x0 = _np(x)
        cols = [np.zeros((x0.size, b.size)) for b in base]
        for j in range(x0.size):
            outs = []
            for sign in (1.0, -1.0):
                xp = x0.copy().ravel()
                xp[j] += sign * eps
                xt = _from_np(xp.reshape(x0.shape), x, x.requires_grad)
                args = list(inputs)
                args[i] = xt
                outs.append([_np(o).ravel() for o in _differentiable_outputs(func, args)])
            for k in range(len(base)):
                cols[k][j] = (outs[0][k] - outs[1][k]) / (2 * eps)
        jacs.append(cols)
    return jacs


def _analytical_jacobians(outputs, inputs, diff_idx, check_grad_dtypes):
    """Same layout as the numerical Jacobians, one autograd.grad call per output element."""

    diff_inputs = [inputs[i] for i in diff_idx]
    jacs = [[np.zeros((_reals(inputs[i]), _reals(o))) for o in outputs] for i in diff_idx]
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue  # the analytical Jacobian of an output that does not require grad is zero
        pairs_shape = _np(out).shape
        for e in range(_reals(out)):
            onehot = np.zeros(_reals(out))
            onehot[e] = 1.0
            g_out = _from_np(onehot.reshape(pairs_shape), out)
            grads = autograd_grad([out], diff_inputs, [g_out], retain_graph=True, allow_unused=True)
            for i, (g, x) in enumerate(zip(grads, diff_inputs)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(x.shape):
                    raise GradcheckError(
                        f"Gradient has incorrect size: got {tuple(g.shape)}, expected {tuple(x.shape)}"
                    )
                if check_grad_dtypes and g.dtype != x.dtype:
                    raise GradcheckError(f"Gradient has dtype mismatch: got {g.dtype}, expected {x.dtype}")
                jacs[i][k][:, e] = _np(g).ravel()
    return jacs


def _forward_jacobians(func, inputs, diff_idx):
    """The numerical Jacobians' layout, one column of forward AD (a one-hot tangent) per input element."""
    from . import forward_ad

    n_outs = [o.numel() for o in _differentiable_outputs(func, inputs)]
    jacs = []
    for i in diff_idx:
        x = inputs[i]
        rows = [np.zeros((x.numel(), n)) for n in n_outs]
        eye = _eye(x.numel(), dtype=x.dtype)
        for e in range(x.numel()):
            with forward_ad.dual_level():
                dual_inputs = list(inputs)
                dual_inputs[i] = forward_ad.make_dual(x.detach(), eye[e].reshape(tuple(x.shape)))
                tangents = [forward_ad.unpack_dual(o).tangent for o in _differentiable_outputs(func, dual_inputs)]
            for k, t in enumerate(tangents):
                if t is not None:
                    rows[k][e, :] = _np(t).ravel()
        jacs.append(rows)
    return jacs


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-06,
    atol=1e-05,
    rtol=0.001,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """Checks gradients of `func(*inputs)` w.r.t. the floating-point inputs that require grad.

    Returns True when every analytical Jacobian entry `a` and numerical entry `n` satisfy
    `|a - n| <= atol + rtol * |n|`; otherwise raises GradcheckError (or returns False when
    `raise_exception=False`). Use float64 inputs: float32 differences are too noisy.
    `check_forward_ad` also compares forward AD (`autograd.forward_ad`) with finite differences. Options of
    torch's signature that concern features ferrograd does not have (batched grads, fast mode, masked tensors)
    are accepted and must keep their default values.
    """
    if check_batched_grad or check_batched_forward_grad or fast_mode or masked:
        raise NotImplementedError("gradcheck: batched gradients, fast_mode and masked are not supported")
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not diff_idx:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the them have "
            "requires_grad=True."
        )
    for i in diff_idx:
        if not _is_float(inputs[i]):
            raise ValueError(f"Input #{i} requires gradient but is not a floating point tensor")
        if inputs[i].dtype not in (_core.float64, _core.complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating point or "
                "complex. ",
                UserWarning,
                stacklevel=2,
            )
    numerical = None  # the finite differences, computed once for both modes
    if check_forward_ad:
        if any(t.is_complex() for t in (*[inputs[i] for i in diff_idx], *_differentiable_outputs(func, inputs))):
            raise NotImplementedError("gradcheck: check_forward_ad with complex inputs or outputs is not supported")
        numerical = _numerical_jacobians(func, inputs, diff_idx, eps)
        mismatch = _first_mismatch(_forward_jacobians(func, inputs, diff_idx), numerical, rtol, atol)
        if mismatch is not None:
            i, k, a, n = mismatch
            return _fail(
                f"Jacobian computed with forward mode mismatch for output {k} with respect to input "
                f"{diff_idx[i]},\nnumerical:{_show(n)}\nanalytical:{_show(a)}\n",
                raise_exception,
            )
    outputs = _differentiable_outputs(func, inputs)
    if not check_backward_ad:
        return True
    analytical = _analytical_jacobians(outputs, inputs, diff_idx, check_grad_dtypes)
    # the backward must be deterministic (reentrant): a second pass over the same graph gives the same Jacobian
    # (the same outputs, as torch's check: a function that draws random numbers may build another graph)
    again = _analytical_jacobians(outputs, inputs, diff_idx, False)
    for rows_a, rows_b in zip(analytical, again):
        for a, b in zip(rows_a, rows_b):
            if not np.allclose(a, b, rtol=0.0, atol=nondet_tol):
                return _fail(
                    f"Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                    f"times gives different values, although analytical gradient matches numerical gradient. "
                    f"The tolerance for nondeterminism was {nondet_tol}.",
                    raise_exception,
                )
    if numerical is None:
        numerical = _numerical_jacobians(func, inputs, diff_idx, eps)
    mismatch = _first_mismatch(analytical, numerical, rtol, atol)
    if mismatch is not None:
        i, k, a, n = mismatch
        return _fail(
            f"Jacobian mismatch for output {k} with respect to input {diff_idx[i]},\n"
            f"numerical:{_show(n)}\nanalytical:{_show(a)}\n",
            raise_exception,
        )
    return True


def _first_mismatch(jacobians, numerical, rtol, atol):
    """(input position, output k, computed, numerical) of the first Jacobian block that disagrees, else None."""
    for i, (rows_a, rows_n) in enumerate(zip(jacobians, numerical)):
        for k, (a, n) in enumerate(zip(rows_a, rows_n)):
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                return i, k, a, n
    return None


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-06,
    atol=1e-05,
    rtol=0.001,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Checks second derivatives: `gradcheck` applied to the map (inputs, v) -> vᵀ·J built with create_graph.

    `grad_outputs` default to random float64 tensors (requiring grad) shaped like the outputs.
    """

    if check_batched_grad or check_fwd_over_rev or fast_mode or masked:
        raise NotImplementedError(
            "gradgradcheck: batched gradients, forward AD, fast_mode and masked are not supported"
        )
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outputs = _differentiable_outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _core.tensor(rng.uniform(-1.0, 1.0, tuple(o.shape)).tolist(), dtype=o.dtype, requires_grad=True)
            for o in outputs
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _differentiable_outputs(func, ins) if o.requires_grad]
        gos = [g for g, o in zip(gos, _differentiable_outputs(func, ins)) if o.requires_grad]
        diff_inputs = [ins[i] for i in diff_idx]
        if not outs:
            return tuple(_core.zeros(*x.shape, dtype=x.dtype) for x in diff_inputs)
        grads = autograd_grad(outs, diff_inputs, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    if not check_rev_over_rev:
        return True
    return gradcheck(
        first_derivative,
        inputs + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
    )
