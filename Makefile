# Flotilla developer interface. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
JOBS      ?= $(shell nproc)

# Every Debian 12 package the project needs. Boost must be 1.81 (Debian's default 1.74 has no
# Boost.JSON and conflicts with it), so the packages are named by version.
DEPS := cmake ninja-build ccache g++ pkg-config \
        libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev \
        libssl-dev libyaml-cpp-dev libspdlog-dev libgtest-dev libgmock-dev libbenchmark-dev \
        clang-format clang-tidy python3 umoci

CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release

.PHONY: help deps build build-asan image test test-unit test-asan lint format crds run bench bench-e2e fuzz chaos clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

deps: ## Install the Debian packages the build needs (idempotent, seconds when installed)
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	else echo "deps: all $(words $(DEPS)) packages installed"; fi
	@# kubectl and curl are not Debian packages of the right version: said here, required by
	@# `make run` and `make test` (the build itself does not need them).
	@scripts/check-tools.sh || true

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

$(ASAN_DIR)/build.ninja:
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOTILLA_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1"

build: deps $(BUILD_DIR)/build.ninja ## Build everything (Release)
	cmake --build $(BUILD_DIR) -j $(JOBS)

build-asan: deps $(ASAN_DIR)/build.ninja ## Build everything with ASan+UBSan
	cmake --build $(ASAN_DIR) -j $(JOBS)

# No container daemon: the root filesystem is this machine's Debian files, umoci writes the OCI
# layout (scripts/build-image.sh says what goes in; docs/install.md how to load it).
image: deps $(BUILD_DIR)/build.ninja ## The operator's image archive, build/flotilla-operator-image.tar
	cmake --build $(BUILD_DIR) --target flotilla-operator
	scripts/build-image.sh $(BUILD_DIR)/operator/flotilla-operator $(BUILD_DIR)/flotilla-operator-image.tar

test-unit: build image ## Unit tests on the Release build (and the e2e of the image)
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan ## Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

test: ## Build and run all tests (Release, then ASan+UBSan); the only command CI runs
	@scripts/check-tools.sh
	$(MAKE) --no-print-directory test-unit
	$(MAKE) --no-print-directory test-asan

LINT_DIR ?= build-lint
lint: deps ## clang-format check and clang-tidy on our sources
	@files=$$(git ls-files '*.h' '*.cc'); \
	clang-format --dry-run --Werror $$files && echo "clang-format: clean"
	@# clang-tidy reads the compile commands of a file-by-file configuration without GCC's
	@# precompiled header (a configure is enough; nothing is built).
	@cmake -S . -B $(LINT_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOTILLA_PCH=OFF \
	  -DFLOTILLA_UNITY=OFF >/dev/null
	@git ls-files '*.cc' | grep -v '_test.cc$$' | xargs -P $(JOBS) -n 4 clang-tidy -p $(LINT_DIR) --quiet 2>/dev/null \
	  && echo "clang-tidy: clean"

format: ## Apply clang-format to our sources
	git ls-files '*.h' '*.cc' | xargs clang-format -i

crds: build ## Regenerate crds/*.yaml, config/webhook/manifests.yaml and config/member/member.yaml from the C++ sources
	$(BUILD_DIR)/cli/flotillactl crds --out-dir crds
	$(BUILD_DIR)/cli/flotillactl webhooks > config/webhook/manifests.yaml
	$(BUILD_DIR)/cli/flotillactl member-manifest > config/member/member.yaml

E2E_LOAD_ARGS ?= --members 10 --workloads 1000 --clients 8 -- --kube-api-qps 5000 --kube-api-burst 10000
bench-e2e: build ## End to end under load: bindings/s, writes per binding, restart (docs/performance.md)
	bench/e2e_load.sh --build $(BUILD_DIR) $(E2E_LOAD_ARGS)

bench: build ## Run the benchmarks (numbers, not pass/fail; pin to one core with taskset)
	taskset -c 0 $(BUILD_DIR)/bench/scheduler_bench --benchmark_counters_tabular=true
	taskset -c 0 $(BUILD_DIR)/bench/codec_bench
	$(BUILD_DIR)/bench/sim_bench --kubectl
	$(BUILD_DIR)/bench/kube_bench
	$(BUILD_DIR)/bench/webhook_bench --clients 200

run: deps $(BUILD_DIR)/build.ninja ## Run the demo scenario (see README); builds only what it runs
	cmake --build $(BUILD_DIR) -j $(JOBS) --target flotilla-sim flotilla-operator flotillactl
	@scripts/demo.sh $(BUILD_DIR)

FUZZ_DIR  ?= build-fuzz
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= json_codec quantity yaml patch watch_decoder kubeconfig kube_response extender admission sim_request override

fuzz: deps ## libFuzzer (clang) on every decoder, FUZZ_TIME seconds each (docs/fuzzing.md)
	@[ -f $(FUZZ_DIR)/build.ninja ] || CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1" -DFLOTILLA_FUZZ=ON
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@set -o pipefail; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/crashes/$$t; \
	  echo "== fuzz_$$t for $(FUZZ_TIME)s"; \
	  $(FUZZ_DIR)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=$(FUZZ_DIR)/crashes/$$t/ -print_final_stats=1 \
	    $(FUZZ_DIR)/corpus/$$t fuzz/corpus/$$t 2>&1 | grep -E '^(stat::|#[0-9]+ +DONE|==|SUMMARY|fuzz check)' || exit 1; \
	done

CHAOS_WORKLOADS ?= 100
CHAOS_KILLS     ?= 20
chaos: deps $(BUILD_DIR)/build.ninja ## Chaos e2e, long: CHAOS_KILLS SIGKILLs over CHAOS_WORKLOADS Deployments with 10% faults, one operator then two (leader election)
	cmake --build $(BUILD_DIR) -j $(JOBS) --target flotilla-sim flotilla-operator flotillactl
	@for v in single leader; do \
	  echo "== chaos, variant $$v"; \
	  FLOTILLACTL=$(BUILD_DIR)/cli/flotillactl CHAOS_VARIANT=$$v CHAOS_WORKLOADS=$(CHAOS_WORKLOADS) \
	    CHAOS_KILLS=$(CHAOS_KILLS) CHAOS_CONVERGE_TIMEOUT=180 \
	    bash e2e/chaos_e2e.sh $(BUILD_DIR)/sim/flotilla-sim $(BUILD_DIR)/operator/flotilla-operator || exit 1; \
	done

clean: ## Remove build directories
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) $(LINT_DIR)
