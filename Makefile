# The two commands a fresh machine needs: `make demo` and `make test` (each sets up .venv on first use).
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.deps-installed
EXT    := python/ferrograd/_core.abi3.so
RUST   := $(shell find rust -name '*.rs') $(wildcard rust/*/Cargo.toml) Cargo.toml Cargo.lock

.PHONY: demo test test-rust test-python stubtest build wheel bench bench-rust clean

demo: build
	$(PY) examples/autograd_tutorial.py

test: test-rust test-python stubtest

$(PY):
	python3 -m venv $(VENV)

$(STAMP): requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# Builds the extension in release mode into the package folder (an editable install).
build: $(EXT)
$(EXT): $(STAMP) $(RUST) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet
	touch $@

test-rust:
	cargo test -p ferrograd-core --quiet

test-python: build
	$(PY) -m pytest -q tests

stubtest: build
	$(VENV)/bin/python -m mypy.stubtest ferrograd._core --allowlist stubtest-allowlist.txt

wheel: $(STAMP)
	rm -rf dist
	$(VENV)/bin/maturin build --release --out dist

bench: build
	$(PY) benches/run.py --out benches/RESULTS.md
	$(PY) benches/memory.py

bench-rust:
	cargo bench -p ferrograd-core --bench kernels

clean:
	rm -rf target dist $(VENV) $(EXT)
