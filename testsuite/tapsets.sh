# tapsets.sh - layer 2d: the corpus of Debian's SystemTap tapset library.
#
# Every *.stp and *.stpm file under /usr/share/systemtap/tapset (Debian's systemtap
# package, which ./setup installs) must pass our pass 1 as the user script in guru mode,
# with that folder as the tapset path.  Where Debian's stap prints a parse tree for a
# file, ours must be the same, byte for byte.  Debian's trees are computed once per
# file version and kept in the cache ($STAPLER_CACHE, default /var/cache/stapler).
# The files are a corpus to parse; nothing of them is copied into this project.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

library=${STAPLER_TAPSET_CORPUS:-/usr/share/systemtap/tapset}
if [ ! -d "$library" ]; then
	skip "tapsets: the corpus (no $library; ./setup installs Debian's systemtap)"
	exit 0
fi
rel=$("$top/testsuite/vm/reference-release" 2>/dev/null) || rel=$(uname -r)
cache=${STAPLER_CACHE:-/var/cache/stapler}/tapset-trees
mkdir -p "$cache" 2>/dev/null || cache=$WORK/tapset-trees
mkdir -p "$cache"
work=$WORK/tapsets
rm -rf "$work"
mkdir -p "$work/files"

# stap refuses to run a file of its own library as a script, so each one is copied.
mapfile -t files < <(cd "$library" && find . -name '*.stp' -o -name '*.stpm' | sort)
for f in "${files[@]}"; do
	mkdir -p "$work/files/$(dirname "$f")"
	cp "$library/$f" "$work/files/$f"
done

# Debian's tree of each file, once: keyed by its name, contents and stap's version.
reference_stap=$(command -v stap 2>/dev/null)
[ "$reference_stap" = "$STAP" ] && reference_stap=
if [ -n "$reference_stap" ] && ! "$reference_stap" -V 2>&1 | grep -q '^Systemtap translator'; then
	reference_stap=
fi
if [ -n "$reference_stap" ]; then
	stap_version=$("$reference_stap" -V 2>&1 | head -n 1)
	todo=()
	for f in "${files[@]}"; do
		key=$( (echo "$stap_version $rel $f"; cat "$work/files/$f") | sha1sum | cut -c1-40)
		[ -f "$cache/$key" ] || todo+=("$f:$key")
	done
	if [ ${#todo[@]} -gt 0 ]; then
		echo "tapsets: computing Debian's parse trees of ${#todo[@]} files (once)"
		printf '%s\n' "${todo[@]}" | (cd "$work/files" && xargs -P "$(nproc)" -I{} \
			sh -c 'f=${1%:*}; key=${1##*:}; "$2" -r "$3" -g -p1 "$f" >"$4/$key.tmp" 2>/dev/null ||
				: >"$4/$key.tmp"; mv "$4/$key.tmp" "$4/$key"' _ {} \
			"$reference_stap" "$rel" "$cache")
	fi
fi

passed=0 same=0 compared=0 failures=() differences=()
for f in "${files[@]}"; do
	out=$work/out
	if ! (cd "$work/files" && SYSTEMTAP_TAPSET=$library "$STAP" -r "$rel" -g -p1 "$f" \
		>"$out" 2>"$work/err" </dev/null); then
		failures+=("$f: $(grep -m1 -A1 error "$work/err" | tr -s ' \n' ' ')")
		continue
	fi
	passed=$((passed + 1))
	[ -n "$reference_stap" ] || continue
	key=$( (echo "$stap_version $rel $f"; cat "$work/files/$f") | sha1sum | cut -c1-40)
	[ -s "$cache/$key" ] || continue	# stap printed nothing (empty after preprocessing)
	compared=$((compared + 1))
	if cmp -s "$out" "$cache/$key"; then
		same=$((same + 1))
	else
		differences+=("$f: $(diff "$cache/$key" "$out" | head -n 6 | tr '\n' ' ')")
	fi
done

if [ ${#failures[@]} -eq 0 ]; then
	pass "tapsets: all ${#files[@]} files of Debian's tapset library pass our pass 1"
else
	fail "tapsets: ${#failures[@]} of ${#files[@]} library files fail our pass 1" "${failures[@]}"
fi
if [ -z "$reference_stap" ]; then
	skip "tapsets: comparing parse trees with Debian's stap (it is not installed)"
elif [ ${#differences[@]} -eq 0 ]; then
	pass "tapsets: our parse trees equal Debian's stap -p1 for all $compared files it prints"
else
	fail "tapsets: ${#differences[@]} of $compared parse trees differ from Debian's stap -p1" \
		"${differences[@]}"
fi
