# Tributary: `make run` starts the whole product, `make test` runs the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
VENV_DBT := .venv-dbt
STAMP_DBT := $(VENV_DBT)/.installed

.PHONY: run test test-neo4j test-postgres test-spark4 lint dist frontend bench-ingest bench-render screenshots clean

$(STAMP): requirements.txt requirements/runtime.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# The web UI: built into frontend/dist (git-ignored), which Django serves under /static/, and again into
# frontend/dist-test, the same build with the test hooks on `window` (`window.__tributaryGraph`, …) that the
# browser tests and bench-render read (tests/browser/conftest.py serves it). The production build has no hooks:
# `npm run build` fails if one is left in it. `make run` and `make dist` use frontend/dist only.
frontend:
	cd frontend && npm ci && npm run build && npm run build:test

# `make run` prints a few lines (what starts, a banner with URLs, login and token, one line per
# example job); each component's output goes to var/log/<name>.log. `make run VERBOSE=1` streams
# it all to the terminal instead; `make run ARGS="--port 8001 --no-example"` passes options on.
# The UI is rebuilt only when its sources changed, quietly (output in var/log/frontend.log and
# var/log/npm-ci.log).
FRONTEND_LOG := $(or $(TRIBUTARY_VAR_DIR),var)/log/frontend.log
FRONTEND_TEST_LOG := $(or $(TRIBUTARY_VAR_DIR),var)/log/frontend-test.log
NPM_LOG := $(or $(TRIBUTARY_VAR_DIR),var)/log/npm-ci.log
FRONTEND_SOURCES := $(shell find frontend/src frontend/scripts -type f 2>/dev/null) $(wildcard frontend/index.html \
	frontend/package.json frontend/vite.config.ts frontend/tsconfig.json)

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	@mkdir -p $(dir $(FRONTEND_LOG))
	@echo "installing the web UI's packages (log: $(NPM_LOG))…"
	@(cd frontend && npm ci) >$(NPM_LOG) 2>&1 || (tail -n 30 $(NPM_LOG); exit 1)

frontend/dist/index.html: $(FRONTEND_SOURCES) frontend/node_modules/.package-lock.json
	@mkdir -p $(dir $(FRONTEND_LOG))
	@echo "building the web UI (log: $(FRONTEND_LOG))…"
	@(cd frontend && npm run build) >$(FRONTEND_LOG) 2>&1 || (tail -n 30 $(FRONTEND_LOG); exit 1)
	@touch $@

# The test build (with the test hooks) the browser tests serve; see `frontend` above.
frontend/dist-test/index.html: $(FRONTEND_SOURCES) frontend/node_modules/.package-lock.json
	@mkdir -p $(dir $(FRONTEND_LOG))
	@echo "building the web UI's test build (log: $(FRONTEND_TEST_LOG))…"
	@(cd frontend && npm run build:test) >$(FRONTEND_TEST_LOG) 2>&1 || (tail -n 30 $(FRONTEND_TEST_LOG); exit 1)
	@touch $@

run: $(STAMP) frontend/dist/index.html
	@$(PY) manage.py run_stack $(if $(filter 1 yes true,$(VERBOSE)),--verbose) $(ARGS)

# The gates first (format, lint, types, import layers, the UI's types), then every test: the whole
# suite on Spark 3.5 and the embedded graph engine and, side by side with it, the graph-touching tests
# again on Neo4j 5 (test-neo4j: its own engine, Redis, database and var folder; its output goes to
# $(RESULTS)/neo4j.log and is printed when both are done), then the agent's tests and the example
# pipeline on Spark 4 (test-spark4); last, each run's counts side by side.
RESULTS := $(or $(TRIBUTARY_VAR_DIR),var)/test-results
test: $(STAMP) $(STAMP_DBT) frontend lint
	bash scripts/test_services.sh
	cd frontend && npm test
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@echo "the Neo4j pass runs beside the embedded one (its output: $(RESULTS)/neo4j.log, printed at its end)"
	@$(MAKE) --no-print-directory test-neo4j >$(RESULTS)/neo4j.log 2>&1 & neo4j=$$!; \
	  $(PY) -m pytest --junitxml=$(RESULTS)/embedded.xml; embedded=$$?; \
	  wait $$neo4j; neo4j=$$?; \
	  echo "--- the Neo4j pass ($(RESULTS)/neo4j.log):"; cat $(RESULTS)/neo4j.log; \
	  [ $$embedded = 0 ] && [ $$neo4j = 0 ]
	$(MAKE) --no-print-directory test-spark4
	@$(PY) scripts/test_summary.py $(RESULTS)

# The tests that touch the graph engine (pytest --graph-only), on Neo4j 5: the one at NEO4J_URI if set
# (NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE; the tests WIPE that database), else a server of the
# test session's own from NEO4J_SERVE (../shared/neo4j/serve.sh beside the checkout), in a fresh folder
# on a free port, stopped at the end. With neither, it says so and runs nothing. Its test database
# is its own (var/neo4j-tests), so it can run beside `make test`.
NEO4J_SERVE ?= $(abspath ..)/shared/neo4j/serve.sh
NEO4J_VAR := $(or $(TRIBUTARY_VAR_DIR),var)/neo4j-tests
test-neo4j: $(STAMP) $(STAMP_DBT) frontend/dist/index.html frontend/dist-test/index.html
	bash scripts/test_services.sh
	@if [ -n "$$NEO4J_URI" ]; then \
		echo "graph tests on the Neo4j at $$NEO4J_URI (database $${NEO4J_DATABASE:-lineage}, which they wipe)"; \
		TRIBUTARY_VAR_DIR=$(NEO4J_VAR) $(PY) -m pytest --graph-only --junitxml=$(RESULTS)/neo4j.xml; \
	elif [ -f "$(NEO4J_SERVE)" ]; then \
		echo "graph tests on Neo4j 5 from $(NEO4J_SERVE)"; \
		TRIBUTARY_VAR_DIR=$(NEO4J_VAR) NEO4J_SERVE=$(NEO4J_SERVE) $(PY) -m pytest --graph-only --graph-engine neo4j \
			--junitxml=$(RESULTS)/neo4j.xml; \
	else \
		echo "SKIPPED make test-neo4j: no Neo4j to test on ($(NEO4J_SERVE) is missing and NEO4J_URI is not set)"; \
	fi

# The SQL that leans on the database on PostgreSQL as well: the event log (its hand-written INSERT), the
# ledger's stream rows and locks, incidents (JSON filters) and the outbox's guarded claims.
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/tributary
test-postgres: $(STAMP)
	bash scripts/test_services.sh
	DATABASE_URL=$(POSTGRES_URL) $(PY) -m pytest tests/ingest tests/ledger tests/alerts tests/notify

# A real dbt project (tests/dbt/shop) run by OpenLineage's own dbt integration (tests/browser/test_dbt_project.py), in a venv of its own from
# requirements/dbt.txt: dbt pins packages of its own that the server's venv must not have to agree with.
$(STAMP_DBT): requirements/dbt.txt
	test -x $(VENV_DBT)/bin/python || $(PYTHON) -m venv $(VENV_DBT)
	echo '*' > $(VENV_DBT)/.gitignore
	$(VENV_DBT)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_DBT)/bin/python -m pip install --quiet -r requirements/dbt.txt
	touch $(STAMP_DBT)

# The agent's tests and the example pipeline end to end on Spark 4 as well (`make test` runs them on
# Spark 3.5), in a venv of their own from requirements/spark4.txt: requirements.txt with pyspark 4.x,
# every other line the same (checked), and Spark Connect's client libraries.
VENV4 := .venv-spark4
STAMP4 := $(VENV4)/.installed
SAME_AS_REQUIREMENTS = sed '/^\# --- Spark 4 only/,$$d' $(1) | grep -v -e '^\#' -e '^-r ' -e '^pyspark[=[]'

$(STAMP4): requirements/spark4.txt requirements/runtime.txt requirements.txt
	@[ "$$($(call SAME_AS_REQUIREMENTS,requirements.txt))" = "$$($(call SAME_AS_REQUIREMENTS,requirements/spark4.txt))" ] \
		|| { echo "requirements/spark4.txt must match requirements.txt except for pyspark"; exit 1; }
	test -x $(VENV4)/bin/python || $(PYTHON) -m venv $(VENV4)
	echo '*' > $(VENV4)/.gitignore
	$(VENV4)/bin/python -m pip install --quiet --upgrade pip
	$(VENV4)/bin/python -m pip install --quiet -r requirements/spark4.txt
	touch $(STAMP4)

test-spark4: $(STAMP4)
	bash scripts/test_services.sh
	$(VENV4)/bin/python -m pytest tests/spark_agent tests/e2e/test_agent_to_graph.py --junitxml=$(RESULTS)/spark4.xml

# The gates CI runs before the tests: format, lint, types, import layers (.importlinter), the UI's
# strict types and its generated API types.
lint: $(STAMP) frontend/node_modules/.package-lock.json
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	cd frontend && npm run --silent typecheck && npm run --silent check:api

# What a deployment installs, built as the Dockerfile's stages build it, in dist/: the server's wheel
# (with the built UI inside it; `tributary-server` is its manage.py), the agent's wheel (spark_agent,
# lineage_relay and lineage_protocol: for Spark clusters, edge nodes and the server, which imports the
# protocol) and the UI bundle alone (for a proxy or CDN).
# `make dist DIST=<dir>` writes them elsewhere (tests/deploy installs from there).
DIST ?= dist
dist: $(STAMP) frontend/dist/index.html
	rm -rf $(DIST) && mkdir -p $(DIST)
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w $(DIST) packaging/agent packaging/server
	tar -czf $(DIST)/tributary-ui.tar.gz -C frontend dist
	@ls -1 $(DIST)

bench-ingest: $(STAMP)
	$(PY) bench/ingest_throughput.py

# The README's screenshots, from the browser tests on the real example pipeline's lineage.
screenshots: $(STAMP) frontend
	bash scripts/test_services.sh
	README_SCREENSHOTS=1 $(PY) -m pytest tests/browser/test_example_pipeline.py

bench-render: $(STAMP) frontend
	bash scripts/test_services.sh
	$(PY) bench/render_lineage.py

clean:
	rm -rf var staticfiles dist
