"""fg.distributions.constraints: the regions a distribution's parameters and samples must lie in.

A constraint's `check(value)` returns a boolean tensor over value's batch dimensions (its `event_dim`
rightmost dimensions are reduced: one verdict per event); `repr` is the class name without its leading
underscore, with its bounds, as torch prints it (the validation errors quote it)."""

import ferrograd as fg

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "independent", "integer_interval", "interval", "half_open_interval", "is_dependent",
    "less_than", "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "multinomial",
    "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_semidefinite", "positive_definite",
    "positive_integer", "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]  # fmt: skip

# a simplex's entries must sum to 1 within this (torch's tolerance)
_SIMPLEX_TOLERANCE = 1e-6
# a correlation Cholesky factor's rows have unit norm within this many eps per dimension (torch's)
_CORR_CHOLESKY_TOLERANCE_ULPS = 10
# a symmetric matrix equals its transpose within this absolute tolerance (torch's)
_SYMMETRY_TOLERANCE = 1e-6


class Constraint:
    """A region: `check(value)` is True where `value` lies in it. `event_dim` is how many rightmost
    dimensions form one event (checked together); `is_discrete` whether the region is countable."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a region that depends on other variables (a Categorical's support depends on its
    number of classes): it cannot be checked."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim,
        )

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether `constraint` is a dependent one (which validation skips)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint: `support` computed from the instance, while the
    class attribute still tells validation that it cannot be checked statically."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def _all_after(verdict, kept):
    """A verdict reduced by `all` over its dimensions after the first `kept`."""
    return verdict.reshape(tuple(verdict.shape[:kept]) + (-1,)).all(-1)


class _IndependentConstraint(Constraint):
    """`base_constraint` with `reinterpreted_batch_ndims` more rightmost dimensions reduced into the event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError(
                f"reinterpreted_batch_ndims must be an int, got {type(reinterpreted_batch_ndims).__name__}"
            )
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        verdict = self.base_constraint.check(value)
        if verdict.dim() < self.reinterpreted_batch_ndims:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_after(verdict, verdict.dim() - self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """The support of a mixture: `base_constraint` (the components') checked against every component."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        verdict = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_after(verdict, value.dim() - self.event_dim)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        zeros_and_ones = ((value == 0) | (value == 1)).all(-1)
        return zeros_and_ones & value.sum(-1).eq(1)


class _Bounded(Constraint):
    """A constraint with bounds, printed `name(lower_bound=..., upper_bound=...)` with the bounds it has."""

    _BOUNDS: tuple[str, ...] = ()

    def __repr__(self):
        bounds = ", ".join(f"{name}={getattr(self, name)}" for name in self._BOUNDS)
        return f"{type(self).__name__[1:]}({bounds})"


class _IntegerInterval(_Bounded):
    is_discrete = True
    _BOUNDS = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerLessThan(_Bounded):
    is_discrete = True
    _BOUNDS = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    is_discrete = True
    _BOUNDS = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    def check(self, value):
        return value == value


class _GreaterThan(_Bounded):
    _BOUNDS = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_Bounded):
    _BOUNDS = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    _BOUNDS = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return fg.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < _SIMPLEX_TOLERANCE)


class _Multinomial(Constraint):
    """Nonnegative counts summing to at most `upper_bound` (torch checks no integrality)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


def _matrices_flat(verdict):
    """A per-entry verdict over (..., n, m) reduced to one per matrix."""
    return verdict.reshape(tuple(verdict.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _matrices_flat(value.tril() == value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _matrices_flat(value.tril() == value) & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit norm (within 10 D eps)."""

    event_dim = 2

    def check(self, value):
        tol = fg.finfo(value.dtype).eps * value.size(-1) * _CORR_CHOLESKY_TOLERANCE_ULPS
        row_norm = fg.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        is_square = value.shape[-2] == value.shape[-1]
        return fg.full(tuple(value.shape[:-2]), is_square, dtype=fg.bool)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not square.all():
            return square
        return fg.isclose(value, value.mT, atol=_SYMMETRY_TOLERANCE).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return fg.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return fg.linalg.cholesky_ex(value).info.eq(0)


class _Cat(Constraint):
    """Constraints applied to consecutive slices (of `lengths`) along `dim`, verdicts concatenated."""

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        verdicts, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            verdicts.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return fg.cat(verdicts, self.dim)


class _Stack(Constraint):
    """One constraint per index along `dim`, verdicts stacked."""

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return fg.stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
