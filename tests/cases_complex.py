"""Cases for complex64/complex128 (issue 28) recorded from torch (tests/golden/record_complex.py) and checked by
tests/test_complex.py: creation and promotion, arithmetic with real tensors and Python numbers (division by zero
too), comparisons, abs/angle/conj, `.real`/`.imag` views, view_as_real/view_as_complex and their errors,
complex()/polar(), reductions, casts, layout ops, printing, the refusal of real-only ops, and gradients."""

import math

import ferrograd as fg
import numpy as np
from recorded import error

NAN = math.nan
INF = math.inf

Z = [1 + 2j, -3.5 + 0.25j, 0j, -0.0 - 1j]
W = [2 - 1j, 0.5 + 0.5j, 1 + 0j, 3j]


def _z(dtype=fg.complex64):
    return fg.tensor(Z, dtype=dtype)


def _w(dtype=fg.complex64):
    return fg.tensor(W, dtype=dtype)


def _grid():
    """A 2x3 complex64 tensor read through a transpose: non-contiguous."""
    return fg.tensor([[1 + 1j, 2 - 1j], [0.5j, -3 + 0j], [4 + 4j, -1 - 2j]]).t()


def _raised_type(fn, *args, **kwargs):
    """Only the exception's type (ferrograd names the refused op by its aten name, torch by its kernel's)."""
    return error(fn, *args, **kwargs).type


def creation():
    return {
        "list": fg.tensor(Z),
        "mixed": fg.tensor([1, 2.5, 3j]),
        "nested": fg.tensor([[1j, 2], [3, 4 + 0.5j]]),
        "complex128": fg.tensor(Z, dtype=fg.complex128),
        "ints_as_complex": fg.tensor([1, 2], dtype=fg.complex64),
        "numpy": fg.tensor(np.array([[1 + 2j, 3j]])),
        "numpy_complex64": fg.tensor(np.array([1 + 2j, 3j], dtype=np.complex64)),
        "scalar": fg.tensor(2 - 3j),
        "zeros": fg.zeros(2, 3, dtype=fg.complex64),
        "ones": fg.ones(2, dtype=fg.cdouble),
        "full": fg.full((2,), 1 + 2j),
        "full_real_value": fg.full((2,), 3.0, dtype=fg.cfloat),
        "empty_shape": list(fg.empty(2, 3, dtype=fg.complex128).shape),
        "empty_dtype": fg.empty(0, dtype=fg.cfloat).dtype,
        "full_complex_into_float": error(fg.full, (2,), 1j, dtype=fg.float32),
        "complex_into_float": error(fg.tensor, [1 + 2j], dtype=fg.float32),
    }


def dtypes():
    return {
        "aliases": [fg.cfloat, fg.cdouble],
        "is_complex": [fg.complex64.is_complex, fg.complex128.is_complex, fg.float32.is_complex],
        "is_floating_point": [fg.complex64.is_floating_point, fg.complex128.is_floating_point],
        "itemsize": [fg.complex64.itemsize, fg.complex128.itemsize],
        "tensor_is_complex": [_z().is_complex(), fg.is_complex(_z()), fg.tensor([1.0]).is_complex()],
        "promote": [
            fg.promote_types(fg.float32, fg.complex64),
            fg.promote_types(fg.float64, fg.complex64),
            fg.promote_types(fg.int64, fg.complex64),
            fg.promote_types(fg.complex128, fg.float16),
            fg.promote_types(fg.bool, fg.complex64),
        ],
        "float64_plus_complex64": (fg.tensor([1.0], dtype=fg.float64) + _z()[:1]).dtype,
        "float64_plus_1j": (fg.tensor([1.0], dtype=fg.float64) + 1j).dtype,
        "int_plus_1j": (fg.tensor([1]) + 1j).dtype,
        "complex64_plus_float64_0d": (_z() + fg.tensor(1.0, dtype=fg.float64)).dtype,
        "complex64_plus_complex128_0d": (_z() + fg.tensor(1j, dtype=fg.complex128)).dtype,
        "result_type": fg.result_type(fg.tensor([1]), 1j),
    }


def default_float64():
    fg.set_default_dtype(fg.float64)
    try:
        return {
            "tensor": fg.tensor([1 + 2j]),
            "int_plus_1j": (fg.tensor([1]) + 1j).dtype,
            "float32_plus_1j": (fg.tensor([1.0], dtype=fg.float32) + 1j).dtype,
            "repr": repr(fg.tensor([1 + 2j])),
            "repr_complex64": repr(fg.tensor([1 + 2j], dtype=fg.complex64)),
        }
    finally:
        fg.set_default_dtype(fg.float32)


def arithmetic():
    z, w = _z(), _w()
    return {
        "add": z + w,
        "sub": z - w,
        "mul": z * w,
        "div": z / w,
        "neg": -z,
        "add_real": z + fg.tensor([1.0, 2.0, 3.0, 4.0]),
        "mul_real_broadcast": z.reshape(2, 2) * fg.tensor([[2.0], [-1.0]]),
        "div_by_real": z / 2,
        "mul_number": z * (2 - 1j),
        "rsub_number": 1 - z,
        "rdiv_number": 2 / w,
        "number_plus_real_tensor": fg.tensor([1.0, 2.0]) + 1j,
        "alpha": fg.add(z, w, alpha=2),
        "complex128": _z(fg.complex128) * _w(fg.complex128) / (_w(fg.complex128) + 1),
        "non_contiguous": _grid() * _grid().conj(),
        "div_by_zero": fg.tensor([1 + 1j, 0j, 1 + 0j, -1 + 0j]) / fg.tensor([0j, 0j, 0j, 0j]),
        "div_extremes": fg.tensor([1e30 + 1e30j, 1 + 1j], dtype=fg.complex64) / fg.tensor([1e30 - 1e30j, 1e-30j]),
    }


def comparisons():
    z = _z()
    return {
        "eq": z == fg.tensor([1 + 2j, -3.5, 0, -1j]),
        "ne": z != fg.tensor([1 + 2j, -3.5, 0, -1j]),
        "eq_number": z == 0,
        "eq_complex_number": z == (1 + 2j),
        "eq_real_tensor": fg.tensor([1 + 0j, 1j]) == fg.tensor([1.0, 0.0]),
        "isclose": fg.isclose(z, z + 1e-7),
        "isclose_far": fg.isclose(z, z + 1e-3j),
        "isclose_nan": fg.isclose(fg.tensor([complex(NAN, 0), 1j]), fg.tensor([complex(NAN, 0), 1j])),
        "isclose_equal_nan": fg.isclose(
            fg.tensor([complex(NAN, 0), complex(0, NAN)]), fg.tensor([complex(0, NAN), complex(NAN, 1)]), equal_nan=True
        ),
        "isclose_inf": fg.isclose(fg.tensor([complex(INF, 0), complex(INF, 1)]), fg.tensor([complex(INF, 0), 0j])),
        "allclose": [fg.allclose(z, z * (1 + 1e-7)), fg.allclose(z, z * 1.01)],
        "isclose_dtype_mismatch": error(fg.isclose, z, fg.tensor([1.0, 2.0, 3.0, 4.0])),
        "isreal": fg.isreal(fg.tensor([1 + 0j, 1j, -0.0 + 0j])),
    }


def parts():
    z = _z()
    zero_abs = fg.tensor([0j, 3 - 4j, complex(INF, 1), complex(NAN, 0)])
    return {
        "real": z.real,
        "imag": z.imag,
        "real_fn": fg.real(z),
        "imag_fn": fg.imag(z),
        "real_of_real": fg.tensor([1.0, 2.0]).real,
        "imag_of_real": error(lambda: fg.tensor([1.0]).imag),
        "abs": z.abs(),
        "abs_fn": fg.abs(_z(fg.complex128)),
        "abs_edges": zero_abs.abs(),
        "angle": z.angle(),
        "angle_fn": fg.angle(_z(fg.complex128)),
        "angle_real": fg.angle(fg.tensor([-1.0, 0.0, -0.0, 2.0, NAN, -INF])),
        "angle_int": fg.angle(fg.tensor([-2, 0, 3])),
        "conj": z.conj(),
        "conj_fn": fg.conj(z),
        "conj_physical": fg.conj_physical(z),
        "conj_of_real": fg.tensor([1.0, -2.0]).conj(),
        "resolve_conj": fg.resolve_conj(z.conj()),
        "real_strides": [z.real.stride(), z.imag.storage_offset(), z.imag.stride()],
    }


def real_imag_write_through():
    z = _z()
    z.real.mul_(2)
    z.imag[1] = 7.0
    z[0] = 5 - 5j
    w = _grid()
    w.imag.zero_()
    return {"z": z, "w": w}


def views():
    z = _grid()
    pairs = fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    as_complex = fg.view_as_complex(pairs)
    as_complex[1] = 0
    return {
        "view_as_real": fg.view_as_real(z),
        "view_as_real_strides": [list(fg.view_as_real(z).stride()), list(fg.view_as_real(_z()[1:]).stride())],
        "view_as_real_offset": fg.view_as_real(_z()[1:]).storage_offset(),
        "view_as_complex": fg.view_as_complex(fg.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=fg.float64)),
        "view_as_complex_writes_through": pairs,
        "view_as_complex_strides": list(fg.view_as_complex(fg.zeros(3, 4, 2)[:, ::2]).stride()),
        "real_input": error(fg.view_as_real, fg.tensor([1.0])),
        "int_input": error(fg.view_as_complex, fg.zeros(2, 2, dtype=fg.int64)),
        "last_dim_3": error(fg.view_as_complex, fg.zeros(3, 3)),
        "zero_dim": error(fg.view_as_complex, fg.tensor(1.0)),
        "last_stride": error(fg.view_as_complex, fg.zeros(2, 3).t()),
        "odd_stride": error(fg.view_as_complex, fg.zeros(3, 3)[:, :2]),
        "odd_offset": error(fg.view_as_complex, fg.zeros(7)[1:].view(3, 2)),
    }


def constructors():
    re, im = fg.tensor([1.0, -2.0, 0.0]), fg.tensor([0.5, 3.0, -0.0])
    return {
        "complex": fg.complex(re, im),
        "complex_broadcast": fg.complex(fg.tensor([[1.0], [2.0]]), fg.tensor([0.0, 1.0, 2.0])),
        "complex_float64": fg.complex(re.double(), im.double()),
        "complex_int": error(fg.complex, fg.tensor([1]), fg.tensor([2])),
        "complex_mixed": error(fg.complex, re, im.double()),
        "polar": fg.polar(fg.tensor([1.0, 2.0, 0.0]), fg.tensor([0.5, -1.0, 3.0])),
        "polar_float64": fg.polar(fg.tensor([2.0], dtype=fg.float64), fg.tensor([math.pi / 3], dtype=fg.float64)),
        "polar_mixed": error(fg.polar, re, im.double()),
    }


def reductions():
    z = _grid()
    return {
        "sum": z.sum(),
        "sum_dim": z.sum(0),
        "sum_keepdim": z.sum(-1, keepdim=True),
        "sum_dims": z.sum((0, 1)),
        "mean": z.mean(),
        "mean_dim": fg.mean(z, 1),
        "sum_0d": fg.tensor(1 + 1j).sum(),
        "sum_empty": fg.zeros(0, 3, dtype=fg.complex64).sum(0),
        "mean_complex128": _z(fg.complex128).mean(),
    }


def casts():
    z = _z()
    return {
        "to_complex128": z.to(fg.complex128),
        "to_complex64": _z(fg.complex128).to(fg.complex64),
        "real_to_complex": fg.tensor([1.5, -2.0]).to(fg.complex64),
        "int_to_complex": fg.tensor([1, -2]).to(fg.cdouble),
        "bool_to_complex": fg.tensor([True, False]).to(fg.complex64),
        "to_float": z.to(fg.float32),
        "to_double": z.double(),
        "to_long": fg.tensor([1.7 + 2j, -2.5 + 1j]).long(),
        "type_as": fg.tensor([1.0]).type_as(z),
    }


def layout():
    z = _grid()
    return {
        "contiguous": z.contiguous(),
        "is_contiguous": [z.is_contiguous(), z.contiguous().is_contiguous()],
        "clone": z.clone(),
        "clone_strides": list(z.clone().stride()),
        "reshape": z.reshape(6),
        "permute": z.permute(1, 0),
        "transpose": z.transpose(0, 1),
        "index": z[1, 1:],
        "slice_step": _z()[::2],
        "unsqueeze": z.unsqueeze(0).shape,
        "flatten": z.flatten(),
        "expand": fg.tensor([1j]).expand(2, 3),
        "cat": fg.cat([z, z.conj()], 1),
        "cat_real": fg.cat([fg.tensor([1 + 2j]), fg.tensor([3.0])]),
        "cat_negative_dim": fg.cat([z, z], -1),
        "stack": fg.stack([_z(), _w()], -1),
        "stack_dim0": fg.stack([_z(), _w()]),
        "numel": [z.numel(), z.element_size(), _z(fg.complex128).element_size()],
    }


def python_values():
    z = _grid()
    return {
        "item": fg.tensor([[1.5 - 2j]]).item(),
        "item_complex128": fg.tensor(-0.5j, dtype=fg.complex128).item(),
        "builtin_complex": [complex(fg.tensor(1 - 1j)), complex(fg.tensor([2.5]))],
        "tolist": str(z.tolist()),
        "numpy": str(_z().numpy()),
        "numpy_dtype": str(_z(fg.complex128).numpy().dtype),
        "from_numpy": fg.from_numpy(np.array([1 + 2j, 3j], dtype=np.complex64)),
        "from_numpy_complex128": fg.from_numpy(np.array([[1 + 2j], [3j]])),
    }


def printing():
    return {
        "simple": repr(fg.tensor([1 + 2j, 3 - 1j])),
        "fractions": repr(fg.tensor([1.5 + 2j, -3.25 - 1e-3j])),
        "signed_zeros": repr(fg.tensor([[1 + 2j, 3 - 1j], [0j, complex(-0.0, -0.0)]])),
        "sci": repr(fg.tensor([1e10 + 1j, 1j])),
        "scalar": repr(fg.tensor(2 + 3j)),
        "complex128": repr(fg.tensor([1 + 2j], dtype=fg.complex128)),
        "empty": repr(fg.zeros(0, dtype=fg.complex64)),
        "empty_complex128": repr(fg.zeros(2, 0, dtype=fg.complex128)),
        "nonfinite": repr(fg.tensor([complex(NAN, 1), complex(INF, -INF)])),
        "summarized": repr(fg.tensor(np.arange(2000).reshape(40, 50) * (1 + 0.5j))),
        "wrapped": repr(fg.tensor(np.linspace(-3, 3, 30) * (0.3 - 1.7j), dtype=fg.complex64)),
        "requires_grad": repr(fg.ones(3, dtype=fg.cfloat, requires_grad=True)),
        "grad_fn": repr(fg.ones(2, dtype=fg.cfloat, requires_grad=True) * 2),
        "str": str(fg.tensor([[1 + 2j, 3 - 1j]])),
    }


def refused_ops():
    """Real-only ops torch also refuses for complex input (NotImplementedError, a RuntimeError)."""
    z = _z()
    ops = {
        "max": lambda: z.max(),
        "min": lambda: fg.min(z),
        "lt": lambda: z < z,
        "ge_number": lambda: z >= 1,
        "clamp": lambda: z.clamp(0, 1),
        "relu": lambda: fg.relu(z),
        "floor": lambda: z.floor(),
        "round": lambda: z.round(),
        "remainder": lambda: z % 2,
        "floor_divide": lambda: z // 2,
        "atan2": lambda: fg.atan2(z, z),
        "fmod": lambda: fg.fmod(z, 2),
        "bitwise_and": lambda: z & z,
        "gelu": lambda: fg.nn.functional.gelu(z),
        "log_softmax": lambda: z.log_softmax(0),
        "heaviside": lambda: fg.heaviside(z, z),
        "sign": lambda: z.sign(),
        "arange": lambda: fg.arange(3, dtype=fg.cfloat),
    }
    return {name: _raised_type(fn) for name, fn in ops.items()}


def _grads(fn, *tensors):
    """`fn(*tensors)` (a real result) and the gradients of its sum weighted by 1, 2, 3, ..."""
    leaves = [t.detach().clone().requires_grad_(True) for t in tensors]
    y = fn(*leaves)
    w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    return [y, *fg.autograd.grad((y * w).sum(), leaves, allow_unused=True)]


def gradients():
    x = fg.tensor([0.5, -1.25, 2.0, 0.0], dtype=fg.float64)
    z = _z(fg.complex128)
    w = _w(fg.complex128)
    return {
        "mul": _grads(lambda a, b: fg.view_as_real(a * b), z, w),
        "div": _grads(lambda a, b: fg.view_as_real(a / b), z, w),
        "add_sub_neg": _grads(lambda a, b: fg.view_as_real(-(a + b) - b), z, w),
        "abs": _grads(lambda a: a.abs(), z),
        "abs_real_parts": _grads(lambda a: fg.complex(a, a * 2).abs(), x),
        "real_imag": _grads(lambda a: a.real * 3 + a.imag, z),
        "complex_of_real": _grads(lambda a, b: fg.view_as_real(fg.complex(a, b) * (1 - 2j)), x, x.flip(0)),
        "polar": _grads(lambda r, t: fg.view_as_real(fg.polar(r, t)), x.abs() + 0.5, x),
        "angle": _grads(lambda a: a.angle(), w),
        "conj": _grads(lambda a: fg.view_as_real(a.conj() * w), z),
        "sum_mean": _grads(lambda a: fg.view_as_real(a.sum(0, keepdim=True) + a.mean()), z.reshape(2, 2)),
        "real_times_complex": _grads(lambda a: fg.view_as_real(a * w), x),
        "reciprocal": _grads(lambda a: fg.view_as_real(1 / a), w),
        "view_as_complex": _grads(lambda a: (fg.view_as_complex(a) * (2 + 1j)).abs(), x.reshape(2, 2)),
        "to_complex": _grads(lambda a: (a.to(fg.complex128) * (1 + 1j)).imag, x),
        "cat_stack": _grads(lambda a: fg.view_as_real(fg.cat([a, fg.stack([a, a], 0).sum(0)])), z),
        "implicit_complex_root": error(lambda: z.clone().requires_grad_().sum().backward()),
        "grad_fn_names": [
            (z.requires_grad_() * w).grad_fn.name(),
            (z / w).grad_fn.name(),
            (-z).grad_fn.name(),
            z.abs().grad_fn.name(),
            fg.view_as_real(z).grad_fn.name(),
            fg.view_as_complex(x.reshape(2, 2).requires_grad_()).grad_fn.name(),
            z.real.grad_fn.name(),
            z.conj().grad_fn.name(),
            fg.complex(x.requires_grad_(), x).grad_fn.name(),
            z.sum().grad_fn.name(),
            z.sum(0).grad_fn.name(),
            z.mean().grad_fn.name(),
            z.mean(0, keepdim=True).grad_fn.name(),
        ],
    }


def _edges(dtype=fg.complex128):
    """Complex values at the edges: zeros (signed), infinite and NaN parts, and ordinary points."""
    inf, nan = float("inf"), float("nan")
    re = [0.0, -0.0, 1.0, -2.5, inf, -inf, nan, 0.0, 1.0, inf, -inf, nan, 0.5, 3.0]
    im = [0.0, 0.0, -0.0, 1.5, 0.0, 0.0, 0.0, inf, nan, inf, 2.0, nan, -0.75, -40.0]
    return fg.complex(fg.tensor(re, dtype=fg.float64), fg.tensor(im, dtype=fg.float64)).to(dtype)


def complex_math():
    """The transcendental functions of complex tensors, at the edges too, both complex dtypes."""
    z, z64 = _edges(), _edges(fg.complex64)
    ops = {
        "exp": fg.exp,
        "log": fg.log,
        "sqrt": fg.sqrt,
        "sin": fg.sin,
        "cos": fg.cos,
        "tanh": fg.tanh,
        "sigmoid": fg.sigmoid,
    }
    out = {name: op(z) for name, op in ops.items()}
    out.update({f"{name}_complex64": op(z64[[2, 3, 12]]) for name, op in ops.items()})
    out["methods"] = [z.exp(), z.log(), z.sqrt(), z.sin(), z.cos(), z.tanh(), z.sigmoid()]
    return out


MORE_MATH = {
    "tan": fg.tan,
    "sinh": fg.sinh,
    "cosh": fg.cosh,
    "log10": fg.log10,
    "log2": fg.log2,
    "rsqrt": fg.rsqrt,
    "expm1": fg.expm1,
    "log1p": fg.log1p,
}


def complex_math_more():
    """tan, sinh, cosh, log10, log2, rsqrt, expm1 and log1p of complex tensors at the edges, at large parts (where
    cosh and sinh overflow) and tiny ones, both complex dtypes; their gradients and grad_fn names."""
    large = fg.tensor(
        [800.0 + 0.5j, -800.0 + 3.0j, 30.0 - 1.0j, 1e300 + 1e300j, 1e-20 + 1e-20j, -1.0 + 0.0j, 0.25 - 0.1j],
        dtype=fg.complex128,
    )
    z = fg.cat([_edges(), large])
    z64 = _edges(fg.complex64)
    out = {name: op(z) for name, op in MORE_MATH.items()}
    out.update({f"{name}_complex64": op(z64[[2, 3, 12]]) for name, op in MORE_MATH.items()})
    w = fg.tensor([0.5 - 0.75j, -1.25 + 0.5j, 2.0 + 1.0j, -0.3 - 2.0j], dtype=fg.complex128)
    out.update({f"{name}_grad": _grads(lambda a, op=op: fg.view_as_real(op(a)), w) for name, op in MORE_MATH.items()})
    out["grad_fn_names"] = [op(w.detach().requires_grad_()).grad_fn.name() for op in MORE_MATH.values()]
    return out


def complex_math_gradients():
    z = fg.tensor([0.5 - 0.75j, -1.25 + 0.5j, 2.0 + 1.0j, -0.3 - 2.0j], dtype=fg.complex128)
    ops = {
        "exp": fg.exp,
        "log": fg.log,
        "sqrt": fg.sqrt,
        "sin": fg.sin,
        "cos": fg.cos,
        "tanh": fg.tanh,
        "sigmoid": fg.sigmoid,
    }
    out = {name: _grads(lambda a, op=op: fg.view_as_real(op(a)), z) for name, op in ops.items()}
    out["grad_fn_names"] = [op(z.detach().requires_grad_()).grad_fn.name() for op in ops.values()]
    return out


def complex_pow():
    """`**` of complex tensors: by the real numbers torch computes by products, roots and reciprocals, by other
    numbers, by complex numbers and tensors, real tensors by complex ones, at the edges too."""
    z = _edges()
    w = fg.tensor([0.5 - 0.75j, -1.25 + 0.5j, 2.0 + 1.0j, -0.3 - 2.0j], dtype=fg.complex128)
    finite = z[[0, 2, 3, 12, 13]]
    out = {f"number_{e}": finite**e for e in (0, 1, 2, 3, 0.5, -0.5, -1, -2, 1.5, -2.5)}
    out["number_zero_edges"] = z**0
    out["complex_number"] = w ** (0.5 + 0.25j)
    out["tensor_tensor"] = w ** w.flip(0)
    out["real_tensor_complex_tensor"] = fg.tensor([2.0, 0.5, 3.0, 1.5], dtype=fg.float64) ** w
    out["number_complex_tensor"] = 2**w
    out["complex64"] = w.to(fg.complex64) ** 1.5
    out["pow_method"] = w.pow(2.5)
    out["grad_number"] = _grads(lambda a: fg.view_as_real(a**1.5), w)
    out["grad_number_two"] = _grads(lambda a: fg.view_as_real(a**2), w)
    out["grad_tensor_tensor"] = _grads(lambda a, b: fg.view_as_real(a**b), w, w.flip(0) * 0.5)
    out["grad_number_base"] = _grads(lambda a: fg.view_as_real(2**a), w)
    out["grad_fn_names"] = [
        (w.detach().requires_grad_() ** 1.5).grad_fn.name(),
        (w.detach().requires_grad_() ** w).grad_fn.name(),
        (2 ** w.detach().requires_grad_()).grad_fn.name(),
    ]
    return out


def complex_matmul():
    """Matrix products of complex tensors (`mm`, `bmm`, `matmul`/`@`, `mv`, `dot`) and their gradients."""
    k = np.arange(24.0)
    a = fg.tensor((np.cos(k) + 1j * np.sin(2 * k)).reshape(2, 3, 4))
    b = fg.tensor((k / 7 - 1j * np.cos(k / 3)).reshape(2, 4, 3))
    v = fg.tensor(np.arange(4.0) - 1j)
    return {
        "mm": a[0].mm(b[0]),
        "bmm": a.bmm(b),
        "matmul_broadcast": fg.matmul(a, b[0]),
        "operator": a[1] @ b[1],
        "mv": a[0].mv(v),
        "dot": v.dot(v.flip(0)),
        "matmul_vector": a @ v,
        "complex64": a.to(fg.complex64) @ b.to(fg.complex64),
        "non_contiguous": a[0].t() @ b[1].t(),
        "mixed_dtypes": error(fg.mm, a[0], b[0].real),
        "linear": fg.nn.functional.linear(a[0], b[0].t(), v[:3]),
        "index_by_tensor": a[0][fg.tensor([2, 0])],
        "index_put": a[0].index_put((fg.tensor([1, 0]),), a[1][:2]),
        "grad_mm": _grads(lambda x, y: fg.view_as_real(x.mm(y)), a[0], b[0]),
        "grad_bmm": _grads(lambda x, y: fg.view_as_real(x.bmm(y)), a, b),
        "grad_matmul": _grads(lambda x, y: fg.view_as_real(x @ y), a, v),
        "grad_dot": _grads(lambda x, y: fg.view_as_real(x.dot(y)), v, v.flip(0) * 2j),
        "grad_fn_names": [
            a[0].requires_grad_().mm(b[0]).grad_fn.name(),
            a.requires_grad_().bmm(b).grad_fn.name(),
            (a[0] @ v).grad_fn.name(),
            (v.requires_grad_() @ v).grad_fn.name(),
        ],
    }


def real_complex_mixing():
    """A real tensor times, plus, over a complex one: promoted (float32 with complex128 is complex128)."""
    x = fg.tensor([0.5, -1.0, 2.0])
    w = fg.tensor([1 + 2j, -0.5j, 3.0 + 0j], dtype=fg.complex128)
    return {
        "mul": x * w,
        "mul_float64": x.double() * w.to(fg.complex64),
        "div": w / x,
        "rdiv": x / w,
        "add_int": fg.tensor([1, 2, 3]) + w,
        "grads": _grads(lambda a, b: fg.view_as_real(a * b + b / a), x.double(), w),
    }


def angle_polar():
    """AngleBackward0 and PolarBackward0: torch's rules, at the edges too (angle at 0, polar at abs 0 or
    negative, where torch's rule uses sgn(result))."""
    x = fg.tensor([0.5, -1.25, 0.0, -0.0, float("nan")], dtype=fg.float64)
    z = fg.tensor([1 + 1j, 0j, -2 + 0j, -2 - 0j, 3j], dtype=fg.complex128)
    r = fg.tensor([1.5, 0.0, -2.0, 0.25], dtype=fg.float64)
    t = fg.tensor([0.3, -1.0, 2.5, 0.0], dtype=fg.float64)
    return {
        "angle_complex": _grads(lambda a: a.angle(), z),
        "angle_real": _grads(lambda a: fg.angle(a), x),
        "angle_int": fg.angle(fg.tensor([-2, 0, 3])),
        "angle_float32": fg.angle(x.float()),
        "polar": _grads(lambda a, b: fg.view_as_real(fg.polar(a, b)), r, t),
        "polar_float32": fg.polar(r.float(), t.float()),
        "grad_fn_names": [
            z.requires_grad_().angle().grad_fn.name(),
            fg.angle(x.requires_grad_()).grad_fn.name(),
            fg.polar(r.requires_grad_(), t).grad_fn.name(),
            z.conj_physical().grad_fn.name(),
        ],
    }


CASES = {
    f.__name__: f
    for f in (
        angle_polar,
        complex_pow,
        complex_matmul,
        real_complex_mixing,
        complex_math,
        complex_math_gradients,
        complex_math_more,
        creation,
        dtypes,
        default_float64,
        arithmetic,
        comparisons,
        parts,
        real_imag_write_through,
        views,
        constructors,
        reductions,
        casts,
        layout,
        python_values,
        printing,
        refused_ops,
        gradients,
    )
}
