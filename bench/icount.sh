#!/bin/sh
# icount.sh BASE [CASE...]: the instructions one iteration of each
# BenchmarkSolve case executes (one index.Build and one Solve), built from
# BASE (a git revision) and from the working tree, and their ratio.
#
# Counted by valgrind's cachegrind with the garbage collector off and one
# processor, so that a count does not move from run to run as times do on a
# shared machine; per iteration is the 3-iteration run less the 1-iteration
# run, halved, which leaves generation and ingest out. A count is not a
# time (cache misses and parallelism are not in it), but a change that adds
# work shows in it to the tenth of a percent. A CASE is a profile and size
# as the sub-benchmarks name them, each element a regular expression, or
# "snapshot": BenchmarkSolveSnapshot on the file KPLACE_BENCH_SNAPSHOT
# names (a realistic export converted by kplace convert: at 10,000 nodes
# about 50 s a count; BASE must have that benchmark too).
set -eu
base=${1:?usage: icount.sh BASE [CASE...]}
shift
if [ $# -eq 0 ]; then
	set -- 'mixed/nodes=1000$' 'mixed/nodes=10000$' 'resources/nodes=10000$' 'preemption-heavy/nodes=10000$'
fi
command -v valgrind >/dev/null || { echo "icount: needs valgrind (Debian: apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --quiet --detach "$tmp/base" "$base"
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./bench)
go test -c -o "$tmp/head.test" ./bench
count() { # binary case iterations: the instructions, or nothing when no sub-benchmark ran
	bench="^BenchmarkSolve$/^profile=$2" ran='^BenchmarkSolve/'
	if [ "$2" = snapshot ]; then
		bench='^BenchmarkSolveSnapshot$' ran='^BenchmarkSolveSnapshot'
	fi
	GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$1" -test.run '^$' -test.bench "$bench" \
		-test.benchtime "${3}x" >"$tmp/out" 2>"$tmp/err" || return 0
	if grep -q "$ran" "$tmp/out"; then
		sed -n 's/.*I *refs: *//p' "$tmp/err" | tr -d ,
	fi
}
printf '%-34s %15s %15s %7s\n' case base head ratio
for c in "$@"; do
	b1=$(count "$tmp/base.test" "$c" 1)
	b3=$(count "$tmp/base.test" "$c" 3)
	h1=$(count "$tmp/head.test" "$c" 1)
	h3=$(count "$tmp/head.test" "$c" 3)
	if [ -z "$b1" ] || [ -z "$b3" ] || [ -z "$h1" ] || [ -z "$h3" ]; then
		echo "icount: no count for case $c (does it name a BenchmarkSolve sub-benchmark, or is it snapshot with KPLACE_BENCH_SNAPSHOT set, and does valgrind run?)" >&2
		exit 1
	fi
	awk -v c="$c" -v b1="$b1" -v b3="$b3" -v h1="$h1" -v h3="$h3" \
		'BEGIN { b = (b3 - b1) / 2; h = (h3 - h1) / 2; printf "%-34s %15.0f %15.0f %7.4f\n", c, b, h, h / b }'
done
