# Two commands on a fresh machine with Python 3.11 and pip: `make app` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: app lab guide test venv validate bench report clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

app: $(STAMP)
	$(BIN)/python -m workbook app

# The notebooks for analysts, in JupyterLab on 127.0.0.1 (LAB_PORT=8890 for another port); offline:
# no news feed, no update check, no prompt asking to turn them on (deploy/lab-settings).
lab: $(STAMP)
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$${LAB_PORT:-8888} --LabApp.news_url=None \
		--LabApp.app_settings_dir=$(CURDIR)/deploy/lab-settings notebooks/

# One guided notebook as its own Voila page, offline: make guide NB=04_power_and_cooling
# (http://127.0.0.1:8870, PORT=8871 for another port).
guide: $(STAMP)
	$(BIN)/python -c "from workbook.present.app.serve import build_offline_template as b; b()"
	JUPYTER_PATH=$(CURDIR)/build/share/jupyter $(BIN)/voila notebooks/$${NB:?NB=name of a notebook}.ipynb --port=$${PORT:-8870} --Voila.port_retries=0

test: $(STAMP)
	$(BIN)/ruff check src tests tools notebooks
	$(BIN)/ruff format --check src tests tools
	$(BIN)/python -m pytest

validate: $(STAMP)
	$(BIN)/python -m workbook validate

bench: $(STAMP)
	$(BIN)/python -m workbook bench

clean:
	rm -rf $(VENV)
