"""`quasirandom.SobolEngine` cases whose outputs must be torch's bit for bit: recorded once with torch
(tests/golden/record_quasirandom.py writes tests/golden/quasirandom.json), compared exactly by
tests/test_quasirandom.py. Large results are recorded as a SHA-256 of their bytes (random_cases.digest)."""

import ferrograd as fg
from random_cases import _ends, digest
from recorded import error

Sobol = fg.quasirandom.SobolEngine
# past the first few polynomials; 5715 is the last dimension ferrograd carries (degree-16 polynomials)
DIMS = (1, 2, 3, 7, 40, 1111, 5715)


def _values(t):
    """Small results as values, larger ones as their digest."""
    return t if t.numel() <= 64 else _ends(digest(t))


def _state(engine):
    return {name: _ends(digest(getattr(engine, name))) for name in ("sobolstate", "shift", "quasi")}


def _unscrambled():
    out = {}
    for dim in DIMS:
        e = Sobol(dim)
        out[f"d{dim}"] = {
            "first": _ends(digest(e.draw())),
            "next7": _ends(digest(e.draw(7))),
            "next24_f64": _ends(digest(e.draw(24, dtype=fg.float64))),
            "num_generated": e.num_generated,
            "state": _state(e),
        }
    e = Sobol(3)
    out["small_values"] = e.draw(9)
    out["state_values"] = Sobol(5).sobolstate
    return out


def _scrambled():
    out = {}
    for dim, seed in ((1, 0), (3, 5), (7, 123), (40, 2**40 + 7), (1111, 3)):
        e = Sobol(dim, scramble=True, seed=seed)
        out[f"d{dim}"] = {
            "state": _state(e),
            "first_point": _values(e._first_point),
            "draw8": _values(e.draw(8)),
            "draw9_f64": _values(e.draw(9, dtype=fg.float64)),
            "repr": repr(e),
        }
    return out


def _scrambled_default_generator():
    # seed=None scrambles with the default generator, which the draws advance
    fg.manual_seed(11)
    e = Sobol(4, scramble=True)
    return {"draw": e.draw(5), "shift": e.shift, "after": fg.rand(3), "repr": repr(e)}


def _first_point_in_construction_dtype():
    # the first point is divided in the default dtype at construction: float32 here, even when drawn as float64
    e = Sobol(3, scramble=True, seed=1)
    previous = fg.get_default_dtype()
    fg.set_default_dtype(fg.float64)
    try:
        e64 = Sobol(3, scramble=True, seed=1)
        default64 = e64.draw(2)
    finally:
        fg.set_default_dtype(previous)
    return {"f32_then_f64": e.draw(3, dtype=fg.float64), "built_in_f64": default64, "after": e.draw(2)}


def _fast_forward():
    out = {}
    for scramble in (False, True):
        for skip in (0, 1, 2, 5, 64, 1000, 12345):
            a = Sobol(6, scramble=scramble, seed=9)
            a.fast_forward(skip)
            b = Sobol(6, scramble=scramble, seed=9)
            b.draw(3)
            b.fast_forward(skip)
            out[f"{scramble}_{skip}"] = {
                "start": a.draw(4),
                "after_draw": b.draw(4),
                "counts": [a.num_generated, b.num_generated],
            }
    e = Sobol(2)
    out["returns_self"] = e.fast_forward(3) is e
    out["negative_at_start"] = error(Sobol(2).fast_forward, -1)
    e = Sobol(2)
    e.draw(2)
    out["negative_later"] = error(e.fast_forward, -1)
    return out


def _draw_base2_and_reset():
    e = Sobol(3, scramble=True, seed=2)
    first = e.draw_base2(2)
    second = e.draw_base2(2)
    bad = error(e.draw_base2, 2)
    e.reset()
    again = e.draw_base2(3)
    f = Sobol(3)
    f.draw(3)
    return {
        "first": first,
        "second": second,
        "not_power_of_two": bad,
        "after_reset": again,
        "reset_returns_self": e.reset() is e,
        "after_three": error(f.draw_base2, 2),
        "m0": Sobol(3).draw_base2(0),
        "counts": e.num_generated,
    }


def _draw_sizes_and_dtypes():
    e = Sobol(3)
    e.draw()
    return {
        "zero_later": e.draw(0),
        "zero_first": error(Sobol(3).draw, 0),
        "negative": error(Sobol(3).draw, -1),
        "negative_later": error(e.draw, -1),
        "half_first_point": Sobol(3).draw(1, dtype=fg.float16),
        "half": error(Sobol(3).draw, 3, dtype=fg.float16),
        "long": error(Sobol(3).draw, 3, dtype=fg.int64),
        "float_n": error(Sobol(3).draw, 2.0),
        "tensor_n": Sobol(3).draw(fg.tensor(3)),
        "big": _ends(digest(Sobol(3, scramble=True, seed=4).draw(10000))),
        "dtype_default": str(Sobol(2).draw(2).dtype),
    }


def _out():
    same = fg.zeros(4, 2)
    r_same = Sobol(2).draw(4, out=same)
    other = fg.empty(0)
    r_other = Sobol(2).draw(4, out=other)
    wider = fg.zeros(2, dtype=fg.float64)
    Sobol(2).draw(4, out=wider)
    ints = fg.zeros(2, dtype=fg.int64)
    Sobol(2).draw(4, out=ints)
    return {
        "same": same,
        "same_is_out": r_same is same,
        "resized": other,
        "resized_is_out": r_other is other,
        "float64_out": wider,
        "int64_out": ints,
    }


def _errors_and_repr():
    return {
        "zero": error(Sobol, 0),
        "too_many": error(Sobol, 21202),
        "negative": error(Sobol, -3),
        "repr_plain": repr(Sobol(3)),
        "repr_scrambled": repr(Sobol(3, scramble=True)),
        "repr_seed_only": repr(Sobol(3, seed=4)),
        "repr_both": repr(Sobol(3, scramble=True, seed=-1)),
        "maxes": [Sobol.MAXBIT, Sobol.MAXDIM],
        "attrs": [Sobol(2).dimension, Sobol(2).scramble, Sobol(2, seed=3).seed, Sobol(2).num_generated],
        "dtypes": [str(Sobol(2).sobolstate.dtype), str(Sobol(2).quasi.dtype), str(Sobol(2).shift.dtype)],
        "shapes": [list(Sobol(4).sobolstate.shape), list(Sobol(4).quasi.shape)],
        "seed_2_63": Sobol(3, scramble=True, seed=2**63).draw(2),
        "seed_overflow": error(Sobol, 3, scramble=True, seed=2**64),
    }


def _limits():
    def ff(n, engine=None):
        return (engine or Sobol(3)).fast_forward(n)

    return {
        "to_the_last_point": ff(2**30).num_generated,
        "past_it": error(ff, 2**30 + 1),
        "last_two": ff(2**30 - 2).draw(2),
        "last_two_scrambled": ff(2**30 - 2, Sobol(3, scramble=True, seed=8)).draw(2),
        "one_past": error(ff(2**30 - 1).draw, 2),
        "ff_one_past": error(ff(2**30).fast_forward, 1),
        "draw_past_at_start": error(Sobol(3).draw, 2**30 + 1),
        "empty_at_the_end": ff(2**30 - 1).draw(0),
        "n_past_int64": error(Sobol(3).draw, 2**70),
        "ff_past_int64": error(Sobol(3).fast_forward, 2**64),
    }


CASES = {
    "limits": _limits,
    "unscrambled": _unscrambled,
    "scrambled": _scrambled,
    "scrambled_default_generator": _scrambled_default_generator,
    "first_point_dtype": _first_point_in_construction_dtype,
    "fast_forward": _fast_forward,
    "draw_base2_and_reset": _draw_base2_and_reset,
    "draw_sizes_and_dtypes": _draw_sizes_and_dtypes,
    "out": _out,
    "errors_and_repr": _errors_and_repr,
}
