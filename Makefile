# The two commands a fresh machine needs: `make demo` and `make test` (each sets up .venv on first use).
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.deps-installed
EXT    := python/ferrograd/_core.abi3.so
RUST   := $(shell find rust -name '*.rs') $(wildcard rust/*/Cargo.toml) Cargo.toml Cargo.lock

.PHONY: demo test test-rust test-python stubtest lint build build-fast generate test-torch wheel sdist bench bench-import bench-rust clean \
	fuzz fuzz-differential

demo: build
	$(PY) examples/autograd_tutorial.py
	$(PY) examples/nn_tutorial.py
	$(PY) examples/train_digits.py --out examples/out

test: test-rust test-python stubtest lint

$(PY):
	python3 -m venv $(VENV)

$(STAMP): requirements-dev.txt requirements-nodeps.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-nodeps.txt
	touch $@

# Builds the extension in release mode into the package folder (an editable install). It is built as the wheel is
# (WHEEL_BUILD, below), so that `make wheel` after `make test` reuses every compiled crate: `maturin develop`
# links differently, and cargo would build all of it a second time (a full release build: CI's longest step).
# tools/install_dev_extension.py then does what `develop` does.
WHEEL_BUILD = PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin build --release --zig --compatibility manylinux2014
build: $(EXT)
$(EXT): $(STAMP) $(RUST) pyproject.toml
	rm -rf target/dev-wheel
	$(WHEEL_BUILD) --quiet --out target/dev-wheel
	$(PY) tools/install_dev_extension.py target/dev-wheel
	touch $@

test-rust:
	cargo test -p ferrograd-core --quiet

# House style: rustfmt and clippy (rustfmt.toml, clippy.toml), ruff lint and format (pyproject.toml),
# no Rust or Python line over 120 characters (rustfmt leaves long strings alone; ruff skips the stub);
# mypy over the package and over a typed user program (tests/typing: every public name visible).
lint: $(STAMP)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) tools/check_line_length.py
	$(VENV)/bin/mypy python/ferrograd tests/typing

# The extension without LTO, incremental (~30 s after a core change instead of ~2.5 min): for
# iterating. `make test` rebuilds in release.
build-fast: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --profile fast --quiet

# Rewrites what is generated from the op registry and the stubs: the stub's unary section, the function
# forms (python/ferrograd/_functions.py), README's op list and docs/COVERAGE.md (torch's names, recorded
# by `tools/coverage.py --record` with a torch Python). tests/test_generated_api.py, test_readme_ops.py and
# test_coverage.py fail when they are stale.
generate: build-fast
	$(PY) tools/gen_api.py
	$(PY) tools/op_list.py --write
	$(PY) tools/coverage.py --write

# The suite against PyTorch itself (tools/torch_shim): TORCH_PY is a Python with torch, pytest and
# hypothesis installed, e.g. `make test-torch TORCH_PY=/path/to/venv/bin/python`.
TORCH_PY ?= python3
test-torch:
	FG_TEST_AGAINST_TORCH=1 PYTHONPATH=tools/torch_shim $(TORCH_PY) -m pytest -q -p no:cacheprovider tests

test-python: build
	$(PY) -m pytest -q tests

stubtest: build
	$(VENV)/bin/python -m mypy.stubtest ferrograd._core --allowlist stubtest-allowlist.txt

# One abi3 wheel for any x86-64 Linux with glibc >= 2.17 (manylinux2014, where torch's wheels install
# too): linked through zig (the `ziglang` package), so the build machine's newer glibc is not required.
wheel: $(STAMP)
	rm -rf dist
	$(WHEEL_BUILD) --out dist

sdist: $(STAMP)
	$(VENV)/bin/maturin sdist --out dist

# benches/workloads.py (issue 16's training steps, ferrograd against PyTorch, each in its own process)
# takes PyTorch from BENCH_TORCH_PY (default: the workplace's torch venv if present; empty: ferrograd only).
BENCH_TORCH_PY ?= $(wildcard /work/torchenv/bin/python)
bench: build
	$(PY) benches/run.py --out benches/RESULTS.md
	$(PY) benches/memory.py
	$(PY) benches/workloads.py $(if $(BENCH_TORCH_PY),--torch-python $(BENCH_TORCH_PY)) --out benches/WORKLOADS.md

# `import ferrograd` in fresh interpreters (a release wheel built and installed in a clean venv, bytecode
# compiled), beside `import numpy` and `import torch`: benches/import_time.py.
bench-import: $(STAMP)
	$(PY) benches/import_time.py $(if $(BENCH_TORCH_PY),--torch-python $(BENCH_TORCH_PY))

# Hostile-input fuzz of every public entry point (tools/fuzz.py), in child processes so that a crash is
# seen: prints calls, crashes, hangs, panics, non-standard exceptions and tensors mutated by failed calls.
# `make test` runs a short one (tests/test_fuzz.py).
#
# Then the differential run (tools/differential_fuzz.py, issue 28): DIFF_CALLS random calls over the tensor API
# evaluated by ferrograd and by PyTorch (TORCH_PY, a Python with torch, as for test-torch), each in its own
# process with identical inputs; prints the table of verdicts and every disagreement. `make test` replays 2000
# recorded calls (tests/test_differential.py). `make fuzz-differential` runs only this part.
FUZZ_CALLS ?= 100000
FUZZ_SEED  ?= 0
DIFF_CALLS ?= 20000
DIFF_SEED  ?= 1
fuzz: build
	$(PY) tools/fuzz.py --calls $(FUZZ_CALLS) --seed $(FUZZ_SEED)
	$(PY) tools/differential_fuzz.py --calls $(DIFF_CALLS) --seed $(DIFF_SEED) --torch-python $(TORCH_PY)

fuzz-differential: build
	$(PY) tools/differential_fuzz.py --calls $(DIFF_CALLS) --seed $(DIFF_SEED) --torch-python $(TORCH_PY)

bench-rust:
	cargo bench -p ferrograd-core --bench kernels

clean:
	rm -rf target dist $(VENV) $(EXT)
