"""The measurements and renderings of `utils.benchmark.Compare` that tests/test_func_support.py checks and
tests/golden/record_benchmark_compare.py records from torch (each builds a measurement its own way)."""


def measurements(make):
    """`make(times, **task)` for each measurement: a Batched-dot table over two thread counts (one noisy cell)
    and a table of two environments."""
    results = []
    for threads in (1, 2):
        for sub, scale in (("[1, 1]", 1), ("[64, 1024]", 12), ("[1024, 1024]", 310)):
            for desc, base in (("mul/sum", 3e-6), ("bmm", 8e-6)):
                t = base * scale / threads
                spread = 0.6 if (sub, desc) == ("[64, 1024]", "bmm") else 0.01
                times = [t, t * (1 + spread / 3), t * (1 + spread), t * (1 + spread / 2)]
                results.append(make(times, label="Batched dot", sub_label=sub, description=desc, num_threads=threads))
    for env, t in (("A", 1e-3), ("B", 2e-3)):
        results.append(make([t] * 4, label="Env", sub_label="y", description="c", num_threads=1, env=env))
    return results


def tables(compare):
    """The tables plain, trimmed, colorized by column, then by row with warnings highlighted."""
    out = [str(compare)]
    compare.trim_significant_figures()
    out.append(str(compare))
    compare.colorize()
    out.append(str(compare))
    compare.colorize(rowwise=True)
    compare.highlight_warnings()
    out.append(str(compare))
    return out
