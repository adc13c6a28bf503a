"""ferrograd.distributions against PyTorch (tests/golden/distributions.json; cases in
tests/cases_distributions.py: values, edges, shapes, reprs, validation errors, KL pairs, seeded samples, a
REINFORCE step), gradients of log_prob, entropy, cdf, KL and rsample against finite differences in float64,
and the draws by their moments (Poisson, Binomial and the Gamma family, the latter with
its reparameterized gradient)
(fixed seeds, loose bounds)."""

import math

import ferrograd as fg
import ferrograd.distributions as D
import numpy as np
import pytest
from cases_distributions import CASES
from helpers import AGAINST_TORCH, gradcheck
from recorded import check, expected

EXPECTED = expected("distributions", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _positive(rng, shape, low=0.5, high=2.0):
    return rng.uniform(low, high, shape)


# name -> (parameter arrays (from rng), a function of the parameters as tensors returning a distribution,
#          a value in the support)
def _families(rng):
    simplex = rng.dirichlet([2.0, 2.0, 2.0], size=2)
    # a covariance or precision is made symmetric positive definite from any matrix a (finite differences
    # perturb one entry at a time; cholesky reads one triangle); scale_tril is the lower triangle of a
    a = rng.standard_normal((2, 2))
    eye = fg.eye(2, dtype=fg.float64)
    b = rng.standard_normal((2, 2))
    spd_value = b @ b.T + np.eye(2)
    corr_cholesky = D.transforms.CorrCholeskyTransform()(fg.tensor(rng.standard_normal(3), dtype=fg.float64)).numpy()
    return {
        "normal": ([rng.standard_normal(3), _positive(rng, 3)], D.Normal, rng.standard_normal(3)),
        "categorical_probs": ([simplex], D.Categorical, np.array([0, 2])),
        "categorical_logits": ([rng.standard_normal((2, 3))], lambda x: D.Categorical(logits=x), np.array([1, 0])),
        "bernoulli_probs": ([rng.uniform(0.2, 0.8, 3)], D.Bernoulli, np.array([0.0, 1.0, 1.0])),
        "bernoulli_logits": ([rng.standard_normal(3)], lambda x: D.Bernoulli(logits=x), np.array([0.0, 1.0, 0.0])),
        "mvn_cov": (
            [rng.standard_normal(2), a],
            lambda loc, a: D.MultivariateNormal(loc, a @ a.mT + eye),
            rng.standard_normal(2),
        ),
        "mvn_tril": (
            [rng.standard_normal(2), np.array([[1.5, 0.7], [0.3, 0.8]])],
            lambda loc, a: D.MultivariateNormal(loc, scale_tril=a.tril()),
            rng.standard_normal((3, 2)),
        ),
        "mvn_precision": (
            [rng.standard_normal(2), a],
            lambda loc, a: D.MultivariateNormal(loc, precision_matrix=a @ a.mT + eye),
            rng.standard_normal(2),
        ),
        "independent": (
            [rng.standard_normal(3), _positive(rng, 3)],
            lambda m, s: D.Independent(D.Normal(m, s), 1),
            rng.standard_normal(3),
        ),
        "uniform": ([rng.uniform(-1, 0, 2), rng.uniform(1, 2, 2)], D.Uniform, np.array([0.2, 0.5])),
        "exponential": ([_positive(rng, 3)], D.Exponential, _positive(rng, 3)),
        "laplace": ([rng.standard_normal(3), _positive(rng, 3)], D.Laplace, rng.standard_normal(3) + 3.0),
        "cauchy": ([rng.standard_normal(3), _positive(rng, 3)], D.Cauchy, rng.standard_normal(3)),
        "gamma": ([_positive(rng, 3), _positive(rng, 3)], D.Gamma, _positive(rng, 3)),
        "beta": ([_positive(rng, 3), _positive(rng, 3)], D.Beta, rng.uniform(0.1, 0.9, 3)),
        "dirichlet": ([_positive(rng, (2, 3))], D.Dirichlet, simplex),
        "poisson": ([_positive(rng, 3)], D.Poisson, np.array([0.0, 2.0, 5.0])),
        "binomial": ([rng.uniform(0.2, 0.8, 3)], lambda p: D.Binomial(6, p), np.array([0.0, 3.0, 6.0])),
        "geometric": ([rng.uniform(0.2, 0.8, 3)], D.Geometric, np.array([0.0, 3.0, 1.0])),
        "one_hot": ([simplex], D.OneHotCategorical, np.eye(3)[[1, 2]]),
        "multinomial": ([simplex], lambda p: D.Multinomial(4, p), np.array([[1.0, 1.0, 2.0], [0.0, 4.0, 0.0]])),
        "log_normal": ([rng.standard_normal(3), _positive(rng, 3)], D.LogNormal, _positive(rng, 3)),
        "student_t": (
            [_positive(rng, 3) + 1, rng.standard_normal(3), _positive(rng, 3)],
            D.StudentT,
            rng.standard_normal(3),
        ),
        "gumbel": ([rng.standard_normal(3), _positive(rng, 3)], D.Gumbel, rng.standard_normal(3)),
        "half_normal": ([_positive(rng, 3)], D.HalfNormal, _positive(rng, 3)),
        "half_cauchy": ([_positive(rng, 3)], D.HalfCauchy, _positive(rng, 3)),
        "chi2": ([_positive(rng, 3)], D.Chi2, _positive(rng, 3)),
        "relaxed_bernoulli": (
            [rng.uniform(0.2, 0.8, 3)],
            lambda p: D.RelaxedBernoulli(fg.tensor(0.5, dtype=fg.float64), p),
            rng.uniform(0.1, 0.9, 3),
        ),
        "relaxed_one_hot": (
            [simplex],
            lambda p: D.RelaxedOneHotCategorical(fg.tensor(0.7, dtype=fg.float64), p),
            rng.dirichlet([1.0, 1.0, 1.0], size=2),
        ),
        "pareto": ([_positive(rng, 3), _positive(rng, 3) + 2], D.Pareto, _positive(rng, 3) + 2),
        "weibull": ([_positive(rng, 3), _positive(rng, 3)], D.Weibull, _positive(rng, 3)),
        "negative_binomial": (
            [_positive(rng, 3), rng.uniform(0.2, 0.8, 3)],
            D.NegativeBinomial,
            np.array([0.0, 2.0, 5.0]),
        ),
        "inverse_gamma": ([_positive(rng, 3), _positive(rng, 3)], D.InverseGamma, _positive(rng, 3)),
        "kumaraswamy": ([_positive(rng, 3), _positive(rng, 3)], D.Kumaraswamy, rng.uniform(0.1, 0.9, 3)),
        "mixture": (
            [rng.dirichlet([2.0, 2.0]), rng.standard_normal((2, 3)), _positive(rng, (2, 3))],
            lambda w, m, s: D.MixtureSameFamily(D.Categorical(w), D.Independent(D.Normal(m, s), 1)),
            rng.standard_normal((4, 3)),
        ),
        "lowrank": (
            [rng.standard_normal(3), rng.standard_normal((3, 2)), _positive(rng, 3)],
            D.LowRankMultivariateNormal,
            rng.standard_normal((2, 3)),
        ),
        "logistic_normal": ([rng.standard_normal(2), _positive(rng, 2)], D.LogisticNormal, simplex),
        "fisher_snedecor": ([_positive(rng, 3) + 1, _positive(rng, 3) + 1], D.FisherSnedecor, _positive(rng, 3)),
        "continuous_bernoulli": ([rng.uniform(0.1, 0.4, 3)], D.ContinuousBernoulli, rng.uniform(0.1, 0.9, 3)),
        "generalized_pareto": (
            [rng.standard_normal(3), _positive(rng, 3), rng.uniform(0.1, 0.4, 3)],
            D.GeneralizedPareto,
            rng.uniform(3.0, 4.0, 3),
        ),
        "von_mises": ([rng.standard_normal(3), rng.uniform(0.5, 6.0, 3)], D.VonMises, rng.standard_normal(3)),
        "wishart": ([_positive(rng, 2) + 2, a], lambda df, a: D.Wishart(df, a @ a.mT + eye), spd_value),
        "lkj_cholesky": ([_positive(rng, 2)], lambda c: D.LKJCholesky(3, c), corr_cholesky),
        "affine_tanh": (
            [rng.standard_normal(3), _positive(rng, 3)],
            lambda m, s: D.TransformedDistribution(D.Normal(m, s), [D.AffineTransform(0.5, 2.0), D.TanhTransform()]),
            rng.uniform(-0.9, 0.9, 3),
        ),
    }


FAMILIES = sorted(_families(np.random.default_rng(0)))
# the normalization of probs (Categorical divides by their sum) makes the simplex a free direction: fine for
# finite differences, which perturb one entry at a time as autograd does
WITHOUT_ENTROPY = {
    "poisson",
    "affine_tanh",
    "relaxed_bernoulli",
    "relaxed_one_hot",
    "negative_binomial",
    "mixture",
    "logistic_normal",
    "fisher_snedecor",
    "von_mises",
    "lkj_cholesky",
}


def _value(v, dtype=fg.float64):
    return fg.tensor(v, dtype=fg.int64 if v.dtype.kind == "i" else dtype)


# torch's GeneralizedPareto.log_prob raises for float64 parameters (it compares the concentration with a
# float32 zero); ferrograd's computes it
TORCH_FLOAT64_LOG_PROB_FAILS = {"generalized_pareto"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.skipif(AGAINST_TORCH, reason="torch's float64 log_prob raises"))
        if n in TORCH_FLOAT64_LOG_PROB_FAILS
        else n
        for n in FAMILIES
    ],
)
def test_log_prob_gradcheck(rng, name):
    params, make, value = _families(rng)[name]
    gradcheck(lambda *p: make(*p).log_prob(_value(value)), params)


# the entropy of a location-scale family does not depend on its location: name -> the location's position
LOCATION = {"normal": 0, "laplace": 0, "cauchy": 0, "gumbel": 0, "independent": 0, "mvn_cov": 0, "mvn_tril": 0,
            "mvn_precision": 0, "student_t": 1, "lowrank": 0, "generalized_pareto": 0}  # fmt: skip


@pytest.mark.parametrize("name", sorted(set(FAMILIES) - WITHOUT_ENTROPY))
def test_entropy_gradcheck(rng, name):
    params, make, _ = _families(rng)[name]
    if name in LOCATION:
        i = LOCATION[name]
        loc = fg.tensor(params[i], dtype=fg.float64)
        gradcheck(lambda *p: make(*p[:i], loc, *p[i:]).entropy(), params[:i] + params[i + 1 :])
    else:
        gradcheck(lambda *p: make(*p).entropy(), params)


def _other_parameters(name, params):
    """Parameters of a second distribution of the family, near the first and with support containing its."""
    if name in ("categorical_probs", "one_hot"):
        return [np.roll(params[0], 1, axis=-1)]
    if name == "uniform":
        return [params[0] - 0.2, params[1] + 0.3]
    if name == "pareto":  # q's support must hold p's: a smaller scale
        return [params[0] * 0.8, params[1] * 1.1]
    return [p * 1.1 + 0.05 for p in params]


# torch registers no KL for these
NO_KL = {
    "multinomial",
    "student_t",
    "half_cauchy",
    "relaxed_bernoulli",
    "relaxed_one_hot",
    "weibull",
    "negative_binomial",
    "kumaraswamy",
    "mixture",
    "fisher_snedecor",
    "generalized_pareto",
    "von_mises",
    "lkj_cholesky",
}


# torch's KL through the Bregman divergence of the log normalizer (the exponential families without a pair of
# their own) detaches p's natural parameters: no gradient reaches p's parameters, as in torch
BREGMAN_KL = {"wishart"}


@pytest.mark.parametrize("name", sorted(set(FAMILIES) - NO_KL - BREGMAN_KL))
def test_kl_gradcheck(rng, name):
    """KL(p || q) with respect to both distributions' parameters."""
    params_p, make, _ = _families(rng)[name]
    params_q = _other_parameters(name, params_p)
    n = len(params_p)

    def kl(*p):
        return D.kl_divergence(make(*p[:n]), make(*p[n:]))

    gradcheck(kl, params_p + params_q)


@pytest.mark.parametrize("name", sorted(BREGMAN_KL))
def test_bregman_kl_gradcheck(rng, name):
    """The Bregman KL with respect to q's parameters (p's are detached by torch's formula)."""
    params_p, make, _ = _families(rng)[name]
    p = make(*[fg.tensor(x, dtype=fg.float64) for x in params_p])
    gradcheck(lambda *q: D.kl_divergence(p, make(*q)), _other_parameters(name, params_p))


@pytest.mark.parametrize(
    "name",
    ["normal", "uniform", "exponential", "laplace", "cauchy", "log_normal", "half_normal", "half_cauchy", "gumbel"],
)
def test_cdf_icdf_gradcheck(rng, name):
    params, make, value = _families(rng)[name]
    gradcheck(lambda *p: make(*p).cdf(_value(value)), params)
    gradcheck(lambda *p: make(*p).icdf(fg.tensor([0.2, 0.5, 0.9], dtype=fg.float64)[: len(value)]), params)


@pytest.mark.parametrize(
    "name",
    [
        "normal",
        "mvn_cov",
        "mvn_tril",
        "mvn_precision",
        "independent",
        "uniform",
        "exponential",
        "laplace",
        "cauchy",
        "log_normal",
        "affine_tanh",
    ],
)
def test_rsample_gradcheck(rng, name):
    """The reparameterized draw is a differentiable function of the parameters (the noise fixed by the seed)."""
    params, make, _ = _families(rng)[name]

    def draw(*p):
        fg.manual_seed(7)
        return make(*p).rsample((2,))

    gradcheck(draw, params)


def test_sample_does_not_record_the_graph():
    loc = fg.zeros(3, requires_grad=True)
    for dist in (D.Normal(loc, 1.0), D.Laplace(loc, 1.0), D.MultivariateNormal(loc, fg.eye(3))):
        assert not dist.sample((2,)).requires_grad
        assert dist.rsample((2,)).requires_grad


def _moments(samples):
    s = samples.double().numpy()
    return s.mean(axis=0), s.var(axis=0)


DRAWS = 20000


def test_gamma_samples_have_its_moments():
    fg.manual_seed(0)
    concentration, rate = np.array([0.1, 0.5, 1.0, 3.0, 50.0]), np.array([1.0, 2.0, 0.5, 1.0, 4.0])
    d = D.Gamma(fg.tensor(concentration, dtype=fg.float32), fg.tensor(rate, dtype=fg.float32))
    samples = d.sample((DRAWS,))
    assert samples.shape == (DRAWS, 5) and samples.dtype == fg.float32 and bool((samples > 0).all())
    mean, var = _moments(samples)
    np.testing.assert_allclose(mean, concentration / rate, rtol=0.05)
    np.testing.assert_allclose(var, concentration / rate**2, rtol=0.1)


def test_gamma_rsample_gradient_is_unbiased():
    """E[d x / d alpha] = d E[x] / d alpha = 1 / rate, E[d x / d rate] = -alpha / rate^2: the implicit
    reparameterization gradient averaged over draws, in torch's three approximation regions."""
    fg.manual_seed(1)
    concentration = fg.tensor([0.3, 2.0, 5.0, 20.0], dtype=fg.float64, requires_grad=True)
    rate = fg.tensor([1.0, 0.5, 2.0, 1.0], dtype=fg.float64, requires_grad=True)
    D.Gamma(concentration, rate).rsample((DRAWS,)).mean(0).sum().backward()
    c, r = concentration.detach().numpy(), rate.detach().numpy()
    np.testing.assert_allclose(concentration.grad.numpy(), 1 / r, rtol=0.05)
    np.testing.assert_allclose(rate.grad.numpy(), -c / r**2, rtol=0.05)


def test_beta_and_dirichlet_samples():
    fg.manual_seed(2)
    a, b = np.array([0.5, 2.0]), np.array([0.5, 5.0])
    mean, var = _moments(D.Beta(fg.tensor(a), fg.tensor(b)).sample((DRAWS,)))
    np.testing.assert_allclose(mean, a / (a + b), rtol=0.05)
    np.testing.assert_allclose(var, a * b / ((a + b) ** 2 * (a + b + 1)), rtol=0.1)
    alpha = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64, requires_grad=True)
    samples = D.Dirichlet(alpha).rsample((DRAWS,))
    np.testing.assert_allclose(samples.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(samples.mean(0).detach().numpy(), [1 / 6, 2 / 6, 3 / 6], rtol=0.03)
    # d E[x_0] / d alpha = (a0 e_0 - a_0 1) / a0^2 for E[x_0] = a_0 / a0
    samples.mean(0)[0].backward()
    np.testing.assert_allclose(alpha.grad.numpy(), [5 / 36, -1 / 36, -1 / 36], atol=0.01)


def test_poisson_and_binomial_samples():
    fg.manual_seed(3)
    rate = np.array([0.5, 4.0, 40.0])
    mean, var = _moments(D.Poisson(fg.tensor(rate)).sample((DRAWS,)))
    np.testing.assert_allclose(mean, rate, rtol=0.05)
    np.testing.assert_allclose(var, rate, rtol=0.1)
    p = np.array([0.2, 0.9])
    mean, var = _moments(D.Binomial(10, fg.tensor(p)).sample((DRAWS,)))
    np.testing.assert_allclose(mean, 10 * p, rtol=0.05)
    np.testing.assert_allclose(var, 10 * p * (1 - p), rtol=0.1)


def test_sample_n_warns_and_draws():
    with pytest.warns(FutureWarning):
        assert D.Normal(fg.zeros(2), fg.ones(2)).sample_n(4).shape == (4, 2)


def test_kl_registry_dispatch():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    assert math.isclose(D.kl_divergence(p, q).item(), D.kl_divergence(D.Normal(0.0, 1.0), q).item())

    @D.register_kl(MyNormal, D.Normal)
    def _constant(p, q):
        return fg.tensor(-1.0)

    try:
        assert D.kl_divergence(p, q).item() == -1.0
        assert D.kl_divergence(q, q).item() == 0.0
    finally:
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
        D.kl._KL_MEMOIZE.clear()


def test_lazy_property_keeps_the_graph():
    dist = D.Categorical(fg.tensor([0.2, 0.8], requires_grad=True))
    with fg.no_grad():
        logits = dist.logits
    assert logits.requires_grad  # computed with grad enabled, as torch's lazy_property


TRANSFORMS = {
    "stick_breaking": (lambda: D.transforms.StickBreakingTransform(), (3,)),
    "corr_cholesky": (lambda: D.transforms.CorrCholeskyTransform(), (3,)),
    "lower_cholesky": (lambda: D.transforms.LowerCholeskyTransform(), (2, 2)),
    "positive_definite": (lambda: D.transforms.PositiveDefiniteTransform(), (2, 2)),
    "softmax": (lambda: D.transforms.SoftmaxTransform(), (3,)),
    "power": (lambda: D.transforms.PowerTransform(fg.tensor(2.5, dtype=fg.float64)), (3,)),
    "cat": (lambda: D.transforms.CatTransform([D.ExpTransform(), D.TanhTransform()], lengths=[1, 2]), (3,)),
    "stack": (lambda: D.transforms.StackTransform([D.SigmoidTransform(), D.ExpTransform()], dim=-1), (3, 2)),
}
# log |det J| of the bijections whose Jacobian torch defines
WITH_JACOBIAN = {"stick_breaking", "corr_cholesky", "power", "cat", "stack"}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_gradcheck(rng, name):
    make, shape = TRANSFORMS[name]
    x = rng.uniform(0.2, 1.5, shape)  # positive: PowerTransform's domain
    gradcheck(lambda x: make()(x), [x])
    gradcheck(lambda x: make().inv(make()(x)), [x])
    if name in WITH_JACOBIAN:
        gradcheck(lambda x: make().log_abs_det_jacobian(x, make()(x)), [x])


@pytest.mark.parametrize("name", sorted(WITH_JACOBIAN - {"cat", "stack"}))
def test_transform_log_det_is_the_jacobians(rng, name):
    """log |det J| against the Jacobian by autograd (the stick breaking and correlation maps change the
    dimension: their Jacobian is taken against the free coordinates)."""
    make, shape = TRANSFORMS[name]
    x = fg.tensor(rng.uniform(0.2, 1.5, shape), dtype=fg.float64)
    t = make()

    def free(x):  # the coordinates that determine y
        y = t(x)
        if name == "stick_breaking":
            return y[:-1]
        if name == "corr_cholesky":
            return D.utils.tril_matrix_to_vec(y, diag=-1)
        return y

    jacobian = fg.autograd.functional.jacobian(free, x)
    expected = np.log(np.abs(np.linalg.det(jacobian.reshape(x.numel(), x.numel()).numpy())))
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).sum().item(), expected, rtol=1e-9)


def test_gamma_takes_a_generator():
    """Gamma.sample/rsample(generator=) draw from that generator (torch's keyword), leaving the default alone."""
    d = D.Gamma(fg.tensor([0.5, 3.0]), fg.tensor(1.0))
    fg.manual_seed(5)
    first = d.sample((3,), generator=fg.Generator().manual_seed(11))
    after = fg.rand(2)
    fg.manual_seed(5)
    assert fg.equal(after, fg.rand(2))  # the default generator did not move
    assert fg.equal(first, d.rsample((3,), generator=fg.Generator().manual_seed(11)))
