"""A rank that fails while the others wait in a collective: `raise` (an uncaught exception on rank 1), `exit`
(rank 1 leaves without taking part: under MPI the others' wait runs into the process group's timeout, over gloo
the closed connection ends it) or `hang` (rank 1 stays, silent, past the others' timeout)."""

import sys
import time

import ferrograd as fg
from common import dist, init, report

how = sys.argv[1]
# `raise` ends every rank through rank 1's abort, so the others' timeout is long: on a loaded machine a short one
# could fire while rank 1 is still printing its traceback, cutting it off
rank, size = init(timeout=__import__("datetime").timedelta(seconds=30 if how == "raise" else 3))
dist.barrier()
if rank == 1:
    if how == "raise":
        time.sleep(0.2)  # the others are in all_reduce by now
        raise ValueError("rank 1 failed on purpose")
    if how == "hang":
        time.sleep(8)
    report("leaving without the all_reduce")
    sys.exit(0)
report("in all_reduce")
t = fg.ones(3)
dist.all_reduce(t)
report("all_reduce returned")  # never reached
