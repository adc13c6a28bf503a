"""The kernels' thread pool: results do not depend on the thread count, threads from Python run ops
concurrently, and a forked child still computes (its copy of the pool has no worker threads)."""

import os
import subprocess
import sys
import textwrap
import threading

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

# Sizes above the threading threshold (2**17 elements), so each op below is split into parts.
SCRIPT = textwrap.dedent(
    """
    import numpy as np, ferrograd as fg
    rng = np.random.default_rng(0)
    a = rng.standard_normal((600, 500)).astype(np.float32)
    b = rng.standard_normal((500, 400)).astype(np.float32)
    x = fg.tensor(a, requires_grad=True)
    y = ((x * x + x).exp() * 0.01).sum(0)
    y.sum().backward()
    m = fg.tensor(a) @ fg.tensor(b)
    col = fg.tensor(a[:, :1]) + fg.tensor(a[:1, :])
    np.savez(OUT, y=y.detach().numpy(), g=x.grad.numpy(), m=m.numpy(), s=fg.tensor(a).sum(1).numpy(),
             col=col.numpy())
    """
)


def run_with_threads(tmp_path, n):
    out = tmp_path / f"t{n}.npz"
    env = dict(os.environ, FERROGRAD_NUM_THREADS=str(n))
    subprocess.run([sys.executable, "-c", f"OUT = {str(out)!r}\n" + SCRIPT], env=env, check=True, timeout=120)
    return np.load(out)


def test_results_do_not_depend_on_the_thread_count(tmp_path):
    one, three = run_with_threads(tmp_path, 1), run_with_threads(tmp_path, 3)
    # elementwise results are the same bits; sums add float64 partials per thread, GEMM splits rows
    np.testing.assert_array_equal(one["col"], three["col"])
    for k, tol in [("y", 1e-6), ("g", 1e-6), ("s", 1e-6), ("m", 1e-5)]:
        np.testing.assert_allclose(one[k], three[k], rtol=tol, atol=tol, err_msg=k)


def test_python_threads_run_large_ops_concurrently():
    a = np.random.default_rng(1).standard_normal(1 << 19).astype(np.float32)
    want = np.exp(a) * 2.0
    errors = []

    def work():
        try:
            t = fg.tensor(a)
            for _ in range(20):
                np.testing.assert_allclose((t.exp() * 2.0).numpy(), want, rtol=1e-6)
        except Exception as e:  # surfaced below: an assert in a thread would be lost
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
# torch's own child hangs here (its OpenMP pool, GNU libgomp, does not survive fork: torch 2.15 from PyPI)
@pytest.mark.skipif(AGAINST_TORCH, reason="torch's forked child hangs in its OpenMP pool")
def test_a_forked_child_still_computes():
    code = textwrap.dedent(
        """
        import os, sys, numpy as np, ferrograd as fg
        a = np.arange(1 << 18, dtype=np.float32)
        assert float(fg.tensor(a).sum()) == float(a.sum(dtype=np.float64))  # the pool is running
        pid = os.fork()
        if pid == 0:
            doubled = np.array_equal((fg.tensor(a) * 2).numpy(), a * 2)
            ok = doubled and float(fg.tensor(a).sum()) == float(a.sum(dtype=np.float64))
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    # a hang here (a child waiting on threads it does not have) fails by timeout
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_set_num_threads_changes_the_count_and_results_stay_the_same():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((600, 500)).astype(np.float32)
    b = rng.standard_normal((500, 400)).astype(np.float32)
    before = fg.get_num_threads()
    assert isinstance(before, int) and before >= 1
    try:
        results = {}
        for n in (1, 3, before):
            fg.set_num_threads(n)
            assert fg.get_num_threads() == n
            results[n] = ((fg.tensor(a) @ fg.tensor(b)).exp().sum(0) * 1e-3).numpy()
        np.testing.assert_allclose(results[1], results[3], rtol=1e-5)
        np.testing.assert_allclose(results[1], results[before], rtol=1e-5)
    finally:
        fg.set_num_threads(before)
    assert fg.get_num_threads() == before


@pytest.mark.parametrize(
    "num, message",
    [
        (0, "set_num_threads expects a positive integer"),
        (-2, "set_num_threads expects a positive integer"),
        (1.5, "set_num_threads expects an int, but got float"),
        (True, "set_num_threads expects an int, but got bool"),
        ("2", "set_num_threads expects an int, but got str"),
    ],
)
def test_set_num_threads_rejects_what_torch_rejects(num, message):
    before = fg.get_num_threads()
    with pytest.raises(RuntimeError, match=message):
        fg.set_num_threads(num)
    assert fg.get_num_threads() == before


@pytest.mark.parametrize("num", [2**70, -(2**70)])
def test_set_num_threads_overflow_is_a_value_error(num):
    before = fg.get_num_threads()
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        fg.set_num_threads(num)
    assert fg.get_num_threads() == before


FERROGRAD_ONLY = pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own variable")


def _threads_in_fresh_process(env_vars):
    env = {k: v for k, v in os.environ.items() if k not in ("FERROGRAD_NUM_THREADS", "OMP_NUM_THREADS")}
    env.update(env_vars)
    code = "import ferrograd as fg; print(fg.get_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


@pytest.mark.parametrize(
    "env_vars, want",
    [
        ({"OMP_NUM_THREADS": "1"}, 1),  # what torchrun sets for each process
        ({"OMP_NUM_THREADS": "2"}, 2),
        # ferrograd's own variable first; a mistyped count starts at most 256 threads
        pytest.param({"FERROGRAD_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, 2, marks=FERROGRAD_ONLY),
        pytest.param({"FERROGRAD_NUM_THREADS": "1000000000"}, 256, marks=FERROGRAD_ONLY),
    ],
)
def test_the_thread_count_comes_from_the_environment(env_vars, want):
    assert _threads_in_fresh_process(env_vars) == want
