#!/bin/bash
# pass4.sh - pass 4 against the floor: the kernel's kbuild of a trivial one-file module,
# measured in the same run against the reference kernel's headers.
#
#   1. the floor: make -C /lib/modules/REL/build M=DIR modules for a module whose init and
#      exit do nothing (its outputs removed before each build);
#   2. stap -p4 of hello world, missing the module cache (a -D that changes each run), with
#      the kernel API tests already cached (they run once per kernel).  Target: <= 1.0x;
#   3. stap -p4 of hello world hitting the module cache.  Target: < 0.1x the floor.
#
# usage: bench/pass4.sh [RUNS]        (RUNS defaults to 10; needs ./setup's packages)
source "$(dirname "$0")/lib.sh"
kbuild=/lib/modules/$rel/build
export STAPLER_CACHE_DIR=$work/cache
# a snapshot of stap, runtime and tapsets: edits elsewhere during the run must not change
# the cache key under the hits
mkdir -p "$work/stapler/src/build"
cp "$ours" "$work/stapler/stap"
cp "$top/src/build/kbuild-cc" "$work/stapler/src/build/"	# where stap finds it in a tree
cp -r "$top/runtime" "$top/tapset" "$work/stapler/"
ours=$work/stapler/stap

mkdir -p "$work/triv" "$work/out"
cat >"$work/triv/triv.c" <<'C'
#include <linux/module.h>
static int __init triv_init(void) { return 0; }
static void __exit triv_exit(void) { }
module_init(triv_init);
module_exit(triv_exit);
MODULE_LICENSE("GPL");
C
echo 'obj-m := triv.o' >"$work/triv/Kbuild"
cat >"$work/floor.sh" <<SH
cd "$work/triv" && rm -rf *.o *.ko *.mod *.mod.c .*.cmd Module.symvers modules.order &&
make -C "$kbuild" M="$work/triv" modules
SH
echo 0 >"$work/n"
cat >"$work/miss.sh" <<SH
n=\$(cat "$work/n"); echo \$((n + 1)) >"$work/n"
cd "$work/out" && "$ours" -p4 -r "$rel" -m hello -D STAPLER_BENCH_RUN=\$n "$work/hello.stp"
SH
echo 'probe begin { println("hello world") exit() }' >"$work/hello.stp"

# both must build, or the figures mean nothing; this also runs the kernel API tests once
bash "$work/floor.sh" >"$work/log" 2>&1 && [ -f "$work/triv/triv.ko" ] ||
	{ echo "the trivial module does not build:" >&2; cat "$work/log" >&2; exit 1; }
bash "$work/miss.sh" >"$work/log" 2>&1 && [ -f "$work/out/hello.ko" ] ||
	{ echo "stapler's pass 4 fails:" >&2; cat "$work/log" >&2; exit 1; }

"$ours" -p4 -r "$rel" -m hello "$work/hello.stp" >/dev/null 2>&1	# the entry the hits read

# interleaved, so that a machine busy with other work slows all three alike
elapsed() {
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1
	end=$(date +%s%N)
	echo $((end - start))
}
floor_ns=0 miss_ns=0 hit_ns=0
for _ in $(seq "$runs"); do
	floor_ns=$((floor_ns + $(elapsed bash "$work/floor.sh")))
	miss_ns=$((miss_ns + $(elapsed bash "$work/miss.sh")))
	hit_ns=$((hit_ns + $(elapsed "$ours" -p4 -r "$rel" -m hello "$work/hello.stp")))
done
ms() { awk -v ns="$1" -v n="$runs" 'BEGIN { printf "%.1f", ns / n / 1e6 }'; }
floor_ms=$(ms $floor_ns) miss_ms=$(ms $miss_ns) hit_ms=$(ms $hit_ns)
echo "kbuild of a trivial module (the floor): ${floor_ms} ms"
echo "stap -p4 hello world, compiled: ${miss_ms} ms, ratio $(ratio "$miss_ms" "$floor_ms") (target <= 1.0)"
echo "stap -p4 hello world, cache hit: ${hit_ms} ms, ratio $(ratio "$hit_ms" "$floor_ms") (target < 0.1)"
