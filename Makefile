# Every target sets itself up: a fresh clone needs only Python 3.10+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test
# The Python versions the package claims (its classifiers): `make test-all` runs the suite on
# each one present, and `make lock` pins the test and docs extras for each.
PYTHONS := $(shell sed -n 's/^ *"Programming Language :: Python :: \(3\.[0-9]*\)",$$/\1/p' pyproject.toml)
PYVER := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# What CI tested, for this Python: every install below takes it with -c, so a fresh clone
# gets the same versions. Only `make lock` changes it.
CONSTRAINTS := constraints/py$(PYVER).txt

.PHONY: test test-all test-botocore lock lint typecheck unit demo bench bench-report notebooks docs docs-serve docs-browser dist clean twins

# The suite's branch coverage may only rise: `make test-all` fails below this floor, measured
# on the whole suite (the heavy runs included; hypothesis draws differ run to run, so the floor
# keeps half a point of room). The slow cases of the every-scheme matrices run untraced
# (tests/profiles.py, UNTRACED_SLOW): the same code as their traced cases, at 2-8 times the cost.
COVERAGE_FLOOR := 94.5
# pytest writes the test modules it rewrites (its assertion messages) to __pycache__ unless this
# is set: a warm loop reuses them instead of rewriting every module on every run.
unexport PYTHONDONTWRITEBYTECODE
LINTED := ulidkeys tests benchmarks examples docs/hooks scripts noxfile.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# nox (the runner of test-all) and uv (the installer, and the resolver of lock), pinned in
# constraints/tools.txt: the one install pip makes.
$(VENV)/.installed-tools: constraints/tools.txt | $(BIN)/python
	$(BIN)/python -m pip install -q -r constraints/tools.txt
	touch $@

# Every other install into the venv: uv, as the nox sessions install (a fresh clone's locked
# test extra in about 40 s, where pip took 100 s).
INSTALL := $(BIN)/uv pip install --quiet --python $(BIN)/python
# An install of the lock (every version pinned) first takes it from uv's cache alone, asking the
# index nothing (--offline: the test extra in about 3 s), and from the index only where the cache
# lacks any of it (a first install: an offline miss fails at once, quietly). Nothing can differ:
# the versions are pinned and the index's files never change under their URLs. What it saves:
# the index answers uv's revalidations as modified, so every online install builds pyspark's
# sdist again (below), about 30 s of a core each, four times in a fresh clone's test-all.
# noxfile.py installs its sessions' locks the same way.
LOCKED_INSTALL = $(INSTALL) --offline $(1) 2>/dev/null || $(INSTALL) $(1)

# pyspark ships only an sdist (400 MB of jars): uv unpacks it and builds it into its cache (about
# 1.9 GB together) whenever the package index answers its revalidation as modified - every
# online install here - and keeps each old build. `uv cache prune` drops the builds nothing
# points to any more, after every install that may have made one (here, and after test-all's
# nox installs). Without it, 66 GB of old builds piled up over a few days of fresh clones, and the
# full disk failed CI. Housekeeping: a prune that fails says so and fails no target.
PRUNE := $(BIN)/uv cache prune --quiet || echo "uv cache prune failed: old builds stay in uv's cache" >&2

$(STAMP): pyproject.toml $(CONSTRAINTS) | $(VENV)/.installed-tools
	$(call LOCKED_INSTALL,-c $(CONSTRAINTS) -e '.[test]')
	$(PRUNE)
	touch $(STAMP)

$(VENV)/.installed-demo: pyproject.toml $(CONSTRAINTS) | $(VENV)/.installed-tools
	$(call LOCKED_INSTALL,-c $(CONSTRAINTS) -e '.[demo]')
	touch $@

$(CONSTRAINTS):
	@echo "$(CONSTRAINTS) is missing: Python $(PYVER) is not one the package claims ($(PYTHONS))," \
		"or run 'make lock'" >&2; exit 1

# pytest-xdist's workers (the nox sessions read PYTEST_WORKERS too): one more than the 2 cores
# this is tuned for, because the suite waits on subprocesses and servers (moto's, a kernel, a
# JVM) as well as on the CPU; side by side on 2 cores, 3 workers took the loop ~10% and the
# covered run ~24% less time than 2.
PYTEST_WORKERS ?= 3
export PYTEST_WORKERS
XDIST := -n $(PYTEST_WORKERS) --dist worksteal

# The loop a contributor waits on (a few minutes on 2 cores): lint, types, and the suite but
# its heavy integration runs (marked slow: Spark, Dask's cluster, notebooks, the docs build and
# its examples, the demo, the fault world, the every-scheme suites on moto, long fuzzing), on
# both cores, with the short hypothesis profile and no coverage.
test: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy ulidkeys
	HYPOTHESIS_PROFILE=dev $(BIN)/python -m pytest $(XDIST) -m "not slow"

# What CI runs: lint and types, the whole suite - the slow runs and the strict documentation
# build included - with branch coverage and its floor on this Python, then the suite but its
# slow runs on every other claimed Python present on this machine, with botocore's standard
# retries (noxfile.py: installed from its constraints file; one missing here is skipped with a
# line saying so; one version: `.venv/bin/nox -s tests-3.12`), then the page readers over the
# botocore range.
# mypy and the nox sessions' installs (`nox --install-only`: the venvs, which the sessions then
# reuse) run beside the covered suite, whose workers leave a core idle while they wait: their
# output follows the suite's, and any of the three failing fails test-all.
NOX_SESSIONS := $(foreach v,$(filter-out $(PYVER),$(PYTHONS)),tests-$(v))
BOTOCORE_SESSIONS := botocore_oldest botocore_newest
test-all: $(STAMP) $(VENV)/.installed-tools
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	@mkdir -p .nox
	$(BIN)/mypy ulidkeys > .nox/mypy.log 2>&1 & typed=$$!; \
	$(BIN)/nox --install-only -s $(NOX_SESSIONS) $(BOTOCORE_SESSIONS) \
		> .nox/install.log 2>&1 & installed=$$!; \
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest $(XDIST) --cov=ulidkeys --cov-branch \
		--cov-report=term:skip-covered --cov-fail-under=$(COVERAGE_FLOOR); tested=$$?; \
	wait $$typed; typed=$$?; echo "$(BIN)/mypy ulidkeys"; cat .nox/mypy.log; \
	wait $$installed; installed=$$?; echo "$(BIN)/nox --install-only: exit $$installed"; \
	$(PRUNE); \
	if [ $$installed != 0 ]; then cat .nox/install.log; fi; \
	test $$tested = 0 && test $$typed = 0 && test $$installed = 0
	$(BIN)/nox -s $(NOX_SESSIONS)
	$(MAKE) test-botocore

# The page readers' and windows' tests over the botocore range the package allows (noxfile.py,
# about a minute each): the oldest (constraints/botocore-oldest.txt, on the oldest Python) and
# the newest pip resolves (constraints/botocore-newest.txt, on the newest Python). The locked
# one meets both retry modes in test-all's own runs. An interpreter this machine lacks is
# skipped.
test-botocore: $(VENV)/.installed-tools
	$(BIN)/nox -s $(BOTOCORE_SESSIONS)

# Re-resolve the test and docs extras for every claimed Python (and the tools) to the newest
# versions that fit pyproject.toml and constraints/compat.in, into constraints/*.txt. On
# purpose only: review the diff, run `make test-all`, commit the files together.
lock: $(VENV)/.installed-tools
	for v in $(PYTHONS); do \
		$(BIN)/uv pip compile pyproject.toml --extra test --extra docs -c constraints/compat.in \
			--python-version $$v --python $(BIN)/python --upgrade --quiet \
			--custom-compile-command "make lock" -o constraints/py$$v.txt || exit 1; \
	done
	$(BIN)/uv pip compile constraints/tools.in --universal --python $(BIN)/python --upgrade \
		--quiet --custom-compile-command "make lock" -o constraints/tools.txt
	# the two ends of the botocore range (`make test-botocore`), and which boto3, botocore and
	# aiobotocore each extra that brings them resolves to today (extra-*.txt, for the docs)
	$(BIN)/uv pip compile constraints/botocore-oldest.in --python-version $(firstword $(PYTHONS)) \
		--python $(BIN)/python --upgrade --quiet --custom-compile-command "make lock" \
		-o constraints/botocore-oldest.txt
	for name in botocore-newest extra-aws extra-async; do \
		case $$name in extra-*) input="pyproject.toml --extra $${name#extra-}";; \
			*) input=constraints/$$name.in;; esac; \
		$(BIN)/uv pip compile $$input --python-version $(lastword $(PYTHONS)) \
			--python $(BIN)/python --upgrade --quiet --custom-compile-command "make lock" \
			-o constraints/$$name.txt || exit 1; \
	done

# The documentation site, built strictly (a broken link, reference or docstring fails) into site/:
# installs only the docs extra (the package itself and mkdocs).
$(VENV)/.installed-docs: pyproject.toml $(CONSTRAINTS) | $(VENV)/.installed-tools
	$(call LOCKED_INSTALL,-c $(CONSTRAINTS) -e '.[docs]')
	touch $@

docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# Opens the built home page, a how-to and a reference page in headless Chromium (Debian's
# chromium package: apt-get install chromium) and fails on a blank page, a broken image or a
# console error. Not part of `make test`.
docs-browser: docs
	$(BIN)/python docs/hooks/browser_check.py site index.html howto/s3/index.html reference/s3/index.html

# sdist + wheel, checked with twine, the wheel installed into a fresh venv and imported.
dist: $(STAMP)
	rm -rf dist .venv-dist
	$(PYTHON) -m venv .venv-dist
	.venv-dist/bin/python -m pip install -q build twine
	.venv-dist/bin/python -m build --outdir dist .
	.venv-dist/bin/python -m twine check --strict dist/*
	$(PYTHON) -m venv .venv-dist/try
	.venv-dist/try/bin/python -m pip install -q dist/*.whl
	.venv-dist/try/bin/ulidkeys --version
	.venv-dist/try/bin/python -c "import ulidkeys, ulidkeys.ids, ulidkeys.s3, ulidkeys.dynamodb, ulidkeys.config, ulidkeys.planning; print('imports: ok')"

demo: $(VENV)/.installed-demo
	$(BIN)/ulidkeys demo

# Write the thread shell (ulidkeys/engine/threads.py) from the asyncio shell (tasks.py), its one
# source; a test fails when the committed twin is not current.
twins: $(STAMP)
	$(BIN)/python scripts/unasync.py

# Rewrite each notebooks/*.ipynb from its notebooks/src/*.py (jupytext pairing), then run it in
# a kernel and keep the outputs (plots included), so a notebook opened on GitHub shows them.
notebooks: $(STAMP)
	$(BIN)/jupytext --sync notebooks/src/*.py
	MPLBACKEND=module://matplotlib_inline.backend_inline $(BIN)/jupyter execute --inplace \
		--timeout=300 notebooks/*.ipynb

bench: $(STAMP)
	$(INSTALL) -c $(CONSTRAINTS) -e '.[test,bench]'
	$(BIN)/python benchmarks/generate.py
	$(BIN)/python benchmarks/plan.py   # both also write their charts to docs/img/

# One report of every benchmark (each in a fresh process) into docs/benchmarks.md: half an
# hour or more; QUICK=1 runs smaller sizes in a few minutes.
bench-report: $(STAMP)
	$(INSTALL) -c $(CONSTRAINTS) -e '.[test,bench]'
	PYTHONPATH=$(CURDIR) $(BIN)/python benchmarks/report.py $(if $(QUICK),--quick)

clean:
	rm -rf $(VENV) .venv-dist .nox dist site .pytest_cache .mypy_cache .ruff_cache .hypothesis
