"""ferrograd.distributed, DistributedDataParallel and DistributedSampler.

The multi-process tests launch the scripts in tests/mpi_scripts/ with `mpiexec -n 2` (the mpich wheel's, from
requirements-dev.txt) and read what every rank reports; each run is bounded by a timeout, and a run that hangs
is killed with all its ranks. Against torch (whose wheels have no MPI backend) the same scripts use gloo.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import ferrograd.distributed as dist
import pytest
from ferrograd.utils.data import DistributedSampler
from helpers import AGAINST_TORCH

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_scripts")


def _mpiexec():
    # torch's environment has no mpich of its own: it borrows the project's (.venv, from requirements-dev.txt)
    project_venv = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv", "bin")
    found = next(
        filter(None, (shutil.which("mpiexec", path=d) for d in (os.path.dirname(sys.executable), None, project_venv))),
        None,
    )
    if found is None:
        raise AssertionError("mpiexec not found: pip install mpich (requirements-dev.txt installs it)")
    version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
    # Open MPI refuses to start as root, and more ranks than cores, unless told; mpich needs neither
    extra = ["--allow-run-as-root", "--oversubscribe"] if "Open MPI" in version else []
    return [found, *extra]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(script, *args, n=2, timeout=90, launcher=True):
    """Runs a script on `n` ranks; returns (exit code, stdout, stderr, seconds). Killed, with every rank, past
    `timeout`."""
    env = dict(os.environ, FERROGRAD_NUM_THREADS="1", FG_DIST_PORT=str(_free_port()))
    command = [sys.executable, os.path.join(SCRIPTS, script), *args]
    if launcher:
        command = [*_mpiexec(), "-n", str(n), *command]
    start = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"{script} {args} still running after {timeout} s\nstdout:\n{out}\nstderr:\n{err}") from e
    return proc.returncode, out, err, time.monotonic() - start


def assert_every_rank(script, message, n=2, launcher=True):
    code, out, err, _ = run_ranks(script, n=n, launcher=launcher)
    assert code == 0, f"{script} failed (exit {code})\nstdout:\n{out}\nstderr:\n{err}"
    for rank in range(n):
        assert f"rank {rank}: {message}" in out, f"rank {rank} did not report\nstdout:\n{out}\nstderr:\n{err}"


def test_collectives_match_numpy_on_every_rank():
    assert_every_rank("collectives.py", "collectives ok")


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's gloo needs a rendezvous address; MPI's singleton needs none")
def test_a_script_without_a_launcher_is_a_world_of_one():
    assert_every_rank("collectives.py", "collectives ok", n=1, launcher=False)


def test_ddp_on_two_ranks_matches_one_process():
    assert_every_rank("ddp.py", "ddp ok")


def test_a_rank_that_raises_ends_every_rank():
    code, out, err, seconds = run_ranks("failing_rank.py", "raise")
    assert code != 0
    assert "ValueError: rank 1 failed on purpose" in err
    assert "all_reduce returned" not in out
    assert seconds < 60
    if not AGAINST_TORCH:
        assert "rank 1 of 2 stopped on an uncaught ValueError; aborting every rank (MPI_Abort)" in err, err


def test_a_rank_that_never_joins_times_the_others_out():
    code, out, err, seconds = run_ranks("failing_rank.py", "exit")
    assert code != 0
    assert "rank 1: leaving without the all_reduce" in out
    assert "all_reduce returned" not in out
    if not AGAINST_TORCH:
        assert "all_reduce on rank 0 did not complete within 3 s" in err, err
        assert "DistBackendError" in err


def test_before_init_process_group():
    assert dist.is_available()
    assert not dist.is_initialized()
    for call in (dist.get_rank, dist.get_world_size, dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            call()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        import ferrograd as fg

        dist.all_reduce(fg.ones(2))
    assert dist.ReduceOp.SUM != dist.ReduceOp.AVG
    assert str(dist.ReduceOp.MAX) == "RedOpType.MAX"
    assert dist.Backend("MPI") == "mpi"


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's optional dependency (torch has its backends built in)")
def test_without_mpi4py_import_works_and_init_says_what_to_install():
    code = (
        "import sys; sys.modules['mpi4py'] = None\n"
        "import ferrograd, ferrograd.distributed as dist, ferrograd.nn.parallel\n"
        "assert not dist.is_mpi_available()\n"
        "try:\n"
        "    dist.init_process_group('mpi')\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "pip install ferrograd[distributed]" in proc.stdout


@pytest.mark.skipif(AGAINST_TORCH, reason="torch has nccl (and refuses it without GPUs)")
def test_other_backends_are_refused():
    with pytest.raises(RuntimeError, match="has the gloo and MPI backends"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


# ---- DistributedSampler (no process group needed with explicit num_replicas and rank) ----


def shares(n, replicas, **kwargs):
    return [list(DistributedSampler(range(n), num_replicas=replicas, rank=r, **kwargs)) for r in range(replicas)]


def test_sampler_shares_are_disjoint_and_cover_the_set():
    for n, replicas in [(10, 2), (12, 3), (7, 4), (1, 1)]:
        parts = shares(n, replicas, seed=5)
        assert all(len(p) == -(-n // replicas) for p in parts)
        flat = [i for p in parts for i in p]
        assert sorted(set(flat)) == list(range(n))
        if n % replicas == 0:
            assert sorted(flat) == list(range(n)), "no index twice when the set divides evenly"


def test_sampler_without_shuffle_pads_or_drops():
    assert shares(10, 3, shuffle=False) == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert shares(10, 3, shuffle=False, drop_last=True) == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert shares(2, 5, shuffle=False) == [[0], [1], [0], [1], [0]]
    assert len(DistributedSampler(range(10), num_replicas=3, rank=0, drop_last=True)) == 3


def test_sampler_set_epoch_reshuffles_alike_on_every_rank():
    samplers = [DistributedSampler(range(40), num_replicas=2, rank=r, seed=3) for r in range(2)]
    orders = []
    for epoch in range(3):
        for s in samplers:
            s.set_epoch(epoch)
        parts = [list(s) for s in samplers]
        assert sorted(parts[0] + parts[1]) == list(range(40)), "the ranks draw the same permutation"
        assert parts == [list(s) for s in samplers], "iterating again gives the same order"
        orders.append(parts[0])
    assert orders[0] != orders[1] != orders[2], "each epoch has its own order"
    assert orders[0] != list(range(0, 40, 2))


def test_sampler_bad_rank():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's wheel has no MPI backend built in")
def test_mpi_ignores_a_given_rank_and_world_size_with_torchs_warning():
    """pytorch/tutorials' dist_tuto calls init_process_group('mpi', rank=0, world_size=0): torch warns that the
    MPI runtime assigns both, and goes on."""
    script = (
        "import warnings, ferrograd.distributed as dist\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    dist.init_process_group('mpi', rank=0, world_size=0)\n"
        "print([str(w.message) for w in caught], dist.get_rank(), dist.get_world_size())\n"
        "dist.destroy_process_group()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.strip() == (
        "['For MPI backend, world_size (0) and rank (0) are ignored since they are assigned by the MPI runtime.'] 0 1"
    )
