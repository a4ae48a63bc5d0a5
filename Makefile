# Developer tasks; every target runs inside ./.venv (make it with ./install.sh).
PY := .venv/bin/python

.PHONY: test test-all lint fmt type check bench

test:       ## the fast set (the README's test command)
	$(PY) -m pytest -q

test-all:   ## everything, as CI runs it: the fast set, then the slow and Ray tests
	$(PY) -m pytest -q
	$(PY) -m pytest -q -m "slow or ray"

lint:       ## ruff: lint and format check
	$(PY) -m ruff check rewardsmith tests bench envs
	$(PY) -m ruff format --check rewardsmith

fmt:        ## ruff: fix what can be fixed, format
	$(PY) -m ruff check --fix rewardsmith tests bench envs
	$(PY) -m ruff format rewardsmith

type:       ## mypy on the package
	$(PY) -m mypy

check: lint type test

bench:      ## the benchmarks (slow; they print ratios measured side by side)
	$(PY) bench/overhead.py && $(PY) bench/sandbox.py && $(PY) bench/parallel.py
