#!/bin/bash
# probe-overhead.sh - per-hit probe overhead in the reference guest.
#
# In ONE boot of the disposable guest (testsuite/vm/vm-batch), ROUNDS rounds of:
#   the workload alone: `syscalls N` (N getppid calls, timed by the workload itself);
#   the same with a kprobe on __x64_sys_getppid loaded (a handler that counts hits);
#   the same with a kretprobe there (the same handler on the return).
# The figures are the medians over the rounds: the ratio of the workload's time with the
# probe to its time alone, and the extra time per hit, (with - alone) / N.  Each round also
# checks that the probe counted exactly the workload's N calls.
#
# The guest is emulated (TCG: KVM does not work here), so the absolute times are the
# emulator's; the ratio is what compares.  Debian's stap 4.8 as packaged cannot build
# modules for this kernel (its pass 4 fails against the 6.1 headers: doc/testing.md,
# "Benchmarks"), so unlike the other benchmarks there is no reference run of the same
# probe built by it.
#
# usage: bench/probe-overhead.sh [ROUNDS [N]]   (ROUNDS defaults to 5, N to 200000)
source "$(dirname "$0")/lib.sh"
calls=${2:-200000}
staprun=$top/staprun/staprun
stapio=$top/staprun/stapio
[ -x "$staprun" ] && [ -x "$stapio" ] || { echo "build staprun and stapio first (make)" >&2; exit 1; }

mkdir -p "$work/batch/overhead" "$work/results" "$work/bin" "$work/build"
gcc -static -O2 -o "$work/bin/syscalls" "$top/testsuite/workloads/syscalls.c"
cat >"$work/build/ovh_kprobe.stp" <<'STP'
global hits
probe begin { println("running") }
probe kprobe.function("__x64_sys_getppid") { hits++ }
probe end { printf("hits %d\n", hits) }
STP
sed 's/__x64_sys_getppid")/&.return/' "$work/build/ovh_kprobe.stp" >"$work/build/ovh_kretprobe.stp"
for m in ovh_kprobe ovh_kretprobe; do
	(cd "$work/build" && "$ours" -p4 -r "$rel" -m "$m" "$m.stp") >"$work/log" 2>&1 ||
		{ echo "stap -p4 $m.stp fails:" >&2; cat "$work/log" >&2; exit 1; }
	cp "$work/build/$m.ko" "$work/batch/overhead/"
done

# The guest's job: one line per measurement, "round R KIND NS HITS".
cat >"$work/batch/overhead/run" <<SH
ns() { sed -n 's/^syscalls: [0-9]* getppid calls in \([0-9]*\) ns\$/\1/p' "\$1"; }
for r in \$(seq $runs); do
	/bin/syscalls $calls >w.txt
	echo "round \$r alone \$(ns w.txt) 0"
	for m in kprobe kretprobe; do
		rm -f out.txt
		staprun -o out.txt ovh_\$m.ko &
		pid=\$!
		for i in \$(seq 100); do grep -q running out.txt 2>/dev/null && break; sleep 0.1; done
		/bin/syscalls $calls >w.txt
		kill -INT \$pid
		wait \$pid
		echo "round \$r \$m \$(ns w.txt) \$(sed -n 's/^hits //p' out.txt)"
	done
done
SH
echo 1200 >"$work/batch/overhead/timeout"
"$top/testsuite/vm/vm-batch" --rel "$rel" --bin "$staprun" --bin "$stapio" \
	--bin "$work/bin/syscalls" "$work/batch" "$work/results" 2>"$work/log" ||
	{ echo "the guest run failed:" >&2; cat "$work/log" >&2; exit 1; }
r=$work/results/overhead
if [ "$(cat "$r/verdict")" != clean ] || [ "$(cat "$r/status")" != 0 ]; then
	echo "the guest job failed (status $(cat "$r/status"), kernel: $(cat "$r/verdict")):" >&2
	cat "$r/stderr" "$r/klog" >&2
	exit 1
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
times() { awk -v k="$1" '$3 == k { print $4 }' "$r/stdout"; }
inexact=$(awk -v n="$calls" '$3 != "alone" && $5 != n' "$r/stdout")
alone=$(times alone | median)
echo "$runs rounds of $calls getppid calls in the guest (kernel $rel, TCG), medians:"
echo "workload alone: $(awk -v t="$alone" -v n="$calls" 'BEGIN { printf "%.1f ms, %.0f ns per call", t / 1e6, t / n }')"
for m in kprobe kretprobe; do
	with=$(times $m | median)
	awk -v a="$alone" -v w="$with" -v n="$calls" -v m="$m" 'BEGIN {
		printf "with a %s: %.1f ms, ratio %.2f, %.0f ns per hit\n", m, w / 1e6, w / a, (w - a) / n }'
done
if [ -n "$inexact" ]; then
	echo "counts NOT exact in:"
	echo "$inexact"
	exit 1
fi
echo "every round's probe counted exactly the workload's $calls calls"
