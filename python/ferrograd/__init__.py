"""ferrograd: PyTorch-style tensors and autograd on a Rust core.

`import ferrograd as fg` gives tensors with `requires_grad`, `grad_fn`, `backward`, `.grad`,
`detach()` and `no_grad()` with PyTorch's semantics, names and printing.
"""

import builtins

from . import _core, _device, _lazy_submodules, _tensor_python, _utils, _write_out, torch_version, version
from ._arg_errors import type_name as _type_name
from ._asarray import asarray, frombuffer
from ._autocast_state import (
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from ._build_info import *  # noqa: F403
from ._combine import broadcast_shapes, broadcast_tensors, cartesian_prod, meshgrid
from ._compile import compile
from ._complex import *  # noqa: F403
from ._core import (
    Generator,
    Tensor,
    affine_grid_generator,
    arange,
    as_tensor,
    bfloat16,
    block_diag,
    bucketize,
    cat,
    cdist,
    complex,
    complex64,
    complex128,
    default_generator,
    dtype,
    einsum,
    float16,
    float32,
    float64,
    from_dlpack,
    from_numpy,
    full,
    get_default_dtype,
    get_num_threads,
    grid_sampler,
    grid_sampler_2d,
    grid_sampler_3d,
    int8,
    int16,
    int32,
    int64,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    isin,
    ones,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
    polar,
    promote_types,
    rand,
    randn,
    searchsorted,
    set_default_dtype,
    set_num_threads,
    stack,
    std_mean,
    tensor,
    tril_indices,
    triu_indices,
    uint8,
    var_mean,
    view_as_complex,
    view_as_real,
    zeros,
)
from ._core import bool as bool  # PyTorch's name for the dtype
from ._device import device, get_default_device, get_device_module, set_default_device
from ._flags import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    use_deterministic_algorithms,
)
from ._functional_forms import *  # noqa: F403  (the torch.* forms of nn.functional)

# Function forms of tensor methods (`fg.exp(x)`, `fg.matmul(a, b)`), generated from the stubs and the op table.
from ._functions import *  # noqa: F403
from ._gradient import gradient
from ._histogram import histogram, histogramdd
from ._info import finfo, iinfo
from ._integrate import cumulative_trapezoid, tensordot, trapezoid, trapz
from ._layout import layout, sparse_coo, strided
from ._legacy_tensors import *  # noqa: F403
from ._linspace import linspace_values as _linspace_values
from ._memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    legacy_contiguous_format,
    memory_format,
    preserve_format,
)
from ._misc_functions import *  # noqa: F403
from ._nn_forms import *  # noqa: F403
from ._norm_functions import *  # noqa: F403
from ._out import *  # noqa: F403  (after _functions: the forms that take more than their method)
from ._random_fills import binomial, poisson, randint_like
from ._size import Size
from ._spectral import istft, stft
from ._splitting import dsplit, hsplit, tensor_split, vsplit
from ._stacking import atleast_1d, atleast_2d, atleast_3d, column_stack, dstack, hstack, row_stack, vstack
from ._tensor_misc import adjoint, index_reduce, put
from ._tensor_vocab import *  # noqa: F403
from ._type import typename
from ._view_copies import *  # noqa: F403
from ._windows import *  # noqa: F403
from .grad_mode import enable_grad, inference_mode, is_inference_mode_enabled, no_grad, set_grad_enabled
from .random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state, thread_safe_generator
from .serialization import load, save

_tensor_python.install()

float = float32
double = float64
cfloat = complex64
cdouble = complex128
half = float16
long = int64
int = int32
short = int16

__version__ = torch_version.TorchVersion(version.__version__)

pi = 3.141592653589793
e = 2.718281828459045
inf = builtins.float("inf")
nan = builtins.float("nan")
newaxis = None


def is_tensor(obj) -> "builtins.bool":
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> "builtins.int":
    return t.numel()


concat = cat
concatenate = cat


def sparse_coo_tensor(indices, values, size=None, **kwargs):
    """A sparse COO tensor (`ferrograd.sparse`, loaded on first use): entries `values` at `indices`."""
    from . import sparse

    return sparse.sparse_coo_tensor(indices, values, size, **kwargs)


def spmm(input, mat2):
    """`input @ mat2` for a sparse (or dense) `input` and a dense `mat2`."""
    return input.mm(mat2)


# ---- creation ----


def _like(input, dtype, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}")
    return input.dtype if dtype is None else dtype


def _finish(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype = _like(input, dtype, "zeros_like")
    return zeros(input.shape, dtype=dtype, device=_device.of_like(input, device), requires_grad=requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype = _like(input, dtype, "ones_like")
    return ones(input.shape, dtype=dtype, device=_device.of_like(input, device), requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype = _like(input, dtype, "full_like")
    device = _device.of_like(input, device)
    return full(input.shape, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def empty(*args, size=None, dtype=None, device=None, requires_grad=False, memory_format=None, out=None):
    """Uninitialised in PyTorch; here zero-filled (reading it is still a bug). The shape as arguments or as
    `size=` (pytorch/examples' gat: `torch.empty(size=(n, m))`)."""
    return zeros(
        *_utils.size_given(args, size, "empty"), out=out, dtype=dtype, device=device, requires_grad=requires_grad
    )


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    _like(input, dtype, "empty_like")
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype = _like(input, dtype, "rand_like")
    return rand(input.shape, dtype=dtype, device=_device.of_like(input, device), requires_grad=requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype = _like(input, dtype, "randn_like")
    return randn(input.shape, dtype=dtype, device=_device.of_like(input, device), requires_grad=requires_grad)


def _steps(steps):
    if isinstance(steps, builtins.bool) or not isinstance(steps, builtins.int):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {_type_name(steps)}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return steps


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    if device is not None:
        _device.check(device)
    steps = _steps(steps)
    dtype = _write_out.factory_dtype("linspace", out, dtype)
    made = _finish(
        _core._linspace(builtins.float(start), builtins.float(end), steps, dtype), requires_grad and out is None
    )
    return _write_out.factory_out("linspace", out, made, keep_shape=True, requires_grad=requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, out=None):
    if device is not None:
        _device.check(device)
    steps = _steps(steps)
    values = [base**v for v in _linspace_values(builtins.float(start), builtins.float(end), steps).tolist()]
    dtype = _write_out.factory_dtype("logspace", out, dtype)
    made = _finish(tensor(values, dtype=float64).to(dtype or get_default_dtype()), requires_grad and out is None)
    return _write_out.factory_out("logspace", out, made, keep_shape=True, requires_grad=requires_grad)


_NO_M = object()  # eye(n): torch's overloads are (n) and (n, m), so an explicit m=None is a TypeError


def eye(n, m=_NO_M, *, dtype=None, device=None, requires_grad=False, out=None):
    if device is not None:
        _device.check(device)
    if n is None:
        raise TypeError("eye(): argument 'n' (position 1) must be int, not NoneType")
    if m is None:
        given = ", ".join(type(a).__name__ for a in ((n,) if m is _NO_M else (n, m)))
        raise TypeError(
            f"eye() received an invalid combination of arguments - got ({given}), but expected one of:\n"
            " * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
            " * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
        )
    if m is _NO_M:
        m = n
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    t = zeros(n, m, dtype=_write_out.factory_dtype("eye", out, dtype))
    if builtins.min(n, m):
        t.diagonal().fill_(1)  # a strided fill: advanced indexing took 74 ms at n = 2048
    return _write_out.factory_out("eye", out, t, requires_grad=requires_grad)


def randint(*args, size=None, dtype=None, device=None, requires_grad=False, generator=None, out=None):
    """`randint(high, size)` or `randint(low, high, size)`: int64 unless `dtype` says otherwise."""
    if device is not None:
        _device.check(device)
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint() received an invalid combination of arguments")
    if isinstance(size, builtins.int):
        raise TypeError("randint(): argument 'size' must be tuple of ints, not int")
    t = _core._randint(builtins.int(low), builtins.int(high), tuple(size), generator)
    dtype = _write_out.factory_dtype("randint", out, dtype)
    if dtype is not None:
        t = t.to(dtype)
    return _write_out.factory_out(
        "randint", out, _finish(t, requires_grad and out is None), requires_grad=requires_grad
    )


def randperm(n, *, dtype=None, device=None, requires_grad=False, generator=None, out=None):
    if device is not None:
        _device.check(device)
    t = _core._randperm(n, generator)
    dtype = _write_out.factory_dtype("randperm", out, dtype)
    if dtype is not None:
        t = t.to(dtype)
    return _write_out.factory_out(
        "randperm", out, _finish(t, requires_grad and out is None), requires_grad=requires_grad
    )


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    """`normal(mean, std, size)` with numbers, or with tensors of means and/or stds (broadcast)."""
    if device is not None:
        _device.check(device)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise RuntimeError("normal(): size is only accepted with number mean and std")
        ref = mean if isinstance(mean, Tensor) else std
        shape = (
            (zeros_like(mean, dtype=float64) + zeros_like(std, dtype=float64)).shape
            if isinstance(mean, Tensor) and isinstance(std, Tensor)
            else ref.shape
        )
        if isinstance(std, Tensor) and builtins.bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        made = randn(shape, generator=generator, dtype=ref.dtype) * std + mean
        if out is not None:
            _write_out._check_out("normal", out, (mean, std), {})
        return _write_out.factory_out("normal", out, made)
    if size is None:
        raise TypeError(
            "normal() received an invalid combination of arguments - got (float, float), but expected a size"
        )
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    # normal_(mean, std) as PyTorch's normal(float, float, size) (one fused multiply-add, not randn·std + mean)
    dtype = _write_out.factory_dtype("normal", out, dtype)
    made = _finish(empty(size, dtype=dtype).normal_(mean, std, generator=generator), requires_grad and out is None)
    return _write_out.factory_out("normal", out, made, requires_grad=requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None):
    if out is not None:
        _write_out._check_out("bernoulli", out, (input,), {})
    return _write_out.factory_out("bernoulli", out, input.bernoulli(p, generator=generator))


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    made = input.multinomial(num_samples, replacement, generator=generator)
    return _write_out.factory_out("multinomial", out, made)


def result_type(tensor1, tensor2):
    """The dtype `tensor1 + tensor2` would have (Python numbers count as weakly typed scalars)."""
    a, b = tensor1, tensor2
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            a = tensor(a)  # two numbers: the first acts as a 0-dim tensor
        else:
            a, b = b, a
    # `where` promotes its two value operands exactly as arithmetic does
    return _core.where(tensor(True), a, b).dtype


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside: for the
# functions defined here (the function forms of _functions and _out raise it themselves; wrapping them again
# would cost every call a frame and `import ferrograd` 171 wrappers)
_utils.typed_entry_points(
    globals(),
    [n for n, v in list(globals().items()) if not n.startswith("_") and getattr(v, "__module__", "") == __name__],
)
# and for the functions of issue 28's vocabulary modules that take tensors
_utils.typed_entry_points(
    globals(),
    [
        "batch_norm_update_stats",
        "binomial",
        "chain_matmul",
        "combinations",
        "convolution",
        "detach_",
        "embedding_renorm_",
        "frobenius_norm",
        "gradient",
        "histogram",
        "histogramdd",
        "is_inference",
        "isreal",
        "native_channel_shuffle",
        "native_layer_norm",
        "norm_except_dim",
        "nuclear_norm",
        "poisson",
        "randint_like",
        "unravel_index",
    ],
)


def svd(input, some=True, compute_uv=True, *, out=None):
    """`torch.svd`: (U, S, V) with ``input = U diag(S) Vᵀ`` (V, not Vh, unlike ``linalg.svd``)."""
    from .linalg import _check_out, _torch_svd

    _check_out(out, "svd")
    return _torch_svd(input, some, compute_uv)


def qr(input, some=True, *, out=None):
    """`torch.qr`: removed from PyTorch in favor of ``linalg.qr``; raises PyTorch's RuntimeError."""
    from .linalg import _removed_qr

    _removed_qr(some)


def lu(A, pivot=True, get_infos=False, out=None):
    """`torch.lu`: deprecated ``linalg.lu_factor`` / ``linalg.lu_factor_ex`` (with `get_infos`)."""
    from .linalg import _check_out, _torch_lu

    _check_out(out, "lu")
    return _torch_lu(A, pivot, get_infos)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """`torch.lu_unpack`: (P, L, U) from ``linalg.lu_factor``'s (LU, pivots)."""
    from .linalg import _check_out, _lu_unpack

    _check_out(out, "lu_unpack")
    return _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """`torch.lu_solve`: deprecated ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    from .linalg import _check_out, _torch_lu_solve

    _check_out(out, "lu_solve")
    return _torch_lu_solve(b, LU_data, LU_pivots)


def cholesky(input, upper=False, *, out=None):
    """`torch.cholesky`: removed from PyTorch in favor of ``linalg.cholesky``; raises PyTorch's RuntimeError."""
    from .linalg import _removed_cholesky

    _removed_cholesky()


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """`torch.matrix_rank`: removed from PyTorch in favor of ``linalg.matrix_rank``; raises PyTorch's RuntimeError."""
    from .linalg import _removed_matrix_rank

    _removed_matrix_rank()


def solve(input, A, *, out=None):
    """`torch.solve`: removed from PyTorch in favor of ``linalg.solve``; raises PyTorch's RuntimeError."""
    from .linalg import _removed_solve

    _removed_solve()


def lstsq(input, A, *, out=None):
    """`torch.lstsq`: removed from PyTorch in favor of ``linalg.lstsq``; raises PyTorch's RuntimeError."""
    from .linalg import _removed_lstsq

    _removed_lstsq()


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """`torch.symeig`: removed from PyTorch in favor of ``linalg.eigh``; raises PyTorch's RuntimeError."""
    from .linalg import _removed_symeig

    _removed_symeig()


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """`torch.triangular_solve`: deprecated; (X with ``A X = b``, a copy of A) for triangular A."""
    from .linalg import _check_out, _torch_triangular_solve

    _check_out(out, "triangular_solve")
    return _torch_triangular_solve(b, A, upper, transpose, unitriangular)


def vander(x, N=None, increasing=False):
    """`torch.vander`: the Vandermonde matrix of the 1-D `x`, powers decreasing unless `increasing`."""
    from ._linalg_products import torch_vander

    return torch_vander(x, N, increasing)


def geqrf(input, *, out=None):
    """`torch.geqrf`: LAPACK's compact Householder QR, (a, tau)."""
    from .linalg import _check_out, _geqrf

    _check_out(out, "geqrf")
    return _geqrf(input)


def pinverse(input, rcond=1e-15):
    """`torch.pinverse`: ``linalg.pinv`` with ``rtol=rcond``."""
    from .linalg import pinv

    return pinv(input, rtol=rcond)


# The subpackages (most of the Python code: `nn` alone is several times the rest) load on first use:
# `fg.nn.Linear`, `from ferrograd import nn` and `import ferrograd.nn as nn` all work as always.
# Type checkers see them as the plain imports they become (`TYPE_CHECKING` is True only for them; the
# constant avoids importing `typing`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import (
        accelerator,
        amp,
        autograd,
        backends,
        compiler,
        cpu,
        cuda,
        distributed,
        distributions,
        func,
        futures,
        jit,
        linalg,
        multiprocessing,
        nn,
        onnx,
        optim,
        profiler,
        return_types,
        signal,
        sparse,
        utils,
        viz,
    )  # fmt: skip
_lazy_submodules.install(
    globals(),
    {
        "__future__",
        "accelerator",
        "_dynamo",
        "_inductor",
        "amp",
        "autograd",
        "backends",
        "compiler",
        "cpu",
        "cuda",
        "distributed",
        "distributions",
        "fft",
        "func",
        "functional",
        "futures",
        "hub",
        "jit",
        "linalg",
        "mps",
        "multiprocessing",
        "nn",
        "onnx",
        "optim",
        "profiler",
        "quasirandom",
        "return_types",
        "signal",
        "sparse",
        "special",
        "utils",
        "viz",
        "xpu",
    },
    # `torch.autocast` is `torch.amp.autocast`, `torch.GradScaler` `torch.amp.GradScaler`
    # `torch.polygamma(n, input)`, `torch.xlogy` and `torch.mvlgamma` are `torch.special`'s
    attributes={
        "autocast": "amp",
        "GradScaler": "amp",
        "vmap": "func",
        "Future": "futures",
        "polygamma": "special",
        "xlogy": "special",
        "mvlgamma": "special",
        "orgqr": "linalg",
        "svd_lowrank": "_lowrank",
        "pca_lowrank": "_lowrank",
        "lobpcg": "_lobpcg",
        **dict.fromkeys(
            ("lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"),
            "_rnn_functions",
        ),
    },
)
