"""Hostile-input fuzz of ferrograd's public API (`make fuzz`; a short run is part of `make test`).

    python tools/fuzz.py --calls 100000 --seed 0       # the whole run, with a summary
    python tools/fuzz.py --describe 1234 --seed 0      # what call 1234 of that run is
    python tools/fuzz.py --replay 1234 --seed 0        # run only that call, in this process

The calls run in a child process, so a crash (a signal) or a hang is seen by the parent, which names the
call and starts a new child after it. Each call must either succeed or raise a standard exception
(TypeError, ValueError, RuntimeError, IndexError; NotImplementedError for what ferrograd does not support;
OSError from file paths; OverflowError for an int past int64; the few others PyTorch raises alike, AS_TORCH);
a failed call must leave every tensor it was given as it was (values, shape, strides, offset, version).
A panic (pyo3's PanicException, or the bindings' "internal error" text) counts as one even when caught.
"""

import argparse
import json
import os
import pickle
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# OverflowError: Python's own, when an int does not fit the C integer an argument converts to (PyTorch
# raises ValueError "Overflow when unpacking long long" there).
STANDARD = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError, OverflowError)
# Raised by PyTorch too, with these types and texts (checked with torch 2.15): not findings.
AS_TORCH = [
    (KeyError, "buffer name can't"),
    (KeyError, "parameter name can't"),
    (KeyError, "module name can't"),
    (KeyError, "attribute '"),  # ... already exists
    (KeyError, "param 'initial_lr' is not specified"),
    (KeyError, "param_groups"),
    (KeyError, "params"),
    (AssertionError, "Padding_idx must be within num_embeddings"),
    (AssertionError, "embed_dim must be divisible by num_heads"),
    (AssertionError, "Shape of weight does not match num_embeddings and embedding_dim"),
    (AssertionError, "Size mismatch between tensors"),
    (AssertionError, "query should be unbatched 2D or batched 3D tensor"),
    (AssertionError, "expected `key` and `value` to be"),
    (AssertionError, "(2-D) `query`, expected"),  # torch's _mha_shape_check asserts these
    (AssertionError, "(3-D) `query`, expected"),
    (AssertionError, "datasets should not be an empty iterable"),
    (AttributeError, "expected 'f' to be string, path, or a file-like object with a 'write' attribute"),
    (AttributeError, "You can only torch.load from a file that is seekable"),
    (AssertionError, "was expecting embedding dimension of"),
    (AssertionError, "must be greater than min_val"),
    (AttributeError, "object has no attribute 'lower'"),  # kaiming's mode= given a tensor
    (AttributeError, "object has no attribute 'shape'"),  # Embedding's _weight= given a non-tensor
    (AttributeError, "object has no attribute 'requires_grad'"),  # lobpcg's A or B given a non-tensor
    # lobpcg's checks are asserts in torch, and its default tol a table without float16
    (AssertionError, "A must be square, got shape"),
    (AssertionError, "A and B must have same shape"),
    (AssertionError, "X shape mismatch"),
    (AssertionError, "B must not be None"),
    (KeyError, "float16"),
    (AttributeError, "object has no attribute 'broadcast_to'"),  # svd_lowrank's M given a non-tensor
    (AssertionError, "only bool and floating types of"),  # attention masks
    (AssertionError, "does not match value shape"),
    (AssertionError, "expected `attn_mask` to be `None`, 2-D or 3-D"),
    (AssertionError, "Torch not compiled with CUDA enabled"),  # device='cuda', .cuda(): torch's CPU build
    (ZeroDivisionError, "modulo"),  # GroupNorm(0, c), nn.init.dirac_(w, groups=0)
    (ZeroDivisionError, "float division by zero"),  # nn.init.trunc_normal_ with std=0
    (AssertionError, "Expected `attn_mask` shape to be"),
    (AssertionError, "The growth factor must be > 1.0."),  # GradScaler's checks are asserts in torch
    (AssertionError, "The backoff factor must be < 1.0."),
    (KeyError, "0"),  # utils.data.default_collate of a dict, which it indexes as a sequence
    (BufferError, "Can't export tensors that require gradient"),
    # DLPack's own error for an export it cannot make (torch raises RuntimeError for some of these)
    (BufferError, "from_dlpack"),
    # a damaged checkpoint's pickle under weights_only=True (torch.load raises it for the same files)
    (pickle.UnpicklingError, "Weights only load failed"),
    # nn.utils' weight/spectral norm and fusion given a non-module read its attributes, as torch's do
    (AttributeError, "object has no attribute '_forward_pre_hooks'"),
    (AttributeError, "object has no attribute 'training'"),
    # set_default_tensor_type imports a dotted name and looks the rest up in it, as torch's _import_dotted_name
    (ModuleNotFoundError, "No module named"),
    (AttributeError, "module 'torch"),
]
HANG_SECONDS = 30
KINDS = ["crashes", "hangs", "panics", "non_standard", "mutated_on_failure"]


def _tensors_in(obj, out, depth=0):
    import ferrograd as fg

    if isinstance(obj, fg.Tensor):
        out.append(obj)
    elif depth < 3 and isinstance(obj, (list, tuple)):
        for o in obj:
            _tensors_in(o, out, depth + 1)
    elif depth < 3 and isinstance(obj, dict):
        for o in obj.values():
            _tensors_in(o, out, depth + 1)
    elif depth < 3 and hasattr(obj, "parameters") and callable(obj.parameters):
        try:
            out.extend(obj.parameters())
        except Exception:
            pass
    elif depth < 3 and hasattr(obj, "param_groups"):
        for g in obj.param_groups:
            _tensors_in(g.get("params", []), out, depth + 1)
    return out


def _snapshot(t):
    import ferrograd as fg

    if fg.nn.parameter.is_lazy(t):  # a lazy module's parameter before its first input: no shape or data yet
        return ("uninitialized", type(t).__name__)
    try:
        values = repr(t.detach().tolist())
    except Exception as e:  # a tensor that cannot be read back is itself a finding
        values = f"unreadable: {type(e).__name__}"
    return (tuple(t.shape), t.stride(), t.storage_offset(), t._version, t.dtype, values)


def _describe(func, args, kwargs):
    def short(v):
        r = " ".join(repr(v).split())
        return r if len(r) < 120 else r[:117] + "..."

    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return f"{getattr(func, '__name__', func)}({', '.join(parts)})"


def _is_panic(e):
    return type(e).__name__ == "PanicException" or "internal error (please report)" in str(e)


SUCCEEDED = "succeeded"


def run_one(targets, seed, i):
    """Runs call `i`: SUCCEEDED, None when it failed as it should, else (kind, description, detail)."""
    import fuzz_targets

    rng = fuzz_targets.call_rng(seed, i)
    target = targets[rng.randrange(len(targets))]
    try:
        func, args, kwargs = target.make(rng)
    except Exception:
        return None  # building the inputs (a module, an optimizer) refused them: nothing was called
    given = _tensors_in((args, kwargs), [])
    before = [_snapshot(t) for t in given]
    try:
        func(*args, **kwargs)
        return SUCCEEDED
    except BaseException as e:  # judging what the library raised is the point
        if isinstance(e, KeyboardInterrupt):
            raise
        error = e
    desc = f"[{target.name}] {_describe(func, args, kwargs)}"
    detail = f"{type(error).__module__}.{type(error).__name__}: {str(error)[:300]}"
    if _is_panic(error):
        return "panics", desc, detail
    text = str(error.args[0]) if error.args else ""
    # short texts (a KeyError's key) must match whole
    as_torch = any(isinstance(error, t) and (m == text if len(m) < 4 else m in text) for t, m in AS_TORCH)
    file_error = isinstance(error, OSError) and ("load" in target.name or "save" in target.name)
    if not (isinstance(error, STANDARD) or as_torch or file_error):
        return "non_standard", desc, detail
    after = [_snapshot(t) for t in given]
    if before != after:
        changed = [f"{b[:5]} -> {a[:5]}" for b, a in zip(before, after) if a != b]
        return "mutated_on_failure", desc, f"{detail}; changed: {changed[0][:300]}"
    return None


def _reset_globals():
    import ferrograd as fg

    fg.set_grad_enabled(True)
    if hasattr(fg, "set_default_dtype"):
        fg.set_default_dtype(fg.float32)
    if hasattr(fg.autograd, "set_detect_anomaly"):
        fg.autograd.set_detect_anomaly(False)
    if hasattr(fg, "set_printoptions"):
        fg.set_printoptions(profile="default")


def worker(seed, start, stop):
    """Runs calls start..stop, reporting each start on stdout (for the parent's crash detection)."""
    import warnings

    sys.path.insert(0, HERE)
    import fuzz_targets

    warnings.simplefilter("ignore")
    # the report goes to the parent on the original stdout; whatever the calls print goes nowhere
    out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")
    targets = fuzz_targets.build_targets()
    succeeded = 0
    for i in range(start, stop):
        out.write(f"C {i} {succeeded}\n")
        out.flush()
        finding = run_one(targets, seed, i)
        _reset_globals()
        if finding == SUCCEEDED:
            succeeded += 1
            finding = None
        if i % 200 == 0:
            fuzz_targets.cleanup()
        if finding:
            out.write("F " + json.dumps([i, *finding]) + "\n")
    out.write(f"D {len(targets)} {succeeded}\n")
    out.flush()


def describe(seed, i):
    sys.path.insert(0, HERE)
    import fuzz_targets

    targets = fuzz_targets.build_targets()
    rng = fuzz_targets.call_rng(seed, i)
    target = targets[rng.randrange(len(targets))]
    func, args, kwargs = target.make(rng)
    return f"[{target.name}] {_describe(func, args, kwargs)}"


def _child(seed, start, stop, scratch):
    cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "--worker", str(start), str(stop)]
    cmd += ["--seed", str(seed)]
    # stderr to a file: a child that writes much there must not block on a full pipe
    with open(os.path.join(scratch, "stderr.txt"), "w") as err:
        return subprocess.Popen(cmd, cwd=scratch, stdout=subprocess.PIPE, stderr=err, text=True)


def run(calls, seed, verbose=True):
    """The whole run in children; the counts and the findings."""
    counts = dict.fromkeys(["calls", "targets", "succeeded", *KINDS], 0)
    findings = []
    start = 0
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="ferrograd-fuzz-") as scratch:
        while start < calls:
            proc = _child(seed, start, calls, scratch)
            current, child_succeeded = start, 0
            finished = hung = False
            while True:
                ready, _, _ = select.select([proc.stdout], [], [], HANG_SECONDS)
                if not ready:
                    proc.kill()
                    proc.wait()
                    findings.append(["hangs", current, describe_safe(seed, current), f"no answer in {HANG_SECONDS} s"])
                    counts["hangs"] += 1
                    hung = True
                    break
                line = proc.stdout.readline()
                if not line:
                    break
                tag, _, rest = line.rstrip("\n").partition(" ")
                if tag == "C":
                    current, child_succeeded = map(int, rest.split())
                elif tag == "F":
                    i, kind, desc, detail = json.loads(rest)
                    counts[kind] += 1
                    findings.append([kind, i, desc, detail])
                    if verbose:
                        print(f"{kind}: call {i}: {desc}\n    {detail}", flush=True)
                elif tag == "D":
                    counts["targets"], child_succeeded = map(int, rest.split())
                    finished = True
            counts["succeeded"] += child_succeeded
            if finished:
                proc.wait()
                break
            code = proc.wait()
            if not hung:
                with open(os.path.join(scratch, "stderr.txt")) as f:
                    err = f.read()[-2000:]
                counts["crashes"] += 1
                findings.append(["crashes", current, describe_safe(seed, current), f"exit {code}: {err}"])
            if verbose:
                print(f"{findings[-1][0]}: call {current}: {findings[-1][2]}\n    {findings[-1][3]}", flush=True)
            start = current + 1
    counts["calls"] = calls
    counts["seconds"] = round(time.time() - t0, 1)
    return counts, findings


def describe_safe(seed, i):
    # rebuilding a call makes its files again (a damaged checkpoint): in a folder of their own, not the caller's
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="ferrograd-fuzz-describe-") as scratch:
        os.chdir(scratch)
        try:
            return describe(seed, i)
        except Exception as e:  # the description is for the report only
            return f"(could not rebuild call {i}: {e})"
        finally:
            os.chdir(here)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--describe", type=int)
    parser.add_argument("--replay", type=int)
    parser.add_argument("--worker", type=int, nargs=2)
    parser.add_argument("--json", action="store_true", help="print the counts as JSON on the last line")
    a = parser.parse_args()
    if a.worker:
        worker(a.seed, *a.worker)
        return 0
    if a.describe is not None:
        print(describe(a.seed, a.describe))
        return 0
    if a.replay is not None:
        sys.path.insert(0, HERE)
        import fuzz_targets

        print(describe(a.seed, a.replay))
        print(run_one(fuzz_targets.build_targets(), a.seed, a.replay))
        return 0
    counts, _ = run(a.calls, a.seed)
    print(
        f"fuzz: {counts['calls']} calls over {counts['targets']} entry points in {counts['seconds']} s "
        f"({counts['succeeded']} succeeded): " + ", ".join(f"{counts[k]} {k.replace('_', ' ')}" for k in KINDS)
    )
    if a.json:
        print(json.dumps(counts))
    return 1 if any(counts[k] for k in KINDS) else 0


if __name__ == "__main__":
    sys.exit(main())
