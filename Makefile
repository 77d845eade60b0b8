# Tributary: `make run` starts the whole product, `make test` runs the whole test suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench-ingest clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

run: $(STAMP)
	$(PY) manage.py run_stack

test: $(STAMP)
	bash scripts/test_services.sh
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check lineage_app spark_agent tests bench examples

bench-ingest: $(STAMP)
	$(PY) bench/ingest_throughput.py

clean:
	rm -rf var staticfiles
