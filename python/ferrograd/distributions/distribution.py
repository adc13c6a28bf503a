"""torch.distributions.Distribution: the base class (shapes, argument and sample validation, repr)."""

import warnings

import ferrograd as fg

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The base class of probability distributions.

    Args:
        batch_shape (Size): the shape over which parameters are batched.
        event_shape (Size): the shape of a single sample (without batching).
        validate_args (bool, optional): whether to validate arguments; None takes the default, which
            `set_default_validate_args` sets (True unless Python runs with -O, as torch).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Sets whether validation is on by default (it is, unless Python runs with -O)."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = fg.Size(batch_shape)
        self._event_shape = fg.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_arguments()
        super().__init__()

    def _check_arguments(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. "
                "Please set `arg_constraints = {}` or initialize the distribution "
                "with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            # a parameter derived lazily from the one given (logits from probs) is not checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                    f"but found invalid values:\n{value}"
                )

    def expand(self, batch_shape, _instance=None):
        """A new distribution whose parameters are expanded (not copied) to `batch_shape`."""
        raise NotImplementedError

    def _expanded(self, cls, batch_shape, _instance, param_names, param_event_shape=()):
        """`expand`'s common part: a new instance of `cls` whose parameters among `param_names` present on
        this one are expanded to `batch_shape + param_event_shape`, not validated again."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = fg.Size(batch_shape)
        for name in param_names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(batch_shape) + tuple(param_event_shape)))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """Each parameter's name and the constraint it satisfies."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint the samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample of shape `sample_shape + batch_shape + event_shape`, outside autograd."""
        with fg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterized sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """`sample((n,))`, deprecated as in torch."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(fg.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy), batched over batch_shape."""
        return fg.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        """The shape of a sample for `sample_shape`: sample_shape + batch_shape + event_shape."""
        if not isinstance(sample_shape, fg.Size):
            sample_shape = fg.Size(sample_shape)
        return fg.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """torch's checks of a value given to log_prob/cdf/icdf: a tensor, its rightmost dimensions the
        event shape, broadcastable with batch_shape + event_shape, inside the support."""
        if not isinstance(value, fg.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = fg.Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. Please initialize "
                "the distribution with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        """The instance `expand` fills: `_instance`, or a new one of this class (a subclass with its own
        __init__ must give one, as its parameters are not `cls`'s)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        params = [name for name in self.arg_constraints if name in self.__dict__]
        shown = ", ".join(
            f"{name}: {self.__dict__[name] if self.__dict__[name].numel() == 1 else self.__dict__[name].size()}"
            for name in params
        )
        return f"{self.__class__.__name__}({shown})"


class _SymmetricAboutLoc:
    """A unimodal distribution symmetric about its `loc`: its mean and mode are `loc`."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
