# tapsets.sh - layer 2d: SystemTap scripts written by others, as a corpus for pass 1.
#
# 1. Every *.stp and *.stpm file of Debian's tapset library (/usr/share/systemtap/tapset,
#    from Debian's systemtap package, which ./setup installs) must pass our pass 1 as the
#    user script in guru mode, with that folder as the tapset path.
# 2. Debian's example scripts (/usr/share/systemtap/examples).
# For every file that Debian's stap parses, our parse tree must be the same, byte for
# byte.  Debian's trees are computed once per file version and kept in the cache
# ($STAPLER_CACHE, default /var/cache/stapler).  The files are a corpus to parse; nothing
# of them is copied into this project.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rel=$("$top/testsuite/vm/reference-release" 2>/dev/null) || rel=$(uname -r)
library=${STAPLER_TAPSET_CORPUS:-/usr/share/systemtap/tapset}
cache=${STAPLER_CACHE:-/var/cache/stapler}/tapset-trees
mkdir -p "$cache" 2>/dev/null || cache=$WORK/tapset-trees
mkdir -p "$cache"
reference_stap=$(command -v stap 2>/dev/null)
[ "$reference_stap" = "$STAP" ] && reference_stap=
if [ -n "$reference_stap" ] && ! "$reference_stap" -V 2>&1 | grep -q '^Systemtap translator'; then
	reference_stap=
fi
stap_version=$([ -n "$reference_stap" ] && "$reference_stap" -V 2>&1 | head -n 1)

# check_corpus NAME DIR ALL_MUST_PASS
check_corpus() {
	local name=$1 dir=$2 all_must_pass=$3
	local work=$WORK/tapsets/$name files todo=() f key
	local passed=0 same=0 compared=0 failures=() differences=()

	rm -rf "$work"
	mkdir -p "$work/files"
	# stap refuses to run a file of its own library as a script, so each one is copied.
	mapfile -t files < <(cd "$dir" && find . -name '*.stp' -o -name '*.stpm' | sort)
	for f in "${files[@]}"; do
		mkdir -p "$work/files/$(dirname "$f")"
		cp "$dir/$f" "$work/files/$f"
	done
	if [ -n "$reference_stap" ]; then
		for f in "${files[@]}"; do
			key=$( (echo "$stap_version $rel $name $f"; cat "$work/files/$f") | sha1sum | cut -c1-40)
			[ -f "$cache/$key" ] || todo+=("$f:$key")
		done
		if [ ${#todo[@]} -gt 0 ]; then
			echo "tapsets: Debian's stap parses ${#todo[@]} $name files (once; cached)"
			# each file from its own folder, as a user would run it
			printf '%s\n' "${todo[@]}" | (cd "$work/files" && xargs -P "$(nproc)" -I{} \
				sh -c 'f=${1%:*}; key=${1##*:}; cd "$(dirname "$f")" &&
					"$2" -r "$3" -g -p1 "$(basename "$f")" >"$4/$key.tmp" 2>/dev/null ||
					: >"$4/$key.tmp"; mv "$4/$key.tmp" "$4/$key"' _ {} \
				"$reference_stap" "$rel" "$cache")
		fi
	fi
	for f in "${files[@]}"; do
		local reference=""
		if [ -n "$reference_stap" ]; then
			key=$( (echo "$stap_version $rel $name $f"; cat "$work/files/$f") | sha1sum | cut -c1-40)
			[ -s "$cache/$key" ] && reference=$cache/$key
		fi
		[ "$all_must_pass" = yes ] || [ -n "$reference" ] || continue
		if ! (cd "$work/files/$(dirname "$f")" && SYSTEMTAP_TAPSET=$library "$STAP" -r "$rel" \
			-g -p1 "$(basename "$f")" >"$work/out" 2>"$work/err" </dev/null); then
			# another architecture's file: nothing is left of it here, and stap
			# refuses it as a script just the same
			if [ -z "$reference" ] && grep -q "is empty after preprocessing" "$work/err"; then
				passed=$((passed + 1))
				continue
			fi
			failures+=("$f: $(grep -m1 -A1 error "$work/err" | tr -s ' \n' ' ')")
			continue
		fi
		passed=$((passed + 1))
		[ -n "$reference" ] || continue	# stap printed nothing (empty after preprocessing)
		compared=$((compared + 1))
		if cmp -s "$work/out" "$reference"; then
			same=$((same + 1))
		else
			differences+=("$f: $(diff "$reference" "$work/out" | head -n 6 | tr '\n' ' ')")
		fi
	done
	if [ ${#failures[@]} -eq 0 ]; then
		pass "tapsets: $passed $name files pass our pass 1"
	else
		fail "tapsets: ${#failures[@]} $name files fail our pass 1" "${failures[@]}"
	fi
	if [ -z "$reference_stap" ]; then
		skip "tapsets: comparing $name parse trees with Debian's stap (it is not installed)"
	elif [ ${#differences[@]} -eq 0 ]; then
		pass "tapsets: our parse trees equal Debian's stap -p1 for all $compared $name files it prints"
	else
		fail "tapsets: ${#differences[@]} of $compared $name parse trees differ from Debian's stap -p1" \
			"${differences[@]}"
	fi
}

if [ -d "$library" ]; then
	check_corpus library "$library" yes
else
	skip "tapsets: the library corpus (no $library; ./setup installs Debian's systemtap)"
fi
examples=${STAPLER_EXAMPLES_CORPUS:-/usr/share/systemtap/examples}
if [ -d "$examples" ] && [ -n "$reference_stap" ]; then
	check_corpus examples "$examples" no
else
	skip "tapsets: the examples corpus (needs Debian's systemtap and its examples)"
fi
