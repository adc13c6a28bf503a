"""Fixtures for ferrograd's tests (see helpers.py for the shared helpers)."""

import os
import sys
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# `from helpers import ...` in the test modules, whatever pytest's import mode.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Hypothesis: no per-example deadline (timings vary by machine); each property sets
# its own small max_examples so that the whole suite stays fast.
settings.register_profile(
    "ferrograd",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("ferrograd")


@pytest.fixture
def rng(request):
    """A numpy Generator seeded from the test's name: reproducible, different per test."""
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)


@pytest.fixture(autouse=True)
def _grad_mode_is_restored():
    """Every test must leave grad mode on."""
    yield
    try:  # imported lazily: a missing build fails only the tests that import ferrograd
        import ferrograd as fg
    except ImportError:
        return
    assert fg.is_grad_enabled(), "test left grad mode disabled"


@pytest.fixture
def seeded():
    """Seeds ferrograd's generator (rand/randn) for tests that draw random tensors."""
    import ferrograd as fg

    fg.manual_seed(0)
