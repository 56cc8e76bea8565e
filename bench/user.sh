#!/bin/bash
# user.sh - user-space probe points against Debian's stap, as ratios measured in one run.
#
#   1. stap -L 'process("libc.so.6").function("*")': every function of glibc with its
#      parameters (Debian's libc6-dbg has its DWARF, found by build-id): mean time and
#      peak memory over RUNS runs.  Target: at most 1/2 of Debian's time.
#   2. stap -p2 of a script with a function probe, a .return probe reading the entry's
#      parameters and an SDT marker's arguments in one of the test programs
#      (testsuite/uprograms): mean over RUNS runs.  Target: at most 1/5 of Debian's time.
#   3. The lines of step 1 compared: how many each lists that the other does not.
#
# usage: bench/user.sh [RUNS]        (needs Debian's systemtap and GNU time: ./setup)
source "$(dirname "$0")/lib.sh"
libc=/lib/x86_64-linux-gnu/libc.so.6
all="process(\"$libc\").function(\"*\")"
read -r our_ms our_kb < <(measure "$ours" -L "$all")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -L "$all")
"$ours" -L "$all" 2>/dev/null | sort >"$work/ours.txt"
"$theirs" -r "$rel" -L "$all" 2>/dev/null | sort >"$work/theirs.txt"
echo "-L '$all': stapler ${our_ms} ms ${our_kb} kB ($(wc -l <"$work/ours.txt") lines);" \
	"Debian's stap ${their_ms} ms ${their_kb} kB ($(wc -l <"$work/theirs.txt") lines)"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.5)," \
	"memory ratio $(ratio "$our_kb" "$their_kb")"
echo "  lines only stapler lists: $(comm -23 "$work/ours.txt" "$work/theirs.txt" | wc -l)," \
	"only Debian's: $(comm -13 "$work/ours.txt" "$work/theirs.txt" | wc -l)"

"$top/testsuite/uprograms/build" "$work/root" >/dev/null
cat >"$work/user.stp" <<STP
probe process("$work/root/usr/bin/uprog").function("area") { println(\$r->w, user_string(\$r->name)) }
probe process("$work/root/usr/bin/uprog").function("add").return { println(\$return, @entry(\$a)) }
probe process("$work/root/usr/bin/uprog").mark("tick") { println(\$arg1, user_string(\$arg2)) }
STP
read -r our_ms our_kb < <(measure "$ours" -p2 "$work/user.stp")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p2 "$work/user.stp")
echo "-p2 of a function, a .return and a marker probe of uprog: stapler ${our_ms} ms" \
	"${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.2)," \
	"memory ratio $(ratio "$our_kb" "$their_kb")"
