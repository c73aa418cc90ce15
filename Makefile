# kplace — see README.md. The two commands: `make run` and `make test`.
GO      ?= go
BIN     := bin/kplace
ORACLE  := bin/oracle
SCEN    := .scenarios
# The oracle checker lives beside the project (../shared/oracle).
ORACLE_SRC ?= ../shared/oracle

.PHONY: build run test test-long apiserver live-scale bench icount lint fuzz oracle conformance preemption-compare taint-evict-compare zone-failure-validate clean

build:
	$(GO) build -o $(BIN) ./cmd/kplace

# Place the bundled sample cluster and print the summary.
run: build
	./$(BIN) place --sample -o sample-result.json --report sample-report.json

test: apiserver
	$(GO) vet ./...
	$(GO) test ./...

# The exhaustive tests whole, where make test takes a sample: every seed of
# the differential tests and of the session test, every byte of a snapshot
# flipped, every cut of a truncated JSON file (tens of minutes on 2 cores).
test-long:
	$(GO) test -count=1 -timeout 90m ./ingest ./solver ./bench -long

# The kube-apiserver (v1.36.3) and etcd (v3.6.8) the tests against a real
# API server start (live/livetest): taken from ../shared/apiserver when it is
# there, else built once from the Go module proxy into .cache/apiserver
# (about 45 minutes on 2 cores). Where there are none and none can be built,
# those tests are skipped and this target says so loudly; binaries of
# another version fail it.
apiserver:
	KPLACE_APISERVER_BUILD=1 $(GO) test -count=1 -timeout 120m -run '^TestEnsureBinaries$$' -v ./live/livetest

# The timed run against a real API server: 2,000 nodes and 20,000 pending
# pods created through the API, then kplace snapshot, place and bind, each
# phase timed (several minutes; about 2 GB of memory for the API server).
live-scale: apiserver
	KPLACE_LIVE_SCALE=1 $(GO) test -count=1 -timeout 60m -run '^TestLiveScale$$' -v ./cmd/kplace

# Go micro-benchmarks, then the kplace bench suite.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./$(BIN) bench

# The instructions one BenchmarkSolve iteration executes, built from BASE (a
# git revision) and from the working tree, case by case: counts that do not
# move from run to run, where times on a shared 2-core machine move by 20%
# (valgrind's cachegrind; about 20 minutes on 2 cores; see bench/icount.sh).
BASE ?= HEAD
icount:
	./bench/icount.sh $(BASE)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -run 'TestImportDirection|TestDocLinks|TestDocsDescribeTheProduct' ./cmd/kplace

# A short run of every fuzz target (new inputs are minimized briefly: a
# snapshot seed is tens of KB, and minimizing it could take the whole run).
FUZZTIME ?= 20s
FUZZMINIMIZETIME ?= 5s
fuzz:
	@for pkg in ./index ./ingest ./solver ./scenario ./live; do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $$pkg || exit 1; \
	  done; \
	done

# The oracle: the real kube-scheduler (v1.36) and controllers as a checker,
# for the four targets below. It is not part of this repository: its
# source is beside it (../shared/oracle), or where ORACLE_SRC names.
oracle:
	@test -d $(ORACLE_SRC) || { echo "make: no oracle source at $(ORACLE_SRC): conformance, preemption-compare, taint-evict-compare and zone-failure-validate need it (give ORACLE_SRC=DIR)" >&2; exit 2; }
	@mkdir -p bin
	$(GO) build -C $(ORACLE_SRC) -o $(CURDIR)/$(ORACLE) .

# Replay kplace's results on the sample scenarios through the real
# kube-scheduler filters (../shared/oracle validate -strict): any violation
# or any pending pod that a node could still take fails the target.
CONFORMANCE_CASES ?= taints:1000:5000 affinity:1000:5000 resources:1000:5000 mixed:1000:5000 preemption:1000:5000 spread:1000:10000 anti-affinity:1000:10000
conformance: build oracle
	@mkdir -p $(SCEN)
	@set -e; for c in $(CONFORMANCE_CASES); do \
	  p=$${c%%:*}; rest=$${c#*:}; n=$${rest%%:*}; m=$${rest#*:}; \
	  f=$(SCEN)/$$p-$$n-$$m.json; \
	  echo "== conformance $$p: $$n nodes, $$m pending pods"; \
	  ./$(BIN) gen --profile $$p --nodes $$n --pods $$m --seed 1 -o $$f; \
	  ./$(BIN) place -q -f $$f -o $$f.result.json --report $$f.report.json; \
	  ./$(ORACLE) validate -in $$f -result $$f.result.json -json $$f.validate.json -strict -score-sample 200; \
	done

# Preemption against the real scheduler: both place the same preemption
# snapshot (200 nodes filled to 95%, 600 pending pods of mixed priority;
# oracle schedule needs ~15 s here, far more on larger ones); kplace must be
# valid and evict no more pods than kube-scheduler did.
PREEMPT_CASE ?= 200:600
preemption-compare: build oracle
	@mkdir -p $(SCEN)
	@set -e; c=$(PREEMPT_CASE); n=$${c%%:*}; m=$${c#*:}; f=$(SCEN)/preemption-$$n-$$m.json; \
	./$(BIN) gen --profile preemption --nodes $$n --pods $$m --seed 1 -o $$f; \
	./$(BIN) place -q -f $$f -o $$f.result.json --report $$f.report.json; \
	./$(ORACLE) validate -in $$f -result $$f.result.json -strict -score-sample 0; \
	./$(ORACLE) schedule -in $$f -out $$f.oracle.json; \
	k=$$(grep -c '"kind":"Eviction"' $$f.result.json || true); o=$$(grep -c '"kind":"Eviction"' $$f.oracle.json || true); \
	kb=$$(grep -c '"kind":"Binding"' $$f.result.json || true); ob=$$(grep -c '"kind":"Binding"' $$f.oracle.json || true); \
	echo "evictions: kplace $$k, kube-scheduler $$o; bindings: kplace $$kb, kube-scheduler $$ob"; \
	test $$k -le $$o

# The NoExecute taint manager against the real one: every case of
# scenario/testdata/taint-evict through kplace simulate's engine and through
# oracle taint-evict (the real controller, in real time: about 2 min), one
# case after the other; the same pods must go, at most 0.3 s apart. The
# comparison table is printed.
taint-evict-compare: oracle
	KPLACE_ORACLE=$(CURDIR)/$(ORACLE) $(GO) test ./scenario -run 'TestTaintEvictCases|TestAgainstOracle' -count=1 -v -timeout 20m

# A zone failure at 10,000 nodes (mixed: 100,000 running pods without
# their controllers, replacements copy the deleted pods; realistic: with
# its controllers, replacements from their templates; about 3 min more):
# the scheduler's placements of the run, replayed through the real filters
# against the state after the failure (oracle validate -strict).
ZONE_CASES ?= mixed realistic
zone-failure-validate: build oracle
	@mkdir -p $(SCEN)
	@set -e; for p in $(ZONE_CASES); do \
	  f=$(SCEN)/zone-$$p-10000.json.zst; running=-1; test $$p != mixed || running=100000; \
	  echo "== zone failure, $$p: 10000 nodes"; \
	  ./$(BIN) gen --profile $$p --nodes 10000 --pods 0 --running $$running --seed 1 -o $$f; \
	  ./$(BIN) simulate -f $$f --fail-nodes topology.kubernetes.io/zone=us-east-1e --at 60s --seed 1 \
	    --timeline $$f.timeline.jsonl --report $$f.report.json --placements $$f.placements.json --placements-state $$f.replay.json.zst; \
	  ./$(ORACLE) validate -in $$f.replay.json.zst -result $$f.placements.json -json $$f.validate.json -strict -score-sample 200; \
	done

clean:
	rm -rf bin $(SCEN) sample-result.json sample-report.json
# .cache/apiserver (the built API server) is kept: rm -rf .cache to rebuild.
