#!/bin/bash
# probe-overhead.sh - per-hit probe overhead in the guest: a kprobe and a kretprobe, ours
# against the same scripts built by Debian's stap 4.8 and against the kernel's own cost.
#
# In ONE boot of the disposable guest (testsuite/vm/vm-batch), ROUNDS rounds of
# `syscalls -b N` (testsuite/workloads/syscalls.c: N getppid calls, and N getpid calls in
# turns with them, each kind timed by the workload itself):
#   alone;
#   with a kprobe on __x64_sys_getppid (a handler that counts hits), then a kretprobe
#   there (the same handler on the return), both built by our stap;
#   the same two scripts built by Debian's stap 4.8, run by its own staprun and stapio
#   (../shared/tools/reference-stap lets it build for the reference kernel; on a kernel
#   it cannot build for, such as the second one, there is no reference run);
#   the floor: a kprobe and a kretprobe whose handler only counts, in a module of a few
#   lines with no SystemTap runtime (bench/floor-probes), the kernel's own cost.
#
# The guest is emulated (TCG: KVM does not work here), its two vCPUs taking turns on one
# thread: the workload runs at half speed whenever the other vCPU has work, in bursts of
# seconds, so no time is compared with a time taken at another moment: each run compares
# its getppid calls (probed) with its getpid calls (never probed, made in the same
# milliseconds).  A probe's cost is the growth of that quotient over the quotient alone,
# as a fraction of a bare getppid call; the medians of the rounds are compared, ours over
# Debian's, and shown in ns at the speed of the median run alone.  Each round checks that
# our probes and the floor's counted exactly N.
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
kinds="kprobe kretprobe"
for m in kprobe kretprobe; do
	(cd "$work/build" && "$ours" -p4 -r "$rel" -m "ovh_$m" "ovh_$m.stp") >"$work/log" 2>&1 ||
		{ echo "stap -p4 ovh_$m.stp fails:" >&2; cat "$work/log" >&2; exit 1; }
	cp "$work/build/ovh_$m.ko" "$work/batch/overhead/"
done
# the floor: the kernel's kprobe and kretprobe around a handler that only counts
cp "$top/bench/floor-probes/floor_probes.c" "$top/bench/floor-probes/Kbuild" "$work/build/"
make -C "/lib/modules/$rel/build" M="$work/build" modules >"$work/log" 2>&1 ||
	{ echo "the floor module does not build:" >&2; cat "$work/log" >&2; exit 1; }
cp "$work/build/floor_probes.ko" "$work/batch/overhead/"
kinds="$kinds floor_kprobe floor_kretprobe"
# Debian's stap, where it can build for this kernel
refbins=()
if "$top/../shared/tools/reference-stap" "$rel" >/dev/null 2>&1 &&
	(cd "$work/build" && "$theirs" -p4 -r "$rel" -m ref_kprobe ovh_kprobe.stp &&
		"$theirs" -p4 -r "$rel" -m ref_kretprobe ovh_kretprobe.stp) >"$work/log" 2>&1; then
	cp "$work/build/ref_kprobe.ko" "$work/build/ref_kretprobe.ko" "$work/batch/overhead/"
	cp /usr/bin/staprun "$work/bin/ref_staprun"
	cp /usr/lib/systemtap/stapio "$work/bin/ref_stapio"
	refbins=(--bin "$work/bin/ref_staprun" --bin "$work/bin/ref_stapio")
	kinds="$kinds ref_kprobe ref_kretprobe"
else
	echo "(no reference run: Debian's stap 4.8 builds nothing for $rel)"
fi

# The guest's job: one line per measurement, "round R KIND NS BASELINE_NS HITS".
# Debian's staprun runs its stapio from /usr/lib/systemtap; the `staprun -d` that stapio
# runs at the end finds ours in the PATH (the guest's /usr/bin is /bin), so its module is
# removed here.
cat >"$work/batch/overhead/run" <<SH
if [ -x /bin/ref_stapio ]; then mkdir -p /usr/lib/systemtap && cp /bin/ref_stapio /usr/lib/systemtap/stapio; fi
ns() { sed -n "s/^syscalls: [0-9]* \$1 calls in \\([0-9]*\\) ns\$/\\1/p" w.txt; }
measure() { /bin/syscalls -b $calls >w.txt; echo "round \$r \$1 \$(ns getppid) \$(ns getpid) \$2"; }
for r in \$(seq $runs); do
	measure alone 0
	for m in $kinds; do
		case \$m in
		floor_*)
			insmod floor_probes.ko kret=\$([ \$m = floor_kretprobe ] && echo 1 || echo 0)
			/bin/syscalls -b $calls >w.txt
			hits=\$(cat /sys/module/floor_probes/parameters/hits)
			rmmod floor_probes
			echo "round \$r \$m \$(ns getppid) \$(ns getpid) \$hits"
			continue ;;
		esac
		rm -f out.txt
		run=/bin/staprun
		mod=ovh_\$m
		case \$m in ref_*) run=/bin/ref_staprun mod=\$m ;; esac
		\$run -o out.txt \$mod.ko &
		pid=\$!
		for i in \$(seq 300); do grep -q running out.txt 2>/dev/null && break; sleep 0.1; done
		/bin/syscalls -b $calls >w.txt
		kill -INT \$pid
		wait \$pid
		rmmod \$mod 2>/dev/null
		echo "round \$r \$m \$(ns getppid) \$(ns getpid) \$(sed -n 's/^hits //p' out.txt)"
	done
done
SH
echo 2400 >"$work/batch/overhead/timeout"
"$top/testsuite/vm/vm-batch" --rel "$rel" --bin "$staprun" --bin "$stapio" \
	--bin "$work/bin/syscalls" "${refbins[@]}" "$work/batch" "$work/results" 2>"$work/log" ||
	{ echo "the guest run failed:" >&2; cat "$work/log" >&2; exit 1; }
r=$work/results/overhead
if [ "$(cat "$r/verdict")" != clean ] || [ "$(cat "$r/status")" != 0 ]; then
	echo "the guest job failed (status $(cat "$r/status"), kernel: $(cat "$r/verdict")):" >&2
	cat "$r/stdout" "$r/stderr" "$r/klog" >&2
	exit 1
fi

inexact=$(awk -v n="$calls" '$3 != "alone" && $3 !~ /^ref_/ && $6 != n' "$r/stdout")
base=$(paired_base "$r/stdout")
percall=$(awk '$3 == "alone" { print $4 }' "$r/stdout" | median)
echo "$runs rounds of $calls getppid calls, each with $calls getpid calls in turns, in the guest (kernel $rel, TCG), medians:"
awk -v t="$percall" -v n="$calls" -v q="$base" 'BEGIN {
	printf "alone: %.1f ms, %.0f ns per getppid call; getppid / getpid %.3f\n", t / 1e6, t / n, q }'
# the cost of a hit of KIND, as a fraction of a bare getppid call
cost() { paired_cost "$r/stdout" "$1" "$base" "$calls"; }
for m in kprobe kretprobe; do
	ours=$(cost "$m")
	floor=$(cost "floor_$m")
	awk -v c="$ours" -v f="$floor" -v t="$percall" -v n="$calls" -v m="$m" 'BEGIN {
		printf "%s: the kernel'"'"'s own (a counting handler): %.0f ns per hit (%.2f of a call)\n", m, f * t / n, f
		printf "%s: ours: %.0f ns per hit (%.2f of a call), %.0f ns above the kernel'"'"'s\n", m, c * t / n, c, (c - f) * t / n }'
	case " $kinds " in *" ref_$m "*) ;; *) continue ;; esac
	theirs=$(cost "ref_$m")
	counts=$(awk -v k="ref_$m" '$3 == k { printf "%s%s", sep, $6; sep = " " }' "$r/stdout")
	awk -v c="$ours" -v d="$theirs" -v f="$floor" -v t="$percall" -v n="$calls" -v m="$m" -v k="$counts" 'BEGIN {
		printf "%s: Debian stap 4.8'"'"'s: %.0f ns per hit (%.2f of a call), %.0f ns above the kernel'"'"'s (its counts: %s, each run'"'"'s cost over its count)\n",
			m, d * t / n, d, (d - f) * t / n, k
		printf "%s: per-hit overhead, ours / Debian'"'"'s: %.2f (target <= 0.35); above the kernel'"'"'s own: %.2f\n",
			m, c / d, (d > f ? (c - f) / (d - f) : 0) }'
done
if [ -n "$inexact" ]; then
	echo "counts NOT exact in:"
	echo "$inexact"
	exit 1
fi
echo "every round our probes and the floor's counted exactly the workload's $calls calls"
