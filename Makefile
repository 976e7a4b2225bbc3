# cardgames: `make run` serves the site on http://127.0.0.1:8000; `make test` runs every check.
SHELL := /bin/bash
.DEFAULT_GOAL := run
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The whole suite must finish well inside CI's budget; a hang fails instead of waiting forever.
TEST_TIMEOUT ?= 1200

.PHONY: run install install-dev chromium fonts nginx axe gettext debian-packages messages compilemessages lint test test-packaging test-fast-phase test-browser-phase test-browser-then-scale test-fast test-browser test-scale test-scale-suite test-deploy bench migrate superuser clean

# Django 6 needs Python >= 3.12: prefer pyenv's 3.13.0, else any python3.13 / 3.12 on PATH.
$(PY):
	@py=""; \
	for cand in "$$(pyenv prefix 3.13.0 2>/dev/null)/bin/python3.13" python3.13 python3.12 python3; do \
	  if command -v "$$cand" >/dev/null 2>&1 && "$$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
	    py="$$cand"; break; fi; \
	done; \
	if [ -z "$$py" ]; then echo "cardgames needs Python 3.12 or newer (3.13 preferred); none was found." >&2; exit 1; fi; \
	echo "Creating $(VENV) with $$py ($$("$$py" --version))"; \
	"$$py" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e .
	@touch $@

# One pip run for the site and its dev extra (a second run resolves everything again: 5 s more
# on a fresh clone); it stands for `install` too.
$(VENV)/.installed-dev: $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Browser tests drive Debian's Chromium; a browser download is neither possible nor wanted here.
# Both of Debian's builds of one Chromium: the browser flows drive its old headless shell (the
# same Blink without the full browser's GPU process and compositor: a fifth less CPU for the
# same 76 tests, docs/performance.md); Lighthouse and the rolling deploy drive the full browser.
chromium:
	@command -v chromium >/dev/null 2>&1 && command -v chromium-headless-shell >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium and chromium-headless-shell for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    chromium chromium-headless-shell >/dev/null; }
	@chromium --version

# A CJK font for the browser tests' screenshots (issue 41): Korean pages show Korean, not boxes.
fonts:
	@fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || { \
	  echo "Installing Debian's fonts-noto-cjk for Korean pages in the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq fonts-noto-cjk >/dev/null; }
	@fc-list | grep -ci "Noto Sans CJK" | sed 's/^/Noto CJK font faces: /'

# The proxy in front of several processes (deploy/nginx.conf): the scale tests and the bench run
# two Daphne behind Debian's nginx, started on their own ports, never as the system's service.
# Debian's postinst would start nginx on port 80 (and fail the install when it cannot): a
# policy-rc.d that forbids starting services is put in place for the install only (an existing
# one, as in containers, is left as it is), and no other service is touched.
nginx:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  echo "Installing Debian's nginx for the proxy tests (not started)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  policy=""; \
	  if [ ! -e /usr/sbin/policy-rc.d ]; then \
	    policy=/usr/sbin/policy-rc.d; \
	    trap '$$SUDO rm -f /usr/sbin/policy-rc.d' EXIT; \
	    printf '#!/bin/sh\nexit 101\n' | $$SUDO tee $$policy >/dev/null && $$SUDO chmod 755 $$policy || exit 1; \
	  fi; \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq nginx >/dev/null; }
	@"$$(command -v nginx || echo /usr/sbin/nginx)" -v

# axe-core, which the browser tests inject into pages to check their accessibility, and
# Lighthouse, which they run on a few pages (tests/browser/test_lighthouse.py).
axe: node_modules/.installed
node_modules/.installed: package.json
	npm install --no-package-lock --no-audit --no-fund --silent
	@test -f node_modules/axe-core/axe.min.js && test -x node_modules/.bin/lighthouse
	@touch $@

# Translations: Debian's gettext extracts (xgettext, msgmerge) and compiles (msgfmt) them.
gettext:
	@command -v msgfmt >/dev/null 2>&1 || { \
	  echo "Installing Debian's gettext for the translations"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq gettext >/dev/null; }

# The same extraction tests/test_translations.py checks: every string the site says, per language.
MESSAGE_DIRS := --ignore=.venv --ignore=node_modules --ignore=staticfiles --ignore=tests --ignore=bench
messages: install gettext
	$(PY) manage.py makemessages -l de -l ru -l ko --no-obsolete $(MESSAGE_DIRS)

# The compiled catalogues are committed (a test fails when one is stale), so a clone runs at once.
compilemessages: install gettext
	$(PY) manage.py compilemessages $(MESSAGE_DIRS)

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) -m cardgames.server -b $(HOST) -p $(PORT) cardgames.asgi:application

superuser: migrate
	$(PY) manage.py createsuperuser

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py check

# First what the suite needs installed: pip's packages, npm's and Debian's at once (a clean
# clone's pip install keeps one core busy for some 45 s; npm's 19 s and apt's mostly wait on
# the network and the disk); Debian's one after another (apt holds one lock). Then lint beside
# the packaging test (mypy keeps one core busy; the wheel's build mostly waits on pip and its
# own interpreter: docs/performance.md, "The suite"), then the tests that need the machine to
# themselves (marked alone: the equalisation tests, which race two players against each other
# to the millisecond and wait more than they compute; their two windows are a setting of the
# process each, so two workers run them side by side: 54 s against 88 s one after the other,
# the shares as alone), then everything else but the browser
# (two workers) side by side with the browser flows (a pytest process of their own, two
# workers, each with its own server and database: Playwright's event loop and the asyncio
# consumer tests must not share one), then the PostgreSQL + Redis path (below). Alone, each of
# the two middle phases keeps only part of the cores busy (their workers wait on sockets, sites
# and bots); together they fill both (0-1 % idle through the middle in a vmstat of 7
# December's clean clone: only less work shortens it, not more workers); `make -O` prints each
# phase's output whole when it ends. The browser flows end first (by one and a half to two
# minutes in 7 December's clean clones, on Chromium's headless shell: the fast suite holds
# Schemathesis and the two Swiss tournaments), so the PostgreSQL + Redis suite (four workers)
# starts when they end, beside the fast suite's last minutes, and fills the cores the fast
# suite leaves when it ends; the rolling deploy runs last, alone. (The PostgreSQL + Redis suite
# beside the whole browser phase saved nothing, nor did it split in two parts, one after each
# middle phase; three workers made the equalisation test fail beside them: docs/performance.md,
# "The suite".)
# FAST_WORKERS / BROWSER_WORKERS change the counts for a try.
FAST_WORKERS ?= 2
BROWSER_WORKERS ?= 2
test:
	$(MAKE) --no-print-directory -j3 -O install-dev axe debian-packages
	$(MAKE) --no-print-directory -j2 -O lint test-packaging
	timeout $(TEST_TIMEOUT) $(VENV)/bin/pytest --durations=5 -n 2 -m alone
	$(MAKE) --no-print-directory -j2 -O test-fast-phase test-browser-then-scale
	$(MAKE) --no-print-directory test-deploy

# One after another (apt holds one lock): a make of its own, outside the parallel one's jobs.
debian-packages:
	MAKEFLAGS= $(MAKE) --no-print-directory chromium fonts gettext

test-packaging: install-dev
	timeout $(TEST_TIMEOUT) $(VENV)/bin/pytest --durations=15 -m packaging tests/packaging

# Our live tables beside boardgame.io 0.50.2 (installed from npm into a scratch folder); never
# part of `make test`: figures, not assertions (docs/performance.md).
bench: install-dev nginx
	PYTHONPATH=. .venv/bin/python -u bench/compare.py $(BENCH_ARGS)

# make test's two middle phases (run side by side there; the scale suite follows the browser's).
test-fast-phase:
	timeout $(TEST_TIMEOUT) $(VENV)/bin/pytest --durations=15 -n $(FAST_WORKERS)
test-browser-phase:
	timeout $(TEST_TIMEOUT) $(VENV)/bin/pytest --durations=15 -n $(BROWSER_WORKERS) -m browser tests/browser
test-browser-then-scale: test-browser-phase
	$(MAKE) --no-print-directory test-scale-suite

test-fast: install-dev gettext
	$(VENV)/bin/pytest -m "not browser and not scale and not packaging" -x -q --durations=15

test-browser: install-dev chromium fonts axe
	timeout $(TEST_TIMEOUT) $(VENV)/bin/pytest --durations=15 -n $(BROWSER_WORKERS) -m browser tests/browser

# The scale-out configuration: PostgreSQL + Redis. SCALE_DATABASE_URL / SCALE_REDIS_URL (or
# DATABASE_URL / REDIS_URL) name the servers to use; whichever is not given is started for the
# run from wheels of the dev extra (tests/scale_services.py), so nothing else needs installing.
# (The Schemathesis run serves its own SQLite site: `make test` runs it once, not again here.)
# Modules marked any_store are left out too: they render pages or check forms, test pure code,
# or serve a site of their own on SQLite, so PostgreSQL + Redis would change nothing they prove
# (the fast suite runs them). Everything that touches the store, locks, the channel layer,
# the cache, several processes, raw SQL, constraints or ordering stays (docs/performance.md).
# This machine's own servers: SCALE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME
# SCALE_REDIS_URL=redis://127.0.0.1:6379/0 CHANNELS_PREFIX=NAME make test-scale
# SCALE_WORKERS workers (four), each on a test database of its own and its own Redis prefix
# (cardgames/settings.py, CHANNELS_PREFIX): these tests wait on servers and sockets more than
# they compute (two workers kept the machine 40 % idle), so four fill the two cores: alone,
# 143 s against 198 s for the same 479 tests (docs/performance.md).
# The rolling deploy (tests/deploy, marked deploy) drives browsers: a pytest process of its own,
# alone on the machine (its pauses are measured).
SCALE_WORKERS ?= 4
SCALE_ENV = DATABASE_URL=$${SCALE_DATABASE_URL:-$${DATABASE_URL:-}} \
	REDIS_URL=$${SCALE_REDIS_URL:-$${REDIS_URL:-}}
test-scale: test-scale-suite test-deploy

test-scale-suite: install-dev nginx chromium
	$(SCALE_ENV) timeout $(TEST_TIMEOUT) $(PY) -m tests.scale_services $(VENV)/bin/pytest \
	  --durations=15 -n $(SCALE_WORKERS) -m "not browser and not deploy and not any_store" \
	  --ignore=tests/api/test_schemathesis.py tests/lobby tests/tables tests/api tests/deploy

test-deploy: install-dev nginx chromium
	$(SCALE_ENV) timeout $(TEST_TIMEOUT) $(PY) -m tests.scale_services $(VENV)/bin/pytest -s \
	  --durations=5 -m deploy tests/deploy

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
