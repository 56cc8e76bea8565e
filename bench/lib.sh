# lib.sh - what the benchmarks share: sourced by bench/*.sh with "$@" (RUNS).
#
# Sets top, runs, ours, theirs (Debian's stap), library (Debian's tapsets), rel (the
# reference kernel, or STAPLER_KERNEL_RELEASE: the second kernel with
# STAPLER_KERNEL_RELEASE=$(testsuite/vm/reference-release --second)) and work (a temporary
# folder, removed on exit); defines measure, ratio, median and the paired-run figures
# of the guest benchmarks (paired_base, paired_cost).
set -eu
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-10}
ours=$top/stap
theirs=$(command -v stap || true)
library=/usr/share/systemtap/tapset
rel=$("$top/testsuite/vm/reference-release")
[ -x "$ours" ] || { echo "build stapler first (make)" >&2; exit 1; }
[ -n "$theirs" ] && [ -d "$library" ] || { echo "needs Debian's systemtap (./setup)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
# Debian's stap finds the kernel's functions in the build tree's System.map, which Debian
# ships in the -dbg package: reference-stap puts it there (for any kernel, STAPLER_KERNEL_RELEASE)
if [ ! -f "/lib/modules/$rel/build/System.map" ]; then
	"$top/../shared/tools/reference-stap" "$rel" >/dev/null ||
		{ echo "Debian's stap cannot find $rel's functions (System.map)" >&2; exit 1; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# mean wall time (ms, over RUNS runs) and peak RSS (kB, the largest) of a command
measure() {
	local start end kb peak=0
	start=$(date +%s%N)
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%M' -o "$work/t" "$@" >/dev/null 2>&1 || true
		kb=$(tail -n 1 "$work/t")
		[ "$kb" -gt "$peak" ] && peak=$kb
	done
	end=$(date +%s%N)
	awk -v ns=$((end - start)) -v n="$runs" -v kb="$peak" 'BEGIN { printf "%.1f %d\n", ns / n / 1e6, kb }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# the median of numbers, one a line on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# The guest benchmarks' runs (probe-overhead.sh, syscall-overhead.sh), lines
# "round R KIND NS BASELINE_NS HITS" in FILE: each run's probed calls took NS, the unprobed
# ones made in turns with them BASELINE_NS.
# paired_base FILE: the median quotient NS / BASELINE_NS of the runs alone
paired_base() { awk '$3 == "alone" && $5 > 0 { printf "%.6f\n", $4 / $5 }' "$1" | median; }
# paired_cost FILE KIND BASE N: the cost of a hit of KIND as a fraction of a bare call: the
# growth of a run's quotient over BASE, over the share of the N calls its probe counted
# (Debian's may miss the first ones); the median of the runs
paired_cost() {
	awk -v k="$2" -v b="$3" -v n="$4" '$3 == k && $5 > 0 && $6 > 0 {
		printf "%.6f\n", ($4 / $5 / b - 1) * n / $6 }' "$1" | median
}
