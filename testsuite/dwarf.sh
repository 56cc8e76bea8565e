# dwarf.sh - layer 2c: the DWARF probe points (kernel.function, kernel.statement,
# module(...)) resolved against the reference kernel's debuginfo, which ./setup installs
# (linux-image-REL-dbg): -p2, -l and -L.
#
#   testsuite/dwarf/NAME.stp   accepted (NAME.p2 is the program) or rejected (NAME.err),
#                              with NAME.warn and NAME.opts as in semantic/
#   testsuite/dwarf/NAME.cmd   stap's arguments after -r REL, one line of shell words
#                              (NAME.env: VAR=VALUE words for its environment);
#                              NAME.out is its standard output, NAME.err (status 1) or
#                              NAME.warn (status 0) its standard error
# In NAME.opts and NAME.cmd the word @SYSROOT@ is the sysroot of the user-space programs
# (testsuite/uprograms/build, built into the work folder): --sysroot=@SYSROOT@ and
# process("/usr/bin/uprog") is its uprog.  Its path is @SYSROOT@ again in what is compared.
# The word @RELEASE@ is the reference kernel's release (module("/usr/lib/debug/lib/modules/
# @RELEASE@/...")), and is @RELEASE@ again in what is compared.
#
# A Debian kernel update moves lines and addresses: before comparing, "@file:LINE" and
# pc offsets become "@file:N" and "+0x...", so what is checked is which functions,
# files, variables, types and messages, not where in the file.  The layer also checks
# properties exact text cannot (the cache, the prologue, counts against the index).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! rel=$("$top/testsuite/vm/reference-release" 2>/dev/null); then
	skip "dwarf: every test (no reference kernel headers; run ./setup)"
	exit 0
fi
if [ ! -f "/usr/lib/debug/boot/vmlinux-$rel" ]; then
	skip "dwarf: every test (no debuginfo for $rel: ./setup installs linux-image-$rel-dbg)"
	exit 0
fi
dir=$top/testsuite/dwarf
work=$WORK/dwarf
rm -rf "$work"
mkdir -p "$work"
# a cache of our own: the first case indexes the kernel, the others read the index
export STAPLER_CACHE_DIR=$work/cache
CHECK_PREFIX=dwarf

# the user-space programs, and the sysroot's path as a sed pattern (for normalize)
sysroot=$work/sysroot
if ! out=$("$top/testsuite/uprograms/build" "$sysroot" 2>&1); then
	fail "dwarf: the uprograms sysroot builds (testsuite/uprograms/build)" "$out"
fi
sysroot_re=$(printf '%s' "$sysroot" | sed 's/[][\\.*^$+?(){}|\/]/\\&/g')
release_re=$(printf '%s' "$rel" | sed 's/[][\\.*^$+?(){}|\/]/\\&/g')

normalize() {
	sed -E -i "s/$sysroot_re/@SYSROOT@/g; s/$release_re/@RELEASE@/g"'
		s/(@[^":[:space:]]+):[0-9]+"/\1:N"/g;
		s/(@[^":[:space:]]+):[0-9]+-[0-9]+"/\1:N-N"/g;
		s/(pc=[^ +]*)\+0x[0-9a-f]+/\1+0x.../g; s/(pc=[^ +]*)\+0 /\1+0x... /g
		s/(pc=<[^ +]*)\+[0-9]+>/\1+N>/g
		s/dieoffset 0x[0-9a-f]+/dieoffset 0x.../g; s/near pc 0x[0-9a-f]+/near pc 0x.../g
		s/\(([^ ():]+\.[ch]):[0-9]+\)/(\1:N)/g' "$1"
}

# compare NAME STATUS OUT ERR: the expected files of NAME against a run's outputs
compare() {
	local name=$1 status=$2 out=$3 err=$4 base=$dir/$1 kind=${5:-p2}
	normalize "$out"
	normalize "$err"
	if [ -f "$base.err" ] || { [ "$UPDATE" = 1 ] && [ "$status" -ne 0 ]; }; then
		if [ "$status" -ne 1 ]; then
			fail "dwarf: $name is rejected (status $status, expected 1)" "$(cat "$err")"
			return
		fi
		expect_same "dwarf: $name is rejected" "$base.err" "$err"
		[ "$kind" = out ] && [ -f "$base.out" ] && expect_same "dwarf: $name" "$base.out" "$out"
		return
	fi
	if [ "$status" -ne 0 ]; then
		fail "dwarf: $name is accepted (status $status)" "$(cat "$err")"
		return
	fi
	if [ -f "$base.warn" ] || { [ "$UPDATE" = 1 ] && [ -s "$err" ]; }; then
		expect_same "dwarf: $name (warnings)" "$base.warn" "$err"
	elif [ -s "$err" ]; then
		fail "dwarf: $name is accepted without messages" "$(cat "$err")"
		return
	fi
	expect_same "dwarf: $name" "$base.$kind" "$out"
}

for script in "$dir"/*.stp; do
	[ -e "$script" ] || continue
	name=$(basename "$script" .stp)
	read_case_options "$dir/$name"
	opts=("${opts[@]//@SYSROOT@/"$sysroot"}")
	opts=("${opts[@]//@RELEASE@/"$rel"}")
	(cd "$dir" && "$STAP" -p2 -r "$rel" "${opts[@]}" "$name.stp") \
		>"$work/$name.out" 2>"$work/$name.err" </dev/null
	compare "$name" $? "$work/$name.out" "$work/$name.err"
done

for cmd in "$dir"/*.cmd; do
	[ -e "$cmd" ] || continue
	name=$(basename "$cmd" .cmd)
	eval "words=($(cat "$cmd"))"
	words=("${words[@]//@SYSROOT@/"$sysroot"}")
	words=("${words[@]//@RELEASE@/"$rel"}")
	env=()
	[ -f "$dir/$name.env" ] && read -r -a env <"$dir/$name.env"
	(cd "$dir" && env "${env[@]}" "$STAP" -r "$rel" "${words[@]}") >"$work/$name.out" \
		2>"$work/$name.err" </dev/null
	compare "$name" $? "$work/$name.out" "$work/$name.err" out
done

# ---- properties ----

# -l 'kernel.function("*")' lists every function of the index once, sorted, in stap's form
all=$work/all.txt
"$STAP" -r "$rel" -l 'kernel.function("*")' >"$all" 2>"$work/all.err"
lines=$(wc -l <"$all")
details="$lines lines; $(head -c 300 "$work/all.err")"
check '-l kernel.function("*") lists tens of thousands of functions' \
	test "$lines" -gt 60000
check '-l kernel.function("*") is sorted and each line once' \
	cmp -s "$all" <(LC_ALL=C sort -u "$all")
check 'every line is kernel.function("NAME@FILE:LINE") or kernel.function("NAME")' \
	test "$(grep -cvE '^kernel\.function\("[^"@]+(@[^"]+:[0-9]+)?"\)$' "$all")" = 0
check 'functions the kernel refuses to kprobe are not listed (do_int3, start_kernel)' \
	lacks '"(do_int3|start_kernel|exc_int3)[@"]' "$(cat "$all")"
check 'functions without DWARF are listed by name (a .cold part)' \
	has '^kernel\.function\("[a-z_0-9]+\.cold"\)$' "$(cat "$all")"

# Functions refused for what they are (src/debuginfo/blocklist.c).  The lists come from
# stap 4.8's -l 'kernel.function("*")' on the reference kernel (6.1.0-56): the functions
# it left out that we listed before the blocklist, and those it lists whose names look
# like them (locks, apic, pte, current, seq_, kprobe ...) and that System.map has.
names=$work/all.names
sed -E 's/^kernel\.function\("([^"@]+).*/\1/' "$all" | LC_ALL=C sort -u >"$names"
leaked=$(LC_ALL=C comm -12 "$names" <(LC_ALL=C sort -u "$dir/stap48-refuses.list"))
details="listed, but stap 4.8 refuses them: $(head -c 400 <<<"$leaked")"
check "none of the $(wc -l <"$dir/stap48-refuses.list") functions stap 4.8 refuses is listed" \
	test -z "$leaked"
map=/usr/lib/debug/boot/System.map-$rel
lost=$(LC_ALL=C comm -23 <(LC_ALL=C comm -12 <(LC_ALL=C sort -u "$dir/stap48-lists.list") \
	<(awk '$2 ~ /^[tT]$/ { print $3 }' "$map" | LC_ALL=C sort -u)) "$names")
details="refused, but stap 4.8 lists them: $(head -c 400 <<<"$lost")"
check "the functions stap 4.8 lists that look like those are all listed" test -z "$lost"

# the cache: a second run reads the index (said at -vv) and prints the same
out=$("$STAP" -vv -r "$rel" -l 'kernel.function("vfs_read")' 2>&1)
details=$out
check "a second run reads the kernel's function index from the cache" \
	has "^Pass 2: read kernel's debuginfo .*cached index" "$out"
check "--disable-cache rebuilds the index" \
	has '^Pass 2: indexed kernel' "$("$STAP" -vv --disable-cache -r "$rel" -l 'kernel.function("vfs_read")' 2>&1)"

# --prologue-searching: always moves a function probe past the prologue, never keeps the entry
pc() {
	"$STAP" -r "$rel" "$@" -p2 -e 'probe kernel.function("vfs_read") { println(1) }' 2>&1 |
		sed -n 's/.*pc=_stext+\(0x[0-9a-f]*\).*/\1/p'
}
entry=$(pc --prologue-searching=never) after=$(pc --prologue-searching=always) auto=$(pc)
details="never $entry, always $after, auto $auto"
check "--prologue-searching=always probes past the prologue, never at the entry" \
	test -n "$entry" -a -n "$after" -a "$((after))" -gt "$((entry))"
check "by default (auto), optimized code is probed at the entry, as stap does" \
	test "$auto" = "$entry"

# ---- statements and labels (the lines are this kernel's: read from -l, not written) ----

list=$("$STAP" -r "$rel" -l 'kernel.statement("vfs_read@fs/read_write.c:*")' 2>&1)
lines=($(sed -n 's/^kernel\.statement("vfs_read@fs\/read_write\.c:\([0-9]*\)")$/\1/p' <<<"$list"))
details=$list
check 'kernel.statement("vfs_read@fs/read_write.c:*") lists ten lines or more, each once' \
	test "${#lines[@]}" -ge 10 -a "$(wc -l <<<"$list")" = "$(sort -u <<<"$list" | wc -l)"
first=${lines[0]:-0}
out=$("$STAP" -r "$rel" -p2 -e "probe kernel.statement(\"vfs_read@fs/read_write.c:$first\") { println(1) }" 2>&1)
details=$out
check "a statement on a listed line is one probe named by it" \
	test "$(grep -c "^kernel\.statement(\"vfs_read@fs/read_write\.c:$first\") /\* pc=_stext+" <<<"$out")" = 1
# a line without code between two that have some: stap's error, and .nearest moves it
gap=
for ((i = 1; i < ${#lines[@]}; i++)); do
	if [ $((lines[i] - lines[i - 1])) -ge 2 ]; then
		gap=$((lines[i - 1] + 1))
		break
	fi
done
out=$("$STAP" -r "$rel" -p2 -e "probe kernel.statement(\"vfs_read@fs/read_write.c:$gap\") { println(1) }" 2>&1)
details=$out
check "a line without code says so, with the lines around it (no line records ... try)" \
	has "^semantic error: no line records for fs/read_write\.c:$gap \[man error::dwarf\] \(try :[0-9]+" "$out"
out=$("$STAP" -r "$rel" -p2 -e "probe kernel.statement(\"vfs_read@fs/read_write.c:$gap\").nearest { println(1) }" 2>&1)
details=$out
check ".nearest moves a line without code to one that has some" \
	has "^kernel\.statement\(\"vfs_read@fs/read_write\.c:[0-9]+\") .*<- kernel\.statement\(\"vfs_read@fs/read_write\.c:[0-9]+\"\)\.nearest" "$out"
out=$("$STAP" -r "$rel" -p2 -e "probe kernel.statement(\"*@fs/read_write.c:$first\") { println(1) }" 2>&1)
details=$out
check '"*@file:N" finds the line in the functions of the file' \
	has "^kernel\.statement\(\"vfs_read@fs/read_write\.c:$first\"\)" "$out"
out=$("$STAP" -r "$rel" -l 'kernel.function("ksys_unshare").label("*")' 2>&1)
details=$out
check 'labels are listed as function("f@file:LINE").label("L")' \
	has '^kernel\.function\("ksys_unshare@kernel/fork\.c:[0-9]+"\)\.label\("bad_unshare_out"\)$' "$out"
out=$("$STAP" -r "$rel" -p2 -e 'probe kernel.function("ksys_unshare").label("bad_unshare_out") { println(1) }' 2>&1)
details=$out
check "a label's probe is named by its function, the label in the derivation" \
	has '^kernel\.function\("ksys_unshare@kernel/fork\.c:[0-9]+"\) .*\.label\("bad_unshare_out"\) \*/$' "$out"
