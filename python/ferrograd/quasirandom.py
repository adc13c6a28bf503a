"""`torch.quasirandom`: `SobolEngine`, (scrambled) Sobol sequences. The direction numbers, the draw, the
fast-forward and the scramble are the core's (`rust/core/src/random/sobol.rs`); the class keeps torch's state
tensors (`sobolstate`, `shift`, `quasi`) and attributes, and draws the scramble's random bits with `randint`
as torch does (from a `Generator` seeded with `seed`, else the default one), so outputs are torch's bit for bit.

ferrograd carries the Joe–Kuo direction numbers of the first 5715 dimensions (polynomials of degree <= 16) of
torch's 21201: the whole table would add ~360 KB of incompressible data to the wheel."""

import ferrograd as _fg

from . import _core

__all__ = ["SobolEngine"]


class SobolEngine:
    r"""An engine for (scrambled) Sobol sequences, low-discrepancy quasi-random points in [0, 1)^dimension
    (Joe–Kuo direction numbers, search criterion D(6); scrambling: Owen's linear matrix scramble and a digital
    shift).

    Args:
        dimension (Int): the dimensionality of the sequence to be drawn
        scramble (bool, optional): draw a scrambled sequence. Default: ``False``.
        seed (Int, optional): the seed of the scramble's random numbers; a random one when ``None``.
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]")
        carried = _core._sobol_table_dimensions()
        if dimension > carried:
            raise NotImplementedError(
                f"ferrograd's SobolEngine carries the direction numbers of dimensions [1, {carried}] of torch's "
                f"[1, {self.MAXDIM}]; got dimension={dimension}"
            )
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self.sobolstate = _core._sobol_initial_state(dimension)
        if not self.scramble:
            self.shift = _fg.zeros(self.dimension, dtype=_fg.long)
        else:
            self._scramble()
        self.quasi = self.shift.clone(memory_format=_fg.contiguous_format)
        # divided in the default dtype of the time of construction, as torch's first point is
        self._first_point = (self.quasi / 2**self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def draw(self, n=1, out=None, dtype=None):
        r"""The next `n` points of the sequence, of size ``(n, dimension)``, as `dtype` (default: the default
        dtype); written into `out` when given."""
        if dtype is None:
            dtype = _fg.get_default_dtype()
        if self.num_generated == 0:
            if n == 1:
                result = self._first_point.to(dtype)
            else:
                result, self.quasi = _core._sobol_draw(self.quasi, n - 1, self.sobolstate, 0, dtype=dtype)
                result = _fg.cat((self._first_point.to(dtype), result), dim=-2)
        else:
            result, self.quasi = _core._sobol_draw(self.quasi, n, self.sobolstate, self.num_generated - 1, dtype=dtype)
        self.num_generated += n
        if out is not None:
            # torch's `out.resize_as_(result).copy_(result)`
            if tuple(out.shape) != tuple(result.shape):
                out.data = result.to(out.dtype)
            else:
                out.copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        r"""The next ``2**m`` points; the points drawn in all must stay a power of 2 (Sobol's balance)."""
        n = 2**m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError(
                "The balance properties of Sobol' points require "
                f"n to be a power of 2. {self.num_generated} points have been "
                f"previously generated, then: n={self.num_generated}+2**{m}={total_n}. "
                "If you still want to do this, please use "
                "'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        r"""Back to the first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        r"""Skips `n` points, as drawing them would."""
        if n == 0:
            return self
        if self.num_generated == 0:
            self.quasi = _core._sobol_fast_forward(self.quasi, n - 1, self.sobolstate, 0)
        else:
            self.quasi = _core._sobol_fast_forward(self.quasi, n, self.sobolstate, self.num_generated - 1)
        self.num_generated += n
        return self

    def _scramble(self):
        g = None
        if self.seed is not None:
            g = _fg.Generator()
            g.manual_seed(self.seed)
        # torch's two draws, in its order: the shift's bits, then the lower-triangular matrices' entries
        shift_bits = _fg.randint(2, (self.dimension, self.MAXBIT), generator=g)
        ltm = _fg.randint(2, (self.dimension, self.MAXBIT, self.MAXBIT), generator=g)
        self.sobolstate, self.shift = _core._sobol_scramble(self.sobolstate, shift_bits, ltm)

    def __repr__(self):
        fmt_string = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt_string += ["scramble=True"]
        if self.seed is not None:
            fmt_string += [f"seed={self.seed}"]
        return self.__class__.__name__ + "(" + ", ".join(fmt_string) + ")"
