# The README's commands. Each one creates the virtual environment and installs what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: train demo test typecheck docs wheel browser web bench gpu-check clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, pinned: an unpinned torch would pull a multi-GB CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[train,web,plot,dev,docs,sb3,ray,openspiel,rlcard]"
	touch $(STAMP)

## The main job: a few minutes of DMC self-play from scratch, ending with an arena match against `heuristic`.
## A second `make train` starts runs/dmc_quick-2 (--suffix): it never overwrites a run.
train: $(STAMP)
	$(PY) -m train.dmc --config dmc_quick --suffix

## Play a few full games between random agents, print them, write and check their records.
demo: $(STAMP)
	$(VENV)/bin/smear-records --games 3 --seed 0 --print --out runs/demo/records.jsonl
	$(VENV)/bin/smear-records --check runs/demo/records.jsonl

## The whole default test suite: lint, type checks, the strict documentation build, then pytest
## (tests/test_wheel.py builds the wheel and installs it into a fresh virtual environment).
test: $(STAMP) typecheck docs browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -n 2 --dist loadgroup -q

## The documentation site, offline, into docs/_build/html. Strict: any warning (a broken link,
## a reference to a name that does not exist, a docstring Sphinx cannot parse) fails the build.
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -E -W --keep-going -n -q -b html docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

## The browser the web tests drive: Debian's chromium (Playwright drives it; its own browser download
## does not work offline). Installed with apt-get when missing (as root, as on CI).
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

## The browser table on http://127.0.0.1:8000/ (docs/web.md).
web: $(STAMP)
	$(VENV)/bin/smear-web

## An sdist and a wheel in dist/.
wheel: $(STAMP)
	$(PY) -m build --outdir dist .

## Type checks of every package: smear_env/, smear_nets/, agents/, train/, smear_apps/ (mypy, settings in pyproject.toml).
typecheck: $(STAMP)
	$(VENV)/bin/mypy

## Speed figures (installs the benchmark-only extras).
bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/bench_env.py
	taskset -c 0 $(PY) benchmarks/bench_vector.py

## The kit on this machine's GPU (tests, inference, DMC and PPO throughput; one table, under 8 minutes).
## Without a GPU it says so and runs nothing.
gpu-check: $(STAMP)
	$(PY) benchmarks/gpu_check.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache docs/_build dist
