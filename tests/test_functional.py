"""`fg.autograd.functional`: vjp, jvp, jacobian, hessian, hvp, vhp against closed forms."""

import inspect

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import functional as AF

F64 = fg.float64


def t(values):
    return fg.tensor(values, dtype=F64)


def arr(x):
    return np.asarray(x.detach().tolist(), dtype=np.float64)


def close(x, expected):
    np.testing.assert_allclose(arr(x), np.asarray(expected, dtype=np.float64), rtol=1e-10, atol=1e-12)


A = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])
X = np.array([0.3, -0.7])


def affine_exp(x):
    return (t(A.tolist()) @ x).exp()


def J_affine_exp(x):
    return np.exp(A @ x)[:, None] * A


def test_signatures_match_torch():
    for fn in (AF.vjp, AF.jvp, AF.hvp, AF.vhp):
        assert list(inspect.signature(fn).parameters) == ["func", "inputs", "v", "create_graph", "strict"]
    assert list(inspect.signature(AF.jacobian).parameters) == [
        "func",
        "inputs",
        "create_graph",
        "strict",
        "vectorize",
        "strategy",
    ]
    assert list(inspect.signature(AF.hessian).parameters) == [
        "func",
        "inputs",
        "create_graph",
        "strict",
        "vectorize",
        "outer_jacobian_strategy",
    ]


def test_vjp():
    v = np.array([1.0, -2.0, 0.5])
    out, g = AF.vjp(affine_exp, t(X.tolist()), t(v.tolist()))
    close(out, np.exp(A @ X))
    close(g, v @ J_affine_exp(X))
    assert not out.requires_grad and not g.requires_grad


def test_vjp_scalar_output_without_v_and_unused_input_gives_zeros():
    out, (ga, gb) = AF.vjp(lambda a, b: (a * a).sum(), (t([1.0, 2.0]), t([5.0])))
    close(out, 5.0)
    close(ga, [2.0, 4.0])
    close(gb, [0.0])
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.vjp(lambda a, b: (a * a).sum(), (t([1.0, 2.0]), t([5.0])), strict=True)
    with pytest.raises(RuntimeError, match="v can only be None"):
        AF.vjp(lambda a: a * 2, t([1.0, 2.0]))


def test_jvp_via_double_vjp():
    v = np.array([0.25, -1.5])
    out, jv = AF.jvp(affine_exp, t(X.tolist()), t(v.tolist()))
    close(out, np.exp(A @ X))
    close(jv, J_affine_exp(X) @ v)


def test_jvp_of_a_linear_function_and_tuple_inputs():
    out, jv = AF.jvp(lambda a, b: a * 3 + b, (t([1.0, 2.0]), t([0.0, 1.0])), (t([1.0, 1.0]), t([2.0, -1.0])))
    close(out, [3.0, 7.0])
    close(jv, [5.0, 2.0])


def test_jacobian_tensor_and_tuple_structure():
    close(AF.jacobian(affine_exp, t(X.tolist())), J_affine_exp(X))
    a, b = t([[1.0, 2.0], [3.0, 4.0]]), t([0.5, -1.0])
    (ja, jb), (ka, kb) = AF.jacobian(lambda a, b: (a @ b, b * 2), (a, b))
    assert tuple(ja.shape) == (2, 2, 2) and tuple(jb.shape) == (2, 2)
    close(ja, [[[0.5, -1.0], [0.0, 0.0]], [[0.0, 0.0], [0.5, -1.0]]])
    close(jb, [[1.0, 2.0], [3.0, 4.0]])
    close(ka, np.zeros((2, 2, 2)))
    close(kb, 2 * np.eye(2))


def test_jacobian_of_scalar_output_has_the_input_shape():
    j = AF.jacobian(lambda m: (m * m).sum(), t([[1.0, 2.0], [3.0, 4.0]]))
    close(j, [[2.0, 4.0], [6.0, 8.0]])


def test_jacobian_strict_and_create_graph():
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (t([1.0]), t([1.0])), strict=True)
    x = fg.tensor([2.0], dtype=F64, requires_grad=True)
    j = AF.jacobian(lambda a: a**3, x, create_graph=True)
    close(j, [[12.0]])
    assert j.requires_grad
    (g,) = fg.autograd.grad(j.sum(), x)
    close(g, [12.0])


def f_cubic(x):
    # f(x) = sum(x^3) + x0 * x1
    return (x**3).sum() + x[0] * x[1]


def H_cubic(x):
    return np.diag(6 * x) + np.array([[0.0, 1.0], [1.0, 0.0]])


def test_hessian():
    close(AF.hessian(f_cubic, t(X.tolist())), H_cubic(X))


def test_hessian_tuple_inputs():
    (haa, hab), (hba, hbb) = AF.hessian(lambda a, b: (a * a * b).sum(), (t([1.0, 2.0]), t([3.0, 4.0])))
    close(haa, np.diag([6.0, 8.0]))
    close(hab, np.diag([2.0, 4.0]))
    close(hba, np.diag([2.0, 4.0]))
    close(hbb, np.zeros((2, 2)))


def test_hvp_and_vhp():
    v = np.array([1.0, -3.0])
    out, hv = AF.hvp(f_cubic, t(X.tolist()), t(v.tolist()))
    close(out, (X**3).sum() + X[0] * X[1])
    close(hv, H_cubic(X) @ v)
    _, vh = AF.vhp(f_cubic, t(X.tolist()), t(v.tolist()))
    close(vh, v @ H_cubic(X))


def test_vhp_needs_a_scalar_function_and_v_of_the_right_shape():
    with pytest.raises(RuntimeError, match="should contain a single element"):
        AF.vhp(lambda a: a * a, t([1.0, 2.0]), t([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="v has invalid size"):
        AF.hvp(f_cubic, t([1.0, 2.0]), t([1.0]))


def test_inputs_are_left_alone():
    x = t([1.0, 2.0])
    AF.hessian(f_cubic, x)
    AF.jvp(affine_exp, x, t([1.0, 1.0]))
    assert not x.requires_grad and x.grad is None
