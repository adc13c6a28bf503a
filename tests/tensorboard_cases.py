"""Histograms written by SummaryWriter and read back by TensorBoard, for ferrograd and torch alike:
`tests/golden/record_tensorboard.py` records torch's into golden/tensorboard.json; test_tensorboard.py compares."""

import numpy as np

VALUES = [0.5, -1.25, 2.0, 2.0, 3.5, 0.0, -0.75, 10.0]

# tag: (dtype, add_histogram keyword arguments)
HISTOGRAMS = {
    "tensorflow_bins": ("float64", {}),
    "four_bins": ("float64", {"bins": 4}),
    "auto_bins_merged": ("float32", {"bins": "auto", "max_bins": 3}),
    "given_edges": ("float64", {"bins": [-2.0, 0.0, 1.0, 5.0, 20.0]}),
    "numpy_fd_bins": ("float32", {"bins": "fd"}),
}


def histograms(lib, log_dir):
    """Each histogram of HISTOGRAMS as TensorBoard reads it: min, max, num, sum, sum of squares, limits, counts."""
    from ferrograd.utils.tensorboard import SummaryWriter
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with SummaryWriter(log_dir) as writer:
        for step, (tag, (dtype, options)) in enumerate(HISTOGRAMS.items()):
            writer.add_histogram(tag, lib.tensor(VALUES, dtype=getattr(lib, dtype)), step, **options)
        writer.add_histogram("numpy_input", np.array(VALUES), 9)
    events = EventAccumulator(str(log_dir), size_guidance={"histograms": 0})
    events.Reload()
    out = {}
    for tag in [*HISTOGRAMS, "numpy_input"]:
        (event,) = events.Histograms(tag)
        h = event.histogram_value
        out[tag] = {
            "step": event.step,
            "stats": [h.min, h.max, h.num, h.sum, h.sum_squares],
            "limits": list(h.bucket_limit),
            "counts": list(h.bucket),
        }
    return out
