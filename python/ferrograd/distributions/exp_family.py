"""torch.distributions.ExponentialFamily: entropy and KL from the natural parameters' log normalizer."""

import ferrograd as fg

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of density p(x) = h(x) exp(<t(x), theta> - F(theta)): subclasses give the natural
    parameters theta, the log normalizer F and the carrier measure E[log h(x)]; entropy is then
    F(theta) - <theta, grad F(theta)> - E[log h(x)] (the Bregman divergence of F gives the KL)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        natural = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*natural)
        gradients = fg.autograd.grad(log_normalizer.sum(), natural, create_graph=True)
        result = result + log_normalizer
        for theta, g in zip(natural, gradients):
            result = result - (theta * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
