"""The gloo backend: the scripts in tests/mpi_scripts/ started by the torchrun-style launcher
(`python -m ferrograd.distributed.run`; against torch, `python -m torch.distributed.run`) or by `mp.spawn`, on
127.0.0.1 with a free port; a rank that dies or goes silent; the TCPStore; init_process_group's errors.

Every run is bounded by a timeout and killed with all its processes past it; the process groups get short
timeouts, so a failure is an error within seconds, never a hang.
"""

import os
import signal
import socket
import subprocess
import sys
import threading
from datetime import timedelta

import ferrograd.distributed as dist
import pytest
from helpers import AGAINST_TORCH

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_scripts")
LAUNCHER = "torch.distributed.run" if AGAINST_TORCH else "ferrograd.distributed.run"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(command, timeout=60, env=None):
    """(exit code, stdout, stderr) of `command`, killed with its whole process group past `timeout`."""
    env = dict(os.environ, FERROGRAD_NUM_THREADS="1", FG_DIST_PORT=str(_free_port()), **(env or {}))
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID"):
        env.pop(var, None)
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"{command} still running after {timeout} s\nstdout:\n{out}\nstderr:\n{err}") from e
    return proc.returncode, out, err


def launch(script, *args, n=2, launcher_args=()):
    command = [sys.executable, "-m", LAUNCHER, f"--nproc_per_node={n}", *launcher_args, script, *args]
    return run(command)


def assert_every_rank(result, message, n):
    code, out, err = result
    assert code == 0, f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    for rank in range(n):
        assert f"rank {rank}: {message}" in out, f"rank {rank} did not report\nstdout:\n{out}\nstderr:\n{err}"


@pytest.mark.parametrize("n", [2, 3])
def test_collectives_under_the_launcher(n):
    """Every collective and point-to-point operation, checked on every rank (3 ranks: chunks of unequal size)."""
    assert_every_rank(launch(os.path.join(SCRIPTS, "collectives.py"), n=n), "collectives ok", n)


def test_ddp_on_two_ranks_matches_one_process():
    assert_every_rank(launch(os.path.join(SCRIPTS, "ddp.py")), "ddp ok", 2)


@pytest.mark.parametrize("how", ["env", "tcp", "file"])
def test_spawned_ranks_meet_by_env_tcp_and_file(how):
    """mp.spawn and init_process_group("gloo", rank=r, world_size=n): reduce, gather, scatter, the object
    collectives, monitored_barrier."""
    n = 3 if how == "env" else 2
    result = run([sys.executable, os.path.join(SCRIPTS, "gloo_spawn.py"), how, str(n)])
    assert_every_rank(result, "extras ok", n)


def test_a_rank_that_leaves_is_an_error_on_the_others_not_a_hang():
    code, out, err = launch(os.path.join(SCRIPTS, "failing_rank.py"), "exit")
    assert code != 0
    assert "rank 1: leaving without the all_reduce" in out
    assert "all_reduce returned" not in out
    assert "Connection closed by peer [127.0.0.1]:" in err, err
    assert "failing_rank.py FAILED" in err and "ChildFailedError" in err, err


def test_a_silent_rank_times_the_others_out():
    code, out, err = launch(os.path.join(SCRIPTS, "failing_rank.py"), "hang")
    assert code != 0
    assert "all_reduce returned" not in out
    assert "Timed out waiting 3000ms for recv operation to complete" in err, err


def test_a_rank_that_raises_fails_the_launcher():
    code, out, err = launch(os.path.join(SCRIPTS, "failing_rank.py"), "raise")
    assert code == 1
    assert "ValueError: rank 1 failed on purpose" in err
    assert "rank      : 1 (local_rank: 1)" in err and "exitcode  : 1 (pid:" in err, err


def test_the_launcher_sets_torchruns_environment():
    script = (
        "import os, ferrograd.distributed as dist\n"
        "keys = ['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'GROUP_RANK', 'ROLE_RANK', 'MASTER_ADDR']\n"
        "fields = ['env', *[os.environ[k] for k in keys], os.environ['MASTER_PORT'].isdigit(),\n"
        "          bool(os.environ['TORCHELASTIC_RUN_ID']), dist.is_torchelastic_launched()]\n"
        # one write of the whole line: under PYTHONUNBUFFERED, print's pieces from the two ranks interleave
        "os.write(1, (' '.join(map(str, fields)) + '\\n').encode())\n"
    )
    code, out, err = run([sys.executable, "-m", LAUNCHER, "--nproc-per-node", "2", "-m", "this_script"],
                         env={"PYTHONPATH": _with_script(script)})  # fmt: skip
    assert code == 0, err
    lines = sorted(line for line in out.splitlines() if line.startswith("env"))
    assert lines == [
        "env 0 0 2 2 0 0 localhost True True True",
        "env 1 1 2 2 0 1 localhost True True True",
    ], out


def _with_script(source):
    import tempfile

    folder = tempfile.mkdtemp(prefix="fg-launcher-")
    with open(os.path.join(folder, "this_script.py"), "w") as fh:
        fh.write(source)
    return os.pathsep.join([folder, os.environ.get("PYTHONPATH", "")])


# ---- in this process: the store and init_process_group's checks ----


def test_tcp_store_set_get_add_wait():
    master = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=10))
    client = dist.TCPStore("127.0.0.1", master.port, is_master=False, timeout=timedelta(seconds=10))
    assert isinstance(master.port, int) and master.port > 0 and master.host == "127.0.0.1"
    master.set("a", "1")
    assert client.get("a") == b"1"
    assert (client.add("n", 2), master.add("n", 3), client.get("n")) == (2, 5, b"5")
    assert client.check(["a"]) and not client.check(["missing"])
    assert client.compare_set("a", "1", "2") == b"2" and client.compare_set("a", "x", "3") == b"2"
    assert client.compare_set("new", "", "v") == b"v"
    assert client.delete_key("a") and not client.delete_key("a")
    later = threading.Timer(0.2, lambda: master.set("late", b"here"))
    later.start()
    client.wait(["late"])  # set by another thread while this one waits
    assert client.get("late") == b"here"
    later.join()
    client.set_timeout(timedelta(milliseconds=200))
    with pytest.raises(dist.DistStoreError, match="wait timeout after 200ms, keys: /missing"):
        client.get("missing")
    with pytest.raises(dist.DistStoreError, match="wait timeout after 100ms, keys: /missing"):
        client.wait(["missing"], timedelta(milliseconds=100))
    assert issubclass(dist.DistStoreError, dist.DistError) and issubclass(dist.DistError, RuntimeError)
    prefixed = dist.PrefixStore("pre", master)
    prefixed.set("k", b"v")
    assert master.get("pre/k") == b"v"
    with pytest.raises(dist.DistNetworkError, match="failed to listen on any local network address"):
        dist.TCPStore("127.0.0.1", master.port, is_master=True, timeout=timedelta(seconds=1))


def test_init_errors_name_what_is_missing(monkeypatch):
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="env:// rendezvous: environment variable RANK expected, but not set"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected, but not set"):
        dist.init_process_group("gloo", rank=0, world_size=1)
    with pytest.raises(AssertionError, match="Cannot specify both init_method and store."):
        dist.init_process_group("gloo", init_method="env://", store=dist.FileStore(os.devnull), rank=0, world_size=1)
    assert not dist.is_initialized()
    assert dist.is_gloo_available()


def test_a_world_of_one_over_gloo():
    store = dist.TCPStore("127.0.0.1", 0, world_size=1, is_master=True, timeout=timedelta(seconds=10))
    dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=10))
    try:
        import ferrograd as fg

        t = fg.tensor([1.0, 2.0])
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        assert t.tolist() == [1.0, 2.0] and dist.get_backend() == "gloo" and dist.get_world_size() == 1
        objects = [None]
        dist.all_gather_object(objects, {"only": 0})
        assert objects == [{"only": 0}]
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
