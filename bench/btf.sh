#!/bin/bash
# btf.sh - probe points and their variables from the kernel's BTF, against Debian's stap
# with the DWARF, as ratios measured in one run.
#
#   1. stap -L 'kernel.function("*")' without debuginfo (STAPLER_NO_DEBUGINFO=1): every
#      function BTF describes with its parameters and their types, the BTF read from the
#      cache (the image unpacked on the first run, measured too): mean over RUNS runs,
#      and peak memory.  Debian's stap -l of the same pattern with the DWARF, one run
#      (about a minute and a half).  Target: ours at most 1/100 of Debian's time.
#   2. The same with the -dbg package's vmlinux hidden and a cold cache: the image
#      unpacked (lz4), one run.
#
# usage: bench/btf.sh [RUNS]        (needs Debian's systemtap, GNU time, the reference
#                                    kernel's -dbg package and its image: ./setup)
source "$(dirname "$0")/lib.sh"
[ -f "/usr/lib/debug/boot/vmlinux-$rel" ] || { echo "needs linux-image-$rel-dbg (./setup)" >&2; exit 1; }
export STAPLER_CACHE_DIR=$work/cache
all='kernel.function("*")'

start=$(date +%s%N)
STAPLER_NO_DEBUGINFO=1 "$ours" -r "$rel" -L "$all" >"$work/btf.txt" 2>/dev/null
cold_ms=$(( ($(date +%s%N) - start) / 1000000 ))
read -r our_ms our_kb < <(measure env STAPLER_NO_DEBUGINFO=1 "$ours" -r "$rel" -L "$all")
runs=1
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -l "$all")
echo "-L '$all' from BTF: stapler ${our_ms} ms ${our_kb} kB ($(wc -l <"$work/btf.txt") functions" \
	"with their parameters; ${cold_ms} ms with the image unpacked first)"
echo "-l '$all' from DWARF: Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.01)," \
	"memory ratio $(ratio "$our_kb" "$their_kb")"
