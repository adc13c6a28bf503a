"""The narrow dtypes: int8/uint8/int16/int32 and the 16-bit floats float16/bfloat16.

Storage is the dtype's own (element_size, numpy views); the halves compute in float32 and round
each result back; the ints wrap on overflow; promotion follows torch's table."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import DTYPE_PREFIX, MODULE_PREFIX, PROMOTION

NARROW = ["uint8", "int8", "int16", "int32", "float16", "bfloat16"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
ITEMSIZE = {
    "bool": 1,
    "uint8": 1,
    "int8": 1,
    "int16": 2,
    "int32": 4,
    "int64": 8,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
}
FLOATS = {"float16", "bfloat16", "float32", "float64"}


def dt(name):
    return getattr(fg, name)


# ---- the dtype objects ----


@pytest.mark.parametrize("name", ALL)
def test_dtype_attributes(name):
    d = dt(name)
    assert repr(d) == DTYPE_PREFIX + name
    assert d.itemsize == ITEMSIZE[name]
    assert d.is_floating_point == (name in FLOATS)
    assert d.is_signed == (name not in ("bool", "uint8"))
    assert fg.zeros(2, dtype=d).element_size() == ITEMSIZE[name]
    assert fg.zeros(2, dtype=d).dtype == d


def test_aliases():
    assert fg.half is fg.float16 and fg.short is fg.int16 and fg.int is fg.int32
    assert fg.float is fg.float32 and fg.double is fg.float64 and fg.long is fg.int64


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("b", ALL)
def test_promote_types_table(a, b):
    assert fg.promote_types(dt(a), dt(b)) == dt(PROMOTION[a, b])
    if a == "bool" and b == "bool":
        return
    out = fg.ones(2, dtype=dt(a)) * fg.ones(2, dtype=dt(b))
    assert out.dtype == dt(PROMOTION[a, b])


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: fg.ones(2, dtype=fg.int8) + 1, "int8"),
        (lambda: fg.ones(2, dtype=fg.int8) + 2.5, "float32"),
        (lambda: fg.ones(2, dtype=fg.float16) + 2.5, "float16"),
        (lambda: fg.ones(2, dtype=fg.int8) + fg.tensor(3), "int8"),
        (lambda: fg.ones(2, dtype=fg.int8) + fg.tensor(3.0, dtype=fg.float64), "float64"),
        (lambda: fg.ones(2, dtype=fg.bfloat16) + fg.tensor(3.0, dtype=fg.float64), "bfloat16"),
        (lambda: fg.ones(2, dtype=fg.bool) + fg.tensor(3, dtype=fg.int32), "int32"),
        (lambda: fg.ones(2, dtype=fg.uint8) / 2, "float32"),
        (lambda: fg.ones(2, dtype=fg.float16) / 2, "float16"),
    ],
)
def test_result_type_with_scalars_and_zero_dim(make, expected):
    assert make().dtype == dt(expected)


def test_result_type_function():
    assert fg.result_type(fg.ones(2, dtype=fg.int8), fg.ones(2, dtype=fg.uint8)) == fg.int16
    assert fg.result_type(fg.ones(2, dtype=fg.float16), 1.5) == fg.float16


# ---- values ----


def test_int_overflow_wraps():
    assert (fg.tensor([127], dtype=fg.int8) + 1).tolist() == [-128]
    assert (fg.tensor([250], dtype=fg.uint8) + 10).tolist() == [4]
    assert (fg.tensor([100], dtype=fg.int8) * 3).tolist() == [44]  # 300 mod 256
    assert (-fg.tensor([-128], dtype=fg.int8)).tolist() == [-128]
    assert fg.tensor([-128], dtype=fg.int8).abs().tolist() == [-128]
    assert (fg.tensor([2**31 - 1], dtype=fg.int32) + 1).tolist() == [-(2**31)]


def test_conversions_wrap_and_truncate():
    assert fg.tensor([300.0]).to(fg.int8).tolist() == [44]
    assert fg.tensor([-1]).to(fg.uint8).tolist() == [255]
    assert fg.tensor([-2.7, 2.7]).to(fg.int32).tolist() == [-2, 2]
    assert fg.tensor([1, 0, 3], dtype=fg.int8).bool().tolist() == [True, False, True]


def test_half_rounds_every_result():
    x = fg.tensor([1.0, 2049.0, 0.1], dtype=fg.float16)
    np.testing.assert_array_equal(x.numpy(), np.array([1.0, 2049.0, 0.1], dtype=np.float16))
    # 2048 + 1 is not representable in float16: rounds to even (2048)
    assert (fg.tensor([2048.0], dtype=fg.float16) + 1).item() == 2048.0
    # bfloat16 keeps 8 significant bits: 1 + 1/256 rounds back to 1
    assert (fg.tensor([1.0], dtype=fg.bfloat16) + 1 / 256).item() == 1.0
    assert fg.tensor([0.1], dtype=fg.bfloat16).item() == 0.10009765625
    # overflow to inf, as float16 does
    assert (fg.tensor([60000.0], dtype=fg.float16) * 2).item() == float("inf")


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_math_matches_float32_rounded(name):
    v = np.array([0.5, 1.25, -2.0, 3.0], dtype=np.float32)
    x = fg.tensor(v.tolist(), dtype=dt(name))
    xs = x.float().numpy().astype(np.float64)  # the stored values
    for got, f in [
        (x.exp(), np.exp),
        (x.sin(), np.sin),
        (x.tanh(), np.tanh),
        (x.abs(), np.abs),
        (x.sigmoid(), lambda a: 1 / (1 + np.exp(-a))),
    ]:
        assert got.dtype == dt(name)
        expected = fg.tensor(f(xs).astype(np.float32).tolist()).to(dt(name))  # round the float32 result once
        np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())
    assert x.sum().dtype == dt(name) and x.sum().item() == float(xs.sum())
    assert x.mean().dtype == dt(name)
    assert x.softmax(0).dtype == dt(name)


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "uint8"])
def test_arithmetic_with_a_bool_mask_on_either_side_is_numpys(name):
    # the mask is read as bool and converted value by value (no cast of the whole mask first)
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((40, 300)) * 50 if "float" in name else rng.integers(1, 90, (40, 300))).astype(name)
    mask = rng.random((40, 300)) < 0.3
    x, m = fg.tensor(a.tolist(), dtype=dt(name)), fg.tensor(mask.tolist())
    for got, want in [
        (x * m, a * mask),
        (m * x, mask * a),
        (x + m, a + mask),
        (m + x, mask + a),
        (x * m[:, :1], a * mask[:, :1]),  # a broadcast mask
        (x.t() * m.t(), (a * mask).T),  # transposed operands
        (x[:, ::2] + m[:, 1::2], a[:, ::2] + mask[:, 1::2]),  # strided ones
    ]:
        assert got.dtype == dt(name) and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
    # a mask times a number (float32) or a float64 tensor, 0-dim (its category is higher) or not: the promoted dtype
    for other in [0.5, fg.tensor(0.5, dtype=fg.float64), fg.tensor(0.5, dtype=fg.float64).expand(40, 300)]:
        want = fg.float64 if isinstance(other, fg.Tensor) else fg.float32
        for got in (m * other, other * m):
            assert got.dtype == want
            np.testing.assert_array_equal(got.numpy(), mask * 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(
            (x / m).numpy(), (a / mask).astype(np.float64 if name == "float64" else np.float32)
        )


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int32", "int64"])
def test_integer_sums_over_rows_and_other_dims_are_int64_as_numpys(name):
    # contiguous rows are summed in their own type, anything else through the layout: both int64, wrapping as torch
    big = np.iinfo(np.int64).max if name == "int64" else 100
    a = np.random.default_rng(0).integers(0, 2 if name == "bool" else 120, (7, 5, 300)).astype(name)
    if name == "int64":
        a[0, 0, :2] = big  # wraps, as torch's int64 sum
    x = fg.tensor(a.tolist(), dtype=dt(name))
    with np.errstate(over="ignore"):
        for dims, keepdim in [(-1, True), (-1, False), ((1, 2), False), (0, True), (1, False), (None, False)]:
            got = x.sum() if dims is None else x.sum(dims, keepdim=keepdim)
            want = a.astype(np.int64).sum(axis=dims, keepdims=keepdim)
            assert got.dtype == fg.int64 and got.shape == want.shape
            np.testing.assert_array_equal(got.numpy(), want)
        # a transposed view and rows of zero length
        np.testing.assert_array_equal(x.transpose(1, 2).sum(-1).numpy(), a.astype(np.int64).sum(axis=1))
    assert fg.zeros(3, 0, dtype=dt(name)).sum(-1).tolist() == [0, 0, 0]


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32"])
def test_int_ops(name):
    a = np.array([1, 2, 3, 4], dtype=name)
    x = fg.tensor(a.tolist(), dtype=dt(name))
    assert (x + x).dtype == dt(name)
    np.testing.assert_array_equal((x * x).numpy(), a * a)
    np.testing.assert_array_equal((x - 1).numpy(), a - 1)
    assert x.sum().dtype == fg.int64 and x.sum().item() == 10
    assert x.exp().dtype == fg.float32
    assert (x / 2).dtype == fg.float32
    assert (x == x).all().item()
    assert x.max().item() == 4 and x.max().dtype == dt(name)
    np.testing.assert_array_equal(fg.maximum(x, fg.tensor(2, dtype=dt(name))).numpy(), np.maximum(a, 2))
    np.testing.assert_array_equal((x @ x).numpy(), a @ a)
    np.testing.assert_array_equal(x[1:3].numpy(), a[1:3])
    np.testing.assert_array_equal(fg.cat([x, x]).numpy(), np.concatenate([a, a]))
    np.testing.assert_array_equal(x.reshape(2, 2).t().contiguous().numpy(), a.reshape(2, 2).T)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_matmul_accumulates_in_float32(name):
    a = fg.ones(1, 4096, dtype=dt(name))
    b = fg.ones(4096, 1, dtype=dt(name))
    # summed in float16 one by one, the total would stall at 2048
    assert (a @ b).item() == 4096.0
    assert (a @ b).dtype == dt(name)


# ---- autograd ----


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_backward_grads_in_same_dtype(name):
    x = fg.tensor([1.0, 2.0, -3.0], dtype=dt(name), requires_grad=True)
    y = (x * x).sum()
    assert y.grad_fn.name() == "SumBackward0"
    y.backward()
    assert x.grad.dtype == dt(name)
    assert x.grad.tolist() == [2.0, 4.0, -6.0]
    w = fg.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=dt(name), requires_grad=True)
    (w @ w).exp().mean().backward()
    assert w.grad.dtype == dt(name)
    ref = fg.tensor(w.detach().float().tolist(), requires_grad=True)
    (ref @ ref).exp().mean().backward()
    np.testing.assert_allclose(w.grad.float().numpy(), ref.grad.numpy(), rtol=2e-2 if name == "bfloat16" else 4e-3)


def test_cast_to_half_is_differentiable():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x.half()
    assert y.grad_fn.name() == "ToCopyBackward0"
    (y * 3).sum().backward()
    assert x.grad.dtype == fg.float32 and x.grad.tolist() == [3.0, 3.0]


def test_ints_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        fg.tensor([1, 2], dtype=fg.int8, requires_grad=True)


# ---- conversions ----


def test_conversion_methods():
    t = fg.tensor([1.5, -2.0])
    for method, name in [
        ("float", "float32"),
        ("double", "float64"),
        ("half", "float16"),
        ("bfloat16", "bfloat16"),
        ("long", "int64"),
        ("int", "int32"),
        ("short", "int16"),
        ("char", "int8"),
        ("byte", "uint8"),
        ("bool", "bool"),
    ]:
        assert getattr(t, method)().dtype == dt(name)
    assert t.char().tolist() == [1, -2]
    assert t.byte().tolist() == [1, 254]


def test_to_returns_self_when_nothing_changes():
    t = fg.zeros(2)
    assert t.to(fg.float32) is t
    assert t.float() is t
    assert t.to("cpu") is t
    assert t.to(t) is t
    assert t.to(device="cpu", dtype=fg.float32) is t
    assert t.type_as(fg.ones(1)) is t
    c = t.to(dtype=fg.float32, copy=True)
    assert c is not t
    c[0] = 1.0
    assert t[0].item() == 0.0


def test_to_forms():
    t = fg.tensor([1, 2])
    assert t.to(fg.float16).dtype == fg.float16
    assert t.to(fg.ones(1, dtype=fg.int8)).dtype == fg.int8
    assert t.to("cpu", fg.uint8).dtype == fg.uint8
    assert t.to(device="cpu", dtype=fg.int32).dtype == fg.int32
    assert t.type_as(fg.ones(1, dtype=fg.bfloat16)).dtype == fg.bfloat16
    assert t.to(fg.int8).clone().dtype == fg.int8


def test_tensor_constructor_with_dtype():
    assert fg.tensor([1, 2], dtype=fg.int8).tolist() == [1, 2]
    assert fg.tensor([1.5], dtype=fg.float16).tolist() == [1.5]
    assert fg.tensor([True, False], dtype=fg.uint8).tolist() == [1, 0]
    assert fg.zeros(2, 2, dtype=fg.int16).tolist() == [[0, 0], [0, 0]]
    assert fg.ones(3, dtype=fg.bfloat16).sum().item() == 3.0
    assert fg.full((2,), 7, dtype=fg.int32).tolist() == [7, 7]
    assert fg.arange(4, dtype=fg.uint8).tolist() == [0, 1, 2, 3]


# ---- numpy ----


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "float16"])
def test_numpy_roundtrip_shares_memory(name):
    a = np.arange(6).astype(name)
    t = fg.from_numpy(a)
    assert t.dtype == dt(name)
    t[0] = 5
    assert a[0] == 5
    b = t.numpy()
    assert b.dtype == np.dtype(name)
    b[1] = 3
    assert t[1].item() == 3
    assert np.asarray(t).dtype == np.dtype(name)


def test_bfloat16_numpy_raises():
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        fg.ones(2, dtype=fg.bfloat16).numpy()


def test_tensor_from_numpy_narrow_copies():
    a = np.array([1, 2], dtype=np.int8)
    t = fg.tensor(a)
    assert t.dtype == fg.int8
    t[0] = 9
    assert a[0] == 1


# ---- printing (torch's output, with the ferrograd module name) ----


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: fg.tensor([1, 2], dtype=fg.int32), "tensor([1, 2], dtype={p}int32)"),
        (lambda: fg.tensor([1, 2], dtype=fg.int8), "tensor([1, 2], dtype={p}int8)"),
        (lambda: fg.tensor([1, 2], dtype=fg.uint8), "tensor([1, 2], dtype={p}uint8)"),
        (lambda: fg.tensor([1, 2], dtype=fg.int16), "tensor([1, 2], dtype={p}int16)"),
        (lambda: fg.tensor([1.5, 2.25, 3.1], dtype=fg.float16), "tensor([1.5000, 2.2500, 3.0996], dtype={p}float16)"),
        (lambda: fg.tensor([1.5, 2.25, 3.1], dtype=fg.bfloat16), "tensor([1.5000, 2.2500, 3.0938], dtype={p}bfloat16)"),
        (lambda: fg.tensor([1.0, 2.0], dtype=fg.float16), "tensor([1., 2.], dtype={p}float16)"),
        (lambda: fg.tensor([1e-5, 2e4], dtype=fg.float16), "tensor([1.0014e-05, 2.0000e+04], dtype={p}float16)"),
        (
            lambda: fg.tensor(3.1, dtype=fg.float16, requires_grad=True) * 2,
            "tensor(6.1992, dtype={p}float16, grad_fn=<MulBackward0>)",
        ),
        (lambda: fg.tensor([], dtype=fg.int32), "tensor([], dtype={p}int32)"),
        (lambda: fg.zeros(2, 3, dtype=fg.bfloat16), "tensor([[0., 0., 0.],\n        [0., 0., 0.]], dtype={p}bfloat16)"),
    ],
)
def test_printing(make, expected):
    assert repr(make()) == expected.format(p=DTYPE_PREFIX)


# ---- ops beyond arithmetic on the narrow dtypes (torch's result dtypes) ----


@pytest.mark.parametrize("name", ["uint8", "int8", "int32", "int64", "float16", "bfloat16"])
def test_conv2d_in_the_input_dtype(name):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(1, 2, 5, 5))
    w = rng.integers(0, 3, size=(3, 2, 2, 2))
    expected = fg.nn.functional.conv2d(
        fg.tensor(x.tolist(), dtype=fg.float64), fg.tensor(w.tolist(), dtype=fg.float64), padding=1
    )
    got = fg.nn.functional.conv2d(
        fg.tensor(x.tolist(), dtype=dt(name)), fg.tensor(w.tolist(), dtype=dt(name)), padding=1
    )
    assert got.dtype == dt(name)
    np.testing.assert_array_equal(got.double().numpy(), expected.numpy())  # small integers: exact in every dtype


def test_conv2d_half_backward():
    x = fg.ones(1, 1, 4, 4, dtype=fg.float16, requires_grad=True)
    w = fg.ones(1, 1, 3, 3, dtype=fg.float16, requires_grad=True)
    fg.nn.functional.conv2d(x, w).sum().backward()
    assert x.grad.dtype == fg.float16 and w.grad.dtype == fg.float16
    np.testing.assert_array_equal(
        x.grad.float().numpy()[0, 0], [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]]
    )
    np.testing.assert_array_equal(w.grad.float().numpy(), np.full((1, 1, 3, 3), 4.0))


def test_any_all_keep_uint8():
    x = fg.tensor([[0, 3], [0, 0]], dtype=fg.uint8)
    assert x.any().dtype == fg.uint8 and x.any().item() == 1
    assert x.all(1).tolist() == [0, 0] and x.all(1).dtype == fg.uint8
    assert fg.tensor([1, 2], dtype=fg.int8).all().dtype == fg.bool


@pytest.mark.parametrize("name", ["uint8", "int32", "int64", "bool"])
def test_normalize_integral_raises(name):
    with pytest.raises(
        NotImplementedError, match="linalg.vector_norm: Expected a floating point or complex tensor as input"
    ):
        fg.nn.functional.normalize(fg.ones(2, 3, dtype=dt(name)))


LEGACY_TYPE_NAMES = [
    ("float32", "FloatTensor"),
    ("float64", "DoubleTensor"),
    ("float16", "HalfTensor"),
    ("bfloat16", "BFloat16Tensor"),
    ("int64", "LongTensor"),
    ("int32", "IntTensor"),
    ("int16", "ShortTensor"),
    ("int8", "CharTensor"),
    ("uint8", "ByteTensor"),
    ("bool", "BoolTensor"),
]


@pytest.mark.parametrize("dtype_name, legacy", LEGACY_TYPE_NAMES)
def test_typename_and_type_name_tensors_by_their_legacy_type(dtype_name, legacy):
    t = fg.ones(2, dtype=getattr(fg, dtype_name))
    assert fg.typename(t) == MODULE_PREFIX + legacy
    assert t.type() == "torch." + legacy
    assert fg.ones(1).type("torch." + legacy).dtype == getattr(fg, dtype_name)


def test_typename_of_other_objects():
    assert fg.typename(3) == "int"
    assert fg.typename("x") == "str"
    assert fg.typename(fg.nn.Linear) == MODULE_PREFIX + "nn.modules.linear.Linear"
    assert fg.typename(fg.nn.Linear(1, 1)) == MODULE_PREFIX + "nn.modules.linear.Linear"
