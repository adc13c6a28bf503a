"""Fixtures for ferrograd's tests (see helpers.py for the shared helpers)."""

import faulthandler
import os
import signal
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

# A test that hangs (a lost wake-up, a worker process waited for in vain) must not block CI until its time limit:
# past FG_TEST_TIMEOUT seconds (default 300; 0 turns it off) from its setup, SIGALRM makes faulthandler write every
# thread's stack to the terminal and then ends the run (exit status 142). An alarm rather than faulthandler's
# dump_traceback_later: its timer thread is copied into forked children as a lock held by nobody, and a forked child
# that exits through Python's finalization then waits on it forever; an alarm is not inherited across fork.
_TEST_TIMEOUT = int(os.environ.get("FG_TEST_TIMEOUT", "300"))
_watchdog_fd = None


def pytest_configure(config):
    global _watchdog_fd
    if _TEST_TIMEOUT > 0 and hasattr(signal, "SIGALRM"):
        # a copy of the terminal's stderr: during a test, fd 2 goes to pytest's capture file, lost at the exit
        _watchdog_fd = os.dup(sys.stderr.fileno())
        # chain: after the dump, SIGALRM's default action ends the process
        faulthandler.register(signal.SIGALRM, file=_watchdog_fd, all_threads=True, chain=True)


def pytest_unconfigure(config):
    global _watchdog_fd
    if _watchdog_fd is not None:
        faulthandler.unregister(signal.SIGALRM)
        os.close(_watchdog_fd)
        _watchdog_fd = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _watchdog_fd is None:
        return (yield)
    signal.alarm(_TEST_TIMEOUT)
    try:
        return (yield)
    finally:
        signal.alarm(0)


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
