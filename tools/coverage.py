"""docs/COVERAGE.md: which of PyTorch's public names ferrograd has, generated from torch's own namespaces.

torch's names are recorded once, with a Python that has torch, into tests/golden/torch_api.json (each
public name of `torch`, `torch.Tensor`, `torch.nn.functional`, `torch.linalg`, `torch.special` and
`torch.fft`, its kind and, where torch tells it, its parameters). The table is then made from that record
and the built ferrograd package, without torch:

    /path/to/torch/python tools/coverage.py --record   # rewrite tests/golden/torch_api.json
    python tools/coverage.py --write                    # rewrite docs/COVERAGE.md
    python tools/coverage.py --check                    # exit 1 if docs/COVERAGE.md is stale

A name is *there* when ferrograd's namespace has it; *there, keywords missing* when torch's signature names
keywords that ferrograd's does not take (ferrograd's signature is read with `inspect`; a function taking
`**kwargs` takes them all). A name ferrograd lacks is *out of scope* when it matches one of the reasons
below (another device, quantization, complex dtypes, TorchScript's internals, ...), else *missing*: the
to-do list. tests/test_coverage.py fails when the table and the package disagree.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "golden" / "torch_api.json"
TABLE = ROOT / "docs" / "COVERAGE.md"

# Namespace label -> (module path, attribute inside it or None). The same paths under ferrograd.
NAMESPACES = {
    "torch": ("", None),
    "Tensor": ("", "Tensor"),
    "nn.functional": ("nn.functional", None),
    "linalg": ("linalg", None),
    "special": ("special", None),
    "fft": ("fft", None),
    "nn": ("nn", None),
    "optim": ("optim", None),
    "optim.lr_scheduler": ("optim.lr_scheduler", None),
}

# Names ferrograd has with a narrower reach than torch's, each with the reason (written under "Limits").
LIMITS: list[tuple[str, str]] = [
    (
        "quasirandom.SobolEngine",
        "dimensions 1 to 5715 (the Joe-Kuo direction numbers of primitive polynomials up to degree 16) of torch's "
        "1 to 21201, from which it raises NotImplementedError: the whole table is ~360 KB of incompressible bits "
        "in the wheel, this prefix ~82 KB (`tools/pack_sobol_directions.py`)",
    ),
    (
        "svd_lowrank, pca_lowrank",
        "real inputs: ferrograd's `linalg.qr` refuses complex ones, which torch's composition takes",
    ),
    (
        "lobpcg",
        "as torch's: the gradient of A only, with B = None, real and dense (the same ValueErrors); its forward takes "
        "sparse COO A and B as torch's does",
    ),
]

# Names ferrograd does not aim to have, each with the reason; matched in order, first match wins.
# A pattern is a regular expression over the bare name, anchored at both ends.
OUT_OF_SCOPE: list[tuple[str, str]] = [
    (
        r".*cuda.*|(.*_)?(cudnn|miopen|mkldnn|mps|xpu|mtia|hpu|vulkan|ipu|xla|fbgemm|nnpack|mkl)(_.*)?",
        "another device or vendor library: ferrograd runs on the CPU",
    ),
    (
        r"(q_.*|.*quantiz.*|.*_per_tensor.*|.*_per_channel.*|int_repr|qscheme|dequantize|.*qint.*|quint.*|"
        r"per_tensor_.*|per_channel_.*|fake_quant.*|choose_qparams.*|.*_fp16_.*|.*packed.*|qr_.*|"
        # nn's quantization-aware training and fused-module namespaces
        r"qat|intrinsic)",
        "quantized tensors",
    ),
    (
        r"(.*complex.*|view_as_real.*|polar|.*conj.*|is_conj|resolve_neg|is_neg|chalf|cfloat|cdouble|"
        r"c(omplex)?(32|64|128)|bcomplex32|angle|real|imag|adjoint|"
        # a real matrix's eigenvalues are complex in general: eig/eigvals return complex tensors
        r"eig|eigvals)",
        "complex dtypes",
    ),
    (
        r"(.*_csr.*|.*_csc.*|.*_bsr.*|.*_bsc.*|sparse_(csr|csc|bsr|bsc)|.*compressed.*|"
        r"crow_indices|col_indices|ccol_indices|row_indices|jagged|nested.*|.*_nested.*)",
        "sparse layouts other than COO, and nested tensors",
    ),
    (
        r"(float8.*|bits.*|bit|int[1-7]|uint(1|2|3|4|5|6|7|16|32|64))",
        "dtypes ferrograd does not store (float8, bit-packed, unsigned above 8 bits)",
    ),
    (
        r"([A-Z].*Type|AliasDb|Argument|ArgumentSpec|Block|Graph|GraphExecutorState|Node|Value|Use|"
        r"ScriptModule|ScriptMethod|ScriptFunction|ScriptObject|ScriptClass.*|ScriptDict.*|ScriptList.*|"
        r"CompilationUnit|Code|ConcreteModuleType.*|ErrorReport|ExecutionPlan|FileCheck|FunctionSchema|"
        r"Gradient|IODescriptor|InferredType|LiteScriptModule|LockingLogger|LoggerBase|ModuleDict|"
        r"NoopLogger|ParameterDict|PyTorchFileReader|PyTorchFileWriter|StaticModule|ThroughputBenchmark|"
        r"TracingState|UnionType|AggregationType|BenchmarkConfig|BenchmarkExecutionStats|DeserializationStorageContext|"
        r"DispatchKey|DispatchKeySet|Event|Stream|StreamObjType|Tag|TensorType|Await|"
        r"AcceleratorError|OutOfMemoryError|DeepCopyMemoTable|DictType|ListType|TupleType|SymBool|SymFloat|SymInt|"
        r"Sym.*|sym_.*|is_tensor_like|BroadcastingList.*|boolean_dispatch|.*torch_function.*|assert_int_or_pair|"
        r"fork|wait|import_ir_module.*|merge_type_from_type_comment|"
        r"parse_.*|unify_type_list|vitals_enabled|set_vital|read_vitals|.*_jit.*|fx|export|package|"
        r"compiler|classes|ops|library|overrides|monitor|profiler_allow_cudagraph.*|testing|hub|onnx|"
        r"mps|xpu|mtia|cpp|_C|utils|return_types|types|builtins|ctypes|os|sys|inspect|math|platform|"
        r"textwrap|threading|typing|warnings|functools|pathlib|PRIVATE_OPS|TYPE_CHECKING|USE_GLOBAL_DEPS|"
        r"USE_RTLD_GLOBAL_WITH_LIBTORCH|obj|name|_.*)",
        "TorchScript, tracing, export and torch's own internals",
    ),
    (
        r"batch_norm_(stats|elemt|gather_stats|gather_stats_with_counts|backward_reduce|backward_elemt)",
        "CUDA-only in torch (SyncBatchNorm's kernels; on the CPU they raise)",
    ),
    (
        # TorchScript's and the dispatcher's classes, monitor's aggregation kinds, torch.export's control flow
        r"(CallStack|Capsule|CompleteArgumentSpec|JITException|OperatorInfo|ScriptModuleSerializer|"
        r"ScriptObjectProperty|SerializationStorageContext|BufferDict|AVG|SUM|ExcludeDispatchKeyGuard|FatalError|"
        r"DisableTorchFunction.*|Type|classproperty|cond|while_loop)",
        "TorchScript, tracing, export and torch's own internals",
    ),
    (
        r"(dsmm|hsmm|hspmm|saddmm|smm|sspaddmm|resize_as_sparse_|(c?col|crow|row)_indices_copy|values_copy|"
        r"indices_copy|native_norm)",
        "sparse-only ops (on dense tensors they raise in torch; ferrograd's COO tensors do `sparse.mm`)",
    ),
    (r"fused_moving_avg_obs_fake_quant|ao", "quantized tensors"),
    (r"float4_.*", "dtypes ferrograd does not store (float8, bit-packed, unsigned above 8 bits)"),
    (
        r"(.*Storage|.*StorageBase|storage|untyped_storage|from_file|set_|.*_ipc_.*)",
        "storage objects (a tensor owns its storage; checkpoints go through save/load)",
    ),
]

# Names ferrograd has whose behaviour still differs from torch's in a way a user could meet (written by hand).
DIFFERENCES: list[tuple[str, str]] = [
    (
        "torch.embedding_bag",
        "returns torch's four outputs (bags, offset2bag, bag_size, max_indices), including its quirks (offset2bag "
        "empty on the float32 sum fast path, sum's zero sizes one per offset given); `sparse=True` raises "
        "ValueError (no sparse gradients) and the indices must be 1-D",
    ),
    (
        "ctc_loss",
        "a target label outside [0, C) within the target's length raises IndexError (torch reads it out of bounds)",
    ),
]


# -- recording (with torch) ---------------------------------------------------------------------------


def _kind(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if callable(obj):
        return "function"
    return "value"


_DOC_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.]*)\(")

# The tensor argument itself (`input`, `self`) is left out of the comparison: scripts pass it by position.
_TENSOR_ARGUMENT = ("input", "self")


def _split_params(text: str) -> list[str]:
    """The parameters of a docstring signature `a, b=(1, 2), *, c=None` at its top level."""
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _inside_parens(text: str) -> str:
    """What stands between the first `(` of `text` and its matching `)`."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return text[text.index("(") + 1 : i]
    return text[text.index("(") + 1 :]


def _params_from_doc(name: str, doc: str | None) -> list[str] | None:
    """Parameter names from the first `name(...)` line of a docstring; keyword-only ones after a bare `*`
    are kept, `*` itself is not."""
    for line in (doc or "").splitlines()[:6]:
        match = _DOC_NAME.match(line)
        if not match or match.group(1).rpartition(".")[2] != name:
            continue
        names = []
        for part in _split_params(_inside_parens(line)):
            bare = part.split("=", 1)[0].split(":", 1)[0].strip()
            if bare in ("*", "/") or bare in _TENSOR_ARGUMENT or bare.startswith("*"):
                continue
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", bare):
                names.append(bare)
        return names
    return None


def _params_from_schemas(name: str, method: bool) -> list[str] | None:
    """Keyword names torch's Python binding of aten::`name` takes: the union over its overloads' schemas
    (the binding is generated from them). Outputs are `out=`; methods take no `out`."""
    import torch

    try:
        schemas = torch._C._jit_get_schemas_for_operator("aten::" + name)
    except RuntimeError:
        return None
    names: list[str] = []
    for schema in schemas:
        if not any("Tensor" in str(x.type) for x in schema.returns):
            continue  # TorchScript's overloads on numbers, strings and lists (`acos.int`, `eq.Tensor_list`)
        for arg in schema.arguments:
            arg_name = "out" if arg.is_out else arg.name
            if arg_name in _TENSOR_ARGUMENT or (method and arg.is_out) or arg_name in names:
                continue
            names.append(arg_name)
    return names if schemas else None


def _params_of(obj, name: str, method: bool = False, torch_side: bool = False) -> list[str] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        found = _params_from_schemas(name, method) if torch_side else None
        return found if found is not None else _params_from_doc(name, getattr(obj, "__doc__", None))
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in sig.parameters.values() if p.kind in kinds and p.name not in _TENSOR_ARGUMENT]


def _namespace(root, label: str):
    path, attr = NAMESPACES[label]
    module = importlib.import_module(root.__name__ + ("." + path if path else ""))
    return getattr(module, attr) if attr else module


def _is_reexport(label: str, name: str, obj) -> bool:
    """What a namespace holds only because its module imported it: other packages (`np`, `importlib`),
    typing helpers (`Optional`), docstring templates (`common_args`), and `Tensor` / `torch` outside the
    top level."""
    if isinstance(obj, types.ModuleType):
        return not obj.__name__.startswith("torch")
    if isinstance(obj, (str, dict)) or (isinstance(obj, float) and label != "torch"):  # templates, `math.inf`
        return True
    if type(obj).__module__ == "__future__":  # `from __future__ import annotations`
        return True
    if label != "torch" and name in ("Tensor", "torch"):
        return True
    module = getattr(obj, "__module__", None) or ""
    return module in ("typing", "collections.abc") or module.startswith("typing")


def record() -> None:
    import torch

    out: dict[str, dict] = {"torch_version": torch.__version__.split("+")[0], "namespaces": {}}
    for label in NAMESPACES:
        ns = _namespace(torch, label)
        entries = {}
        for name in sorted(n for n in dir(ns) if not n.startswith("_")):
            try:
                obj = getattr(ns, name)
            except Exception:  # a lazy attribute that fails to load is simply not recorded
                continue
            if _is_reexport(label, name, obj):
                continue
            kind = _kind(obj)
            entry: dict = {"kind": kind}
            if kind == "function":
                entry["params"] = _params_of(obj, name, label == "Tensor", torch_side=True)
            entries[name] = entry
        out["namespaces"][label] = entries
    RECORD.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {RECORD.relative_to(ROOT)} (torch {out['torch_version']})")


# -- the table (with ferrograd) -----------------------------------------------------------------------


def out_of_scope_reason(name: str) -> str | None:
    for pattern, reason in OUT_OF_SCOPE:
        if re.fullmatch(pattern, name):
            return reason
    return None


def _takes_any_keyword(obj) -> bool:
    try:
        return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return False


def _wrapper_params(obj) -> list[str]:
    """Keywords a wrapper takes before it calls what it wraps (`out=` on the function forms): inspect
    follows `__wrapped__` to the inner signature, which lacks them."""
    try:
        sig = inspect.signature(obj, follow_wrapped=False)
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in sig.parameters.values() if p.kind in kinds]


def _status(fg_ns, name: str, entry: dict) -> tuple[str, str]:
    """(status, detail) of one torch name in ferrograd's namespace."""
    if not hasattr(fg_ns, name):
        reason = out_of_scope_reason(name)
        return ("out of scope", reason) if reason else ("missing", "")
    torch_params = entry.get("params")
    if entry["kind"] != "function" or not torch_params:
        return "there", ""
    obj = getattr(fg_ns, name)
    if _takes_any_keyword(obj):
        return "there", ""
    ours = _params_of(obj, name)
    if ours is None:
        return "there", ""
    ours += _wrapper_params(obj)
    lacking = [p for p in torch_params if p not in ours]
    if lacking:
        return "keywords missing", ", ".join(lacking)
    return "there", ""


def collect(record_data: dict) -> dict[str, list[tuple[str, str, str]]]:
    import ferrograd

    rows: dict[str, list[tuple[str, str, str]]] = {}
    for label in NAMESPACES:
        entries = record_data["namespaces"][label]
        try:
            fg_ns = _namespace(ferrograd, label)
        except ImportError:
            fg_ns = types.SimpleNamespace()
        rows[label] = [(name, *_status(fg_ns, name, entry)) for name, entry in sorted(entries.items())]
    return rows


def render(record_data: dict, rows: dict[str, list[tuple[str, str, str]]]) -> str:
    lines = [
        "# Coverage of PyTorch's public names",
        "",
        f"Generated by `python tools/coverage.py --write` from torch {record_data['torch_version']}'s namespaces "
        "(recorded in `tests/golden/torch_api.json`) and the built package; `tests/test_coverage.py` fails when "
        "this file and the package disagree. *Keywords missing*: ferrograd has the name, but its signature lacks "
        "keywords torch's has. *Coverage* counts names ferrograd has among those in scope.",
        "",
        "| namespace | torch names | there | keywords missing | missing | out of scope | coverage |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, items in rows.items():
        count = {
            s: sum(1 for _, st, _ in items if st == s) for s in ("there", "keywords missing", "missing", "out of scope")
        }
        in_scope = len(items) - count["out of scope"]
        have = count["there"] + count["keywords missing"]
        share = f"{100 * have / in_scope:.0f} %" if in_scope else "-"
        lines.append(
            f"| `{label}` | {len(items)} | {count['there']} | {count['keywords missing']} | {count['missing']} "
            f"| {count['out of scope']} | {share} |"
        )
    for label, items in rows.items():
        missing = [name for name, st, _ in items if st == "missing"]
        partial = [(name, d) for name, st, d in items if st == "keywords missing"]
        lines += ["", f"## `{label}`", ""]
        lines.append(f"**Missing** ({len(missing)}): " + (", ".join(f"`{n}`" for n in missing) or "none") + ".")
        if partial:
            lines += ["", f"**Keywords missing** ({len(partial)}):", ""]
            lines += [f"- `{n}`: {d}" for n, d in partial]
    reasons: dict[str, list[str]] = {}
    for label, items in rows.items():
        for name, st, detail in items:
            if st == "out of scope":
                reasons.setdefault(detail, []).append(f"`{name}`" if label == "torch" else f"`{label}.{name}`")
    lines += ["", "## Limits", ""]
    lines += [f"- `{name}`: {reason}." for name, reason in LIMITS]
    lines += ["", "## Differences from torch", ""]
    lines += [f"- `{name}`: {what}." for name, what in DIFFERENCES]
    lines += ["", "## Out of scope, by reason", ""]
    for reason, names in reasons.items():
        lines.append(f"- {reason} ({len(names)}): " + ", ".join(names))
    return "\n".join(lines) + "\n"


def generate() -> str:
    data = json.loads(RECORD.read_text(encoding="utf-8"))
    return render(data, collect(data))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--record", action="store_true", help="record torch's names (run with torch)")
    group.add_argument("--write", action="store_true", help="rewrite docs/COVERAGE.md")
    group.add_argument("--check", action="store_true", help="exit 1 if docs/COVERAGE.md is stale")
    args = parser.parse_args(argv)
    if args.record:
        record()
        return 0
    text = generate()
    if args.write:
        TABLE.write_text(text, encoding="utf-8")
        print(f"wrote {TABLE.relative_to(ROOT)}")
        return 0
    if args.check:
        stale = not TABLE.exists() or TABLE.read_text(encoding="utf-8") != text
        if stale:
            print("docs/COVERAGE.md is stale: run `python tools/coverage.py --write`", file=sys.stderr)
        return 1 if stale else 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
