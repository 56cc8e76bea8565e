# build.sh - layer 3b: pass 4 on the host against the reference kernel's headers: the
# kernel API tests (stp_autoconf.h), the module cache (its key, races, its size limit), and
# the options of pass 4 (-p4, -m, -k, -B, -r DIR, --disable-cache, --clean-cache,
# --sign-module), and that the cache and the signing key are private (a planted cache is
# refused, the cleaning follows no link).  Each
# module build takes seconds, so the cases share builds: about eight builds in all; then
# the pass-4 invariant (section 10) builds the corpora's scripts, two at a time.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! rel=$("$top/testsuite/vm/reference-release" 2>/dev/null) || [ ! -d "/lib/modules/$rel/build" ]; then
	skip "build: every test (no reference kernel headers; run ./setup)"
	exit 0
fi
work=$WORK/build
rm -rf "$work"
mkdir -p "$work/a" "$work/b" "$work/c" "$work/tmp"
export STAPLER_CACHE_DIR=$work/cache TMPDIR=$work/tmp
kbuild=$(readlink -f "/lib/modules/$rel/build")
headers=$(readlink -f "/lib/modules/$rel/source")/include/linux
printf '%s\n' 'probe begin { println("hello world") exit() }' >"$work/hello.stp"

CHECK_PREFIX=build

# 1. the first build: the kernel API tests, then the module
out=$(cd "$work/a" && "$STAP" -v -p4 -r "$rel" -m b_hello ../hello.stp 2>&1)
status=$?
details=$out
check "-p4 prints the module's name and leaves it in the current folder" \
	test $status = 0 -a -f "$work/a/b_hello.ko" -a "$(tail -n 1 <<<"$out")" = b_hello.ko
details=$out
check "-v says the kernel API tests ran" has '^Pass 4: tested [0-9]+ kernel APIs of '"$rel" "$out"
details=$out
check "-v reports pass 4" has '^Pass 4: compiled C into "b_hello.ko" in [0-9]+usr/' "$out"
name=$(readelf -p .modinfo "$work/a/b_hello.ko" 2>/dev/null | grep -o 'name=[a-z_]*')
check "-m names the module" test "$name" = name=b_hello

# the kernel API tests' answers are what the reference kernel's headers say
autoconf=$(ls "$STAPLER_CACHE_DIR"/autoconf/"$rel"-*/stp_autoconf.h 2>/dev/null | head -n 1)
if [ -z "$autoconf" ]; then
	fail "build: the kernel API tests are cached per kernel" "$(find "$STAPLER_CACHE_DIR")"
else
	pass "build: the kernel API tests are cached per kernel"
	wrong=()
	# MACRO HEADER REGEX: defined exactly when the header matches
	while read -r macro header regex; do
		if grep -Eq -- "$regex" "$headers/$header"; then want=defined; else want=undefined; fi
		if grep -q "^#define STP_HAVE_$macro 1\$" "$autoconf"; then got=defined; else got=undefined; fi
		[ "$want" = "$got" ] || wrong+=("STP_HAVE_$macro is $got, but $header says $want")
	done <<'EOF'
TIMER_DELETE_SYNC timer.h ^extern int timer_delete_sync\(
DEL_TIMER_SYNC timer.h int del_timer_sync\(
TIMER_CONTAINER_OF timer.h ^#define timer_container_of\(
FROM_TIMER timer.h ^#define from_timer\(
HRTIMER_SETUP hrtimer.h void hrtimer_setup\(
HRTIMER_INIT hrtimer.h void hrtimer_init\(
PROC_OPS proc_fs.h ^struct proc_ops \{
PDE_DATA proc_fs.h \*pde_data\(
COPY_FROM_KERNEL_NOFAULT uaccess.h ^long copy_from_kernel_nofault\(
PROBE_KERNEL_READ uaccess.h probe_kernel_read\(
GET_KRETPROBE kprobes.h kretprobe \*get_kretprobe\(
GET_RANDOM_U32_BELOW random.h u32 get_random_u32_below\(
TASK_WORK_CANCEL_FUNC task_work.h task_work_cancel_func\(struct task_struct \*, task_work_func_t\)
LIST_SORT_CONST list_sort.h ^[[:space:]]*const struct list_head \*, const struct list_head \*\);
TASK_WORK_CANCEL_CB task_work.h ^bool task_work_cancel\(struct task_struct \*task, struct callback_head \*cb\)
UPROBE_UNREGISTER_NOSYNC uprobes.h void uprobe_unregister_nosync\(
NO_LLSEEK fs.h ^#define no_llseek 
STRLCPY string.h size_t strlcpy\(
BDEV_PARTNO blkdev.h u8 bdev_partno\(
ITER_IOV uio.h iovec \*iter_iov\(const struct iov_iter
ITER_IS_UBUF uio.h bool iter_is_ubuf\(const struct iov_iter
MM_RSS_PERCPU mm_types.h struct percpu_counter rss_stat\[
MODULE_MEMORY module.h struct module_memory mem\[MOD_MEM_NUM_TYPES\]
MODULE_CORE_LAYOUT module.h struct module_layout core_layout 
EOF
	if [ ${#wrong[@]} -eq 0 ]; then
		pass "build: the kernel API tests agree with the reference kernel's headers"
	else
		fail "build: the kernel API tests agree with the reference kernel's headers" "${wrong[@]}"
	fi
fi

# 2. the same script again: passes 3 and 4 come from the cache, the same .ko
out=$(cd "$work/b" && "$STAP" -v -p4 -r "$rel" -m b_hello ../hello.stp 2>&1)
details=$out
check "a cache hit says \"Pass 3: using cached\" and \"Pass 4: using cached\"" \
	grep -Pzq '\nPass 3: using cached /.*/modules/../[0-9a-f]{32}\.c\nPass 4: using cached /.*\.ko\n' <<<"$out"
check "a cache hit gives the identical .ko" cmp -s "$work/a/b_hello.ko" "$work/b/b_hello.ko"
details=$out
check "a cache hit compiles nothing" lacks 'compiled C into|tested [0-9]+ kernel APIs' "$out"

# -r DIR is the same kernel as -r RELEASE (a hit), and the hit is renamed for another -m
out=$(cd "$work/b" && "$STAP" -v -p4 -r "/lib/modules/$rel/build" -m b_hel ../hello.stp 2>&1)
details=$out
check "-r /path/to/build names the same kernel as -r RELEASE" \
	has '^Pass 4: using cached' "$out"
modinfo=$(readelf -p .modinfo "$work/b/b_hel.ko" 2>/dev/null)
objcopy -O binary --only-section=.gnu.linkonce.this_module "$work/b/b_hel.ko" "$work/this" 2>/dev/null
this=$(tr '\0' '\n' <"$work/this" 2>/dev/null | grep -a '^b_hel')
details="$modinfo"
check "a hit under another -m is renamed (.modinfo and struct module)" \
	test -n "$(grep -o 'name=b_hel$' <<<"$modinfo")" -a "$this" = b_hel

# 2b. the cache is private, and used only when it is safe: a user who made the folder
# first, or can write to a folder above it, cannot plant a module or a header for root
details=$(find "$STAPLER_CACHE_DIR" -perm /077 -printf '%M %p\n')
check "the cache's folders are 0700 and its files 0600" \
	test -z "$details" -a "$(stat -c %a "$STAPLER_CACHE_DIR")" = 700
own=$(getent passwd "$(id -u)" | cut -d: -f6)/.cache/stapler
mallory=$work/mallory		# a HOME that belongs to someone else, with a planted cache
mkdir -p "$mallory/.cache"
cp -a "$STAPLER_CACHE_DIR" "$mallory/.cache/stapler"
chown -R nobody "$mallory"
out=$(cd "$work/b" && env -u STAPLER_CACHE_DIR -u XDG_CACHE_HOME HOME=$mallory \
	"$STAP" -v -p4 -r "$rel" -m b_hello ../hello.stp 2>&1)
status=$?
details=$out
check "a HOME that is another user's is not the cache; stap says so and uses the user's own" \
	test $status = 0 -a -f "$work/b/b_hello.ko" -a -n "$(grep -Fx "WARNING: not using the cache folder $mallory/.cache/stapler: $mallory belongs to uid $(id -u nobody); using $own" <<<"$out")" \
	-a -z "$(grep -F "$mallory/.cache/stapler/modules" <<<"$out")"
out=$(cd "$work/b" && env -i PATH="$PATH" TMPDIR="$TMPDIR" "$STAP" -v -p4 -r "$rel" -m b_hello \
	../hello.stp 2>&1)
details=$out
check "without HOME the cache is in the home of the password database" \
	has "^Pass 4: using cached $own/modules/../[0-9a-f]*\.ko\$" "$out"
mkdir -p "$work/open/cache/modules"
touch "$work/open/cache/modules/planted"
chmod 777 "$work/open"
out=$(STAPLER_CACHE_DIR=$work/open/cache "$STAP" --clean-cache 2>&1)
status=$?
details=$out
check "a cache below a folder others can write to is refused, and --clean-cache leaves it" \
	test $status = 1 -a -f "$work/open/cache/modules/planted" -a \
	"$out" = "WARNING: not using the cache folder $work/open/cache: others can write to $work/open; nothing is cached"
out=$(STAPLER_CACHE_DIR=$mallory/.cache/stapler "$STAP" --clean-cache 2>&1)
status=$?
details=$out
check "a cache folder that is another user's is refused" \
	test $status = 1 -a -d "$mallory/.cache/stapler/modules" -a \
	"$out" = "WARNING: not using the cache folder $mallory/.cache/stapler: $mallory belongs to uid $(id -u nobody); nothing is cached"
# a link on the way may sit where others can write and change after the check: the
# folder used is the one checked, the link resolved
mkdir -p "$work/linked/.cache" "$work/safe"
chmod 700 "$work/safe"
ln -s "$work/safe" "$work/linked/.cache/stapler"
chown -R nobody "$work/linked"
out=$(env -u STAPLER_CACHE_DIR -u XDG_CACHE_HOME HOME=$work/linked "$STAP" -v --clean-cache 2>&1)
details=$out
check "a cache folder reached through a link is used at its real path" \
	test "$out" = "Cleaned the cache folder $(readlink -f "$work/safe")"
out=$(STAPLER_CACHE_DIR=$work/never/made "$STAP" -V 2>&1 >/dev/null; ls "$work/never" 2>&1)
details=$out
check "a run that needs no cache makes no cache folder" test ! -e "$work/never"

# 3. --disable-cache rebuilds and writes nothing; -B reaches make; -k keeps the folder
before=$(find "$STAPLER_CACHE_DIR" -type f | sort)
rm -rf "$work/tmp"/*
out=$(cd "$work/c" && "$STAP" -v -p4 -r "$rel" -m b_hello --disable-cache -k -B V=1 \
	-B KCFLAGS=-DSTAPLER_B_CHECK=1 ../hello.stp 2>&1)
kept=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' <<<"$out")
details=$out
check "--disable-cache compiles again" has '^Pass 4: compiled C into' "$out"
details=$out
check "--disable-cache does not read the cache" lacks 'using cached' "$out"
check "--disable-cache does not write the cache" test "$before" = "$(find "$STAPLER_CACHE_DIR" -type f | sort)"
details=$out
check "-k keeps the temporary folder and says where" \
	test -n "$kept" -a -f "$kept/b_hello.ko" -a -f "$kept/b_hello.c" -a -f "$kept/Kbuild"
details=$(head -c 3000 "$kept/make.log" 2>/dev/null)
check "-B options reach make (V=1 shows commands, KCFLAGS reaches the compiler)" \
	grep -q -- 'gcc.*-DSTAPLER_B_CHECK=1.*b_hello\.c' "$kept/make.log"

# 4. a changed -D misses; the kernel API tests come from the cache
out=$(cd "$work/c" && "$STAP" -vv -p4 -r "$rel" -m b_hello -D MAXACTION=500 ../hello.stp 2>&1)
details=$out
check "a changed -D misses the cache" has '^Pass 4: compiled C into' "$out"
details=$out
check "the kernel API tests are not run again" \
	has '^Pass 4: using cached kernel API tests .*/stp_autoconf.h$' "$out"

# 4c. kbuild-cc: the kernel Makefile's questions to its compiler (cc-option and the like,
# about 30 compiler runs on /dev/null per kbuild run) answered from the cache; the flags
# they give are the compiler's own answers
rm -rf "$work/tmp"/*
out=$(cd "$work/c" && "$STAP" -p4 -r "$rel" -m b_cc -k --disable-cache -D STAPLER_CC=1 \
	../hello.stp 2>&1)
asked=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' <<<"$out")
out=$(cd "$work/c" && strace -f -qq -e trace=execve -o "$work/cc.trace" \
	"$STAP" -p4 -r "$rel" -m b_cc -k -D STAPLER_CC=1 ../hello.stp 2>&1)
answered=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' <<<"$out")
flags() {	# DIR: the module's compile command, its folder as DIR, without kbuild-cc's words
	# (the kernel API tests' folder is the cache's in one, DIR's own in the other)
	sed -n 's/^cmd_.*b_cc\.o := //p' "$1/.b_cc.o.cmd" 2>/dev/null |
		sed "s|^[^ ]*/kbuild-cc [^ ]* ||; s|^ *||; s|-I[^ ]*/autoconf[^ ]*|-IAUTOCONF|; s|$1|DIR|g"
}
details=$(grep -h 'kbuild-cc' "$answered/.b_cc.o.cmd" 2>/dev/null | head -c 600)
check "with the cache, kbuild's compiler is kbuild-cc with the compiler kbuild chose" \
	grep -Eq "^cmd_.* := [^ ]*/kbuild-cc $STAPLER_CACHE_DIR/autoconf/$rel-[0-9a-f]+/kbuild-cc $(cat "$STAPLER_CACHE_DIR"/autoconf/"$rel"-*/compiler) " \
	"$answered/.b_cc.o.cmd"
details=$(diff <(flags "$asked") <(flags "$answered"))
check "the module is compiled with the same flags whether kbuild asks its compiler or the cache" \
	test -n "$(flags "$asked")" -a "$(flags "$asked")" = "$(flags "$answered")"
details=$(grep -c 'cc1"' "$work/cc.trace")
check "with the answers cached, the compiler runs only on the module's two C files" \
	test "$(grep 'cc1"' "$work/cc.trace" | grep -c '= 0$')" = 2
# 6.1's PAHOLE_FLAGS runs scripts/pahole-flags.sh at each expansion: its value is kept
# with the kernel API tests and given to make
if [ -x "$kbuild/scripts/pahole-flags.sh" ]; then
	kept_flags=$(cat "$STAPLER_CACHE_DIR"/autoconf/"$rel"-*/pahole_flags 2>/dev/null)
	script_flags=$(cd "$kbuild" && PAHOLE=pahole scripts/pahole-flags.sh)
	details="kept: $kept_flags; the script says: $script_flags; $(grep -c pahole "$work/cc.trace") pahole runs"
	check "kbuild's PAHOLE_FLAGS is kept once per kernel and the build runs no pahole" \
		test "$kept_flags" = "$script_flags" -a "$(grep -c 'pahole' "$work/cc.trace")" = 0
	out=$(cd "$work/c" && "$STAP" -vv -p4 -r "$rel" -m b_cc -D STAPLER_CC=2 \
		-B PAHOLE_FLAGS=--stapler-own ../hello.stp 2>&1)
	details=$(grep '^Running make' <<<"$out")
	check "-B PAHOLE_FLAGS= is the one make gets, not the kept value" \
		test -n "$(grep -E '^Running make .* PAHOLE_FLAGS=--stapler-own' <<<"$out")" -a \
		"$(grep -o 'PAHOLE_FLAGS=' <<<"$details" | wc -l)" = 1
fi
# CFLAGS_GCOV's test of -fprofile-update (6.1 and 6.12) runs nm twice, into grep ' U ', in
# every make: its value is kept with the kernel API tests and given to make
kept_gcov=$(cat "$STAPLER_CACHE_DIR"/autoconf/"$rel"-*/cflags_gcov 2>/dev/null)
details="kept: $kept_gcov; $(grep -c '"grep", " U "' "$work/cc.trace") runs of grep ' U '"
check "kbuild's CFLAGS_GCOV is kept once per kernel and the build runs no nm for it" \
	test "$(grep -c '"grep", " U "' "$work/cc.trace")" = 0 -a \
	-n "$(grep -e '-fprofile-arcs' <<<"$kept_gcov")"
rm -rf "$asked" "$answered"

# kbuild-cc itself, with a compiler that counts its runs
kcc=$top/src/build/kbuild-cc
mkdir -p "$work/kcc"
cat >"$work/kcc/cc" <<'SH'
#!/bin/sh
echo run >>"${0%/*}/runs"
case " $* " in *" -mbad "*) echo "cc: error: unrecognized option '-mbad'" >&2; exit 1;; esac
for a; do [ "$prev" = -o ] && printf 'object of %s\n' "$(cat)" >"$a"; prev=$a; done
echo "said $*"
SH
chmod +x "$work/kcc/cc"
kruns() { wc -l <"$work/kcc/runs" 2>/dev/null || echo 0; }
ask() {	# kbuild-cc with ARGS and stdin "x", as make's shell runs it: output, status, -o file
	local o
	o=$(echo x | "$kcc" "$work/kcc/memo" "$work/kcc/cc" "$@" 2>&1; echo "status $?")
	printf '%s|%s' "$o" "$(cat "$work/kcc/o" 2>/dev/null)"
	rm -f "$work/kcc/o"
}
first=$(ask -Werror -mbad -c -x c /dev/null -o "$work/kcc/o")
second=$(ask -Werror -mbad -c -x c /dev/null -o "$work/kcc/o")
details="first: $first; second: $second"
check "kbuild-cc replays a refused option's error and status without running the compiler" \
	test "$first" = "$second" -a "$(kruns)" = 1 -a -n "$(grep -F "unrecognized option '-mbad'" <<<"$first")" \
	-a -n "$(grep -F 'status 1' <<<"$first")"
first=$(ask -Werror -mgood -c -x assembler-with-cpp -o "$work/kcc/o" -)
second=$(ask -Werror -mgood -c -x assembler-with-cpp -o "$work/kcc/o.2" -)
mv "$work/kcc/o.2" "$work/kcc/o" 2>/dev/null
second=$second$(cat "$work/kcc/o" 2>/dev/null)
details="first: $first; second: $second"
check "kbuild-cc replays output, status and the -o file (named anything) of a run on stdin" \
	test "$(kruns)" = 2 -a "${first%%|*}" = "${second%%|*}" -a \
	-n "$(grep -F 'said -Werror -mgood' <<<"$second")" -a \
	-n "$(grep -F 'status 0' <<<"$second")" -a -n "$(grep -F 'object of x' <<<"$first")" -a \
	"${second##*|}" = "object of x"
printf 'y' | "$kcc" "$work/kcc/memo" "$work/kcc/cc" -mgood -c -x assembler-with-cpp -o "$work/kcc/o" - >/dev/null
details=$(kruns)
check "kbuild-cc asks again for other standard input" test "$(kruns)" = 3
echo 'int x;' >"$work/kcc/real.c"
for _ in 1 2; do "$kcc" "$work/kcc/memo" "$work/kcc/cc" -c "$work/kcc/real.c" -o "$work/kcc/o" >/dev/null; done
"$kcc" "$work/kcc/memo" "$work/kcc/cc" -c -include "$work/kcc/real.c" -x c /dev/null >/dev/null
"$kcc" "$work/kcc/memo" "$work/kcc/cc" -c -include "$work/kcc/real.c" -x c /dev/null >/dev/null
details=$(kruns)
check "kbuild-cc runs the compiler every time on a real file or one it includes" test "$(kruns)" = 7
details=$(find "$work/kcc/memo" -printf '%M %p\n')
check "kbuild-cc's entries are private and whole (no temporary files left)" \
	test -z "$(find "$work/kcc/memo" -perm /077)" -a -z "$(find "$work/kcc/memo" -name '.*')"

# 4b. a release without a build tree: stap's check of its .config, and the packages to install,
# before any compiling (no kernel API test runs)
out=$(cd "$work/c" && "$STAP" -v -p4 -r 6.0.0-99-nosuch-amd64 -m b_nosuch ../hello.stp 2>&1)
status=$?
details=$out
check "a release with no build tree names the file checked, the packages, and compiles nothing" \
	test $status = 1 -a -n "$(grep -Fx 'ERROR: Checking "/lib/modules/6.0.0-99-nosuch-amd64/build/.config" failed with error: No such file or directory' <<<"$out")" \
	-a -n "$(grep -F 'apt-get install linux-headers-6.0.0-99-nosuch-amd64 linux-image-6.0.0-99-nosuch-amd64-dbg' <<<"$out")" \
	-a -z "$(grep -E 'kernel API|compiled C' <<<"$out")"

# 5. a compiler error in embedded C points at the script's line; make's chatter is left out
printf '%s\n' 'function f() %{' '	int x = 1;' '	this is not C;' '%}' 'probe begin { f() }' \
	>"$work/bad.stp"
out=$(cd "$work/c" && "$STAP" -g -p4 -r "$rel" ../bad.stp 2>&1)
status=$?
details=$out
check "a compiler error in embedded C names the script's line" \
	test $status = 1 -a -n "$(grep -E '^\.\./bad\.stp:3:[0-9]+: error' <<<"$out")"
details=$out
check "a failed pass 4 ends with stap's message" \
	has '^Pass 4: compilation failed\.  \[man error::pass4\]$' "$out"
details=$out
check "a failed pass 4 shows the compiler's messages, not make's" lacks '^make(\[[0-9]+\])?: ' "$out"

# 6. two runs of a new script at once both succeed and leave one whole entry
printf '%s\n' 'probe begin { println("racing") exit() }' >"$work/race.stp"
(cd "$work/a" && "$STAP" -p4 -r "$rel" -m b_race ../race.stp >out 2>&1; echo $? >status) &
(cd "$work/b" && "$STAP" -p4 -r "$rel" -m b_race ../race.stp >out 2>&1; echo $? >status) &
wait
details="$(cat "$work/a/out" "$work/b/out")"
check "two runs of one script at once both succeed" \
	test "$(cat "$work/a/status")$(cat "$work/b/status")" = 00 -a -f "$work/a/b_race.ko" -a \
	-f "$work/b/b_race.ko"
details=$(find "$STAPLER_CACHE_DIR")
check "the cache holds no temporary files after a race" \
	test -z "$(find "$STAPLER_CACHE_DIR" -name '.tmp-*')"
out=$(cd "$work/c" && "$STAP" -v -p4 -r "$rel" -m b_race ../race.stp 2>&1)
details=$out
check "the raced entry is whole (a later run hits it)" has '^Pass 4: using cached' "$out"

# 7. the size limit: cache_mb_limit and cache_clean_interval_s, written with stap's
# defaults; a limit of 0 keeps only the entry just stored (the least recently used go)
details=$(find "$STAPLER_CACHE_DIR" -maxdepth 1)
check "the cache's limits are written with their defaults (256 MiB, every 300 s)" \
	test "$(cat "$STAPLER_CACHE_DIR/cache_mb_limit" 2>/dev/null)" = 256 -a \
	"$(cat "$STAPLER_CACHE_DIR/cache_clean_interval_s" 2>/dev/null)" = 300
modules() { find "$STAPLER_CACHE_DIR/modules" -name '*.ko' | sort; }
before=$(modules)
echo 0 >"$STAPLER_CACHE_DIR/cache_mb_limit"
echo 0 >"$STAPLER_CACHE_DIR/cache_clean_interval_s"
# a link among the modules' folders is skipped, not followed: what it points to stays
mkdir -p "$work/victim"
touch "$work/victim/00000000000000000000000000000000.ko" "$work/victim/00000000000000000000000000000000.c"
ln -s "$work/victim" "$STAPLER_CACHE_DIR/modules/zz"
printf '%s\n' 'probe begin { println("newest") exit() }' >"$work/newest.stp"
out=$(cd "$work/c" && "$STAP" -vv -p4 -r "$rel" -m b_newest ../newest.stp 2>&1)
details=$out
check "a full cache is cleaned after a new entry" \
	has "^Pass 4: cleaned the cache: removed $(wc -l <<<"$before") of $(($(wc -l <<<"$before") + 1)) modules" "$out"
newest=$(modules)
details="before: $before"$'\n'"after: $newest"
check "the cleaning removes the older entries and keeps the newest" \
	test "$(wc -l <<<"$newest")" = 1 -a -z "$(comm -12 <(echo "$before") <(echo "$newest"))"
out=$(cd "$work/c" && "$STAP" -v -p4 -r "$rel" -m b_newest ../newest.stp 2>&1)
details=$out
check "the kept entry still hits" has '^Pass 4: using cached' "$out"
details=$(ls -l "$work/victim")
check "the cleaning does not follow a link in the cache" \
	test -f "$work/victim/00000000000000000000000000000000.ko" -a \
	-f "$work/victim/00000000000000000000000000000000.c"

# the compiler's version is part of the key: a gcc that says another version misses (it
# is the same gcc, behind a script first in the PATH); the interval spares the cache
echo 300 >"$STAPLER_CACHE_DIR/cache_clean_interval_s"
mkdir -p "$work/fakebin"
printf '%s\n' '#!/bin/sh' \
	'[ "$1" = --version ] && { echo "gcc (stapler test) 99.1"; exit 0; }' \
	'exec /usr/bin/gcc "$@"' >"$work/fakebin/gcc"
chmod +x "$work/fakebin/gcc"
out=$(cd "$work/c" && PATH=$work/fakebin:$PATH "$STAP" -vv -p4 -r "$rel" -m b_newest \
	../newest.stp 2>&1)
details=$out
check "another compiler version misses the cache" has '^Pass 4: compiled C into' "$out"
details=$out
check "within cache_clean_interval_s the cache is not cleaned again" \
	test -n "$(grep '^Pass 4: the cache was cleaned [0-9]*s ago (every 300s)$' <<<"$out")" \
	-a "$(modules | wc -l)" = 2

# 8. --sign-module: a key pair made once, private, where stap keeps its own; the module
# signed by kbuild's sign-file (modinfo shows the signer), the cache's copy not
mkdir -p "$work/home" "$work/s"
modinfo() { PATH=$PATH:/usr/sbin:/sbin command modinfo "$@"; }	# kmod's, in sbin
out=$(cd "$work/s" && HOME=$work/home "$STAP" -v --sign-module -p4 -r "$rel" -m b_hello \
	../hello.stp 2>&1)
status=$?
moks=$work/home/.systemtap/ssl/server/moks
keydir=$(ls -d "$moks"/*:* 2>/dev/null | head -n 1)
details=$out
check "--sign-module makes a key pair the first time, named by its SHA-1 fingerprint" \
	test $status = 0 -a -f "$keydir/signing_key.priv" -a -f "$keydir/signing_key.x509" -a \
	"$(basename "$keydir")" = "$(openssl x509 -inform DER -in "$keydir/signing_key.x509" \
		-noout -fingerprint -sha1 2>/dev/null | sed 's/.*=//' | tr 'A-F' 'a-f')"
details=$(ls -ld "$work/home/.systemtap" "$moks" "$keydir" "$keydir"/* 2>&1)
check "the key's folders are 0700 and its files 0600" \
	test -z "$(find "$work/home/.systemtap" \( -type d ! -perm 0700 \) -o \
		\( -type f ! -perm 0600 \) 2>&1)"
details=$(modinfo "$work/s/b_hello.ko" 2>&1)
check "the module carries a signature modinfo shows, by the key's certificate" \
	has '^signer: +Stapler module signing key$' "$details"
signed_in_cache=$(for m in $(modules); do modinfo "$m" | grep -q '^signer:' && echo "$m"; done)
details=$(modules)
check "the cache's modules stay unsigned" test -n "$(modules)" -a -z "$signed_in_cache"
out=$(cd "$work/s" && HOME=$work/home SYSTEMTAP_SIGN=1 "$STAP" -v -p4 -r "$rel" -m b_hello \
	../hello.stp 2>&1)
details="$out
$(ls "$moks")"
check "SYSTEMTAP_SIGN signs too, with the same key" \
	test "$(ls "$moks" | wc -l)" = 1 -a \
	-n "$(grep -F "Pass 4: signed \"b_hello.ko\" with the key $(basename "$keydir")" <<<"$out")"
chmod 0755 "$moks"
out=$(cd "$work/s" && HOME=$work/home "$STAP" --sign-module -p4 -r "$rel" -m b_hello \
	../hello.stp 2>&1)
status=$?
details=$out
check "a key folder others can read is made private again before use" \
	test $status = 0 -a "$(stat -c %a "$moks")" = 700
mkdir -p "$work/home2/.systemtap"
chmod 0777 "$work/home2/.systemtap"
out=$(cd "$work/s" && HOME=$work/home2 "$STAP" --sign-module -p4 -r "$rel" -m b_hello \
	../hello.stp 2>&1)
status=$?
details=$out
check "a key folder under one others can write to is refused, with the reason" \
	test $status = 1 -a -n "$(grep -F "no safe folder for the module signing key" <<<"$out")" \
	-a -n "$(grep -F "others can write to $work/home2/.systemtap" <<<"$out")"

# 9. --clean-cache removes it all and exits
out=$("$STAP" --clean-cache 2>&1)
status=$?
details=$out
check "--clean-cache empties the cache and exits" test $status = 0 -a ! -e "$STAPLER_CACHE_DIR"

# 10. Pass 2 accepted means pass 4 builds: every script of the semantic corpus that pass 2
# accepts (testsuite/semantic/NAME.p2; with its options, run against the reference kernel:
# a case's -r is dropped, and pass 2 tried again there) and every input of the fuzz corpus
# that pass 2 accepts, built with -Werror.  Pass 3 may refuse one only with the located
# error testsuite/pass4/refusals lists for it (stap's pass 3 refuses a break outside a loop
# too); C that does not compile, or an internal error, fails.
export STAPLER_CACHE_DIR=$work/invariant-cache
invariant_case() {	# FILE: prints "built FILE", "p2 FILE" (pass 2 refuses) or "failed FILE: ERROR"
	local file=$1 base dir opts=() args=() out i
	base=${file%.stp}
	dir=$(dirname "$file")
	[ -f "$base.opts" ] && read -r -a opts <"$base.opts"
	[ -f "$base.args" ] && mapfile -t args <"$base.args"
	for ((i = 0; i < ${#opts[@]}; i++)); do	# -r DIR is the fake kernel's; -I DIR is the case's
		case ${opts[i]} in
		-r) unset 'opts[i]' 'opts[i+1]'; i=$((i + 1)) ;;
		-I) opts[i+1]=$dir/${opts[i+1]}; i=$((i + 1)) ;;
		esac
	done
	mkdir -p "$work/invariant/$BASHPID" && cd "$work/invariant/$BASHPID" || return
	if ! "$STAP" -p2 -r "$rel" "${opts[@]}" "$file" "${args[@]}" >/dev/null 2>&1; then
		echo "p2 $file"
	elif out=$("$STAP" -p4 -r "$rel" -m invariant -B KCFLAGS=-Werror "${opts[@]}" "$file" \
		"${args[@]}" 2>&1 >/dev/null); then
		echo "built $file"
	else
		echo "failed $file: $(grep -m1 -E 'error|Error' <<<"$out" | sed "s|$work/[^ ]*/||g")"
	fi
	rm -rf "$work/invariant/$BASHPID"
}
export -f invariant_case
export STAP rel work
cases=$( (ls "$top"/testsuite/semantic/*.p2 | sed 's/\.p2$/.stp/'; ls "$top"/testsuite/fuzz/corpus/*) |
	xargs -P 2 -I{} bash -c 'invariant_case {}' | sort -k2)
refusals=$top/testsuite/pass4/refusals
built=0
while read -r verdict file rest; do
	name=${file#"$top/testsuite/"}
	case $verdict in
	built) built=$((built + 1)); pass "build: pass 2 accepts and pass 4 builds $name" ;;
	failed)
		file=${file%:}
		name=${file#"$top/testsuite/"}
		rest=${rest//"$top/testsuite/"/}
		if grep -v '^#' "$refusals" | grep -qxF "$name	$rest"; then
			pass "build: pass 2 accepts and pass 3 refuses $name as listed"
		else
			fail "build: pass 2 accepts and pass 4 builds $name" "$rest"
		fi ;;
	esac
done <<<"$cases"
echo "build: pass 4 built the $built scripts of the semantic and fuzz corpora that pass 2 accepts"
