#!/bin/bash
# syscalls.sh - the syscall tapset and the tracepoints against Debian's stap 4.8, as time
# ratios measured in one run (warm: our function index and generated syscall tapset in
# the cache; Debian's stap keeps no such cache for pass 2).
#
#   1. -p2 of `probe syscall.* { calls[name]++ }`: mean over RUNS runs.  Target: at most
#      1/5 of Debian's time.  Also ours cold (a fresh cache: the kernel's function index
#      and the syscall tapset generated first).
#   2. -L 'syscall.*' (every syscall alias with its variables), -L syscall.read (one alias:
#      target at most 1/10 of Debian's time, 100 MB) and -p2 of
#      `probe kernel.trace("sched:*") { n++ }`: mean over RUNS runs.
#   3. -p4 of the script of 1 that misses the module cache (a -D that changes every run),
#      the two programs taking turns, RUNS runs each: whole-process wall time, medians.
#      Target: at most 1/4 of Debian's time.
#   4. -p4 of `probe syscall.* { trace[tid()] = argstr }`: a handler of its own per alias
#      (the shape of errsnoop.stp), ARGSTR_RUNS runs each (default 1: Debian's stap takes
#      minutes).  Target: at most 1/4 of Debian's time.
#
# usage: bench/syscalls.sh [RUNS]     (RUNS defaults to 3; needs Debian's systemtap, GNU
#                                      time and the reference kernel's -dbg package)
source "$(dirname "$0")/lib.sh"
[ -f "/usr/lib/debug/boot/vmlinux-$rel" ] || { echo "needs linux-image-$rel-dbg (./setup)" >&2; exit 1; }
export STAPLER_CACHE_DIR=$work/cache
"$top/../shared/tools/reference-stap" "$rel" >/dev/null

# a global named n would clash with the tapset's locals named n (in stap too): calls
printf 'global calls\nprobe syscall.* { calls[name]++ }\n' >"$work/all.stp"
printf 'global n\nprobe kernel.trace("sched:*") { n++ }\n' >"$work/sched.stp"

start=$(date +%s%N)
"$ours" -r "$rel" -p2 "$work/all.stp" >"$work/ours.txt" 2>&1 ||
	{ echo "our -p2 fails:" >&2; cat "$work/ours.txt" >&2; exit 1; }
cold_ms=$(( ($(date +%s%N) - start) / 1000000 ))
"$theirs" -r "$rel" -p2 "$work/all.stp" >"$work/theirs.txt" 2>&1 ||
	{ echo "Debian's -p2 fails:" >&2; head "$work/theirs.txt" >&2; exit 1; }
read -r our_ms our_kb < <(measure "$ours" -r "$rel" -p2 "$work/all.stp")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p2 "$work/all.stp")
echo "-p2 of syscall.* ($(grep -c '^kernel\.\|^kprobe\.' "$work/ours.txt") probes; Debian's" \
	"$(grep -c '^kernel\.\|^kprobe\.' "$work/theirs.txt")): stapler ${our_ms} ms ${our_kb} kB" \
	"(cold ${cold_ms} ms); Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.2)," \
	"memory ratio $(ratio "$our_kb" "$their_kb")"

read -r our_ms our_kb < <(measure "$ours" -r "$rel" -L 'syscall.*')
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -L 'syscall.*')
echo "-L 'syscall.*': stapler ${our_ms} ms ${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms")"

read -r our_ms our_kb < <(measure "$ours" -r "$rel" -L 'syscall.read')
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -L 'syscall.read')
echo "-L syscall.read: stapler ${our_ms} ms ${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.1), our memory" \
	"$((our_kb / 1024)) MB (target <= 100 MB)"

start=$(date +%s%N)	# cold: the modules' tables and tracepoint systems into the cache
"$ours" -r "$rel" -p2 "$work/sched.stp" >/dev/null 2>&1
cold_ms=$(( ($(date +%s%N) - start) / 1000000 ))
read -r our_ms our_kb < <(measure "$ours" -r "$rel" -p2 "$work/sched.stp")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p2 "$work/sched.stp")
echo "-p2 of kernel.trace(\"sched:*\"): stapler ${our_ms} ms ${our_kb} kB (cold ${cold_ms} ms);" \
	"Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms")"

# p4_turns SCRIPT RUNS: pass 4 of SCRIPT (in $work), each run a cache miss (a -D of its
# own), the two programs in turns; prints the two medians, ours first
p4_turns() {
	local script=$1 n=$2 i who prog start
	: >"$work/p4.times"
	for i in $(seq "$n"); do
		for who in ours theirs; do
			prog=$ours
			[ $who = theirs ] && prog=$theirs
			start=$(date +%s%N)
			(cd "$work" && "$prog" -r "$rel" -p4 -m "p4_$who" -DSTP_BENCH_RUN="$i$RANDOM" "$script") \
				>"$work/p4.txt" 2>&1 ||
				{ echo "$who: -p4 of $script fails:" >&2; tail "$work/p4.txt" >&2; exit 1; }
			echo "$who $(( ($(date +%s%N) - start) / 1000000 ))" >>"$work/p4.times"
		done
	done
	echo "$(awk '$1 == "ours" { print $2 }' "$work/p4.times" | median)" \
		"$(awk '$1 == "theirs" { print $2 }' "$work/p4.times" | median)"
}

# pass 4's once-per-kernel work (the kernel API tests, the compiler's answers to kbuild)
# is done before the timing, as a user's first build did it
(cd "$work" && "$ours" -r "$rel" -p4 -m p4_warm -e 'probe begin { exit() }') >"$work/p4.txt" 2>&1 ||
	{ echo "our -p4 fails:" >&2; tail "$work/p4.txt" >&2; exit 1; }

# 3. pass 4 of syscall.*: one handler for every alias (they differ only in their strings)
p4_turns all.stp "$runs" >"$work/p4.medians" || exit 1
read -r our_ms their_ms <"$work/p4.medians"
echo "-p4 of syscall.*, cache miss ($runs runs each): stapler ${our_ms} ms; Debian's stap ${their_ms} ms"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.25)"

# 4. pass 4 of syscall.* with each alias's argstr (errsnoop.stp's shape): a handler per
# alias, hundreds of distinct bodies, their calls of the tapset's functions.  Debian's stap
# takes minutes: ARGSTR_RUNS runs each (default 1).
printf 'global trace\nprobe syscall.* { trace[tid()] = argstr }\n' >"$work/argstr.stp"
p4_turns argstr.stp "${ARGSTR_RUNS:-1}" >"$work/p4.medians" || exit 1
read -r our_ms their_ms <"$work/p4.medians"
echo "-p4 of syscall.* { trace[tid()] = argstr }, cache miss (${ARGSTR_RUNS:-1} runs each):" \
	"stapler ${our_ms} ms; Debian's stap ${their_ms} ms"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.25)"
