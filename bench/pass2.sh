#!/bin/bash
# pass2.sh - passes 1-2 against Debian's stap, as ratios measured in the same run.
#
#   1. a script using a few tapset functions (execname, pid, ctime, gettimeofday_s,
#      sprintf, strlen, substr), a timer, a kprobe and a statistics array, with -p2; both
#      programs with Debian's tapset library as their library: mean wall time and peak
#      memory over RUNS runs.  Target: ours at most 1/5 of Debian's in both.
#   2. stap -l 'kprobe.function("vfs_*")' against the reference kernel's System.map.
#
# usage: bench/pass2.sh [RUNS]        (needs Debian's systemtap, GNU time and the
#                                      reference kernel's -dbg package: ./setup)
source "$(dirname "$0")/lib.sh"
cat >"$work/script.stp" <<'STP'
global reads
probe timer.s(1) {
	printf("%s %d %s\n", execname(), pid(), ctime(gettimeofday_s()))
}
probe kprobe.function("vfs_read") { reads[execname()] <<< 1 }
probe end {
	foreach (name in reads)
		printf("%-16s %d\n", name, @count(reads[name]))
	println(sprintf("%x", 255), strlen("abc"), substr("hello", 1, 3))
}
STP

# both must accept the script, or the figures mean nothing
if ! SYSTEMTAP_TAPSET="$library" "$ours" -r "$rel" -p2 "$work/script.stp" >/dev/null 2>"$work/err"; then
	echo "stapler rejects the script:" >&2
	cat "$work/err" >&2
	exit 1
fi
"$theirs" -r "$rel" -p2 "$work/script.stp" >/dev/null 2>&1 || { echo "Debian's stap rejects the script" >&2; exit 1; }

read -r our_ms our_kb < <(measure env SYSTEMTAP_TAPSET="$library" "$ours" -r "$rel" -p2 "$work/script.stp")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p2 "$work/script.stp")
echo "tapset functions, -p2: stapler ${our_ms} ms ${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.2), memory ratio $(ratio "$our_kb" "$their_kb") (target <= 0.2)"

pattern='kprobe.function("vfs_*")'
read -r our_ms our_kb < <(measure "$ours" -r "$rel" -l "$pattern")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -l "$pattern")
echo "-l '$pattern': stapler ${our_ms} ms ${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms"), memory ratio $(ratio "$our_kb" "$their_kb")"
