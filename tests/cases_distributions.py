"""Cases for `ferrograd.distributions` recorded from torch (tests/golden/record_distributions.py) and
checked by tests/test_distributions.py: each distribution's log_prob, cdf, icdf, entropy and moments at
ordinary points and at the edges of its support, its shapes, repr and support, the KL divergences between
pairs, torch's validation errors (type and message), and seeded samples where the draws are torch's
(the same fills in the same order)."""

import math
import warnings

import ferrograd as fg
import ferrograd.distributions as D
from ferrograd.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
from recorded import error

INF = math.inf


def _t(values, dtype=fg.float64):
    return fg.tensor(values, dtype=dtype)


def _summary(dist, value, *, cdf=None, icdf=None, entropy=True, mode=True, enumerate=False):
    """What a distribution tells about itself and the densities at `value` (cdf at `cdf`, icdf at `icdf`)."""
    out = {
        "repr": repr(dist),
        "batch_shape": list(dist.batch_shape),
        "event_shape": list(dist.event_shape),
        "support": repr(dist.support),
        "has_rsample": dist.has_rsample,
        "has_enumerate_support": dist.has_enumerate_support,
        "mean": dist.mean,
        "variance": dist.variance,
        "stddev": dist.stddev,
        "log_prob": dist.log_prob(value),
    }
    if mode:
        out["mode"] = dist.mode
    if entropy:
        out["entropy"] = dist.entropy()
        out["perplexity"] = dist.perplexity()
    if cdf is not None:
        out["cdf"] = dist.cdf(cdf)
    if icdf is not None:
        out["icdf"] = dist.icdf(icdf)
    if enumerate:
        out["enumerate_support"] = dist.enumerate_support()
        out["enumerate_support_unexpanded"] = dist.enumerate_support(expand=False)
    expanded = dist.expand((3,) + tuple(dist.batch_shape))
    shape = tuple(dist.batch_shape) + tuple(dist.event_shape)
    one = value.reshape((-1,) + shape)[-1] if value.dim() > len(shape) else value
    out["expanded"] = [list(expanded.batch_shape), repr(expanded), expanded.log_prob(one)]
    return out


def _seeded(fn, seed=0):
    fg.manual_seed(seed)
    return fn()


def normal():
    d = D.Normal(_t([0.0, 1.0, -2.0]), _t([1.0, 0.5, 3.0]))
    out = _summary(d, _t([[0.5, 1.0, -10.0], [0.0, 1e3, -2.0]]), cdf=_t([0.0, 1.0, 4.0]), icdf=_t([0.5, 0.0, 1.0]))
    out["scalar"] = repr(D.Normal(0.0, 1.0))
    out["scalar_log_prob"] = D.Normal(0.0, 1.0).log_prob(fg.tensor(0.5))
    out["broadcast"] = [list(D.Normal(fg.zeros(2, 1), fg.ones(3)).batch_shape)]
    out["float32"] = D.Normal(fg.tensor([0.0, 1.0]), 2.0).log_prob(fg.tensor([0.3, -0.7]))
    out["int_value"] = D.Normal(_t([0.0]), _t([1.0])).log_prob(fg.tensor([1]))
    return out


def normal_sampling():
    loc, scale = fg.tensor([0.0, 10.0]), fg.tensor([1.0, 0.1])
    d = D.Normal(loc, scale)
    return {
        "sample": _seeded(lambda: d.sample()),
        "sample_shape": _seeded(lambda: d.sample((3, 2))),
        "rsample": _seeded(lambda: d.rsample((4,))),
        "float64": _seeded(lambda: D.Normal(_t([1.0]), _t([2.0])).rsample((3,))),
        "sample_n_shape": list(D.Normal(0.0, 1.0).sample(fg.Size([5])).shape),
        "rsample_requires_grad": D.Normal(loc.requires_grad_(), scale).rsample().requires_grad,
        "sample_requires_grad": D.Normal(loc, scale).sample().requires_grad,
    }


def categorical():
    probs = _t([[0.2, 0.0, 0.8], [1.0, 1.0, 2.0]])  # a zero-probability class; unnormalized
    d = D.Categorical(probs)
    out = _summary(d, fg.tensor([[0, 1], [2, 0], [1, 1]]), enumerate=True)
    out["probs"] = d.probs
    out["logits"] = d.logits
    out["param_shape"] = list(d.param_shape)
    logits = _t([[0.0, -INF, 1.0], [2.0, 2.0, 2.0]])
    dl = D.Categorical(logits=logits)
    out["from_logits"] = [dl.probs, dl.logits, dl.log_prob(fg.tensor([1, 2])), dl.entropy(), repr(dl)]
    out["1d"] = [list(D.Categorical(fg.tensor([0.5, 0.5])).batch_shape), D.Categorical(fg.tensor([0.5, 0.5])).entropy()]
    out["float_value"] = d.log_prob(_t([1.0, 2.0]))
    return out


def categorical_sampling():
    d = D.Categorical(fg.tensor([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]))
    return {
        "sample": _seeded(lambda: d.sample()),
        "sample_shape": _seeded(lambda: d.sample((4, 2))),
        "logits": _seeded(lambda: D.Categorical(logits=fg.tensor([0.0, 1.0, 2.0, 3.0])).sample((6,))),
        "expanded": _seeded(lambda: d.expand((3, 2)).sample()),
        "one_hot": _seeded(lambda: D.OneHotCategorical(fg.tensor([0.25, 0.25, 0.5])).sample((3,))),
        "multinomial": _seeded(lambda: D.Multinomial(10, fg.tensor([0.2, 0.3, 0.5])).sample((2,))),
    }


def bernoulli():
    d = D.Bernoulli(_t([0.3, 0.5, 0.0, 1.0]))
    out = _summary(d, _t([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]), enumerate=True)
    out["logits"] = d.logits
    dl = D.Bernoulli(logits=_t([-2.0, 0.0, 30.0]))
    out["from_logits"] = [dl.probs, dl.log_prob(_t([1.0, 1.0, 0.0])), dl.entropy(), repr(dl)]
    out["scalar"] = [repr(D.Bernoulli(0.25)), list(D.Bernoulli(0.25).batch_shape)]
    return out


def bernoulli_sampling():
    return {
        "sample": _seeded(lambda: D.Bernoulli(fg.tensor([0.1, 0.5, 0.9])).sample((4,))),
        "logits": _seeded(lambda: D.Bernoulli(logits=fg.tensor([-1.0, 1.0])).sample((3,))),
    }


def multivariate_normal():
    loc = _t([1.0, -1.0])
    cov = _t([[2.0, 0.5], [0.5, 1.0]])
    d = D.MultivariateNormal(loc, cov)
    out = _summary(d, _t([[0.3, 0.1], [1.0, 2.0], [1.0, -1.0]]))
    out["scale_tril"] = d.scale_tril
    out["precision_matrix"] = d.precision_matrix
    dp = D.MultivariateNormal(loc, precision_matrix=cov)
    out["from_precision"] = [dp.scale_tril, dp.covariance_matrix, dp.log_prob(_t([0.2, 0.4])), dp.entropy(), repr(dp)]
    tril = _t([[[1.0, 0.0], [0.5, 2.0]], [[0.3, 0.0], [-1.0, 1.0]]])
    ds = D.MultivariateNormal(fg.zeros(2, dtype=fg.float64), scale_tril=tril)
    out["from_scale_tril"] = [ds.covariance_matrix, ds.log_prob(_t([[0.2, 0.4], [1.0, 1.0]])), ds.entropy(), repr(ds)]
    out["batched_loc"] = D.MultivariateNormal(_t([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]), cov).log_prob(_t([0.5, 0.5]))
    return out


def multivariate_normal_sampling():
    d = D.MultivariateNormal(fg.tensor([1.0, -1.0]), fg.tensor([[2.0, 0.5], [0.5, 1.0]]))
    return {"sample": _seeded(lambda: d.sample((3,))), "rsample": _seeded(lambda: d.rsample())}


def independent():
    base = D.Normal(_t([[0.0, 1.0], [2.0, 3.0]]), _t([[1.0, 2.0], [0.5, 0.25]]))
    d = D.Independent(base, 1)
    out = _summary(d, _t([[0.0, 0.0], [1.0, 1.0]]))
    d2 = D.Independent(base, 2)
    out["two"] = [list(d2.batch_shape), list(d2.event_shape), d2.log_prob(_t([[0.0, 0.0], [1.0, 1.0]])), repr(d2)]
    out["support_two"] = repr(d2.support)
    out["zero"] = [
        repr(D.Independent(D.Bernoulli(_t([0.5])), 0)),
        D.Independent(D.Bernoulli(_t([0.5])), 0).has_enumerate_support,
    ]
    return out


def uniform():
    d = D.Uniform(_t([0.0, -1.0]), _t([1.0, 3.0]))
    out = _summary(d, _t([0.5, 2.0]), cdf=_t([0.25, 2.5]), icdf=_t([0.5, 0.25]))
    nv = D.Uniform(_t([0.0, -1.0]), _t([1.0, 3.0]), validate_args=False)
    out["outside"] = nv.log_prob(_t([1.0, -1.0]))  # high is outside [low, high), low inside
    out["below"] = nv.log_prob(_t([-0.5, 3.5]))
    return out


def exponential():
    d = D.Exponential(_t([0.5, 2.0]))
    return _summary(d, _t([[0.0, 1.0], [3.0, 0.5]]), cdf=_t([1.0, 0.0]), icdf=_t([0.5, 0.9]))


def laplace():
    d = D.Laplace(_t([0.0, 1.0]), _t([1.0, 0.5]))
    return _summary(d, _t([0.5, -1.0]), cdf=_t([-1.0, 1.5]), icdf=_t([0.25, 0.75]))


def cauchy():
    d = D.Cauchy(_t([0.0, 1.0]), _t([1.0, 0.5]))
    return _summary(d, _t([0.5, -1.0]), cdf=_t([-1.0, 1.5]), icdf=_t([0.25, 0.75]))


def gamma():
    d = D.Gamma(_t([0.5, 1.0, 3.0]), _t([1.0, 2.0, 0.5]))
    out = _summary(d, _t([[0.5, 1.0, 2.0], [1e-3, 0.0, 10.0]]))
    return out


def beta():
    d = D.Beta(_t([0.5, 2.0, 1.0]), _t([0.5, 3.0, 1.0]))
    out = _summary(d, _t([0.3, 0.5, 0.0]), mode=False)
    out["mode"] = D.Beta(_t([2.0, 3.0]), _t([3.0, 2.0])).mode
    out["scalar"] = [
        repr(D.Beta(2.0, 3.0)),
        D.Beta(2.0, 3.0).log_prob(fg.tensor(0.25)),
        list(D.Beta(2.0, 3.0).batch_shape),
    ]
    return out


def dirichlet():
    d = D.Dirichlet(_t([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]))
    out = _summary(d, _t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]))
    return out


def poisson():
    d = D.Poisson(_t([0.5, 4.0, 0.0]))
    return _summary(d, _t([[0.0, 3.0, 0.0], [2.0, 10.0, 1.0]]), entropy=False)


def binomial():
    d = D.Binomial(5, _t([0.3, 0.0, 1.0]))
    out = _summary(d, _t([[2.0, 0.0, 5.0], [5.0, 1.0, 0.0]]), enumerate=True)
    dl = D.Binomial(_t([3.0, 10.0]), logits=_t([0.5, -1.0]))
    out["logits"] = [dl.probs, dl.log_prob(_t([1.0, 10.0])), dl.mean, dl.mode, repr(dl)]
    out["inhomogeneous_entropy"] = error(dl.entropy)
    return out


def geometric():
    d = D.Geometric(_t([0.3, 1.0]))
    return _summary(d, _t([[0.0, 0.0], [4.0, 1.0]]))


def geometric_sampling():
    return {"sample": _seeded(lambda: D.Geometric(fg.tensor([0.3, 0.8])).sample((4,)))}


def one_hot_categorical():
    d = D.OneHotCategorical(_t([[0.2, 0.0, 0.8], [0.25, 0.25, 0.5]]))
    out = _summary(d, _t([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), enumerate=True)
    st = D.OneHotCategoricalStraightThrough(_t([0.3, 0.7]).requires_grad_())
    out["straight_through"] = [st.has_rsample, st.rsample().requires_grad]
    return out


def multinomial():
    d = D.Multinomial(4, _t([[0.2, 0.3, 0.5], [0.5, 0.5, 0.0]]))
    out = _summary(d, _t([[1.0, 1.0, 2.0], [2.0, 2.0, 0.0]]), mode=False)
    out["logits"] = D.Multinomial(3, logits=_t([0.0, -INF, 1.0])).log_prob(_t([1.0, 0.0, 2.0]))
    out["not_int"] = error(lambda: D.Multinomial(_t([3.0]), _t([0.5, 0.5])))
    return out


def log_normal():
    d = D.LogNormal(_t([0.0, 1.0]), _t([1.0, 0.5]))
    return _summary(d, _t([0.5, 3.0]), cdf=_t([1.0, 2.0]), icdf=_t([0.5, 0.25]))


def log_normal_sampling():
    d = D.LogNormal(fg.tensor([0.0, 1.0]), fg.tensor([1.0, 0.5]))
    return {"sample": _seeded(lambda: d.sample((2,))), "rsample": _seeded(lambda: d.rsample())}


def transformed():
    base = D.Normal(_t([0.0, 1.0]), _t([1.0, 2.0]))
    affine = D.TransformedDistribution(base, [D.AffineTransform(1.0, -2.0), D.SigmoidTransform()])
    tanh = D.TransformedDistribution(base, D.TanhTransform())
    vector = D.TransformedDistribution(base, D.AffineTransform(_t([1.0, 2.0]), _t([3.0, 0.5]), event_dim=1))
    return {
        "affine_sigmoid": [
            affine.log_prob(_t([0.3, 0.9])),
            affine.cdf(_t([0.3, 0.9])),
            repr(affine.support),
            list(affine.batch_shape),
            affine.icdf(_t([0.25, 0.5])),
        ],
        "tanh": [tanh.log_prob(_t([0.3, -0.9])), repr(tanh.support), repr(tanh)],
        "vector": [
            vector.log_prob(_t([0.3, 0.9])),
            list(vector.batch_shape),
            list(vector.event_shape),
            repr(vector.support),
        ],
        "expanded": [list(affine.expand((4, 2)).batch_shape), affine.expand((4, 2)).log_prob(_t([0.3, 0.9]))],
        "transforms": [
            repr(D.ExpTransform()),
            repr(D.ExpTransform().inv),
            repr(D.ComposeTransform([D.ExpTransform(), D.TanhTransform()])),
            D.ExpTransform() == D.ExpTransform(),
            D.ExpTransform().inv.inv == D.ExpTransform(),
            D.AffineTransform(1.0, 2.0) == D.AffineTransform(1.0, 2.0),
            D.AffineTransform(1.0, -2.0).sign,
            D.AffineTransform(0.0, 2.0).log_abs_det_jacobian(_t([1.0]), _t([2.0])),
            D.TanhTransform().log_abs_det_jacobian(_t([0.5, 30.0]), _t([0.5, 30.0]).tanh()),
            D.SigmoidTransform().inv(_t([0.25, 0.0])),
            D.SoftplusTransform()(_t([-1.0, 30.0])),
            D.SoftplusTransform().inv(_t([0.5, 2.0])),
            D.PowerTransform(_t(2.5))(_t([0.5, 2.0])),
            D.PowerTransform(_t(2.5)).inv(_t([0.5, 2.0])),
            D.PowerTransform(_t([2.0, -1.0])).log_abs_det_jacobian(_t([0.5, 2.0]), _t([0.25, 0.5])),
            D.PowerTransform(_t(2.5)) == D.PowerTransform(_t(2.5)),
            repr(D.AbsTransform()),
        ],
        "bad_transforms": [
            error(lambda: D.TransformedDistribution(base, 3)),
            error(lambda: D.TransformedDistribution(base, [3])),
        ],
    }


def student_t():
    d = D.StudentT(_t([0.5, 1.5, 3.0]), _t([0.0, 1.0, -1.0]), _t([1.0, 2.0, 0.5]))
    out = _summary(d, _t([[0.5, 1.0, -1.0], [10.0, -3.0, 0.0]]))
    out["defaults"] = [
        repr(D.StudentT(4.0)),
        D.StudentT(4.0).log_prob(fg.tensor(0.5)),
        list(D.StudentT(4.0).batch_shape),
    ]
    return out


def gumbel():
    d = D.Gumbel(_t([0.0, 1.0]), _t([1.0, 0.5]))
    out = _summary(d, _t([[0.5, -1.0], [3.0, 1.0]]), cdf=_t([0.0, 1.5]), icdf=_t([0.25, 0.75]))
    out["scalar"] = [repr(D.Gumbel(0.0, 2.0)), D.Gumbel(0.0, 2.0).log_prob(fg.tensor(1.0))]
    return out


def half_normal():
    d = D.HalfNormal(_t([1.0, 2.0]))
    return _summary(d, _t([[0.5, 0.0], [3.0, 1.0]]), cdf=_t([0.5, 2.0]), icdf=_t([0.25, 0.75]))


def half_cauchy():
    d = D.HalfCauchy(_t([1.0, 2.0]))
    return _summary(d, _t([[0.5, 0.0], [3.0, 1.0]]), cdf=_t([0.5, 2.0]), icdf=_t([0.25, 0.75]))


def chi2():
    d = D.Chi2(_t([1.0, 4.0]))
    out = _summary(d, _t([[0.5, 2.0], [3.0, 0.1]]))
    out["df"] = d.df
    return out


def relaxed():
    rb = D.RelaxedBernoulli(_t(0.5), _t([0.2, 0.7]))
    lrb = LogitRelaxedBernoulli(_t(0.5), logits=_t([0.2, -0.7]))
    ro = D.RelaxedOneHotCategorical(_t(0.3), _t([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]))
    return {
        "bernoulli": [rb.log_prob(_t([0.3, 0.9])), list(rb.batch_shape), repr(rb), repr(rb.support), rb.temperature],
        "logit_bernoulli": [lrb.log_prob(_t([0.3, -2.0])), repr(lrb), lrb.probs],
        "one_hot": [
            ro.log_prob(_t([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])),
            list(ro.event_shape),
            repr(ro),
            repr(ro.support),
            ro.probs,
        ],
        "expanded": list(ro.expand((4, 2)).batch_shape),
    }


def seeded_transformed():
    rb = D.RelaxedBernoulli(fg.tensor(0.5), fg.tensor([0.2, 0.7]))
    ro = D.RelaxedOneHotCategorical(fg.tensor(0.3), logits=fg.tensor([0.0, 1.0, -1.0]))
    return {
        "gumbel": _seeded(lambda: D.Gumbel(fg.tensor([0.0, 1.0]), fg.tensor([1.0, 2.0])).rsample((3,))),
        "relaxed_bernoulli": _seeded(lambda: rb.rsample((2,))),
        "relaxed_one_hot": _seeded(lambda: ro.rsample((2,))),
        "half_normal": _seeded(lambda: D.HalfNormal(fg.tensor([1.0, 2.0])).rsample((2,))),
        "half_cauchy": _seeded(lambda: D.HalfCauchy(fg.tensor([1.0, 2.0])).sample((2,))),
    }


def pareto():
    d = D.Pareto(_t([1.0, 2.0, 0.5]), _t([0.5, 3.0, 1.5]))
    return _summary(d, _t([[1.5, 2.0, 0.5], [10.0, 3.0, 1.0]]), cdf=_t([1.5, 2.5, 1.0]), icdf=_t([0.1, 0.5, 0.9]))


def weibull():
    d = D.Weibull(_t([1.0, 2.0]), _t([0.5, 3.0]))
    return _summary(d, _t([[1.5, 2.0], [0.1, 3.0]]), cdf=_t([1.5, 2.5]), icdf=_t([0.1, 0.5]))


def negative_binomial():
    d = D.NegativeBinomial(_t([3.0, 0.0, 2.5]), _t([0.4, 0.5, 0.0]))
    out = _summary(d, _t([[2.0, 0.0, 0.0], [5.0, 1.0, 3.0]]), entropy=False)
    dl = D.NegativeBinomial(_t([3.0, 1.0]), logits=_t([0.5, -1.0]))
    out["logits"] = [dl.probs, dl.log_prob(_t([1.0, 4.0])), dl.mean, dl.mode, dl.variance, repr(dl)]
    return out


def inverse_gamma():
    d = D.InverseGamma(_t([0.5, 1.5, 3.0]), _t([1.0, 2.0, 0.5]))
    return _summary(d, _t([[0.5, 1.0, 2.0], [3.0, 0.1, 10.0]]))


def kumaraswamy():
    d = D.Kumaraswamy(_t([0.5, 2.0, 3.0]), _t([0.5, 3.0, 1.5]))
    return _summary(d, _t([[0.3, 0.5, 0.9], [0.01, 0.99, 0.5]]))


def mixture_same_family():
    mix = D.Categorical(_t([0.3, 0.7]))
    d = D.MixtureSameFamily(mix, D.Normal(_t([0.0, 2.0]), _t([1.0, 0.5])))
    out = _summary(d, _t([[0.5], [1.0], [3.0]]).squeeze(-1), mode=False, entropy=False, cdf=_t([0.0, 2.0]))
    batched = D.MixtureSameFamily(
        D.Categorical(_t([[0.3, 0.7], [0.5, 0.5]])),
        D.Independent(D.Normal(fg.zeros(2, 2, 3, dtype=fg.float64), 1.0), 1),
    )
    out["batched"] = [
        batched.log_prob(_t([[0.1, 0.2, 0.3], [1.0, 0.0, -1.0]])),
        list(batched.batch_shape),
        list(batched.event_shape),
        batched.mean,
        batched.variance,
        repr(batched.support),
    ]
    out["not_categorical"] = error(lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(fg.zeros(2), 1.0)))
    out["not_distribution"] = error(lambda: D.MixtureSameFamily(mix, fg.zeros(2)))
    out["components"] = error(lambda: D.MixtureSameFamily(mix, D.Normal(fg.zeros(3), 1.0)))
    out["batch"] = error(lambda: D.MixtureSameFamily(D.Categorical(fg.ones(3, 2)), D.Normal(fg.zeros(4, 2), 1.0)))
    return out


def seeded_more():
    mix = D.MixtureSameFamily(
        D.Categorical(fg.tensor([0.3, 0.7])), D.Normal(fg.tensor([0.0, 5.0]), fg.tensor([1.0, 0.5]))
    )
    return {
        "pareto": _seeded(lambda: D.Pareto(fg.tensor([1.0, 2.0]), fg.tensor([0.5, 3.0])).rsample((3,))),
        "weibull": _seeded(lambda: D.Weibull(fg.tensor([1.0, 2.0]), fg.tensor([0.5, 3.0])).rsample((3,))),
        "kumaraswamy": _seeded(lambda: D.Kumaraswamy(fg.tensor([0.5, 2.0]), fg.tensor([1.0, 3.0])).rsample((3,))),
        "mixture": _seeded(lambda: mix.sample((5,))),
    }


def structured_transforms():
    T = D.transforms
    x = _t([0.3, -1.2, 0.8])
    m = _t([[0.5, 0.3], [-0.2, 0.1]])
    out = {}
    for name, t, value in [
        ("stick_breaking", T.StickBreakingTransform(), x),
        ("softmax", T.SoftmaxTransform(), x),
        ("lower_cholesky", T.LowerCholeskyTransform(), m),
        ("positive_definite", T.PositiveDefiniteTransform(), m),
        ("corr_cholesky", T.CorrCholeskyTransform(), x),
        ("reshape", T.ReshapeTransform((2, 2), (4,)), m),
        ("cat", T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0, lengths=[1, 2]), x),
        ("stack", T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=-1), m),
        ("cdf", T.CumulativeDistributionTransform(D.Normal(_t(0.0), _t(2.0))), x),
    ]:
        y = t(value)
        row = [y, t.inv(y), repr(t), repr(t.domain), repr(t.codomain)]
        if name != "softmax" and name not in ("lower_cholesky", "positive_definite"):
            row.append(t.log_abs_det_jacobian(value, y))
        out[name] = row
    out["shapes"] = [
        list(T.StickBreakingTransform().forward_shape((2, 3))),
        list(T.CorrCholeskyTransform().forward_shape((6,))),
        list(T.CorrCholeskyTransform().inverse_shape((4, 4))),
        list(T.ReshapeTransform((2, 2), (4,)).forward_shape((5, 2, 2))),
    ]
    out["shape_errors"] = [
        error(lambda: T.CorrCholeskyTransform().forward_shape((5,))),
        error(lambda: T.ReshapeTransform((2, 2), (3,))),
        error(lambda: T.ReshapeTransform((2, 2), (4,)).forward_shape((2, 3))),
    ]
    out["corr_cholesky_check"] = D.constraints.corr_cholesky.check(T.CorrCholeskyTransform()(x))
    return out


def constraint_registry():
    C = D.constraints
    x, v, m = _t([[0.3, -1.2], [0.8, 2.0]]), _t([0.3, -1.2, 0.8]), _t([[0.5, 0.3], [-0.2, 0.1]])
    # each constraint with a value of the transforms' domain shape
    cases = [
        (C.real, x),
        (C.positive, x),
        (C.nonnegative, x),
        (C.greater_than(2.0), x),
        (C.greater_than_eq(-1.0), x),
        (C.less_than(1.0), x),
        (C.unit_interval, x),
        (C.interval(-1.0, 3.0), x),
        (C.half_open_interval(0.0, 2.0), x),
        (C.simplex, v),
        (C.lower_cholesky, m),
        (C.positive_definite, m),
        (C.corr_cholesky, v),
        (C.real_vector, v),
        (C.independent(C.positive, 1), v),
        (C.cat([C.positive, C.real], lengths=[1, 2]), v),
        (C.stack([C.positive, C.unit_interval], dim=-1), x),
    ]
    out = {}
    for i, (c, value) in enumerate(cases):
        for name in ("biject_to", "transform_to"):
            registry = getattr(D, name)
            raised = error(registry, c)
            out[f"{i}_{name}"] = raised if raised.type is not None else [repr(registry(c)), registry(c)(value)]
    out["unknown"] = error(D.biject_to, C.boolean)
    out["register_bad"] = error(lambda: D.biject_to.register(3, lambda c: None))
    return out


def lowrank_multivariate_normal():
    loc = _t([[1.0, -1.0, 0.5], [0.0, 0.0, 0.0]])
    W = _t([[1.0, 0.5], [0.2, -0.3], [0.0, 0.7]])
    d = D.LowRankMultivariateNormal(loc, W, _t([0.5, 1.0, 2.0]))
    out = _summary(d, _t([[0.3, 0.1, 0.0], [1.0, 2.0, -1.0]]))
    out["matrices"] = [d.covariance_matrix, d.precision_matrix, d.scale_tril]
    out["errors"] = [
        error(lambda: D.LowRankMultivariateNormal(fg.tensor(0.0), W, fg.ones(3))),
        error(lambda: D.LowRankMultivariateNormal(fg.zeros(3), fg.ones(3), fg.ones(3))),
        error(lambda: D.LowRankMultivariateNormal(fg.zeros(3), fg.ones(2, 2), fg.ones(3))),
        error(lambda: D.LowRankMultivariateNormal(fg.zeros(3), fg.ones(3, 2), fg.ones(2))),
        error(lambda: D.LowRankMultivariateNormal(fg.zeros(2, 3), fg.ones(4, 3, 2), fg.ones(3))),
    ]
    return out


def logistic_normal():
    d = D.LogisticNormal(_t([0.0, 1.0]), _t([1.0, 0.5]))
    out = {
        "log_prob": d.log_prob(_t([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
        "shapes": [list(d.batch_shape), list(d.event_shape)],
        "repr": repr(d),
        "support": repr(d.support),
        "loc": d.loc,
        "scale": d.scale,
    }
    scalar = D.LogisticNormal(0.5, 2.0)
    out["scalar"] = [scalar.log_prob(_t([0.25, 0.75])), list(scalar.event_shape)]
    return out


def fisher_snedecor():
    d = D.FisherSnedecor(_t([1.0, 3.0, 6.0]), _t([2.0, 5.0, 10.0]))
    return _summary(d, _t([[0.5, 1.0, 2.0], [3.0, 0.1, 10.0]]), entropy=False)


def seeded_lowrank():
    d = D.LowRankMultivariateNormal(fg.zeros(3), fg.tensor([[1.0, 0.5], [0.2, -0.3], [0.0, 0.7]]), fg.ones(3))
    return {
        "lowrank": _seeded(lambda: d.rsample((2,))),
        "logistic_normal": _seeded(lambda: D.LogisticNormal(fg.tensor([0.0, 1.0]), fg.tensor([1.0, 0.5])).sample((2,))),
    }


def continuous_bernoulli():
    d = D.ContinuousBernoulli(_t([0.2, 0.5, 0.9, 0.4995]))
    out = _summary(
        d,
        _t([[0.3, 0.5, 0.0, 1.0], [1.0, 0.2, 0.7, 0.5]]),
        mode=False,
        cdf=_t([0.3, 0.5, 1.0, 0.25]),
        icdf=_t([0.1, 0.5, 0.9, 0.3]),
    )
    dl = D.ContinuousBernoulli(logits=_t([-2.0, 0.0, 3.0]))
    out["logits"] = [dl.probs, dl.log_prob(_t([0.3, 0.5, 1.0])), dl.mean, dl.entropy(), repr(dl)]
    out["bad_probs"] = error(lambda: D.ContinuousBernoulli(fg.tensor([1.5]), validate_args=True))
    out["lims"] = D.ContinuousBernoulli(_t([0.45]), lims=(0.4, 0.6)).mean
    return out


def generalized_pareto():
    # float32: torch's log_prob compares the concentration with a float32 zero (float64 parameters raise)
    f = fg.tensor
    d = D.GeneralizedPareto(f([0.0, 1.0, 0.0]), f([1.0, 2.0, 0.5]), f([0.5, 0.0, -0.25]))
    out = _summary(d, f([[0.5, 1.5, 1.0], [3.0, 5.0, 0.1]]), cdf=f([0.5, 2.0, 1.0]), icdf=f([0.1, 0.5, 0.9]))
    out["log_survival"] = d.log_survival_function(f([0.5, 2.0, 1.0]))
    out["heavy"] = [D.GeneralizedPareto(0.0, 1.0, f([1.5])).mean, D.GeneralizedPareto(0.0, 1.0, f([0.7])).variance]
    return out


def seeded_uniform_based():
    return {
        "continuous_bernoulli": _seeded(lambda: D.ContinuousBernoulli(fg.tensor([0.2, 0.9])).sample((3,))),
        "generalized_pareto": _seeded(
            lambda: D.GeneralizedPareto(fg.tensor(0.0), fg.tensor(1.0), fg.tensor([0.5, 0.0])).rsample((2,))
        ),
    }


def von_mises():
    d = D.VonMises(_t([0.0, 1.0, -2.0]), _t([0.5, 4.0, 1e-6]))
    out = _summary(d, _t([[0.5, 1.0, 3.0], [-3.0, 0.0, 0.1]]), entropy=False)
    out["sample"] = _seeded(lambda: D.VonMises(fg.tensor([0.0, 1.0]), fg.tensor([0.5, 10.0])).sample((3,)))
    out["sample_float64"] = _seeded(lambda: D.VonMises(_t([2.0]), _t([1e-6])).sample((2,)))
    return out


def scalar_parameters():
    """Distributions of 0-d parameters: their masked corrections (nan modes, infinite KLs) on 0-d tensors."""
    f = fg.tensor
    return {
        "student_t": [
            D.StudentT(4.0).mean,
            D.StudentT(4.0).variance,
            D.StudentT(f(1.5)).variance,
            D.StudentT(f(0.5)).mean,
        ],
        "fisher": [
            D.FisherSnedecor(3.0, 5.0).mean,
            D.FisherSnedecor(3.0, 5.0).mode,
            D.FisherSnedecor(3.0, 5.0).variance,
            D.FisherSnedecor(f(1.0), f(2.0)).mode,
        ],
        "kumaraswamy_mode": [D.Kumaraswamy(2.0, 3.0).mode, D.Kumaraswamy(0.5, 3.0).mode],
        "bernoulli_mode": [D.Bernoulli(0.5).mode, D.Bernoulli(0.7).mode],
        "dirichlet_mode": [D.Dirichlet(f([0.5, 0.7])).mode, D.Dirichlet(f([2.0, 3.0])).mode],
        "geometric": D.Geometric(f(1.0)).log_prob(f(0.0)),
        "kl": [
            D.kl_divergence(D.Bernoulli(0.3), D.Bernoulli(0.0)),
            D.kl_divergence(D.Uniform(0.0, 1.0), D.Uniform(-1.0, 2.0)),
            D.kl_divergence(D.Uniform(-1.0, 2.0), D.Uniform(0.0, 1.0)),
            D.kl_divergence(D.Pareto(1.0, 2.0), D.Pareto(0.5, 3.0)),
            D.kl_divergence(D.Pareto(0.5, 2.0), D.Pareto(1.0, 3.0)),
            D.kl_divergence(D.Uniform(0.5, 1.0), D.Exponential(2.0)),
            D.kl_divergence(D.Uniform(-0.5, 1.0), D.Exponential(2.0)),
            D.kl_divergence(D.Binomial(5, f(0.3)), D.Binomial(5, f(0.4))),
            D.kl_divergence(D.Binomial(f(6.0), f(0.3)), D.Binomial(f(5.0), f(0.4))),
            D.kl_divergence(D.Uniform(0.1, 0.5), D.Beta(2.0, 3.0)),
            D.kl_divergence(D.Beta(2.0, 3.0), D.Uniform(0.0, 1.0)),
            D.kl_divergence(D.Pareto(1.0, 0.5), D.Exponential(1.0)),
            D.kl_divergence(D.Pareto(1.0, 1.5), D.Normal(0.0, 1.0)),
        ],
    }


def wishart():
    cov = _t([[2.0, 0.5], [0.5, 1.0]])
    d = D.Wishart(_t([4.0, 6.0]), cov)
    value = _t([[3.0, 1.0], [1.0, 2.0]])
    out = _summary(d, value)
    dp = D.Wishart(5.0, precision_matrix=cov)
    out["precision"] = [dp.covariance_matrix, dp.log_prob(value), dp.entropy(), repr(dp), list(dp.batch_shape)]
    ds = D.Wishart(_t(3.0), scale_tril=_t([[1.0, 0.0], [0.5, 2.0]]))
    out["scale_tril"] = [ds.covariance_matrix, ds.precision_matrix, ds.log_prob(value), ds.mode]
    out["errors"] = [
        error(lambda: D.Wishart(1.0, cov)),
        error(lambda: D.Wishart(3.0)),
        error(lambda: D.Wishart(3.0, fg.ones(2))),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out["sample_shape"] = list(d.rsample((3,)).shape)
    # torch's rsample flags the positive definite draws as singular: it warns and redraws them
    out["sample_warnings"] = [str(w.message) for w in caught]
    out["low_df_warning"] = _warnings_of(lambda: D.Wishart(1.5, cov))
    out["kl"] = D.kl_divergence(d, D.Wishart(_t([5.0, 6.0]), _t([[1.0, 0.2], [0.2, 1.0]])))
    return out


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def lkj_cholesky():
    d = D.LKJCholesky(3, _t([0.5, 2.0]))
    L = D.transforms.CorrCholeskyTransform()(_t([0.3, -0.5, 0.8]))
    out = {
        "log_prob": d.log_prob(L),
        "shapes": [list(d.batch_shape), list(d.event_shape)],
        "repr": repr(d),
        "support": repr(d.support),
        "expanded": [list(d.expand((4, 2)).batch_shape), d.expand((4, 2)).log_prob(L)],
        "dim_error": error(lambda: D.LKJCholesky(1)),
        "default": [D.LKJCholesky(2).log_prob(D.transforms.CorrCholeskyTransform()(_t([0.4]))), repr(D.LKJCholesky(2))],
    }
    sample = d.sample((5,))
    out["sample"] = [list(sample.shape), D.constraints.corr_cholesky.check(sample)]
    return out


def namespace():
    """torch.distributions' public names, its submodules' and the KL pairs it registers."""
    import importlib

    modules = ["", ".constraints", ".transforms", ".utils", ".kl", ".constraint_registry"]
    return {
        "all": {m: sorted(importlib.import_module("ferrograd.distributions" + m).__all__) for m in modules},
        "kl_pairs": sorted(f"{p.__name__}-{q.__name__}" for p, q in D.kl._KL_REGISTRY),
    }


def seeded_gamma_family():
    """Seeded draws of the distributions sampled by torch's `_standard_gamma`, `poisson` and `binomial` kernels:
    each reproduced in the core, so seeded draws are torch's."""
    f = fg.tensor
    return {
        "gamma": _seeded(lambda: D.Gamma(f([0.5, 1.0, 3.0, 100.0]), f([1.0, 2.0, 0.5, 1.0])).sample((3,))),
        "gamma_float64": _seeded(lambda: D.Gamma(_t([0.1, 2.5]), _t([1.0, 1.0])).rsample((4,))),
        "gamma_tiny": _seeded(lambda: D.Gamma(f([1e-3, 1e-6]), f([1.0, 1.0])).sample((2,))),
        "chi2": _seeded(lambda: D.Chi2(f([1.0, 5.0])).sample((2,))),
        "student_t": _seeded(lambda: D.StudentT(f([2.0, 30.0])).sample((3,))),
        "beta": _seeded(lambda: D.Beta(f([0.5, 2.0]), f([1.0, 3.0])).sample((3,))),
        "dirichlet": _seeded(lambda: D.Dirichlet(f([[0.5, 2.0, 1.0], [1.0, 1.0, 1.0]])).sample((2,))),
        "poisson": _seeded(lambda: D.Poisson(f([0.5, 4.0, 30.0])).sample((3,))),
        "binomial": _seeded(lambda: D.Binomial(f([10.0, 100.0]), f([0.2, 0.7])).sample((3,))),
        "negative_binomial": _seeded(lambda: D.NegativeBinomial(f([2.0, 5.0]), f([0.3, 0.6])).sample((3,))),
        "dirichlet_float64": _seeded(lambda: D.Dirichlet(_t([0.1, 0.2])).sample((3,))),
        "inverse_gamma": _seeded(lambda: D.InverseGamma(f([2.0, 5.0]), f([1.0, 2.0])).sample((2,))),
        "fisher_snedecor": _seeded(lambda: D.FisherSnedecor(f([2.0, 5.0]), f([3.0, 8.0])).sample((2,))),
        "lkj_cholesky": _seeded(lambda: D.LKJCholesky(3, f(1.5)).sample()),
        "standard_gamma_errors": error(lambda: D.Gamma(fg.tensor([1]), fg.tensor([1])).sample()),
    }


def sampling_shapes():
    """Shapes and dtypes of draws."""
    return {
        name: [list(d.sample((2, 3)).shape), d.sample().dtype]
        for name, d in {
            "gamma": D.Gamma(fg.tensor([0.5, 2.0]), fg.tensor(1.0)),
            "beta": D.Beta(fg.tensor([0.5, 2.0]), fg.tensor([1.0, 3.0])),
            "dirichlet": D.Dirichlet(fg.tensor([[0.5, 2.0, 1.0]])),
            "poisson": D.Poisson(fg.tensor([1.0, 20.0])),
            "binomial": D.Binomial(10, fg.tensor([0.2, 0.9])),
            "uniform": D.Uniform(0.0, fg.tensor([1.0, 2.0])),
            "student_t": D.StudentT(fg.tensor([2.0, 5.0])),
            "chi2": D.Chi2(fg.tensor([2.0, 5.0])),
            "negative_binomial": D.NegativeBinomial(fg.tensor([2.0, 5.0]), fg.tensor([0.3, 0.6])),
            "inverse_gamma": D.InverseGamma(fg.tensor([2.0, 5.0]), fg.tensor([1.0, 2.0])),
            "fisher_snedecor": D.FisherSnedecor(fg.tensor([2.0, 5.0]), fg.tensor([3.0, 8.0])),
        }.items()
    }


def seeded_continuous():
    return {
        "uniform": _seeded(lambda: D.Uniform(fg.tensor([0.0, -1.0]), fg.tensor([1.0, 1.0])).rsample((3,))),
        "exponential": _seeded(lambda: D.Exponential(fg.tensor([0.5, 2.0])).rsample((3,))),
        "laplace": _seeded(lambda: D.Laplace(fg.tensor([0.0, 1.0]), fg.tensor([1.0, 2.0])).rsample((3,))),
        "cauchy": _seeded(lambda: D.Cauchy(fg.tensor([0.0, 1.0]), fg.tensor([1.0, 2.0])).rsample((3,))),
        "independent": _seeded(lambda: D.Independent(D.Normal(fg.zeros(3), fg.ones(3)), 1).sample((2,))),
    }


def _kl(p, q):
    return D.kl_divergence(p, q)


def kl():
    n1, n2 = D.Normal(_t([0.0, 1.0]), _t([1.0, 2.0])), D.Normal(_t([1.0, 1.0]), _t([0.5, 2.0]))
    c1 = D.Categorical(_t([[0.2, 0.0, 0.8], [0.3, 0.3, 0.4]]))
    c2 = D.Categorical(_t([[0.5, 0.5, 0.0], [0.1, 0.1, 0.8]]))
    b1, b2 = D.Bernoulli(_t([0.3, 0.0, 1.0, 0.5])), D.Bernoulli(_t([0.6, 0.5, 0.0, 1.0]))
    m1 = D.MultivariateNormal(_t([0.0, 1.0]), _t([[2.0, 0.5], [0.5, 1.0]]))
    m2 = D.MultivariateNormal(_t([[1.0, 0.0], [0.0, 0.0]]), scale_tril=_t([[1.0, 0.0], [0.3, 0.5]]))
    u1, u2 = D.Uniform(_t([0.0, 0.2]), _t([1.0, 0.8])), D.Uniform(_t([-1.0, 0.3]), _t([2.0, 1.0]))
    g1, g2 = D.Gamma(_t([0.5, 2.0]), _t([1.0, 3.0])), D.Gamma(_t([1.5, 2.0]), _t([2.0, 1.0]))
    be1, be2 = D.Beta(_t([0.5, 2.0]), _t([1.0, 3.0])), D.Beta(_t([2.0, 2.0]), _t([2.0, 0.5]))
    e1, e2 = D.Exponential(_t([0.5, 2.0])), D.Exponential(_t([1.0, 1.0]))
    l1, l2 = D.Laplace(_t([0.0, 1.0]), _t([1.0, 2.0])), D.Laplace(_t([1.0, 1.0]), _t([0.5, 2.0]))
    p1, p2 = D.Poisson(_t([0.5, 3.0])), D.Poisson(_t([1.0, 3.0]))
    d1, d2 = D.Dirichlet(_t([1.0, 2.0, 3.0])), D.Dirichlet(_t([0.5, 0.5, 4.0]))
    ub = D.Uniform(_t([0.1, -0.5]), _t([0.6, 0.5]))
    lr1 = D.LowRankMultivariateNormal(_t([0.0, 1.0]), _t([[1.0], [0.5]]), _t([0.5, 1.0]))
    lr2 = D.LowRankMultivariateNormal(_t([[1.0, 0.0], [0.5, 0.5]]), _t([[0.3, 0.1], [-0.2, 0.4]]), _t([1.0, 2.0]))
    cb1, cb2 = D.ContinuousBernoulli(_t([0.2, 0.7])), D.ContinuousBernoulli(logits=_t([0.5, -1.0]))
    pa1, pa2 = D.Pareto(_t([1.0, 0.5]), _t([0.5, 3.0])), D.Pareto(_t([0.5, 1.0]), _t([1.5, 2.5]))
    gu1, gu2 = D.Gumbel(_t([0.0, 1.0]), _t([1.0, 2.0])), D.Gumbel(_t([0.5, 1.0]), _t([2.0, 2.0]))
    return {
        "normal": _kl(n1, n2),
        "categorical": _kl(c1, c2),
        "bernoulli": _kl(b1, b2),
        "mvn": _kl(m1, m2),
        "mvn_self": _kl(m1, m1),
        "independent": _kl(D.Independent(n1, 1), D.Independent(n2, 1)),
        "uniform": _kl(u1, u2),
        "uniform_reverse": _kl(u2, u1),
        "gamma": _kl(g1, g2),
        "beta": _kl(be1, be2),
        "exponential": _kl(e1, e2),
        "laplace": _kl(l1, l2),
        "poisson": _kl(p1, p2),
        "dirichlet": _kl(d1, d2),
        "cauchy": _kl(D.Cauchy(_t([0.0]), _t([1.0])), D.Cauchy(_t([1.0]), _t([3.0]))),
        "geometric": _kl(D.Geometric(_t([0.3, 0.6])), D.Geometric(_t([0.5, 0.5]))),
        "binomial": _kl(D.Binomial(5, _t([0.3, 0.5])), D.Binomial(_t([5.0, 3.0]), _t([0.6, 0.5]))),
        "one_hot": _kl(D.OneHotCategorical(_t([0.2, 0.8])), D.OneHotCategorical(_t([0.5, 0.5]))),
        "log_normal": _kl(D.LogNormal(_t([0.0]), _t([1.0])), D.LogNormal(_t([1.0]), _t([2.0]))),
        "uniform_normal": _kl(u1, n2),
        "uniform_beta": _kl(ub, be1),
        "uniform_gamma": _kl(u1, g1),
        "uniform_exponential": _kl(ub, e1),
        "normal_laplace": _kl(n1, l1),
        "laplace_normal": _kl(l1, n1),
        "normal_uniform": _kl(n1, u1),
        "exponential_gamma": _kl(e1, g1),
        "exponential_normal": _kl(e1, n1),
        "gamma_exponential": _kl(g1, e1),
        "gamma_normal": _kl(g1, n1),
        "beta_normal": _kl(be1, n1),
        "beta_gamma": _kl(be1, g1),
        "beta_exponential": _kl(be1, e1),
        "beta_uniform": _kl(be1, u2),
        "bernoulli_poisson": _kl(D.Bernoulli(_t([0.3, 0.7])), p1),
        "poisson_bernoulli": _kl(p1, D.Bernoulli(_t([0.3, 0.7]))),
        "gumbel": _kl(gu1, gu2),
        "half_normal": _kl(D.HalfNormal(_t([1.0, 2.0])), D.HalfNormal(_t([0.5, 2.5]))),
        "exponential_gumbel": _kl(e1, gu1),
        "gamma_gumbel": _kl(g1, gu1),
        "gumbel_normal": _kl(gu1, n1),
        "normal_gumbel": _kl(n1, gu1),
        "uniform_gumbel": _kl(u1, gu1),
        "gumbel_gamma": _kl(gu1, g1),
        "pareto": _kl(pa1, pa2),
        "pareto_exponential": _kl(pa1, e1),
        "pareto_gamma": _kl(pa1, g1),
        "pareto_normal": _kl(pa1, n1),
        "uniform_pareto": _kl(u2, pa1),
        "normal_pareto": _kl(n1, pa1),
        "pareto_uniform": _kl(pa1, u1),
        "lowrank": _kl(lr1, lr2),
        "mvn_lowrank": _kl(m1, lr2),
        "lowrank_mvn": _kl(lr1, m1),
        "lowrank_shapes": error(
            lambda: _kl(
                lr1,
                D.LowRankMultivariateNormal(
                    fg.zeros(3, dtype=fg.float64), fg.ones(3, 1, dtype=fg.float64), fg.ones(3, dtype=fg.float64)
                ),
            )
        ),
        "continuous_bernoulli": _kl(cb1, cb2),
        "beta_cb": _kl(be1, cb1),
        "cb_exponential": _kl(cb1, e1),
        "cb_normal": _kl(cb1, n1),
        "cb_uniform": _kl(cb1, u2),
        "uniform_cb": _kl(D.Uniform(_t([0.1, 0.2]), _t([0.5, 0.9])), cb1),
        "normal_cb": _kl(n1, cb1),
        "cb_pareto": _kl(cb1, pa1),
        "not_implemented": error(lambda: _kl(n1, c1)),
        "mvn_event_shapes": error(
            lambda: _kl(m1, D.MultivariateNormal(fg.zeros(3, dtype=fg.float64), fg.eye(3, dtype=fg.float64)))
        ),
        "independent_ndims": error(lambda: _kl(D.Independent(m2, 1), D.Independent(D.Independent(n1, 1), 0))),
        "expfamily_cross": error(lambda: _kl(p1, e1)),
    }


def validation():
    # validation on, whatever ran before: importing torch._dynamo (torch.compile's tests) turns torch's off
    D.Distribution.set_default_validate_args(True)
    cases = {
        "normal_scale": lambda: D.Normal(_t([0.0, 1.0]), _t([1.0, -1.0])),
        "normal_nan_loc": lambda: D.Normal(_t([math.nan]), _t([1.0])),
        "normal_scalar_scale": lambda: D.Normal(0.0, 0.0),
        "normal_value": lambda: D.Normal(0.0, 1.0).log_prob(_t([math.nan])),
        "normal_not_tensor": lambda: D.Normal(0.0, 1.0).log_prob(0.5),
        "normal_not_broadcastable": lambda: D.Normal(fg.zeros(3), fg.ones(3)).log_prob(fg.zeros(2)),
        "bad_param_type": lambda: D.Normal("a", 1.0),
        "categorical_both": lambda: D.Categorical(fg.ones(2), fg.ones(2)),
        "categorical_none": lambda: D.Categorical(),
        "categorical_0d_probs": lambda: D.Categorical(fg.tensor(1.0)),
        "categorical_0d_logits": lambda: D.Categorical(logits=fg.tensor(1.0)),
        "categorical_negative": lambda: D.Categorical(fg.tensor([0.5, -0.5, 1.0])),
        "categorical_out_of_support": lambda: D.Categorical(fg.tensor([0.5, 0.5])).log_prob(fg.tensor([0, 2])),
        "categorical_fraction": lambda: D.Categorical(fg.tensor([0.5, 0.5])).log_prob(fg.tensor([0.5])),
        "categorical_nan_logits": lambda: D.Categorical(logits=fg.tensor([0.0, math.nan])),
        "bernoulli_probs": lambda: D.Bernoulli(fg.tensor([0.5, 1.5])),
        "bernoulli_value": lambda: D.Bernoulli(fg.tensor([0.5])).log_prob(fg.tensor([2.0])),
        "bernoulli_both": lambda: D.Bernoulli(0.5, 0.5),
        "mvn_0d_loc": lambda: D.MultivariateNormal(fg.tensor(0.0), fg.eye(1)),
        "mvn_two_matrices": lambda: D.MultivariateNormal(fg.zeros(2), fg.eye(2), scale_tril=fg.eye(2)),
        "mvn_no_matrix": lambda: D.MultivariateNormal(fg.zeros(2)),
        "mvn_1d_cov": lambda: D.MultivariateNormal(fg.zeros(2), fg.ones(2)),
        "mvn_1d_tril": lambda: D.MultivariateNormal(fg.zeros(2), scale_tril=fg.ones(2)),
        "mvn_1d_precision": lambda: D.MultivariateNormal(fg.zeros(2), precision_matrix=fg.ones(2)),
        "mvn_not_symmetric": lambda: D.MultivariateNormal(fg.zeros(2), fg.tensor([[1.0, 0.5], [0.0, 1.0]])),
        "mvn_not_pd": lambda: D.MultivariateNormal(fg.zeros(2), fg.tensor([[1.0, 2.0], [2.0, 1.0]])),
        "mvn_tril_upper": lambda: D.MultivariateNormal(fg.zeros(2), scale_tril=fg.tensor([[1.0, 1.0], [0.0, 1.0]])),
        "mvn_event_shape": lambda: D.MultivariateNormal(fg.zeros(2), fg.eye(2)).log_prob(fg.zeros(3)),
        "independent_ndims": lambda: D.Independent(D.Normal(fg.zeros(2), fg.ones(2)), 2),
        "independent_enumerate": lambda: D.Independent(D.Bernoulli(fg.ones(2) / 2), 1).enumerate_support(),
        "uniform_bounds": lambda: D.Uniform(fg.tensor([0.0, 1.0]), fg.tensor([1.0, 1.0])),
        "uniform_value": lambda: D.Uniform(0.0, 1.0).log_prob(fg.tensor(1.5)),
        "exponential_value": lambda: D.Exponential(fg.tensor([1.0])).log_prob(fg.tensor([-1.0])),
        "gamma_rate": lambda: D.Gamma(fg.tensor([1.0]), fg.tensor([0.0])),
        "beta_value": lambda: D.Beta(fg.tensor([1.0]), fg.tensor([1.0])).log_prob(fg.tensor([1.5])),
        "dirichlet_0d": lambda: D.Dirichlet(fg.tensor(1.0)),
        "dirichlet_value": lambda: D.Dirichlet(fg.ones(3)).log_prob(fg.tensor([0.5, 0.5, 0.5])),
        "poisson_value": lambda: D.Poisson(fg.tensor([1.0])).log_prob(fg.tensor([1.5])),
        "geometric_zero": lambda: D.Geometric(fg.tensor([0.0, 0.5])),
        "binomial_count": lambda: D.Binomial(fg.tensor([2.5]), fg.tensor([0.5])),
        "multinomial_value": lambda: D.Multinomial(2, fg.tensor([0.5, 0.5])).log_prob(fg.tensor([2.0, 1.0])),
        "one_hot_value": lambda: D.OneHotCategorical(fg.tensor([0.5, 0.5])).log_prob(fg.tensor([1.0, 1.0])),
        "log_normal_value": lambda: D.LogNormal(0.0, 1.0).log_prob(fg.tensor(-1.0)),
        "set_default_bad": lambda: D.Distribution.set_default_validate_args(2),
    }
    out = {name: error(fn) for name, fn in cases.items()}
    # validate_args=False accepts what validation refuses
    out["off"] = D.Normal(_t([0.0]), _t([-1.0]), validate_args=False).log_prob(_t([0.5]))
    out["off_categorical"] = D.Categorical(_t([0.5, 0.5]), validate_args=False).log_prob(fg.tensor(1))
    D.Distribution.set_default_validate_args(False)
    try:
        out["default_off"] = D.Normal(_t([0.0]), _t([-1.0])).log_prob(_t([0.5]))
    finally:
        D.Distribution.set_default_validate_args(True)
    out["default_on_again"] = error(lambda: D.Normal(_t([0.0]), _t([-1.0])))
    return out


def constraints():
    C = D.constraints
    x = _t([-1.0, 0.0, 0.5, 1.0, 2.0, math.nan])
    return {
        "reprs": [
            repr(c)
            for c in (
                C.real,
                C.positive,
                C.nonnegative,
                C.unit_interval,
                C.boolean,
                C.simplex,
                C.real_vector,
                C.positive_definite,
                C.lower_cholesky,
                C.nonnegative_integer,
                C.positive_integer,
                C.integer_interval(0, 3),
                C.interval(-1.0, 2.0),
                C.greater_than(1.5),
                C.greater_than_eq(1),
                C.less_than(0.5),
                C.half_open_interval(0, 1),
                C.independent(C.positive, 2),
                C.one_hot,
                C.lower_triangular,
                C.symmetric,
                C.square,
                C.positive_semidefinite,
                C.multinomial(3),
                C.dependent,
            )
        ],
        "checks": [
            C.real.check(x),
            C.positive.check(x),
            C.nonnegative.check(x),
            C.unit_interval.check(x),
            C.boolean.check(x),
            C.nonnegative_integer.check(x),
            C.integer_interval(0, 1).check(x),
            C.interval(0.0, 0.5).check(x),
            C.half_open_interval(0.0, 1.0).check(x),
            C.greater_than(0.5).check(x),
            C.less_than(1.0).check(x),
        ],
        "simplex": C.simplex.check(_t([[0.5, 0.5], [0.2, 0.7], [1.5, -0.5]])),
        "real_vector": C.real_vector.check(_t([[0.0, math.nan], [1.0, 2.0]])),
        "independent": C.independent(C.positive, 1).check(_t([[1.0, 2.0], [1.0, 0.0]])),
        "pd": C.positive_definite.check(_t([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
        "lower_cholesky": C.lower_cholesky.check(_t([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 0.0], [2.0, -1.0]]])),
        "one_hot": C.one_hot.check(_t([[0.0, 1.0], [1.0, 1.0]])),
        "event_dims": [
            C.real.event_dim,
            C.simplex.event_dim,
            C.real_vector.event_dim,
            C.positive_definite.event_dim,
            C.independent(C.simplex, 2).event_dim,
        ],
        "discrete": [C.boolean.is_discrete, C.real.is_discrete, C.integer_interval(0, 2).is_discrete],
        "dependent": [C.is_dependent(C.dependent), C.is_dependent(C.real), error(lambda: C.dependent.check(x))],
        "independent_dims": error(lambda: C.independent(C.real, 2).check(_t([1.0]))),
    }


def utils():
    U = D.utils
    p = _t([[0.25, 0.75], [0.0, 1.0]])
    return {
        "probs_to_logits": U.probs_to_logits(p),
        "probs_to_logits_binary": U.probs_to_logits(p, is_binary=True),
        "logits_to_probs": U.logits_to_probs(_t([[0.0, 1.0], [-INF, 2.0]])),
        "logits_to_probs_binary": U.logits_to_probs(_t([0.0, 1.0]), is_binary=True),
        "clamp_probs": U.clamp_probs(fg.tensor([0.0, 0.5, 1.0])),
        "broadcast_all": [list(t.shape) for t in U.broadcast_all(fg.zeros(2, 1), 1.0, fg.ones(3))]
        + [t.dtype for t in U.broadcast_all(1.0, fg.zeros(2, dtype=fg.float64))]
        + [t.dtype for t in U.broadcast_all(1.0, 2)],
        "broadcast_all_bad": error(lambda: U.broadcast_all(fg.zeros(2), "x")),
        "lazy_property": isinstance(D.Categorical.logits, U.lazy_property),
    }


def reinforce():
    """pytorch/examples' REINFORCE step: a policy net, Categorical over its softmax, log_prob of the sampled
    actions weighted by normalized returns, backward and an Adam step."""
    fg.manual_seed(0)
    policy = fg.nn.Sequential(fg.nn.Linear(4, 16), fg.nn.ReLU(), fg.nn.Linear(16, 2), fg.nn.Softmax(dim=-1))
    with fg.no_grad():
        for i, p in enumerate(policy.parameters()):
            n = p.numel()
            p.copy_(fg.sin(fg.arange(n, dtype=fg.float32) * (0.7 + 0.1 * i)).reshape(p.shape) * 0.3)
    optimizer = fg.optim.Adam(policy.parameters(), lr=1e-2)
    states = fg.cos(fg.arange(20, dtype=fg.float32)).reshape(5, 4)
    log_probs, actions = [], []
    for state in states:
        m = D.Categorical(policy(state.unsqueeze(0)))
        action = m.sample()
        actions.append(action.item())
        log_probs.append(m.log_prob(action))
    rewards = [1.0, 1.0, 0.0, 1.0, 1.0]
    returns, running = [], 0.0
    for r in reversed(rewards):
        running = r + 0.99 * running
        returns.insert(0, running)
    returns = fg.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = fg.cat([-lp * ret for lp, ret in zip(log_probs, returns)]).sum()
    optimizer.zero_grad()
    loss.backward()
    grads = [p.grad.clone() for p in policy.parameters()]
    optimizer.step()
    return {"actions": actions, "loss": loss, "grads": grads, "updated": [p.detach() for p in policy.parameters()]}


def standard_gamma_grad():
    """d sample / d concentration of Gamma(alpha, 1) at sample x: torch's `_standard_gamma_grad` (ferrograd's
    private composition of it), over its three regions."""
    alpha = _t([0.5, 2.0, 2.0, 20.0, 20.0, 20.0, 5.0, 1.0, 0.1])
    x = _t([0.3, 0.5, 3.0, 19.0, 30.0, 10.0, 7.5, 1.5, 1e-4])
    if hasattr(fg, "_standard_gamma_grad"):
        grad = fg._standard_gamma_grad(alpha, x)
    else:
        from ferrograd.distributions._standard_gamma import _standard_gamma_grad

        grad = _standard_gamma_grad(alpha, x)
    return {"grad": grad}


CASES = {
    name: fn
    for name, fn in dict(globals()).items()
    if callable(fn) and not name.startswith("_") and fn.__module__ == __name__ and name[0].islower()
}
