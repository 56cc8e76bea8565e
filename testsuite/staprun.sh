# staprun.sh - staprun on the host: its command line, the checks it makes before the
# kernel sees a module (the host kernel cannot load one), who it refuses, and the renaming
# of module images (staprun/modimage.c, also used by stap's module cache); stap-merge on
# per-CPU files made here (the guest test run/stap_merge merges real ones).
# Loading itself is tested in the guest: testsuite/run/staprun_*.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$WORK/staprun
rm -rf "$work"
mkdir -p "$work"
chmod 755 "$work"

EXPECT_PREFIX=staprun
CHECK_PREFIX=staprun

# ---- the command line ----

expect "-h shows the usage" 0 '^Usage: staprun \[options\] MODULE' "$STAPRUN" -h
help=$("$STAPRUN" -h)
missing=()
for option in -v -V -w -c -x -o -b -L -A -D -R -S -T -d -r -h; do
	grep -Eq -- "^ +$option( |$)" <<<"$help" || missing+=("$option")
done
if [ ${#missing[@]} -eq 0 ]; then
	pass "staprun: -h documents every option"
else
	fail "staprun: -h documents every option (missing: ${missing[*]})"
fi
expect "-V prints the version" 0 '^Stapler module loader/runner \(version [0-9.]+\)$' \
	"$STAPRUN" -V
expect "-v -V names the installed programs (all a setuid staprun runs)" 0 \
	'(?s)^Stapler module loader/runner [^\n]*\nstaprun: /[^\n]*/staprun\nstapio: /[^\n]*/stapio\n$' \
	"$STAPRUN" -v -V
expect "an unknown option shows the usage" 1 '^Usage: staprun' "$STAPRUN" -z x.ko
expect "a module is needed" 1 '^ERROR: Need a module name or path to load\.' "$STAPRUN"
expect "-v alone still needs a module" 1 'Need a module name' "$STAPRUN" -v
expect "-c and -x exclude each other" 1 "You can't specify the '-c' and '-x' options together" \
	"$STAPRUN" -c true -x 1 x.ko
expect "-L and -A exclude each other" 1 "You can't specify the '-A' and '-L' options together" \
	"$STAPRUN" -L -A x
expect "-L and -D exclude each other" 1 "You can't specify the '-D' and '-L' options together" \
	"$STAPRUN" -L -D -o f x.ko
expect "-D needs -o" 1 "You have to specify output FILE with '-D' option" "$STAPRUN" -D x.ko
expect "-S needs -o" 1 "You have to specify output FILE with '-S' option" "$STAPRUN" -S 1 x.ko
for bad in x 0 1,0 '1,' ,2 1,2,3 -1 1,100001 1,2147483647; do
	expect "-S refuses '$bad'" 1 "Invalid file size option '$bad'" \
		"$STAPRUN" -S "$bad" -o f x.ko
done
for bad in 0 4096 -1 x 8M; do
	expect "-b refuses '$bad'" 1 "Invalid buffer size '$bad' \(should be 1-4095\)" \
		"$STAPRUN" -b "$bad" x.ko
done
expect "-T refuses 0" 1 "Invalid reader timeout value '0'" "$STAPRUN" -T 0 x.ko
expect "-T refuses a non-number" 1 "Invalid reader timeout value '2s'" "$STAPRUN" -T 2s x.ko
expect "-x takes a process id" 1 "Invalid process id 'abc' for -x" "$STAPRUN" -x abc x.ko
expect "-x needs a running process" 1 "-x 2147483647: there is no process 2147483647" \
	"$STAPRUN" -x 2147483647 x.ko
expect "settings are VAR=VALUE" 1 "'oops' is not a VAR=VALUE setting" "$STAPRUN" x.ko a=1 oops
expect "a setting names a variable" 1 "'1a=2' is not a VAR=VALUE setting" "$STAPRUN" x.ko 1a=2
expect "a value cannot hold quotes with spaces" 1 "the value of v cannot hold '\"'" \
	"$STAPRUN" x.ko 'v=say "hi" twice'
# the kernel would take the quote as the start of a value running on over w=2
expect "a value cannot hold a quote" 1 "^ERROR: the value of v cannot hold '\"'$" \
	"$STAPRUN" x.ko 'v="a' w=2
expect "-A takes no -R" 1 "-A attaches to a session already running" "$STAPRUN" -A -R x
expect "-A takes no settings" 1 "its globals cannot be set \(v=1\)" "$STAPRUN" -A x v=1
expect "-A takes a name, not a file" 1 "-A takes the name of a loaded module" \
	"$STAPRUN" -A ./x.ko
expect "-d takes no module file" 1 "-d MODULE takes no module file" "$STAPRUN" -d x y.ko
expect "-d takes no other options" 1 "-d MODULE takes no module file and no other options" \
	"$STAPRUN" -o f -d x
expect "options stapler does not have are named" 1 "staprun option -u is not supported" \
	"$STAPRUN" -u x.ko
for bad in x 1 :h -1:h 1x:h 2147483648:h; do
	expect "-r refuses '$bad' (N:URI)" 1 "-r needs N:URI, a run's number and its target \\('$bad'\\)" \
		"$STAPRUN" -r "$bad" x.ko
done
expect "-r's target cannot hold a quote" 1 "the target cannot hold '\"'" "$STAPRUN" -r '0:a"b' x.ko

# ---- checks of the module (as root: the privilege check comes first) ----

if [ "$(id -u)" != 0 ]; then
	skip "staprun: checks of modules and users (not running as root)"
	exit 0
fi

printf 'not a module\n' >"$work/text.ko"
cp /bin/true "$work/program.ko"
if gcc -c -x c -o "$work/object.ko" - <<<'int x;' 2>/dev/null; then
	expect "refuses an ELF object that is not a module" 1 \
		'object\.ko is an ELF file but not a kernel module' "$STAPRUN" object.ko
fi
expect "refuses a file that is not ELF" 1 \
	'^ERROR: text\.ko is not an ELF kernel module: it is not an ELF file at all' \
	"$STAPRUN" text.ko
expect "refuses an ELF program" 1 'program\.ko is an ELF file but not a kernel module' \
	"$STAPRUN" program.ko
expect "says where it looked for a missing module" 1 \
	"^ERROR: cannot find module nosuch: there is no /lib/modules/$(uname -r)/systemtap/nosuch\.ko \(a module file in the current folder is named with its \.ko, or a path: \./nosuch\.ko\)$" \
	"$STAPRUN" nosuch
# a bare name is never a file of the current folder (cd /tmp; staprun watch)
cp "$work/text.ko" "$work/planted.ko"
expect "a bare name is not looked for in the current folder" 1 \
	"^ERROR: cannot find module planted: there is no /lib/modules/" "$STAPRUN" planted
expect "NAME.ko is a file of the current folder" 1 'planted\.ko is not an ELF kernel module' \
	"$STAPRUN" planted.ko
# what is not a regular file is never opened: a FIFO would hang the open, a device act on it
mkfifo "$work/fifo.ko"
expect "refuses a FIFO without opening it" 1 '^ERROR: fifo\.ko is not a regular file$' \
	timeout 10 "$STAPRUN" fifo.ko
ln -s /dev/null "$work/device.ko"
expect "refuses a link to a device" 1 '^ERROR: device\.ko is not a regular file$' \
	"$STAPRUN" device.ko
expect "a missing module path" 1 "cannot open module \./nosuch\.ko: No such file" \
	"$STAPRUN" ./nosuch.ko
mkdir -p "$work/dir.ko"
expect "refuses a folder named .ko" 1 "dir\.ko is not a regular file" "$STAPRUN" dir.ko
expect "-d on a module that is not loaded" 1 \
	"cannot remove module nosuch: no module of that name is loaded" "$STAPRUN" -d nosuch
expect "-d '*' with nothing to remove" 0 '^$' "$STAPRUN" -d '*'
expect "-A on a module that is not loaded" 1 \
	"cannot attach to module nosuch: no stapler module of that name is loaded" \
	"$STAPRUN" -A nosuch

rel=$("$top/testsuite/vm/reference-release" 2>/dev/null)
if [ -z "$rel" ] || [ ! -d "/lib/modules/$rel/build" ]; then
	skip "staprun: checks of built modules (no reference kernel headers; run ./setup)"
	exit 0
fi
hello='probe begin { println("hello") exit() }'
name=staprun_check_module_name
if ! out=$(cd "$work" && "$STAP" -p4 -r "$rel" -m $name -e "$hello" 2>&1); then
	fail "staprun: stap -p4 builds a module to check" "$out"
	exit 0
fi
ko=$work/$name.ko
chmod 644 "$ko"

if [ "$(uname -r)" != "$rel" ]; then
	expect "refuses a module for another kernel" 1 \
		"^ERROR: module $name\.ko was built for kernel \"$rel\", but this is kernel \"$(uname -r)\"$" \
		"$STAPRUN" $name.ko
	expect "checks the kernel before renaming with -R" 1 "was built for kernel \"$rel\"" \
		"$STAPRUN" -R $name.ko
else
	skip "staprun: refuses a module for another kernel (the host runs $rel)"
fi

# a kernel module that stap did not build: description= tells
if fixture=$("$top/testsuite/fixtures/build-fixture" "$top/testsuite/fixtures/kprobe_hello" \
	"$rel" "$WORK/fixtures" 2>&1); then
	cp "$(head -n 1 <<<"$fixture")" "$work/foreign.ko"
	expect "refuses a kernel module stap did not build" 1 \
		"foreign\.ko is a kernel module, but not one built by stapler's stap" \
		"$STAPRUN" foreign.ko
else
	fail "staprun: the kprobe_hello fixture builds" "$fixture"
fi
sed 's/description=stapler script module/description=another script module/' "$ko" \
	>"$work/described.ko"
expect "the module's description decides" 1 \
	"described\.ko is a kernel module, but not one built by stapler's stap \(module $name: another script module\)" \
	"$STAPRUN" described.ko

# ---- who may do what (the real user's groups; Debian's systemtap makes the groups) ----

if ! command -v setpriv >/dev/null; then
	skip "staprun: users (setpriv is not installed)"
else
	nobody=(setpriv --reuid=nobody --regid=nogroup)
	expect "refuses a user in neither group, naming the groups" 1 \
		'^ERROR: .*you must be root, or a member of the group "stapdev" .* or "stapusr"' \
		"${nobody[@]}" --clear-groups "$STAPRUN" "$ko"
	expect "refuses -d to a user in neither group" 1 'you must be root' \
		"${nobody[@]}" --clear-groups "$STAPRUN" -d '*'
	expect "refuses -A to a user in neither group" 1 'you must be root' \
		"${nobody[@]}" --clear-groups "$STAPRUN" -A $name
	if getent group stapusr >/dev/null && getent group stapdev >/dev/null; then
		expect "a stapusr member may not load a module from elsewhere" 1 \
			"members of the group stapusr may only load modules installed under /lib/modules/$(uname -r)/systemtap; $ko is not there" \
			"${nobody[@]}" --groups=stapusr "$STAPRUN" "$ko"
		expect "the primary group counts" 1 \
			"members of the group stapusr may only load modules installed under" \
			setpriv --reuid=nobody --regid=stapusr --clear-groups "$STAPRUN" "$ko"
		if [ "$(uname -r)" != "$rel" ]; then
			expect "a stapdev member may load any module (then the kernel is checked)" 1 \
				"^ERROR: module $ko was built for kernel \"$rel\"" \
				"${nobody[@]}" --groups=stapdev "$STAPRUN" "$ko"
		fi
		# a setuid root copy (staprun's checks by real ids; loading fails on this host)
		suid=$(mktemp -d /tmp/stapler-staprun.XXXXXX)
		chmod 755 "$suid"
		cp "$STAPRUN" "$suid/staprun"
		chmod 4755 "$suid/staprun"
		cp "$ko" "$suid/secret.ko"
		chmod 600 "$suid/secret.ko"
		ln -s secret.ko "$suid/link.ko"
		mkfifo -m 666 "$suid/fifo.ko"
		expect "setuid: a stapdev member opens modules with their own rights" 1 \
			"^ERROR: cannot open module $suid/secret\.ko: Permission denied$" \
			"${nobody[@]}" --groups=stapdev "$suid/staprun" "$suid/secret.ko"
		expect "setuid: ... also through a symbolic link" 1 \
			"^ERROR: cannot open module $suid/link\.ko: Permission denied$" \
			"${nobody[@]}" --groups=stapdev "$suid/staprun" "$suid/link.ko"
		expect "setuid: a stapdev member's FIFO is not opened" 1 \
			"^ERROR: $suid/fifo\.ko is not a regular file$" \
			"${nobody[@]}" --groups=stapdev timeout 10 "$suid/staprun" "$suid/fifo.ko"
		expect "setuid: a stapusr member's path is not resolved (nor echoed)" 1 \
			"^ERROR: members of the group stapusr may only load modules installed under /lib/modules/$(uname -r)/systemtap; $suid/link\.ko is not there \(ask" \
			"${nobody[@]}" --groups=stapusr "$suid/staprun" "$suid/link.ko"
		rm -rf "$suid"
		expect "without setuid root, a stapdev member is told what is missing" 1 \
			"staprun needs root privileges to load and remove modules: .*setuid root" \
			"${nobody[@]}" --groups=stapdev "$STAPRUN" -d '*'
	else
		skip "staprun: stapusr and stapdev members (no such groups here)"
	fi
fi

# ---- renaming module images: staprun/modimage.c ----

cat >"$work/rename.c" <<'EOF'
/* rename FILE NAME: modimage_rename() on FILE's image, written back; prints the result */
#include "modimage.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	static char image[64 << 20];
	FILE *f = fopen(argv[1], "rb");
	size_t len;
	int rc;

	if (argc != 3 || !f)
		return 2;
	len = fread(image, 1, sizeof(image), f);
	fclose(f);
	rc = modimage_rename(image, len, argv[2]);
	printf("%s\n", rc ? strerror(-rc) : "renamed");
	f = fopen(argv[1], "wb");
	if (!f || fwrite(image, 1, len, f) != len || fclose(f))
		return 2;
	return rc ? 1 : 0;
}
EOF
if ! out=$(gcc -I"$top/staprun" -o "$work/rename" "$work/rename.c" "$top/staprun/modimage.o" \
	-lelf 2>&1); then
	fail "staprun: the modimage test program builds" "$out"
	exit 0
fi

# the name in .modinfo (name=) and in struct module (.gnu.linkonce.this_module)
names_in() {
	echo "modinfo: $(readelf -p .modinfo "$1" | grep -o 'name=[A-Za-z0-9_]*' | sed -n 1p)"
	echo "struct module: $(readelf -x .gnu.linkonce.this_module "$1" | sed -n '/0x/p' |
		awk '{ printf "%s", $NF }' | grep -o 'staprun[A-Za-z0-9_.]*' | tr -d .)"
	command -v modinfo >/dev/null && echo "modinfo -F name: $(modinfo -F name "$1")"
}
cp "$ko" "$work/renamed.ko"
expect "renames a module to a shorter name" 0 '^renamed$' "$work/rename" renamed.ko staprun_short
got=$(names_in "$work/renamed.ko")
if grep -qx 'modinfo: name=staprun_short' <<<"$got" &&
	grep -qx 'struct module: staprun_short' <<<"$got" && ! grep -q "$name" <<<"$got" &&
	{ ! command -v modinfo >/dev/null || grep -qx 'modinfo -F name: staprun_short' <<<"$got"; }; then
	pass "staprun: renaming changes both places the name is"
else
	fail "staprun: renaming changes both places the name is" "$got"
fi
if cmp -s <(readelf -p .modinfo "$ko" | grep -v 'name=') \
	<(readelf -p .modinfo "$work/renamed.ko" | grep -v 'name='); then
	pass "staprun: renaming leaves the other .modinfo entries alone"
else
	fail "staprun: renaming leaves the other .modinfo entries alone" \
		"$(diff <(readelf -p .modinfo "$ko") <(readelf -p .modinfo "$work/renamed.ko"))"
fi
if [ "$(uname -r)" != "$rel" ]; then
	expect "staprun reads the new name" 1 "was built for kernel" "$STAPRUN" renamed.ko
fi
expect "renaming to the same name is no change" 0 '^renamed$' \
	"$work/rename" renamed.ko staprun_short
# the runtime's name= entry has room for any name the kernel allows; modpost's does not
max_name=staprun_$(printf 'n%.0s' $(seq 47))
expect "renames a module to a longer name, of up to 55 bytes" 0 '^renamed$' \
	"$work/rename" renamed.ko "$max_name"
got=$(names_in "$work/renamed.ko")
if [ "$(readelf -p .modinfo "$work/renamed.ko" | grep -c 'name=')" = 1 ] &&
	grep -qx "modinfo: name=$max_name" <<<"$got" && grep -qx "struct module: $max_name" <<<"$got"
then
	pass "staprun: a longer name is in both places, and .modinfo has one name"
else
	fail "staprun: a longer name is in both places, and .modinfo has one name" "$got" \
		"$(readelf -p .modinfo "$work/renamed.ko")"
fi
if [ -f "$work/foreign.ko" ]; then
	cp "$work/foreign.ko" "$work/foreign-renamed.ko"
	expect "refuses a longer name where .modinfo has no room (a module not built by stap)" 1 \
		'^File name too long$' "$work/rename" foreign-renamed.ko kprobe_hello_but_longer
fi
cp "$ko" "$work/long.ko"
expect "refuses a name of 56 bytes" 1 '^File name too long$' \
	"$work/rename" long.ko "$(printf 'n%.0s' $(seq 56))"
expect "refuses a name with a /" 1 '^Invalid argument$' "$work/rename" long.ko a/b
expect "refuses an image that is not a module" 1 '^Exec format error$' \
	"$work/rename" program.ko x
if cmp -s "$ko" "$work/long.ko"; then
	pass "staprun: a refused renaming leaves the image alone"
else
	fail "staprun: a refused renaming leaves the image alone"
fi

# cached_as NAME WHAT: stap -p4 -m NAME of the script built above comes from the cache, and
# the image it hands out is named NAME in both places
cached_as() {
	local as=$1 what=$2 out got
	if out=$(cd "$work" && "$STAP" -v -p4 -r "$rel" -m "$as" -e "$hello" 2>&1) &&
		grep -q 'Pass 4: using cached' <<<"$out"; then
		got=$(names_in "$work/$as.ko")
		if grep -qx "modinfo: name=$as" <<<"$got" && grep -qx "struct module: $as" <<<"$got"
		then
			pass "staprun: stap's cache hands the module out $what"
		else
			fail "staprun: stap's cache hands the module out $what" "$got"
		fi
	else
		fail "staprun: stap -p4 uses the cache $what" "$out"
	fi
}
cached_as staprun_cached "under another name"
# a run names the module stap_HASH_PID, -p4 stap_HASH
cached_as "${name}_$$" "under a longer name"

# ---- stap-merge: the records of per-CPU files (sequence, length, data) in sequence order ----

# record SEQ DATA: one record as the runtime writes it in bulk mode
record() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) 0 0)"; printf "$(printf '\\x%02x\\x%02x\\x00\\x00' $((${#2} & 255)) $((${#2} >> 8 & 255)))"; printf '%s' "$2"; }
{ record 1 $'first\n'; record 3 $'third\n'; record 4 $'fourth\n'; } >"$work/merge_0"
{ record 2 $'second\n'; record 5 $'fifth\n'; } >"$work/merge_1"
{ record 1 $'one\n'; record 4 $'four\n'; } >"$work/merge_gap"
expect "stap-merge: the records of two files in sequence order" 0 \
	'(?s)^first\nsecond\nthird\nfourth\nfifth\n$' "$STAP_MERGE" merge_0 merge_1
expect "stap-merge -v: each record after [CPU:N, seq=S, length=L]" 0 \
	'(?s)^\[CPU:1, seq=1, length=6\]\nfirst\n\[CPU:0, seq=2, length=7\]\nsecond\n\[CPU:1, seq=3, length=6\]\nthird\n' \
	"$STAP_MERGE" -v merge_1 merge_0
expect "stap-merge -o FILE: the count of drops on standard output" 0 '^sequence had 0 drops$' \
	"$STAP_MERGE" -o merged merge_0 merge_1
check "stap-merge -o FILE: the records in FILE" \
	test "$(cat "$work/merged")" = "$(printf 'first\nsecond\nthird\nfourth\nfifth')"
expect "stap-merge: a sequence number not expected is said (records were dropped)" 0 \
	'(?s)^one\ngot 4\. expected 2\nfour\n$' "$STAP_MERGE" merge_gap
expect "stap-merge: a file that ends inside a record" 253 'merge_cut ends inside a record' \
	bash -c "head -c 10 merge_0 >merge_cut && '$STAP_MERGE' merge_cut"
expect "stap-merge: a missing file" 255 'cannot open merge_none' "$STAP_MERGE" merge_none
expect "stap-merge: no file is a usage error" 255 'stap-merge \[-v\] \[-o output_filename\] input_files' \
	"$STAP_MERGE"
