#!/bin/bash
# examples.sh - how many of Debian's example scripts (/usr/share/systemtap/examples) pass
# their own `test_check` command (from each NAME.meta: `stap -p4 NAME.stp ARGS`) against
# the reference kernel, with a given stap.
#
# usage: bench/examples.sh [STAP [RESULTS]]
#   STAP     the stap to run (default: this checkout's; "debian" for Debian's stap 4.8,
#            given -r REL)
#   RESULTS  a file for one line per script: "pass NAME" or "fail NAME: first error"
# The kernel is the reference one; STAPLER_KERNEL_RELEASE=REL checks another (the second
# kernel: STAPLER_KERNEL_RELEASE=$(testsuite/vm/reference-release --second)).
#
# Each check runs in a copy of the script's folder (the meta commands name files beside
# the script), two at a time, each at most STAPLER_EXAMPLE_TIMEOUT seconds (default 300;
# a check stopped there fails with "timed out after N s").  Prints "N of M pass -p4".
set -eu
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
stap=${1:-$top/stap}
results=${2:-/dev/stdout}
examples=/usr/share/systemtap/examples
rel=$("$top/testsuite/vm/reference-release")
[ -d "$examples" ] || { echo "needs Debian's systemtap-doc examples (./setup)" >&2; exit 1; }
if [ "$stap" = debian ]; then
	"$top/../shared/tools/reference-stap" "$rel" >/dev/null
	stap="stap -r $rel"
else
	stap="$stap -r $rel"	# the kernel named, not stap's default
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$examples" "$work/examples"

# one check: prints its verdict line
check() {
	local meta=$1 dir cmd name out
	dir=$(dirname "$meta")
	name=${meta#"$work/examples/"}
	name=${name%.meta}
	cmd=$(grep -m1 '^test_check:' "$meta" | sed 's/^test_check: *//')
	cmd=${cmd#stap }
	cd "$dir"
	# a module name of the example's own (the module cache ignores names: a rerun of an
	# unchanged script is a cache hit)
	module=ex_$(echo "$name" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' _)
	local status=0
	out=$(eval "timeout $STAPLER_EXAMPLE_TIMEOUT $STAP_CMD -m $module $cmd" 2>&1 >/dev/null) || status=$?
	if [ "$status" -eq 0 ]; then
		echo "pass $name"
	elif [ "$status" -eq 124 ]; then
		echo "fail $name: timed out after $STAPLER_EXAMPLE_TIMEOUT s"
	else
		echo "fail $name: $(echo "$out" | grep -m1 -i 'error\|fail\|timeout' || echo "$out" | head -1)"
	fi
	rm -f ex_*.ko
}
export -f check
export STAP_CMD=$stap work
export STAPLER_EXAMPLE_TIMEOUT=${STAPLER_EXAMPLE_TIMEOUT:-300}

grep -l '^test_check:' "$work"/examples/*/*.meta "$work"/examples/*/*/*.meta 2>/dev/null |
	sort | xargs -P 2 -I{} bash -c 'check {}' | sort -k2 >"$work/results"
cat "$work/results" >"$results"
total=$(wc -l <"$work/results")
passed=$(grep -c '^pass ' "$work/results" || true)
echo "$passed of $total pass -p4 ($stap)"
