#!/bin/bash
# hello.sh - passes 1-3 of hello world against Debian's stap, as a ratio measured in the
# same run: `stap -p3 -e 'probe begin { println("hello world") exit() }'`, each program
# with its own tapset library and a warm cache (one run first, not counted), RUNS runs of
# each taking turns; the median wall time of each, and their ratio.  Target (issue 33):
# ours at most 1/100 of Debian's.  Wall time is taken around each run by bash itself
# ($EPOCHREALTIME), so it includes starting the process, as a user waits for it.
#
# usage: bench/hello.sh [RUNS]        (RUNS defaults to 10; needs Debian's systemtap)
source "$(dirname "$0")/lib.sh"
hello='probe begin { println("hello world") exit() }'

wall_ms() {	# the wall time of one run of the command, in ms (bash's clock: no process)
	local start end
	start=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || true
	end=$EPOCHREALTIME
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}

"$ours" -r "$rel" -p3 -e "$hello" >/dev/null
"$theirs" -r "$rel" -p3 -e "$hello" >/dev/null 2>&1 || true
: >"$work/ours"
: >"$work/theirs"
for _ in $(seq "$runs"); do
	wall_ms "$ours" -r "$rel" -p3 -e "$hello" >>"$work/ours"
	wall_ms "$theirs" -r "$rel" -p3 -e "$hello" >>"$work/theirs"
done
our_ms=$(median <"$work/ours")
their_ms=$(median <"$work/theirs")
echo "hello world -p3 (median of $runs): stapler ${our_ms} ms; Debian's stap ${their_ms} ms"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.01)"
