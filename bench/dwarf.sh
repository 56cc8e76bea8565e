#!/bin/bash
# dwarf.sh - the DWARF probe points against Debian's stap, as ratios measured in one run.
#
#   1. stap -l 'kernel.function("*")', cold (our function index not yet in the cache, a
#      fresh cache folder each run): time and peak memory, one run each (Debian's stap
#      takes one and a half minutes).  Targets: at most 1/40 of Debian's time and 1/4 of
#      its memory.  Also the warm time (the index read from the cache).
#   2. stap -L 'kernel.function("vfs_read")', -p2 of a script with one kernel.function
#      probe, and -p2 of one that reads ten target variables ($var, ->, [N]) there,
#      warm: mean over RUNS runs.  Target: at most 1/10 of Debian's time.  Also the
#      cold time of our -L (it builds the index).
#   3. The sets of lines of step 1 compared: how many each lists that the other does not
#      (the differences are explained in doc/dwarf.md).
#
# usage: bench/dwarf.sh [RUNS]        (needs Debian's systemtap, GNU time and the
#                                      reference kernel's -dbg package: ./setup)
source "$(dirname "$0")/lib.sh"
[ -f "/usr/lib/debug/boot/vmlinux-$rel" ] || { echo "needs linux-image-$rel-dbg (./setup)" >&2; exit 1; }
export STAPLER_CACHE_DIR=$work/cache

# one timed run: "ms kB" of a command whose standard output goes to FILE
once() {
	local out=$1 start end
	shift
	start=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$work/t" "$@" >"$out" 2>/dev/null || true
	end=$(date +%s%N)
	echo "$(( (end - start) / 1000000 )) $(tail -n 1 "$work/t")"
}

all='kernel.function("*")'
rm -rf "$STAPLER_CACHE_DIR"
read -r our_ms our_kb < <(once "$work/ours.txt" "$ours" -r "$rel" -l "$all")
read -r warm_ms warm_kb < <(once /dev/null "$ours" -r "$rel" -l "$all")
read -r their_ms their_kb < <(once "$work/theirs.txt" "$theirs" -r "$rel" -l "$all")
echo "-l '$all', cold: stapler ${our_ms} ms ${our_kb} kB ($(wc -l <"$work/ours.txt") lines);" \
	"Debian's stap ${their_ms} ms ${their_kb} kB ($(wc -l <"$work/theirs.txt") lines)"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.025)," \
	"memory ratio $(ratio "$our_kb" "$their_kb") (target <= 0.25); warm: ${warm_ms} ms"

one='kernel.function("vfs_read")'
printf 'probe %s { printf("%%s %%d\\n", execname(), pid()) }\n' "$one" >"$work/one.stp"
rm -rf "$STAPLER_CACHE_DIR"
read -r cold_ms cold_kb < <(once /dev/null "$ours" -r "$rel" -L "$one")
read -r our_ms our_kb < <(measure "$ours" -r "$rel" -L "$one")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -L "$one")
echo "-L '$one': stapler ${our_ms} ms ${our_kb} kB (cold ${cold_ms} ms); Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.1)"
read -r our_ms our_kb < <(measure "$ours" -r "$rel" -p2 "$work/one.stp")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p2 "$work/one.stp")
echo "-p2 of one $one probe: stapler ${our_ms} ms ${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.1)"

cat >"$work/targets.stp" <<'EOF'
probe kernel.function("vfs_read") {
	printf("%d %d %d %d %s\n", $count, $file->f_flags, $file->f_mode, $file->f_pos,
	       kernel_string($file->f_path->dentry->d_name->name))
	printf("%d %d %d %d %d\n", $file->f_path->dentry->d_inode->i_ino, $file->f_inode->i_size,
	       $buf, $pos[0], $file->f_owner->pid_type)
}
EOF
read -r our_ms our_kb < <(measure "$ours" -r "$rel" -p2 "$work/targets.stp")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p2 "$work/targets.stp")
echo "-p2 of ten target variables of $one: stapler ${our_ms} ms ${our_kb} kB;" \
	"Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.1)"

sort -u "$work/ours.txt" >"$work/o"
sort -u "$work/theirs.txt" >"$work/t2"
echo "-l '$all' lines: $(comm -12 "$work/o" "$work/t2" | wc -l) in both," \
	"$(comm -23 "$work/o" "$work/t2" | wc -l) only ours, $(comm -13 "$work/o" "$work/t2" | wc -l) only Debian's"
