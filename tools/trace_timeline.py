"""Draws a Chrome trace (`prof.export_chrome_trace(path)`) as a timeline PNG: one bar per range, nested ranges
one row below the range holding them, user ranges and ops in two colours.

    python tools/trace_timeline.py trace.json docs/images/profiler_trace.png

Needs matplotlib (`pip install matplotlib`); `--demo` first profiles a small training step and draws that."""

import argparse
import json
import sys

COLOURS = {"user_annotation": "#8fbc8f", "cpu_op": "#6495ed"}


def rows(events):
    """Each complete event with its depth: how many ranges on its thread hold it."""
    out = []
    for tid in sorted({e["tid"] for e in events}):
        open_ends = []
        for e in sorted((e for e in events if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
            while open_ends and open_ends[-1] < e["ts"] + e["dur"]:
                open_ends.pop()
            out.append((len(open_ends), e))
            open_ends.append(e["ts"] + e["dur"])
    return out


def draw(trace_path, png_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    placed = rows(events)
    start = min(e["ts"] for e in events)
    depth = max(d for d, _ in placed) + 1
    fig, ax = plt.subplots(figsize=(12, 0.5 * depth + 1.2))
    span = max(e["ts"] + e["dur"] for e in events) - start
    for d, e in placed:
        x, w = e["ts"] - start, e["dur"]
        ax.barh(-d, w, left=x, height=0.8, color=COLOURS.get(e.get("cat"), "#cccccc"), edgecolor="black", lw=0.3)
        label = e["name"].replace("autograd::engine::evaluate_function: ", "eval: ")
        if w > 0.012 * span * len(label) / 6:  # a label only where it fits
            ax.text(x + w / 2, -d, label, ha="center", va="center", fontsize=6, clip_on=True)
    ax.set_yticks([-d for d in range(depth)], [f"depth {d}" for d in range(depth)])
    ax.set_xlabel("µs from the first event")
    ax.set_title("ferrograd profiler trace")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


def demo_trace(path):
    import ferrograd as fg

    model = fg.nn.Sequential(fg.nn.Linear(64, 128), fg.nn.ReLU(), fg.nn.Linear(128, 10))
    x, y = fg.randn(32, 64), fg.randint(0, 10, (32,))
    opt = fg.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):  # warm up (the thread pool, the buffer pool) so the trace shows a steady step
        opt.zero_grad()
        fg.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    opt.zero_grad()
    with fg.autograd.profiler.profile(record_shapes=True) as prof:
        with fg.autograd.profiler.record_function("forward"):
            loss = fg.nn.functional.cross_entropy(model(x), y)
        with fg.autograd.profiler.record_function("backward"):
            loss.backward()
        with fg.autograd.profiler.record_function("optimizer.step"):
            opt.step()
    prof.export_chrome_trace(path)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=12))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("png")
    p.add_argument("--demo", action="store_true", help="profile a small training step into TRACE first")
    args = p.parse_args(argv)
    if args.demo:
        demo_trace(args.trace)
    draw(args.trace, args.png)


if __name__ == "__main__":
    sys.exit(main())
