# The README's commands. Each one creates the virtual environment and installs what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: train demo test typecheck bench clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, pinned: an unpinned torch would pull a multi-GB CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[train,dev,sb3,ray]"
	touch $(STAMP)

## The main job: a few minutes of DMC self-play from scratch, ending with an arena match against `heuristic`.
## A second `make train` starts runs/dmc_quick-2 (--suffix): it never overwrites a run.
train: $(STAMP)
	$(PY) -m train.dmc --config configs/dmc_quick.yaml --suffix

## Play a few full games between random agents, print them, write and check their records.
demo: $(STAMP)
	$(VENV)/bin/smear-records --games 3 --seed 0 --print --out runs/demo/records.jsonl
	$(VENV)/bin/smear-records --check runs/demo/records.jsonl

## The whole default test suite (lint and type checks included).
test: $(STAMP) typecheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -n 2 --dist loadgroup -q

## Type checks of smear_env/, nets/ and agents/ (mypy, settings in pyproject.toml).
typecheck: $(STAMP)
	$(VENV)/bin/mypy

## Speed figures (installs the benchmark-only extras).
bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/bench_env.py
	taskset -c 0 $(PY) benchmarks/bench_vector.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
