"""Layer behaviour that is random or structural (so it is checked by its law rather than recorded values):
default initialisation of Linear / Bilinear / Embedding / PReLU, reproducibility under manual_seed, the
dropouts in training and eval mode, and gradcheck of the layers' functions in float64."""

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from helpers import gradcheck, to_numpy


def _uniform_ok(values, bound):
    """All within ±bound, mean ~0 and variance ~bound²/3 (tolerances of several standard errors)."""
    v = to_numpy(values).astype(np.float64).ravel()
    n = v.size
    assert v.min() >= -bound and v.max() <= bound
    sd = bound / math.sqrt(3)
    assert abs(v.mean()) < 6 * sd / math.sqrt(n)
    assert abs(v.var() / sd**2 - 1) < 8 * math.sqrt(0.8 / n)  # var of a uniform's sample variance: 0.8 σ⁴/n


def test_linear_default_init_is_kaiming_uniform(seeded):
    m = nn.Linear(500, 200)
    bound = 1 / math.sqrt(500)
    _uniform_ok(m.weight, bound)
    assert float(m.bias.abs().max()) <= bound
    assert m.weight.dtype == fg.float32 and m.weight.requires_grad and m.bias.requires_grad


def test_linear_init_follows_manual_seed():
    fg.manual_seed(123)
    a = nn.Linear(4, 3)
    fg.manual_seed(123)
    b = nn.Linear(4, 3)
    assert a.weight.equal(b.weight) and a.bias.equal(b.bias)
    assert not nn.Linear(4, 3).weight.equal(a.weight)


def test_linear_dtype_argument():
    m = nn.Linear(2, 3, dtype=fg.float64)
    assert m.weight.dtype == fg.float64 and m.bias.dtype == fg.float64
    assert m(fg.ones(1, 2, dtype=fg.float64)).dtype == fg.float64


def test_bilinear_init_bound(seeded):
    m = nn.Bilinear(50, 40, 30)
    _uniform_ok(m.weight, 1 / math.sqrt(50))
    assert list(m.bias.shape) == [30] and float(m.bias.abs().max()) <= 1 / math.sqrt(50)


def test_embedding_init_is_standard_normal(seeded):
    w = to_numpy(nn.Embedding(2000, 50).weight).ravel()
    assert abs(w.mean()) < 6 / math.sqrt(w.size)
    assert abs(w.std() - 1) < 0.02
    assert nn.Embedding(5, 3, padding_idx=4).weight[4].tolist() == [0.0, 0.0, 0.0]


def test_prelu_init():
    assert nn.PReLU().weight.tolist() == [0.25]
    assert nn.PReLU(2, init=-0.5).weight.tolist() == [-0.5, -0.5]


def test_dropout_eval_is_identity_and_train_drops(seeded):
    m = nn.Dropout(0.3)
    x = fg.ones(200000)
    m.eval()
    assert m(x).equal(x)
    m.train()
    y = to_numpy(m(x))
    dropped = (y == 0).mean()
    assert abs(dropped - 0.3) < 0.01  # standard error 0.001
    assert np.allclose(y[y != 0], 1 / 0.7)


def test_dropout_extremes():
    x = fg.ones(10)
    assert nn.Dropout(0.0)(x).equal(x)
    assert nn.Dropout(1.0)(x).tolist() == [0.0] * 10
    assert F.dropout(x, 0.5, training=False).equal(x)


def test_dropout2d_zeroes_whole_channels(seeded):
    x = fg.ones(20, 30, 4, 5)
    y = to_numpy(nn.Dropout2d(0.5)(x)).reshape(20, 30, -1)
    per_channel = y.min(-1) == y.max(-1)
    assert per_channel.all()
    assert set(np.unique(y).tolist()) == {0.0, 2.0}
    assert 0.4 < (y[:, :, 0] == 0).mean() < 0.6


def test_dropout1d_unbatched_and_3d(seeded):
    y = to_numpy(nn.Dropout1d(0.5)(fg.ones(40, 7)))
    assert (y.min(-1) == y.max(-1)).all()
    y3 = to_numpy(nn.Dropout3d(0.5)(fg.ones(4, 6, 2, 2, 2))).reshape(4, 6, -1)
    assert (y3.min(-1) == y3.max(-1)).all()


def test_alpha_dropout_keeps_mean_and_variance(seeded):
    x = fg.randn(400000)
    y = to_numpy(nn.AlphaDropout(0.2).train()(x))
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    assert nn.AlphaDropout(0.2).eval()(x).equal(x)


def test_feature_alpha_dropout_is_per_channel(seeded):
    x = fg.randn(50, 40, 3)
    y = to_numpy(nn.FeatureAlphaDropout(0.5).train()(x))
    xs = to_numpy(x)
    # a kept channel is a·x + b, a dropped one the constant b - alpha·a
    spread = xs[:, :, :1] - xs[:, :, 1:2]
    residual = y - xs * (y[:, :, :1] - y[:, :, 1:2]) / spread
    # channels whose first two inputs nearly tie give no usable slope (float32 cancellation)
    usable = np.abs(spread[:, :, 0]) > 0.05
    assert usable.sum() > 1000
    assert np.allclose(residual.min(-1)[usable], residual.max(-1)[usable], atol=1e-4)


def test_dropout_needs_floating_point():
    with pytest.raises(RuntimeError):
        F.dropout(fg.ones(3, dtype=fg.int64), 0.5)


def _np(shape, rng):
    return rng.standard_normal(shape)


def test_gradcheck_linear(rng):
    gradcheck(F.linear, [_np((4, 3), rng), _np((2, 3), rng), _np(2, rng)])
    gradcheck(lambda x, w: F.linear(x, w), [_np((2, 5, 3), rng), _np((4, 3), rng)])


def test_gradcheck_bilinear_and_prelu(rng):
    gradcheck(F.bilinear, [_np((3, 2), rng), _np((3, 4), rng), _np((5, 2, 4), rng), _np(5, rng)])
    x = _np((2, 3, 4), rng)
    x[np.abs(x) < 0.1] = 0.5  # away from the kink
    gradcheck(F.prelu, [x, np.array([0.1, -0.3, 0.7])])


def test_gradcheck_embedding_weight(rng):
    idx = fg.tensor([[0, 2, 2], [3, 1, 0]])
    gradcheck(lambda w: F.embedding(idx, w), [_np((4, 3), rng)])
    # (padding_idx and scale_grad_by_freq change the gradient on purpose: they are checked against torch's)


def test_gradcheck_sequential_model(rng):
    def model(x, w1, b1, w2):
        return F.linear(F.tanh(F.linear(x, w1, b1)), w2).flatten(0, 1)

    gradcheck(model, [_np((5, 3), rng), _np((4, 3), rng), _np(4, rng), _np((1, 4), rng)])


def test_embedding_max_norm_renormalises_only_looked_up_rows():
    emb = nn.Embedding(3, 2, max_norm=1.0)
    with fg.no_grad():
        emb.weight.copy_(fg.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]]))
    emb(fg.tensor([0, 1]))
    w = to_numpy(emb.weight)
    assert np.allclose(w[0], [0.6, 0.8], atol=1e-6) and np.allclose(w[1], [0.3, 0.4]) and np.allclose(w[2], [6, 8])
