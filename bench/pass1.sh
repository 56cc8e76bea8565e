#!/bin/bash
# pass1.sh - pass 1 against Debian's stap, as ratios measured in the same run.
#
#   1. hello world with -p1, both with Debian's tapset library on the path (stap parses
#      all of it; we read its macro files, which every script sees): mean wall time and peak
#      memory over RUNS runs.  Target: ours at most 1/5 of Debian's in both.
#   2. the corpus: every file of Debian's tapset library through -p1 as the user script
#      (guru mode, Debian's library on the path), one process per file, total wall time.
#
# usage: bench/pass1.sh [RUNS]        (needs Debian's systemtap and GNU time)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-10}
ours=$top/stap
theirs=$(command -v stap || true)
library=/usr/share/systemtap/tapset
rel=$("$top/testsuite/vm/reference-release")
[ -x "$ours" ] || { echo "build stapler first (make)" >&2; exit 1; }
[ -n "$theirs" ] && [ -d "$library" ] || { echo "needs Debian's systemtap (./setup)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hello='probe begin { println("hello world") exit() }'

# mean wall time (ms, over RUNS runs) and peak RSS (kB, the largest) of a command
measure() {
	local start end kb peak=0
	start=$(date +%s%N)
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%M' -o "$work/t" "$@" >/dev/null 2>&1 || true
		kb=$(tail -n 1 "$work/t")
		[ "$kb" -gt "$peak" ] && peak=$kb
	done
	end=$(date +%s%N)
	awk -v ns=$((end - start)) -v n="$runs" -v kb="$peak" 'BEGIN { printf "%.1f %d\n", ns / n / 1e6, kb }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

read -r our_ms our_kb < <(measure env SYSTEMTAP_TAPSET="$library" "$ours" -r "$rel" -p1 -e "$hello")
read -r their_ms their_kb < <(measure "$theirs" -r "$rel" -p1 -e "$hello")
echo "hello world -p1: stapler ${our_ms} ms ${our_kb} kB; Debian's stap ${their_ms} ms ${their_kb} kB"
echo "  time ratio $(ratio "$our_ms" "$their_ms") (target <= 0.2), memory ratio $(ratio "$our_kb" "$their_kb") (target <= 0.2)"

mapfile -t files < <(cd "$library" && find . -name '*.stp' -o -name '*.stpm' | sort)
for f in "${files[@]}"; do
	mkdir -p "$work/corpus/$(dirname "$f")"
	cp "$library/$f" "$work/corpus/$f"
done
corpus_time() {
	local start end
	start=$(date +%s%N)
	for f in "${files[@]}"; do
		(cd "$work/corpus" && "$@" "$f" >/dev/null 2>&1) || true
	done
	end=$(date +%s%N)
	echo $(((end - start) / 1000000))
}
our_corpus=$(corpus_time env SYSTEMTAP_TAPSET="$library" "$ours" -r "$rel" -g -p1)
their_corpus=$(corpus_time "$theirs" -r "$rel" -g -p1)
echo "corpus of ${#files[@]} tapset files, -p1 each: stapler ${our_corpus} ms; Debian's stap ${their_corpus} ms"
echo "  time ratio $(ratio "$our_corpus" "$their_corpus")"
