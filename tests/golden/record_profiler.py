"""Records what PyTorch's profiler sees of tests/profiler_cases.py for tests/test_profiler.py; run with torch's
Python: `/work/torchenv/bin/python tests/golden/record_profiler.py`."""

import json
import os
import warnings

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import profiler_cases
import torch

warnings.simplefilter("ignore")
prof = profiler_cases.profiled_program(torch)
table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
out = {
    "forward_ops": profiler_cases.forward_ops(prof),
    "backward_nodes": profiler_cases.backward_nodes(prof),
    "table_header": table.splitlines()[1],
    "table_header_ungrouped": prof.key_averages().table(sort_by="self_cpu_time_total").splitlines()[1],
    "schedule_actions": profiler_cases.schedule_actions(torch),
    "schedule_windows": profiler_cases.schedule_windows(torch),
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiler.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
