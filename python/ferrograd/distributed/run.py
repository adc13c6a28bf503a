"""`python -m ferrograd.distributed.run`: PyTorch's `torchrun` (`python -m torch.distributed.run`) for one or more
machines with a fixed number of processes each.

    python -m ferrograd.distributed.run --nproc_per_node=4 train.py --epochs 2
    python -m ferrograd.distributed.run --nnodes=2 --node_rank=0 --master_addr=10.0.0.1 --nproc_per_node=4 train.py

Each process gets torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, ...), so `init_process_group("gloo")` needs no arguments. When
one process fails, the others are stopped (SIGTERM, then SIGKILL) and the launcher exits with 1 after printing
torchrun's summary of the first failure. Elastic membership and restarts are not supported: `--nnodes` is one
number, and `--max-restarts` other than 0 is refused.
"""

import argparse
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime


def get_args_parser():
    parser = argparse.ArgumentParser(description="Torch Distributed Elastic Training Launcher")
    arg = parser.add_argument
    arg("--nnodes", type=str, default="1:1", help="Number of nodes (one number; MIN:MAX only with MIN == MAX).")
    arg("--nproc-per-node", "--nproc_per_node", type=str, default="1",
        help="Number of workers per node; supported values: [auto, cpu, gpu, int].")  # fmt: skip
    arg("--rdzv-backend", "--rdzv_backend", type=str, default="static", help="Rendezvous backend (unused).")
    arg("--rdzv-endpoint", "--rdzv_endpoint", type=str, default="", help="Rendezvous backend endpoint (host:port).")
    arg("--rdzv-id", "--rdzv_id", type=str, default="none", help="User-defined group id.")
    arg("--rdzv-conf", "--rdzv_conf", type=str, default="", help="Additional rendezvous configuration (unused).")
    arg("--standalone", action="store_true", help="A single node on a free port of localhost.")
    arg("--max-restarts", "--max_restarts", type=int, default=0, help="Maximum number of worker group restarts.")
    arg("--monitor-interval", "--monitor_interval", type=float, default=0.1, help="Seconds between checks.")
    arg("--start-method", "--start_method", type=str, default="spawn", choices=["spawn", "fork", "forkserver"])
    arg("--role", type=str, default="default", help="User-defined role for the workers.")
    arg("-m", "--module", action="store_true", help="Run the script as a module (python -m).")
    arg("--no-python", "--no_python", action="store_true", help="Run the script directly, not through python.")
    arg("--run-path", "--run_path", action="store_true", help="Run the script with runpy.run_path.")
    arg("--log-dir", "--log_dir", type=str, default=None, help="Unused.")
    arg("-r", "--redirects", type=str, default="0", help="Unused.")
    arg("-t", "--tee", type=str, default="0", help="Unused.")
    arg("--local-ranks-filter", "--local_ranks_filter", type=str, default="", help="Unused.")
    arg("--node-rank", "--node_rank", type=int, default=0, help="Rank of this node.")
    arg("--master-addr", "--master_addr", default="127.0.0.1", type=str, help="Address of the rank 0 node.")
    arg("--master-port", "--master_port", default=None, type=int,
        help="Port on the rank 0 node (29500; a free one when left out on a single node).")  # fmt: skip
    arg("--local-addr", "--local_addr", default=None, type=str, help="Unused.")
    arg("--logs-specs", "--logs_specs", default=None, type=str, help="Unused.")
    arg("training_script", type=str, help="The script (or module, with -m) each process runs.")
    arg("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args):
    return get_args_parser().parse_args(args)


def _nodes(nnodes):
    low, _, high = nnodes.partition(":")
    if high and high != low:
        raise ValueError(f"--nnodes={nnodes}: ferrograd's launcher has a fixed number of nodes (elastic ranges: no)")
    return int(low)


def _nproc(value):
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    if value == "gpu":
        raise ValueError("--nproc_per_node=gpu: no GPUs (ferrograd runs on the CPU)")
    return int(value)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _environments(args, nproc, nnodes):
    # torchrun's choice: one node and no port given means a free port of localhost, as with --standalone
    if args.standalone or (args.rdzv_backend == "static" and not args.rdzv_endpoint and args.master_port is None
                           and nnodes == 1):  # fmt: skip
        addr, port = "localhost", _free_port()
        run_id = str(uuid.uuid4())
    else:
        addr, port = args.master_addr, 29500 if args.master_port is None else args.master_port
        if args.rdzv_endpoint:
            host, _, p = args.rdzv_endpoint.rpartition(":")
            addr, port = (host, int(p)) if host else (p, port)
        run_id = args.rdzv_id
    world = nnodes * nproc
    envs = []
    for local_rank in range(nproc):
        rank = args.node_rank * nproc + local_rank
        env = dict(os.environ)
        env.update(
            LOCAL_RANK=str(local_rank),
            RANK=str(rank),
            GROUP_RANK=str(args.node_rank),
            ROLE_RANK=str(rank),
            ROLE_NAME=args.role,
            LOCAL_WORLD_SIZE=str(nproc),
            WORLD_SIZE=str(world),
            GROUP_WORLD_SIZE=str(nnodes),
            ROLE_WORLD_SIZE=str(world),
            MASTER_ADDR=addr,
            MASTER_PORT=str(port),
            TORCHELASTIC_RESTART_COUNT="0",
            TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts),
            TORCHELASTIC_RUN_ID=run_id,
            TORCHELASTIC_USE_AGENT_STORE="False",
            TORCH_NCCL_ASYNC_ERROR_HANDLING="1",
        )
        envs.append(env)
    return envs


def _command(args):
    if args.no_python:
        return [args.training_script, *args.training_script_args]
    return [sys.executable, "-u", *(["-m"] if args.module else []), args.training_script, *args.training_script_args]


def _stop(procs, grace=30.0):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _failure_report(script, failed, nproc, node_rank, when):
    """torchrun's ChildFailedError summary of the first failure."""
    local_rank, proc = failed
    code = proc.returncode
    exitcode = f"{code} (pid: {proc.pid})"
    line = "=" * 60
    return (
        f"ferrograd.distributed.run: ChildFailedError: \n{line}\n{script} FAILED\n"
        f"{'-' * 60}\nFailures:\n  <NO_OTHER_FAILURES>\n{'-' * 60}\nRoot Cause (first observed failure):\n[0]:\n"
        f"  time      : {when}\n  host      : {socket.gethostname()}\n"
        f"  rank      : {node_rank * nproc + local_rank} (local_rank: {local_rank})\n"
        f"  exitcode  : {exitcode}\n  error_file: <N/A>\n"
        f"  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n{line}"
    )


def run(args):
    """Starts the processes and waits for them; returns the exit status (0, or 1 when one failed)."""
    if args.max_restarts:
        raise ValueError("--max-restarts: ferrograd's launcher does not restart workers")
    nnodes, nproc = _nodes(args.nnodes), _nproc(args.nproc_per_node)
    if "OMP_NUM_THREADS" not in os.environ and nproc > 1:
        _log(
            "\n*****************************************\n"
            "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
            "being overloaded, please further tune the variable for optimal performance in your application as "
            "needed. \n*****************************************"
        )
        os.environ["OMP_NUM_THREADS"] = "1"
    command = _command(args)
    procs = [subprocess.Popen(command, env=env) for env in _environments(args, nproc, nnodes)]
    previous = {}

    def forward(signum, frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)
        raise SystemExit(128 + signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, forward)
    # one thread per process reports its exit: the queue's order is the order they ended in, so the first
    # failure reported is the root cause, not a rank that failed because of it
    exits = queue.SimpleQueue()
    for local_rank, p in enumerate(procs):
        threading.Thread(target=lambda i=local_rank, p=p: exits.put((i, p.wait())), daemon=True).start()
    try:
        for _ in procs:
            while True:
                try:
                    local_rank, code = exits.get(timeout=args.monitor_interval)
                    break
                except queue.Empty:
                    continue  # lets a signal handler run
            if code != 0:
                when = datetime.now().strftime("%Y-%m-%d_%H:%M:%S")
                _stop(procs)
                _log(_failure_report(args.training_script, (local_rank, procs[local_rank]), nproc, args.node_rank,
                                     when))  # fmt: skip
                return 1
        return 0
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _stop(procs, grace=5.0)


def main(args=None):
    sys.exit(run(parse_args(args)))


if __name__ == "__main__":
    main()
