# Two commands do all the set-up on a fresh machine:
#   make run    builds .venv if needed and opens the wizard
#   make test   builds .venv if needed and runs the whole test suite
# While developing: make test-fast (unit + headless without real-library runs, launches or tmux; under 2 minutes).
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# pytest-xdist workers for the whole suite (tests/tiers.py says what runs together); TEST_WORKERS=0 runs it in one
# process. PYTEST_ARGS is passed on to pytest (PYTEST_ARGS="-k rehearsal").
TEST_WORKERS ?= 2
FAST_WORKERS ?= 2
FAST_MARKERS := not (verify or real or e2e or install)

.PHONY: run test test-fast venv clean bench compile slurm-deps

venv: $(STAMP)

$(STAMP): pyproject.toml constraints/verified.txt
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	# torch first: the CPU build on local disk. Any other torch requirement pulls a multi-GB CUDA build.
	$(VPY) -c "import torch" 2>/dev/null || $(VPY) -m pip install -q "torch==2.13.0"
	# then the package with the run libraries (torch, accelerate, deepspeed, transformers) and the test tools, the
	# libraries at the versions the knowledge is verified against (a newer release must not change the suite by itself)
	$(VPY) -m pip install -q -e ".[run,test]" -c constraints/verified.txt --config-settings editable_mode=compat
	touch $(STAMP)

# byte-compile our own sources (an editable install does not), so start-up does not pay for it
compile: venv
	$(VPY) -m compileall -q wizard

run: compile
	$(VENV)/bin/fsdpds-wizard $(ARGS)

# SLURM's daemons and clients for the tests' local cluster (tests/slurm): installed with apt-get when missing and
# this is root; otherwise those tests skip and say why. A no-op when installed.
slurm-deps:
	@bash scripts/slurm_local.sh install

test: venv compile slurm-deps
	$(VPY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# the loop for development: unit + headless, no real-library replays, no launches, no tmux
test-fast: venv compile
	$(VPY) -m pytest -q -n $(FAST_WORKERS) --dist loadgroup -m "$(FAST_MARKERS)" tests/unit tests/headless $(PYTEST_ARGS)

bench: venv compile
	$(VPY) benchmarks/startup.py
	$(VPY) benchmarks/tui_startup.py
	$(VPY) benchmarks/monitor_parse.py
	$(VPY) benchmarks/launch_overhead.py

clean:
	rm -rf $(VENV) build *.egg-info
