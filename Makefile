# Dragon table companion: make run · make test · make bench · make lint
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8080
DATA   ?= $(or $(COMPANION_DATA),./data)
ARGS   ?=
# make test runs the test files in this many processes (pytest-xdist); TEST_JOBS=0 runs them in one. Three on two
# cores: the browser tests wait on Chromium, and the suite took 495 s against 577 s at two. (The two browser tests that
# failed now and then at three lost a tap pressed on a button's picture as the picture was drawn anew: mended.)
TEST_JOBS ?= 3
# On a Raspberry Pi, picamera2 and lgpio come from apt: let the venv see them.
VENV_FLAGS := $(shell grep -qs 'Raspberry Pi' /proc/device-tree/model && echo --system-site-packages)

.PHONY: run test bench lint clean install uninstall real-photos

$(PY):
	$(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# On a Pi, apt's picamera2 needs apt's numpy 1: keep pip from putting numpy 2 in front of it.
PI_CONSTRAINTS := $(if $(VENV_FLAGS),-c systemd/pi-constraints.txt)

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet $(PI_CONSTRAINTS) -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install --quiet $(PI_CONSTRAINTS) -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(VENV)/bin/companion serve --host 0.0.0.0 --port $(PORT) --data $(DATA) $(ARGS)

test: $(VENV)/.installed-test
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadfile

bench: $(VENV)/.installed-test
	$(PY) -m bench

# The public real photographs the vision tests and figures read when named (by hand: needs git and GitHub).
REAL ?= real-photos
real-photos: $(VENV)/.installed-test
	$(PY) -m bench.fetch_real $(REAL)

lint: $(VENV)/.installed-test
	$(PY) -m compileall -q companion hardware web tests bench
	$(PY) -m ruff check companion hardware web tests bench
	$(PY) -m mypy

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache

# On a Raspberry Pi: the services, the kiosk and the nightly backup (sudo make install); see systemd/README.md.
install:
	./systemd/install.sh

uninstall:
	./systemd/install.sh --uninstall
