# fuzz.sh - layer 5: passes 1 and 2 under libFuzzer, with ASan and UBSan.
#
# Builds testsuite/fuzz/fuzz_frontend.c with clang, replays the kept corpus
# (testsuite/fuzz/corpus: every input must pass without a crash, hang or leak), then
# fuzzes for a fixed number of runs from a fixed seed, so the run is repeatable.
# Longer sessions, to grow the corpus (then minimize it with -merge=1):
#   testsuite/work/fuzz/fuzz_frontend -dict=testsuite/fuzz/stap.dict NEW testsuite/fuzz/corpus
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v clang >/dev/null; then
	skip "fuzz: the front end (clang is not installed; run ./setup)"
	exit 0
fi
work=$WORK/fuzz
mkdir -p "$work"
export STAPLER_FUZZ_TAPSET=$top/testsuite/semantic/tapdir
# ASan's quarantine of freed memory (256 MB by default) made the fuzzer 10 times slower:
# each input frees all it allocated at its end.  A small one still catches a use after
# a free within an input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=1}
target=$work/fuzz_frontend
sources=("$top/testsuite/fuzz/fuzz_frontend.c" "$top/staprun/modimage.c")  # build/module_cache.c renames modules
for f in "$top"/src/*.c "$top"/src/*/*.c; do	# stap's sources: not its main, nor kbuild-cc's
	case $(basename "$f") in main.c | kbuild_cc.c) ;; *) sources+=("$f") ;; esac
done
if ! log=$(clang -g -O1 -std=gnu11 -D_GNU_SOURCE -DSTAP_FUZZING \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-iquote "$top/src" -o "$target" "${sources[@]}" \
	$(pkg-config --libs libdw libbpf liblz4 zlib liblzma libzstd) 2>&1); then
	fail "fuzz: the fuzz target builds" "$log"
	exit 0
fi
pass "fuzz: the fuzz target builds"

corpus=$top/testsuite/fuzz/corpus
count=$(find "$corpus" -type f | wc -l)
if log=$(cd "$work" && "$target" -runs=0 -timeout=10 "$corpus" 2>&1); then
	pass "fuzz: the $count inputs of the kept corpus run clean"
else
	fail "fuzz: the kept corpus runs clean" "$(tail -n 30 <<<"$log")"
fi

rm -rf "$work/new"
mkdir -p "$work/new"
runs=${STAPLER_FUZZ_RUNS:-20000}
if log=$(cd "$work" && "$target" -seed=1 -runs="$runs" -timeout=30 -rss_limit_mb=2048 \
	-dict="$top/testsuite/fuzz/stap.dict" "$work/new" "$corpus" 2>&1); then
	pass "fuzz: $runs fuzzed inputs from seed 1 run clean"
else
	fail "fuzz: $runs fuzzed inputs from seed 1 run clean (inputs in $work)" \
		"$(tail -n 30 <<<"$log")"
fi
