# Tributary: `make run` starts the whole product, `make test` runs the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-postgres lint frontend bench-ingest bench-render clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# The web UI: built into frontend/dist (git-ignored), which Django serves under /static/.
frontend:
	cd frontend && npm ci && npm run build

run: $(STAMP) frontend
	$(PY) manage.py run_stack

test: $(STAMP) frontend
	bash scripts/test_services.sh
	cd frontend && npm test
	$(PY) -m pytest

# The event log's SQL on PostgreSQL as well (its hand-written INSERT must run on both backends).
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/tributary
test-postgres: $(STAMP)
	bash scripts/test_services.sh
	DATABASE_URL=$(POSTGRES_URL) $(PY) -m pytest tests/ingest

lint: $(STAMP)
	$(VENV)/bin/ruff check lineage_app spark_agent tests bench examples

bench-ingest: $(STAMP)
	$(PY) bench/ingest_throughput.py

bench-render: $(STAMP) frontend
	bash scripts/test_services.sh
	$(PY) bench/render_lineage.py

clean:
	rm -rf var staticfiles
