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
source "$(dirname "$0")/lib.sh"
hello='probe begin { println("hello world") exit() }'

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
