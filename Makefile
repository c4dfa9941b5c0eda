# Two commands do all the set-up on a fresh machine:
#   make run    builds .venv if needed and opens the wizard
#   make test   builds .venv if needed and runs the whole test suite
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test venv clean bench

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	# torch first: the CPU build on local disk. Any other torch requirement pulls a multi-GB CUDA build.
	$(VPY) -c "import torch" 2>/dev/null || $(VPY) -m pip install -q "torch==2.13.0"
	$(VPY) -m pip install -q -e ".[test]" --config-settings editable_mode=compat
	touch $(STAMP)

run: venv
	$(VENV)/bin/fsdpds-wizard $(ARGS)

test: venv
	$(VPY) -m pytest -q $(PYTEST_ARGS)

bench: venv
	$(VPY) benchmarks/startup.py

clean:
	rm -rf $(VENV) build *.egg-info
