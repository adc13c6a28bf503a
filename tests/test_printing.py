"""Tensor printing must match PyTorch's repr exactly.

Every expected string below was produced once by real PyTorch (2.15, CPU) from the
same values, with ``torch.`` replaced by ``ferrograd.`` in dtype suffixes.
"""

import importlib.util
import pathlib

import numpy as np
import pytest

try:
    from ferrograd._tensor_str import tensor_repr, tensor_str
except ImportError:  # package not built yet: load the module straight from its file
    _path = pathlib.Path(__file__).resolve().parents[1] / "python" / "ferrograd" / "_tensor_str.py"
    _spec = importlib.util.spec_from_file_location("_ferrograd_tensor_str", _path)
    _mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_mod)
    tensor_repr, tensor_str = _mod.tensor_repr, _mod.tensor_str

nan, inf = float("nan"), float("inf")


class FakeDtype:
    def __init__(self, name):
        self.name = name
        self.is_floating_point = name.startswith("float")

    def __str__(self):
        return "ferrograd." + self.name


class FakeGradFn:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class FakeTensor:
    """Just the surface tensor_repr uses: dtype, shape, requires_grad, grad_fn, detach().numpy()."""

    def __init__(self, array, requires_grad=False, grad_fn=None):
        self._array = np.asarray(array)
        self.dtype = FakeDtype(str(self._array.dtype))
        self.shape = tuple(self._array.shape)
        self.requires_grad = requires_grad or grad_fn is not None
        self.grad_fn = FakeGradFn(grad_fn) if grad_fn else None

    def detach(self):
        return FakeTensor(self._array)

    def numpy(self):
        return self._array


def f32(x):
    return np.array(x, dtype=np.float32)


def f64(x):
    return np.array(x, dtype=np.float64)


def i64(x):
    return np.array(x, dtype=np.int64)


def b(x):
    return np.array(x, dtype=np.bool_)


# (id, array, kwargs for FakeTensor). Values are exact in binary so no platform rounding creeps in.
CASES = [
    ("int_1d", i64([1, 2, 3]), {}),
    ("int_negative", i64([-1, 10, -100]), {}),
    ("int_2d", i64(np.arange(6).reshape(2, 3)), {}),
    ("int_big", i64([2**40, -7]), {}),
    ("int_scalar", i64(5), {}),
    ("bool_1d", b([True, False]), {}),
    ("bool_2d", b([[True, False], [False, False]]), {}),
    ("bool_scalar", b(True), {}),
    ("float_int_valued", f32([1.0, 2.0, 3.0]), {}),
    ("float_ones_requires_grad", f32(np.ones((2, 2))), {"requires_grad": True}),
    ("float_int_valued_grad_fn", f32([[3.0, 3.0], [3.0, 3.0]]), {"grad_fn": "AddBackward0"}),
    ("float_single", f32([3.0]), {}),
    ("float_neg_zero", f32([-0.0, 1.0]), {}),
    ("float_zeros", f32([0.0, 0.0]), {}),
    ("float_mixed", f32([1.5, -2.25, 1000.0]), {}),
    ("float_fractions", f32([0.5, -0.125, 4.5, 0.0]), {}),
    ("float_2d", f32([[4.5, 4.5], [4.5, 4.5]]), {}),
    ("float_rounding", f32([0.99999, 123.45678, -2.5]), {}),
    ("sci_mixed_signs", f32([0.99999, 123.45678, -0.00015]), {}),
    ("sci_large", f32([1e10, 1.5]), {}),
    ("sci_tiny", f32([1e-5, 0.5]), {}),
    ("sci_tiny_only", f32([1e-5, 2e-5]), {}),
    ("sci_ratio", f32([0.5, 600.25]), {}),
    ("sci_int_valued_large", f32([1.0, 1e9]), {}),
    ("sci_int_valued_ratio", f32([1.0, 2000.0]), {}),
    ("int_valued_ratio_1000", f32([1.0, 1000.0]), {}),
    ("sci_float64_exp3", f64([1e-200, 1.0, 1e200]), {}),
    ("nan_inf_fixed", f32([nan, inf, -inf, 1.5]), {}),
    ("nan_inf_int_valued", f32([nan, 1.0, -inf, 2.0]), {}),
    ("nan_inf_sci", f32([nan, 1e10, -inf, 0.5]), {}),
    ("all_nan", f32([nan, nan]), {}),
    ("scalar_grad_fn", f32(27.0), {"grad_fn": "MeanBackward0"}),
    ("scalar_fraction", f32(0.1), {}),
    ("scalar_sci", f32(1e-7), {}),
    ("scalar_nan", f32(nan), {}),
    ("scalar_float64", f64(2.5), {}),
    ("empty", f32([]), {}),
    ("empty_0x3", f32(np.zeros((0, 3))), {}),
    ("empty_int64", i64([]), {}),
    ("empty_bool_2x0", b(np.zeros((2, 0))), {}),
    ("empty_float64_requires_grad", f64([]), {"requires_grad": True}),
    ("float64", f64([1.5, 2.0]), {}),
    ("float64_requires_grad", f64([1.0, 2.0]), {"requires_grad": True}),
    ("float64_grad_fn", f64([[1.5, 2.0], [0.25, -1.0]]), {"grad_fn": "MulBackward0"}),
    ("float_3d", f32(np.arange(24).reshape(2, 3, 4) / 4), {}),
    ("int_4d", i64(np.arange(16).reshape(2, 2, 2, 2)), {}),
    ("summarize_1d_2000", f32((np.arange(2000) * 37 % 1001 - 500) / 8), {}),
    ("summarize_100x100", f32((np.arange(10000).reshape(100, 100) % 97 - 48) / 16), {}),
    ("summarize_2x1000", i64(np.arange(2000).reshape(2, 1000)), {}),
    ("summarize_3d", i64(np.arange(8000).reshape(20, 20, 20)), {}),
    ("summarize_bool", b(np.arange(1200) % 3 == 0), {}),
    ("summarize_grad_fn", f32(np.arange(1001) * 0.5), {"grad_fn": "MulBackward0"}),
    ("wrap_float_row", f32(np.arange(30) * 1.5), {}),
    ("wrap_int_row", i64(np.arange(100)), {}),
    ("wrap_2d_rows", f32(np.arange(40).reshape(2, 20) - 19.75), {}),
    ("wrap_wide_values", f32(np.arange(1, 15) * 1e6 + 0.5), {}),
    ("wrap_sci_row", f64(np.arange(1, 15) * 1e7 + 0.5), {}),
    ("suffix_fits_after_wrapped_row", f32(np.arange(12) - 0.25), {"requires_grad": True}),
    # torch over-counts the line length by 2 when there is no newline, so this one moves down:
    ("suffix_moves_to_new_line", f32(np.arange(6) - 0.25), {"grad_fn": "SubBackward0"}),
    # Breaks are decided on torch's spelling (``torch.`` is 4 chars shorter than ``ferrograd.``),
    # so these stay on one line as in torch even though our line ends up longer than 80:
    ("dtype_suffix_spaced_as_torch", f64(np.arange(6) + 0.5), {}),
    ("two_suffixes_spaced_as_torch", f64(np.arange(11) + 0.5), {"requires_grad": True}),
    ("two_suffixes_second_moves", f64(np.arange(20) + 0.5), {"grad_fn": "AddBackward0"}),
]

# Generated once with real PyTorch; see the module docstring.
EXPECTED = {
    "int_1d": ("tensor([1, 2, 3])"),
    "int_negative": ("tensor([  -1,   10, -100])"),
    "int_2d": ("tensor([[0, 1, 2],\n        [3, 4, 5]])"),
    "int_big": ("tensor([1099511627776,            -7])"),
    "int_scalar": ("tensor(5)"),
    "bool_1d": ("tensor([ True, False])"),
    "bool_2d": ("tensor([[ True, False],\n        [False, False]])"),
    "bool_scalar": ("tensor(True)"),
    "float_int_valued": ("tensor([1., 2., 3.])"),
    "float_ones_requires_grad": ("tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"),
    "float_int_valued_grad_fn": ("tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"),
    "float_single": ("tensor([3.])"),
    "float_neg_zero": ("tensor([-0., 1.])"),
    "float_zeros": ("tensor([0., 0.])"),
    "float_mixed": ("tensor([   1.5000,   -2.2500, 1000.0000])"),
    "float_fractions": ("tensor([ 0.5000, -0.1250,  4.5000,  0.0000])"),
    "float_2d": ("tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"),
    "float_rounding": ("tensor([  1.0000, 123.4568,  -2.5000])"),
    "sci_mixed_signs": ("tensor([ 9.9999e-01,  1.2346e+02, -1.5000e-04])"),
    "sci_large": ("tensor([1.0000e+10, 1.5000e+00])"),
    "sci_tiny": ("tensor([1.0000e-05, 5.0000e-01])"),
    "sci_tiny_only": ("tensor([1.0000e-05, 2.0000e-05])"),
    "sci_ratio": ("tensor([5.0000e-01, 6.0025e+02])"),
    "sci_int_valued_large": ("tensor([1.0000e+00, 1.0000e+09])"),
    "sci_int_valued_ratio": ("tensor([1.0000e+00, 2.0000e+03])"),
    "int_valued_ratio_1000": ("tensor([   1., 1000.])"),
    "sci_float64_exp3": ("tensor([1.0000e-200,  1.0000e+00, 1.0000e+200], dtype=ferrograd.float64)"),
    "nan_inf_fixed": ("tensor([   nan,    inf,   -inf, 1.5000])"),
    "nan_inf_int_valued": ("tensor([nan, 1., -inf, 2.])"),
    "nan_inf_sci": ("tensor([       nan, 1.0000e+10,       -inf, 5.0000e-01])"),
    "all_nan": ("tensor([nan, nan])"),
    "scalar_grad_fn": ("tensor(27., grad_fn=<MeanBackward0>)"),
    "scalar_fraction": ("tensor(0.1000)"),
    "scalar_sci": ("tensor(1.0000e-07)"),
    "scalar_nan": ("tensor(nan)"),
    "scalar_float64": ("tensor(2.5000, dtype=ferrograd.float64)"),
    "empty": ("tensor([])"),
    "empty_0x3": ("tensor([], size=(0, 3))"),
    "empty_int64": ("tensor([], dtype=ferrograd.int64)"),
    "empty_bool_2x0": ("tensor([], size=(2, 0), dtype=ferrograd.bool)"),
    "empty_float64_requires_grad": ("tensor([], dtype=ferrograd.float64, requires_grad=True)"),
    "float64": ("tensor([1.5000, 2.0000], dtype=ferrograd.float64)"),
    "float64_requires_grad": ("tensor([1., 2.], dtype=ferrograd.float64, requires_grad=True)"),
    "float64_grad_fn": (
        "tensor([[ 1.5000,  2.0000],\n        [ 0.2500, -1.0000]], dtype=ferrograd.float64, grad_fn=<MulBackward0>)"
    ),
    "float_3d": (
        "tensor([[[0.0000, 0.2500, 0.5000, 0.7500],\n"
        "         [1.0000, 1.2500, 1.5000, 1.7500],\n"
        "         [2.0000, 2.2500, 2.5000, 2.7500]],\n"
        "\n"
        "        [[3.0000, 3.2500, 3.5000, 3.7500],\n"
        "         [4.0000, 4.2500, 4.5000, 4.7500],\n"
        "         [5.0000, 5.2500, 5.5000, 5.7500]]])"
    ),
    "int_4d": (
        "tensor([[[[ 0,  1],\n"
        "          [ 2,  3]],\n"
        "\n"
        "         [[ 4,  5],\n"
        "          [ 6,  7]]],\n"
        "\n"
        "\n"
        "        [[[ 8,  9],\n"
        "          [10, 11]],\n"
        "\n"
        "         [[12, 13],\n"
        "          [14, 15]]]])"
    ),
    "summarize_1d_2000": ("tensor([-62.5000, -57.8750, -53.2500,  ...,  39.5000,  44.1250,  48.7500])"),
    "summarize_100x100": (
        "tensor([[-3.0000, -2.9375, -2.8750,  ..., -3.0000, -2.9375, -2.8750],\n"
        "        [-2.8125, -2.7500, -2.6875,  ..., -2.8125, -2.7500, -2.6875],\n"
        "        [-2.6250, -2.5625, -2.5000,  ..., -2.6250, -2.5625, -2.5000],\n"
        "        ...,\n"
        "        [-3.0000, -2.9375, -2.8750,  ..., -3.0000, -2.9375, -2.8750],\n"
        "        [-2.8125, -2.7500, -2.6875,  ..., -2.8125, -2.7500, -2.6875],\n"
        "        [-2.6250, -2.5625, -2.5000,  ..., -2.6250, -2.5625, -2.5000]])"
    ),
    "summarize_2x1000": (
        "tensor([[   0,    1,    2,  ...,  997,  998,  999],\n        [1000, 1001, 1002,  ..., 1997, 1998, 1999]])"
    ),
    "summarize_3d": (
        "tensor([[[   0,    1,    2,  ...,   17,   18,   19],\n"
        "         [  20,   21,   22,  ...,   37,   38,   39],\n"
        "         [  40,   41,   42,  ...,   57,   58,   59],\n"
        "         ...,\n"
        "         [ 340,  341,  342,  ...,  357,  358,  359],\n"
        "         [ 360,  361,  362,  ...,  377,  378,  379],\n"
        "         [ 380,  381,  382,  ...,  397,  398,  399]],\n"
        "\n"
        "        [[ 400,  401,  402,  ...,  417,  418,  419],\n"
        "         [ 420,  421,  422,  ...,  437,  438,  439],\n"
        "         [ 440,  441,  442,  ...,  457,  458,  459],\n"
        "         ...,\n"
        "         [ 740,  741,  742,  ...,  757,  758,  759],\n"
        "         [ 760,  761,  762,  ...,  777,  778,  779],\n"
        "         [ 780,  781,  782,  ...,  797,  798,  799]],\n"
        "\n"
        "        [[ 800,  801,  802,  ...,  817,  818,  819],\n"
        "         [ 820,  821,  822,  ...,  837,  838,  839],\n"
        "         [ 840,  841,  842,  ...,  857,  858,  859],\n"
        "         ...,\n"
        "         [1140, 1141, 1142,  ..., 1157, 1158, 1159],\n"
        "         [1160, 1161, 1162,  ..., 1177, 1178, 1179],\n"
        "         [1180, 1181, 1182,  ..., 1197, 1198, 1199]],\n"
        "\n"
        "        ...,\n"
        "\n"
        "        [[6800, 6801, 6802,  ..., 6817, 6818, 6819],\n"
        "         [6820, 6821, 6822,  ..., 6837, 6838, 6839],\n"
        "         [6840, 6841, 6842,  ..., 6857, 6858, 6859],\n"
        "         ...,\n"
        "         [7140, 7141, 7142,  ..., 7157, 7158, 7159],\n"
        "         [7160, 7161, 7162,  ..., 7177, 7178, 7179],\n"
        "         [7180, 7181, 7182,  ..., 7197, 7198, 7199]],\n"
        "\n"
        "        [[7200, 7201, 7202,  ..., 7217, 7218, 7219],\n"
        "         [7220, 7221, 7222,  ..., 7237, 7238, 7239],\n"
        "         [7240, 7241, 7242,  ..., 7257, 7258, 7259],\n"
        "         ...,\n"
        "         [7540, 7541, 7542,  ..., 7557, 7558, 7559],\n"
        "         [7560, 7561, 7562,  ..., 7577, 7578, 7579],\n"
        "         [7580, 7581, 7582,  ..., 7597, 7598, 7599]],\n"
        "\n"
        "        [[7600, 7601, 7602,  ..., 7617, 7618, 7619],\n"
        "         [7620, 7621, 7622,  ..., 7637, 7638, 7639],\n"
        "         [7640, 7641, 7642,  ..., 7657, 7658, 7659],\n"
        "         ...,\n"
        "         [7940, 7941, 7942,  ..., 7957, 7958, 7959],\n"
        "         [7960, 7961, 7962,  ..., 7977, 7978, 7979],\n"
        "         [7980, 7981, 7982,  ..., 7997, 7998, 7999]]])"
    ),
    "summarize_bool": ("tensor([ True, False, False,  ...,  True, False, False])"),
    "summarize_grad_fn": (
        "tensor([  0.0000,   0.5000,   1.0000,  ..., 499.0000, 499.5000, 500.0000],\n       grad_fn=<MulBackward0>)"
    ),
    "wrap_float_row": (
        "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
        "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
        "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])"
    ),
    "wrap_int_row": (
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
        "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
        "        36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,\n"
        "        54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n"
        "        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89,\n"
        "        90, 91, 92, 93, 94, 95, 96, 97, 98, 99])"
    ),
    "wrap_2d_rows": (
        "tensor([[-19.7500, -18.7500, -17.7500, -16.7500, -15.7500, -14.7500, -13.7500,\n"
        "         -12.7500, -11.7500, -10.7500,  -9.7500,  -8.7500,  -7.7500,  -6.7500,\n"
        "          -5.7500,  -4.7500,  -3.7500,  -2.7500,  -1.7500,  -0.7500],\n"
        "        [  0.2500,   1.2500,   2.2500,   3.2500,   4.2500,   5.2500,   6.2500,\n"
        "           7.2500,   8.2500,   9.2500,  10.2500,  11.2500,  12.2500,  13.2500,\n"
        "          14.2500,  15.2500,  16.2500,  17.2500,  18.2500,  19.2500]])"
    ),
    "wrap_wide_values": (
        "tensor([ 1000000.5000,  2000000.5000,  3000000.5000,  4000000.5000,\n"
        "         5000000.5000,  6000000.5000,  7000000.5000,  8000000.5000,\n"
        "         9000000.0000, 10000000.0000, 11000000.0000, 12000000.0000,\n"
        "        13000000.0000, 14000000.0000])"
    ),
    "wrap_sci_row": (
        "tensor([1.0000e+07, 2.0000e+07, 3.0000e+07, 4.0000e+07, 5.0000e+07, 6.0000e+07,\n"
        "        7.0000e+07, 8.0000e+07, 9.0000e+07, 1.0000e+08, 1.1000e+08, 1.2000e+08,\n"
        "        1.3000e+08, 1.4000e+08], dtype=ferrograd.float64)"
    ),
    "suffix_fits_after_wrapped_row": (
        "tensor([-0.2500,  0.7500,  1.7500,  2.7500,  3.7500,  4.7500,  5.7500,  6.7500,\n"
        "         7.7500,  8.7500,  9.7500, 10.7500], requires_grad=True)"
    ),
    "suffix_moves_to_new_line": (
        "tensor([-0.2500,  0.7500,  1.7500,  2.7500,  3.7500,  4.7500],\n       grad_fn=<SubBackward0>)"
    ),
    "dtype_suffix_spaced_as_torch": (
        "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000], dtype=ferrograd.float64)"
    ),
    "two_suffixes_spaced_as_torch": (
        "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n"
        "         8.5000,  9.5000, 10.5000], dtype=ferrograd.float64, requires_grad=True)"
    ),
    "two_suffixes_second_moves": (
        "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n"
        "         8.5000,  9.5000, 10.5000, 11.5000, 12.5000, 13.5000, 14.5000, 15.5000,\n"
        "        16.5000, 17.5000, 18.5000, 19.5000], dtype=ferrograd.float64,\n"
        "       grad_fn=<AddBackward0>)"
    ),
}


@pytest.mark.parametrize("name,array,kwargs", CASES, ids=[c[0] for c in CASES])
def test_repr_matches_torch(name, array, kwargs):
    t = FakeTensor(array, **kwargs)
    assert tensor_repr(t) == EXPECTED[name]


@pytest.mark.parametrize("name,array,kwargs", CASES[:5], ids=[c[0] for c in CASES[:5]])
def test_str_is_repr(name, array, kwargs):
    t = FakeTensor(array, **kwargs)
    assert tensor_str(t) == tensor_repr(t) == EXPECTED[name]


def test_tutorial_examples_from_notes():
    assert tensor_repr(FakeTensor(f32(np.ones((2, 2))), requires_grad=True)) == (
        "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"
    )
    assert tensor_repr(FakeTensor(f32(27.0), grad_fn="MeanBackward0")) == ("tensor(27., grad_fn=<MeanBackward0>)")


def test_grad_fn_wins_over_requires_grad():
    t = FakeTensor(f32([1.0]), requires_grad=True, grad_fn="AddBackward0")
    assert tensor_repr(t) == "tensor([1.], grad_fn=<AddBackward0>)"
