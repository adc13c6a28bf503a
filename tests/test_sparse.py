"""Sparse COO tensors: the recorded cases of tests/sparse_cases.py against PyTorch, sparse @ dense against numpy
and gradchecked in float64 (dense operand and values), and a small graph network trained as pygcn trains one.
Runs against PyTorch too (FG_TEST_AGAINST_TORCH=1)."""

import math
import subprocess
import sys
import warnings

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from helpers import gradcheck
from recorded import check, expected
from sparse_cases import CASES

EXPECTED = expected("sparse", CASES)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch warns about invariant checks


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    check(name, CASES[name], EXPECTED[name])


def random_coo(rng, rows, cols, nnz, duplicates=True):
    """Entries at random positions (repeats kept when `duplicates`), as int64 indices and float64 values."""
    r, c = rng.integers(0, rows, nnz), rng.integers(0, cols, nnz)
    if not duplicates:
        flat = np.unique(r * cols + c)
        r, c = flat // cols, flat % cols
    return np.stack([r, c]), rng.standard_normal(r.shape[0])


def dense_of(indices, values, shape):
    out = np.zeros(shape)
    np.add.at(out, (indices[0], indices[1]), values)
    return out


@pytest.mark.parametrize("shape", [(5, 4), (1, 7), (6, 1)])
def test_product_matches_numpy(rng, shape):
    idx, vals = random_coo(rng, *shape, 12)
    d = rng.standard_normal((shape[1], 3))
    s = fg.sparse_coo_tensor(fg.tensor(idx), fg.tensor(vals), shape)
    want = dense_of(idx, vals, shape) @ d
    for got in (fg.sparse.mm(s, fg.tensor(d)), s @ fg.tensor(d), fg.spmm(s.coalesce(), fg.tensor(d))):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s.to_dense().numpy(), dense_of(idx, vals, shape), rtol=0, atol=1e-15)


def test_product_float32_matches_numpy(rng):
    idx, vals = random_coo(rng, 30, 20, 90)
    d = rng.standard_normal((20, 16)).astype(np.float32)
    s = fg.sparse_coo_tensor(fg.tensor(idx), fg.tensor(vals.astype(np.float32)), (30, 20))
    want = dense_of(idx, vals.astype(np.float32).astype(np.float64), (30, 20)) @ d.astype(np.float64)
    np.testing.assert_allclose(fg.sparse.mm(s, fg.tensor(d)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_empty_and_all_zero_rows(rng):
    s = fg.sparse_coo_tensor(fg.zeros(2, 0, dtype=fg.int64), fg.zeros(0, dtype=fg.float64), (3, 4))
    out = fg.sparse.mm(s, fg.tensor(rng.standard_normal((4, 2))))
    assert out.shape == (3, 2) and not out.numpy().any()


def test_coalesce_matches_numpy(rng):
    idx, vals = random_coo(rng, 4, 5, 40)
    c = fg.sparse_coo_tensor(fg.tensor(idx), fg.tensor(vals), (4, 5)).coalesce()
    flat = idx[0] * 5 + idx[1]
    keys = np.unique(flat)
    np.testing.assert_array_equal(c.indices().numpy(), np.stack([keys // 5, keys % 5]))
    sums = np.array([vals[flat == k].sum() for k in keys])
    np.testing.assert_allclose(c.values().numpy(), sums, rtol=1e-12, atol=1e-12)
    assert c.is_coalesced() and c._nnz() == len(keys)


@pytest.mark.parametrize("duplicates", [True, False])
def test_gradcheck_product_dense_and_values(rng, duplicates):
    idx, vals = random_coo(rng, 4, 3, 9, duplicates)
    d = rng.standard_normal((3, 2))
    indices = fg.tensor(idx)

    def product(v, dense):
        return fg.sparse.mm(fg.sparse_coo_tensor(indices, v, (4, 3)), dense)

    gradcheck(product, [vals, d])
    transposed = lambda v, dense: fg.mm(fg.sparse_coo_tensor(indices, v, (4, 3)).t(), dense)
    gradcheck(transposed, [vals, rng.standard_normal((4, 2))])


def test_gradcheck_conversions_and_sums(rng):
    idx, vals = random_coo(rng, 3, 4, 7)
    indices = fg.tensor(idx)

    def chain(v):
        s = fg.sparse_coo_tensor(indices, v, (3, 4))
        return (s * 3.0).coalesce().to_dense() + fg.sparse.sum(s, dim=0).to_dense()

    gradcheck(chain, [vals])
    gradcheck(lambda x: fg.sparse.mm(x.to_sparse(), x.t() * 1.0), [rng.standard_normal((3, 3))])


def test_double_backward_through_product(rng):
    idx, vals = random_coo(rng, 3, 3, 5)
    v = fg.tensor(vals, requires_grad=True)
    d = fg.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    out = fg.sparse.mm(fg.sparse_coo_tensor(fg.tensor(idx), v, (3, 3)), d)
    (gd,) = fg.autograd.grad((out**2).sum(), [d], create_graph=True)
    gd.sum().backward()  # gd = 2 Sᵀ S d: its sum's gradient to the values, against finite differences

    def second(vv):
        out = fg.sparse.mm(fg.sparse_coo_tensor(fg.tensor(idx), vv, (3, 3)), d.detach())
        return 2 * fg.sparse.mm(fg.sparse_coo_tensor(fg.tensor(idx), vv, (3, 3)).t(), out).sum()

    eps, numerical = 1e-6, []
    for k in range(len(vals)):
        up, down = vals.copy(), vals.copy()
        up[k] += eps
        down[k] -= eps
        numerical.append((second(fg.tensor(up)).item() - second(fg.tensor(down)).item()) / (2 * eps))
    np.testing.assert_allclose(v.grad.numpy(), numerical, rtol=1e-5, atol=1e-6)


def test_leaf_gradient_accumulates_and_clears():
    s = fg.sparse_coo_tensor(fg.tensor([[0, 1], [1, 0]]), fg.tensor([1.0, 2.0]), (2, 2)).requires_grad_()
    d = fg.ones(2, 3)
    for _ in range(2):
        fg.sparse.mm(s, d).sum().backward()
    np.testing.assert_allclose(s.grad.to_dense().numpy(), [[0.0, 6.0], [6.0, 0.0]])
    s.grad = None
    assert s.grad is None


def test_cuda_raises_what_a_dense_tensor_raises():
    s = fg.sparse_coo_tensor(fg.tensor([[0, 1], [1, 0]]), fg.tensor([1.0, 2.0]), (2, 2))
    with pytest.raises(Exception) as dense:
        fg.ones(2).cuda()
    with pytest.raises(type(dense.value), match=str(dense.value)[:20]):
        s.cuda()


def test_requires_grad_leaves_the_callers_values_alone():
    v = fg.tensor([1.0, 2.0])
    s = fg.sparse_coo_tensor(fg.tensor([[0, 1], [1, 0]]), v, (2, 2)).requires_grad_()
    assert s.requires_grad and not v.requires_grad


def test_bad_product_operands_raise_without_changing_anything():
    s = fg.sparse_coo_tensor(fg.tensor([[0, 1], [1, 0]]), fg.tensor([1.0, 2.0]), (2, 2))
    with pytest.raises(RuntimeError):
        fg.sparse.mm(s, fg.ones(3, 1))
    with pytest.raises(TypeError):
        fg.sparse.mm(s, [[1.0], [2.0]])
    # an index beyond the size (not checked at construction, as in torch) is refused by the product
    bad = fg.sparse_coo_tensor(fg.tensor([[0, 5], [1, 0]]), fg.tensor([1.0, 2.0]), (2, 2))
    with pytest.raises((RuntimeError, IndexError)):
        fg.sparse.mm(bad, fg.ones(2, 1))
    assert s._nnz() == 2 and s._values().tolist() == [1.0, 2.0]


# ---- a graph network as pygcn writes one: GraphConvolution layers over a normalized sparse adjacency ----


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(fg.FloatTensor(in_features, out_features))
        self.bias = nn.Parameter(fg.FloatTensor(out_features))
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        return fg.spmm(adj, fg.mm(input, self.weight)) + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)


def planted_graph(rng, nodes, classes, features, edges):
    """Nodes in `classes` groups, most edges inside a group, noisy features hinting at the group; the adjacency
    with self-loops, row-normalized, as a COO tensor built the way pygcn builds it."""
    labels = rng.integers(0, classes, nodes)
    src = rng.integers(0, nodes, edges)
    same = rng.random(edges) < 0.9
    pick = np.array([rng.choice(np.flatnonzero(labels == labels[s])) for s in src])
    dst = np.where(same, pick, rng.integers(0, nodes, edges))
    rows = np.concatenate([src, dst, np.arange(nodes)])
    cols = np.concatenate([dst, src, np.arange(nodes)])
    adj = np.zeros((nodes, nodes), dtype=np.float32)
    adj[rows, cols] = 1.0
    adj /= adj.sum(1, keepdims=True)
    r, c = np.nonzero(adj)
    x = rng.random((nodes, features)).astype(np.float32) < 0.1
    x[np.arange(nodes), labels] = True
    x = x.astype(np.float32) / x.sum(1, keepdims=True)
    indices = fg.from_numpy(np.vstack((r, c)).astype(np.int64))
    values = fg.from_numpy(adj[r, c])
    sparse_adj = fg.sparse.FloatTensor(indices, values, fg.Size(adj.shape))
    return sparse_adj, fg.FloatTensor(x), fg.LongTensor(labels)


def test_gcn_trains_as_pygcn(rng):
    fg.manual_seed(0)
    adj, features, labels = planted_graph(rng, nodes=60, classes=3, features=20, edges=150)
    idx_train = fg.LongTensor(range(30))
    model = GCN(nfeat=features.shape[1], nhid=16, nclass=int(labels.max().item()) + 1, dropout=0.5)
    optimizer = fg.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    losses = []
    for _ in range(60):
        model.train()
        optimizer.zero_grad()
        output = model(features, adj)
        loss = F.nll_loss(output[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    output = model(features, adj)
    accuracy = (output.max(1)[1].type_as(labels).eq(labels).double().sum() / len(labels)).item()
    assert losses[-1] < 0.7 * losses[0], losses
    assert accuracy > 0.8, accuracy
    # the sparse product gives what the dense adjacency gives
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = model.gc2(F.relu(model.gc1(features, adj)), adj.to_dense())
    sparse = model.gc2(F.relu(model.gc1(features, adj)), adj)
    np.testing.assert_allclose(sparse.detach().numpy(), dense.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_huge_sizes_raise_instead_of_allocating():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        fg.sparse_coo_tensor(fg.tensor([[0, 1], [1, 0]]), fg.tensor([1.0, 2.0]), (2**62, 2))
    s = fg.sparse_coo_tensor(fg.tensor([[0, 1], [1, 0]]), fg.tensor([1.0, 2.0]), (2**40, 2))
    with pytest.raises(RuntimeError):
        fg.sparse.mm(s, fg.ones(2, 2**20))
    with pytest.raises(RuntimeError):
        s.to_dense()


_WARNS_ONCE = """
import warnings
warnings.simplefilter("always")
import ferrograd as fg
{setup}
fg.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,))
fg.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,))
"""


@pytest.mark.parametrize(
    ("setup", "warnings_expected"),
    [
        ("", 1),  # once per process, at the first implicit call
        ("fg.sparse_coo_tensor([[0]], [1.0], (1,), check_invariants=True)", 1),  # an explicit call does not count
        ("fg.sparse.check_sparse_tensor_invariants.disable()", 0),
        ("fg.sparse.check_sparse_tensor_invariants.enable()", 0),
        ("with fg.sparse.check_sparse_tensor_invariants(False):\n    pass", 0),
    ],
)
def test_implicit_invariant_checks_warn_once_at_the_callers_line(setup, warnings_expected):
    """torch's "Sparse invariant checks are implicitly disabled" warning: once per process, attributed to the
    program's line, and not at all once the program has chosen a setting."""
    script = _WARNS_ONCE.format(setup=setup)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "Sparse invariant checks are implicitly disabled" in line]
    assert len(lines) == warnings_expected, done.stderr
    first_call = script.splitlines().index("fg.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,))") + 1
    assert all(line.startswith(f"<string>:{first_call}: UserWarning: ") for line in lines), done.stderr


_LEGACY = """
import warnings
warnings.simplefilter("always")
import ferrograd as fg
for _ in range(2):
    fg.sparse.FloatTensor(fg.tensor([[0, 1]]), fg.tensor([1.0, 2.0]), fg.Size([3]))
    fg.sparse.FloatTensor(2, 3)
    fg.sparse.LongTensor(fg.tensor([[0, 1]]), fg.tensor([1, 2]))
    fg.sparse.DoubleTensor(fg.tensor([[0, 1]]), fg.tensor([1.0, 2.0]), (3,))
"""


def test_legacy_constructors_warn_once_per_form():
    """torch.sparse.FloatTensor & co. warn that they are deprecated, once per form of the call, at its line."""
    done = subprocess.run([sys.executable, "-c", _LEGACY], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "UserWarning" in line]
    expected = [
        "<string>:6: UserWarning: torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  "
        "Please use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).",
        "<string>:7: UserWarning: torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
        "torch.sparse_coo_tensor(shape, dtype=, device=).",
        "<string>:8: UserWarning: torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  Please use "
        "torch.sparse_coo_tensor(indices, values, dtype=, device=).",
    ]
    # torch appends where in its C++ sources the warning was raised
    assert [line.split(" (Triggered internally")[0] for line in lines] == expected, done.stderr
