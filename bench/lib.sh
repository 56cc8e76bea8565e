# lib.sh - what the benchmarks share: sourced by bench/*.sh with "$@" (RUNS).
#
# Sets top, runs, ours, theirs (Debian's stap), library (Debian's tapsets), rel (the
# reference kernel, or STAPLER_KERNEL_RELEASE: the second kernel with
# STAPLER_KERNEL_RELEASE=$(testsuite/vm/reference-release --second)) and work (a temporary
# folder, removed on exit); defines measure and ratio.
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
