#!/bin/bash
# syscall-overhead.sh - per-hit overhead of a syscall.read probe in the reference guest,
# ours against the same script built by Debian's stap 4.8.
#
# The script (both builds): a syscall.read probe that counts the hits of the workload
# process.  In ONE boot of the guest, ROUNDS rounds of `reads -b N` (N one-byte reads of
# /dev/zero and, in turns with them, N one-byte pread64 calls, which syscall.read does not
# see; each kind timed by the workload): alone, then with our module loaded, then with
# Debian's.  As in probe-overhead.sh, each run compares its reads with its pread64 calls
# made in the same milliseconds (the guest's speed halves whenever its other vCPU has
# work, in bursts of seconds): a probe's cost is the growth of that quotient over its value
# alone, as a fraction of a bare read, over the share of the calls the probe counted.
# The figures are medians over the rounds, ours over theirs, and ns at the speed of the
# median run alone.  Each round checks that ours counted exactly N (Debian's counts are
# shown: its module may miss the first calls after it says "running").  The guest is
# emulated (TCG).
#
# usage: bench/syscall-overhead.sh [ROUNDS [N]]   (ROUNDS defaults to 5, N to 100000)
source "$(dirname "$0")/lib.sh"
calls=${2:-100000}
staprun=$top/staprun/staprun
stapio=$top/staprun/stapio
[ -x "$staprun" ] && [ -x "$stapio" ] || { echo "build staprun and stapio first (make)" >&2; exit 1; }
"$top/../shared/tools/reference-stap" "$rel" >/dev/null

mkdir -p "$work/batch/overhead" "$work/results" "$work/bin" "$work/build"
gcc -static -O2 -o "$work/bin/reads" "$top/testsuite/workloads/reads.c"
cp /usr/bin/staprun "$work/bin/ref_staprun"
cp /usr/lib/systemtap/stapio "$work/bin/ref_stapio"
cat >"$work/build/script.stp" <<'STP'
global hits
probe begin { println("running") }
probe syscall.read { if (execname() == "reads") hits++ }
probe end { printf("hits %d\n", hits) }
STP
(cd "$work/build" && "$ours" -p4 -r "$rel" -m ovh_ours script.stp) >"$work/log" 2>&1 ||
	{ echo "our stap -p4 fails:" >&2; cat "$work/log" >&2; exit 1; }
(cd "$work/build" && "$theirs" -p4 -r "$rel" -m ovh_theirs script.stp) >"$work/log" 2>&1 ||
	{ echo "Debian's stap -p4 fails:" >&2; cat "$work/log" >&2; exit 1; }
cp "$work/build/ovh_ours.ko" "$work/build/ovh_theirs.ko" "$work/batch/overhead/"

# The guest's job: one line per measurement, "round R KIND NS BASELINE_NS HITS".
# Debian's staprun runs its stapio from /usr/lib/systemtap; the `staprun -d` that stapio
# runs at the end finds ours in the PATH (the guest's /usr/bin is /bin), so its module is
# removed here.
cat >"$work/batch/overhead/run" <<SH
mkdir -p /usr/lib/systemtap && cp /bin/ref_stapio /usr/lib/systemtap/stapio
ns() { sed -n "s/^reads: [0-9]* \$1 calls in \\([0-9]*\\) ns\$/\\1/p" w.txt; }
for r in \$(seq $runs); do
	/bin/reads -b $calls >w.txt
	echo "round \$r alone \$(ns read) \$(ns pread64) 0"
	for m in ours theirs; do
		rm -f out.txt
		run=/bin/staprun
		[ \$m = theirs ] && run=/bin/ref_staprun
		\$run -o out.txt ovh_\$m.ko &
		pid=\$!
		for i in \$(seq 300); do grep -q running out.txt 2>/dev/null && break; sleep 0.1; done
		/bin/reads -b $calls >w.txt
		kill -INT \$pid
		wait \$pid
		rmmod ovh_\$m 2>/dev/null
		echo "round \$r \$m \$(ns read) \$(ns pread64) \$(sed -n 's/^hits //p' out.txt)"
	done
done
SH
echo 1800 >"$work/batch/overhead/timeout"
"$top/testsuite/vm/vm-batch" --rel "$rel" --bin "$staprun" --bin "$stapio" \
	--bin "$work/bin/reads" --bin "$work/bin/ref_staprun" --bin "$work/bin/ref_stapio" \
	"$work/batch" "$work/results" 2>"$work/log" ||
	{ echo "the guest run failed:" >&2; cat "$work/log" >&2; exit 1; }
r=$work/results/overhead
if [ "$(cat "$r/verdict")" != clean ] || [ "$(cat "$r/status")" != 0 ]; then
	echo "the guest job failed (status $(cat "$r/status"), kernel: $(cat "$r/verdict")):" >&2
	cat "$r/stdout" "$r/stderr" "$r/klog" >&2
	exit 1
fi

inexact=$(awk -v n="$calls" '$3 == "ours" && $6 != n' "$r/stdout")
theirs_counts=$(awk '$3 == "theirs" { printf "%s%s", sep, $6; sep = " " }' "$r/stdout")
base=$(paired_base "$r/stdout")
percall=$(awk '$3 == "alone" { print $4 }' "$r/stdout" | median)
# the cost of a hit of KIND, as a fraction of a bare read
cost() { paired_cost "$r/stdout" "$1" "$base" "$calls"; }
ours_c=$(cost ours)
theirs_c=$(cost theirs)
echo "$runs rounds of $calls one-byte reads, each with $calls pread64 calls in turns, in the guest (kernel $rel, TCG), medians:"
awk -v t="$percall" -v b="$base" -v o="$ours_c" -v d="$theirs_c" -v n="$calls" 'BEGIN {
	printf "alone: %.1f ms, %.0f ns per read; read / pread64 %.3f\n", t / 1e6, t / n, b
	printf "our syscall.read probe: %.0f ns per hit (%.2f of a read)\n", o * t / n, o
	printf "Debian stap 4.8'"'"'s: %.0f ns per hit (%.2f of a read)\n", d * t / n, d
	printf "per-hit overhead, ours / theirs: %.2f (target <= 1)\n", o / d }'
if [ -n "$inexact" ]; then
	echo "counts NOT exact in:"
	echo "$inexact"
	exit 1
fi
echo "every round our probe counted exactly the workload's $calls calls (Debian's: $theirs_counts)"
