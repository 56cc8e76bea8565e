# cli.sh - layer 2c: the command lines of stap and staprun, as users type them.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

work=$WORK/cli
rm -rf "$work"
mkdir -p "$work"
hello='probe begin { println("hello world") exit() }'

EXPECT_PREFIX=cli

expect "-V prints the version" 0 '^Stapler translator/driver \(version [0-9.]+/[0-9.]+' "$STAP" -V
expect "--version prints the version" 0 '^Stapler translator/driver' "$STAP" --version

help=$("$STAP" --help 2>&1)
missing=()
for option in -e -p -v --vp -k -m -o -c -x -g -u -w -W -t -r -B -I -R -D -G -L -l -s -b -S -T \
	-V -h --help --version --tmpdir --disable-cache --poison-cache --clean-cache \
	-d --ldd --all-modules --runtime --dyninst --bpf \
	--privilege --unprivileged \
	--suppress-handler-errors --dump-functions --dump-probe-types --dump-probe-aliases \
	--color --colour --compatible --prologue-searching --use-server --list-servers \
	--trust-servers --use-server-on-error --download-debuginfo --save-uprobes -q -i \
	--interactive; do
	grep -Eq -- "(^|[ ,])$option([ ,=[]|\$)" <<<"$help" || missing+=("$option")
done
if [ ${#missing[@]} -eq 0 ]; then
	pass "cli: --help documents every option"
else
	fail "cli: --help documents every option (missing: ${missing[*]})"
fi
expect "-h is --help" 0 'Usage: stap \[options\] FILE' "$STAP" -h

# options whose pass is not built yet refuse plainly
for refused in "--bpf" "--dyninst" "--runtime=bpf" "--runtime=dyninst" "--use-server" \
	"--use-server=host" "--list-servers" "--trust-servers=ssl" "--use-server-on-error" \
	"--download-debuginfo=yes" "-q" "-i" "--interactive"; do
	read -r -a words <<<"$refused"
	expect "$refused is refused by name until implemented" 1 '^stap: .*is not implemented yet' \
		"$STAP" "${words[@]}" -e "$hello"
done
# what stap does by default, or nothing on these kernels, is accepted
for accepted in "--use-server-on-error=no" "--download-debuginfo=no" "--save-uprobes"; do
	expect "$accepted is accepted" 0 '^probe begin' "$STAP" -p1 "$accepted" -e "$hello"
done
expect "--use-server-on-error takes yes or no" 1 "Invalid argument 'x' for --use-server-on-error" \
	"$STAP" --use-server-on-error=x -e "$hello"

# -E scripts beside the main one; --modinfo; -a; -P; the stap process's own limits
expect "-E adds a script's functions and probes to the main one" 0 \
	'(?s)f:unknown \(\).*\nbegin /\* <- begin \*/\nend /\* <- end \*/' \
	"$STAP" -p2 -e 'probe begin { f() }' -E 'function f() { println("E") }' -E 'probe end { f() }'
expect "-E scripts are named <-E N> in messages" 1 'saw: operator .\}. at <-E 2>:1:19' \
	"$STAP" -p2 -e 'probe begin { println(1) }' -E 'probe end { }' -E 'probe begin { x = }'
expect "-l lists the aliases of -E scripts" 0 '^my\.alias$' \
	"$STAP" -l 'my.*' -E 'probe my.alias = begin { }'
expect "--modinfo adds MODULE_INFO entries to the module" 0 \
	'(?s)MODULE_INFO\(supported, "yes"\);\nMODULE_INFO\(note, "a \\"b\\""\);' \
	"$STAP" -p3 --modinfo supported=yes --modinfo 'note=a "b"' -e "$hello"
expect "--modinfo needs NAME=VALUE" 1 "invalid --modinfo 'no-name=1'" \
	"$STAP" -p3 --modinfo no-name=1 -e "$hello"
# Pass 3: handlers whose C differs only in their strings (an alias's name, the places of
# statements) share one function, which reads them from the probe's table; a handler
# like no other keeps its strings in its code.
shared='probe my.a = begin { name = "a" } probe my.b = begin { name = "b" } probe my.* { println(name) }'
expect "pass 3: handlers that differ only in their strings share one function" 0 \
	'(?s)\[0\] = \{ \.handler = probe_0, [^\n]*, \.consts = probe_0_K \},\n\t\[1\] = \{ \.handler = probe_0, [^\n]*, \.consts = probe_1_K \},' \
	"$STAP" -p3 -e "$shared"
expect "pass 3: each probe's table holds its own strings" 0 \
	'(?s)probe_1_K\[\] = \{\n\t"b",\n\t"identifier .println. at <input>:1:[0-9]+",' \
	"$STAP" -p3 -e "$shared"
unshared=$("$STAP" -p3 -e 'probe my.a = begin { name = "a" } probe my.b = begin { name = "b"; print("b") }
probe my.* { println(name) }' 2>&1)
details=$unshared
CHECK_PREFIX=cli check "pass 3: handlers of different shapes keep their strings in their code" \
	lacks '_K\b|\.consts' "$unshared"
# Pass 3: a call of a function of one definition is a call of its caller function
# (call_function_NAME: the nesting check, the frame, the value), written once; a call of
# overloads, which may pass it on with `next`, keeps the protocol at the call.
calls='function f(s:string, n) { return sprintf("%s%d", s, n) }
function g:long() :1 { next } function g:long() :2 { return 2 }
probe begin { println(f("a", 1), f("b", 2), g()) }'
expect "pass 3: a function of one definition is called through its caller, written once" 0 \
	'(?s)static noinline __maybe_unused const char \*call_function_f\(struct context \*c, const char \*a0, s64 a1\)\n.*_ret[0-9]+ = stp_string_copy\(l->_tmp[0-9]+, call_function_f\(c, _arg[0-9]+_0, _arg[0-9]+_1\)\);.*call_function_f\(c, ' \
	"$STAP" -p3 -e "$calls"
overloads=$("$STAP" -p3 -e "$calls" 2>&1)
details=$overloads
CHECK_PREFIX=cli check "pass 3: a call of overloads is written out where it is made" \
	bash -c '! grep -q "call_function_g[_0-9]*(c)" <<<"$1" &&
		grep -q "function_g__1(c); c->nesting--.*function_g__2(c); c->nesting--" <<<"$1"' _ "$overloads"
# The tapset index's cache (tapset-index/): a library file changed since the last run is
# scanned again, even with the same size; a new file is seen; a file gone is forgotten.
mkdir -p "$work/idx/lib"
printf 'function idx_one() { return 1 }\n' >"$work/idx/lib/mine.stp"
idx_stap=(env STAPLER_CACHE_DIR="$work/idx/cache" "$STAP" -p2 -I "$work/idx/lib")
expect "the tapset index finds a function of an -I folder (and caches it)" 0 'idx_one' \
	"${idx_stap[@]}" -e 'probe begin { println(idx_one()) }'
expect "the tapset index's cache holds the folder's file" 0 'mine\.stp' \
	bash -c "cat '$work/idx/cache/tapset-index/'*"
printf 'function idx_two() { return 2 }\n' >"$work/idx/lib/mine.stp"
expect "a tapset file changed since (same size) is scanned again: its new function" 0 'idx_two' \
	"${idx_stap[@]}" -e 'probe begin { println(idx_two()) }'
expect "a tapset file changed since (same size) is scanned again: its old function is gone" 1 \
	'unresolved function' "${idx_stap[@]}" -e 'probe begin { println(idx_one()) }'
printf 'function idx_three() { return 3 }\n' >"$work/idx/lib/more.stp"
expect "a tapset file added since is indexed" 0 'idx_three' \
	"${idx_stap[@]}" -e 'probe begin { println(idx_three()) }'
rm "$work/idx/lib/more.stp"
expect "a tapset file removed since is forgotten" 1 'unresolved function' \
	"${idx_stap[@]}" -e 'probe begin { println(idx_three()) }'
expect "--disable-cache indexes without the cache" 0 'idx_two' \
	"${idx_stap[@]}" --disable-cache -e 'probe begin { println(idx_two()) }'

# An -I file that does not parse: pass 1 says so (its errors, then stap's warning) and
# pass 2 goes on without it; with -W, pass 1 fails (SystemTap's parseko bad_tapset).
mkdir -p "$work/bad/lib"
printf 'function bad_one() { return 1 }\nprobe bad = .x { }\n' >"$work/bad/lib/bad.stp"
printf 'function good_one() { return 1 }\n' >"$work/bad/lib/good.stp"
expect "an -I file that does not parse is reported and skipped" 0 \
	"(?s)\\Aparse error: expected identifier or '\\*' or '\\{'\n.*\n1 parse error\\.\nWARNING: tapset \"\\Q$work/bad/lib/bad.stp\\E\" has errors, and will be skipped\n# parse tree dump" \
	"$STAP" -p1 -I "$work/bad/lib/" -e "$hello"
expect "... its definitions are not there in pass 2" 1 "(?s)will be skipped.*unresolved function.*bad_one" \
	"$STAP" -p2 -I "$work/bad/lib" -e 'probe begin { println(bad_one()) }'
expect "... the other files of its folder are" 0 "good_one" \
	"$STAP" -p2 -I "$work/bad/lib" -e 'probe begin { println(good_one()) }'
expect "... and with -W pass 1 fails" 1 "(?s)will be skipped\nPass 1: parse failed" \
	"$STAP" -p1 -W -I "$work/bad/lib" -e "$hello"

# The macro library's cache (tapset-macros/): a clean, unchanged *.stpm is read only when
# a script uses one of its macros; a changed one is read again, a broken one every run.
mkdir -p "$work/mac/lib"
printf '@define mac_one %%( 1 %%)\n' >"$work/mac/lib/mine.stpm"
mac_stap=(env STAPLER_CACHE_DIR="$work/mac/cache" "$STAP" -p2 -I "$work/mac/lib")
expect "a library macro of an -I folder is used (and its file cached)" 0 'mine\.stpm' \
	bash -c "${mac_stap[*]@Q} -e 'probe begin { println(@mac_one) }' >/dev/null &&
		cat '$work/mac/cache/tapset-macros/'*"
expect "a cached library macro is read when a script uses it" 0 '(?s)println\(1\)' \
	env STAPLER_CACHE_DIR="$work/mac/cache" "$STAP" -p1 -I "$work/mac/lib" \
	-e 'probe begin { println(@mac_one) }'
printf '@define mac_two %%( 2 %%)\n' >"$work/mac/lib/mine.stpm"
expect "a macro file changed since (same size) is read again: its new macro" 0 'println\(2\)' \
	env STAPLER_CACHE_DIR="$work/mac/cache" "$STAP" -p1 -I "$work/mac/lib" \
	-e 'probe begin { println(@mac_two) }'
expect "a macro file changed since (same size) is read again: its old macro is gone" 1 \
	'unknown operator @mac_one' "${mac_stap[@]}" -e 'probe begin { println(@mac_one) }'
printf '@define mac_two %%( 3 %%)\n' >"$work/mac/lib/twice.stpm"
expect "a macro defined again in a file added since is an error, each run (1)" 1 \
	"duplicate definition of library macro '@mac_two'" \
	"${mac_stap[@]}" -e 'probe begin { println(1) }'
expect "a macro defined again in a file added since is an error, each run (2)" 1 \
	"duplicate definition of library macro '@mac_two'" \
	"${mac_stap[@]}" -e 'probe begin { println(1) }'
rm "$work/mac/lib/twice.stpm"
printf 'probe begin { }\n' >"$work/mac/lib/broken.stpm"
expect "a broken macro file is told each run (1)" 1 'broken\.stpm" has errors' \
	"${mac_stap[@]}" -e 'probe begin { println(1) }'
expect "a broken macro file is told each run (2)" 1 'broken\.stpm" has errors' \
	"${mac_stap[@]}" -e 'probe begin { println(1) }'

expect "-a x86_64 and -P are accepted" 0 '^begin /\* <- begin \*/' \
	"$STAP" -p2 -a x86_64 -P -e "$hello"
expect "-a of another architecture is refused" 1 \
	"architecture 'arm64' is not supported: stapler builds modules for x86_64 only" \
	"$STAP" -p2 -a arm64 -e "$hello"
expect "--rlimit-cpu and --rlimit-nproc limit stap itself" 0 '^begin /\* <- begin \*/' \
	"$STAP" -p2 --rlimit-cpu=100 --rlimit-nproc=1000 -e "$hello"
expect "a pass beyond --rlimit-as fails cleanly" 1 '^ERROR: out of memory' \
	"$STAP" -p2 --rlimit-as=1000000 -e "$hello"

expect "--skip-badvars makes an unresolved \$var 0, with stap's warning" 0 \
	'(?s)^WARNING: Bad \$context variable being substituted with literal 0: identifier .\$nosuch. at <input>:1:42\n.*\nprocfs\("x"\)\.read' \
	"$STAP" -p2 --skip-badvars -e 'probe procfs("x").read { $value = sprint($nosuch) }'

# $SYSTEMTAP_DIR/rc: options read before the command line's
rcdir=$work/rcdir
mkdir -p "$rcdir"
printf -- '-p2\n-w\n' >"$rcdir/rc"
expect "\$SYSTEMTAP_DIR/rc's options come first" 0 '(?s)^# probes\nbegin /\* <- begin \*/\n$' \
	env SYSTEMTAP_DIR="$rcdir" "$STAP" -e 'probe begin { println(1) }'
expect "the command line's options follow the rc file's" 0 '^# parse tree dump' \
	env SYSTEMTAP_DIR="$rcdir" "$STAP" -p1 -e 'probe begin { println(1) }'
printf "'unterminated\n" >"$rcdir/rc"
expect "an rc file a shell could not split is an error" 1 \
	"^ERROR: cannot read the options of $rcdir/rc" \
	env SYSTEMTAP_DIR="$rcdir" "$STAP" -p2 -e 'probe begin { println(1) }'

# --example NAME: ours (examples/), then SystemTap's (systemtap-doc)
expect "--example finds our example scripts" 0 "(?s)^# parse tree dump\n# file $top/examples/hello\.stp\n" \
	"$STAP" -p1 --example hello.stp
if [ -d /usr/share/systemtap/examples ]; then
	expect "--example finds SystemTap's examples in their subfolders" 0 \
		'^# file /usr/share/systemtap/examples/general/helloworld\.stp$' \
		"$STAP" -p1 --example helloworld.stp
fi
expect "--example of no example says where it looked" 1 \
	"^Example 'nosuch\.stp' was not found under '$top/examples' nor '/usr/share/systemtap/examples'" \
	"$STAP" -p2 --example nosuch.stp

# --sysenv: the target's PATH finds a program named without a slash under --sysroot
sr=$work/sysenv-root
mkdir -p "$sr/opt/bin" && cp /bin/true "$sr/opt/bin/mytrue"
expect "--sysenv=PATH= finds process(\"NAME\") in the target's PATH" 0 \
	'^process\("/opt/bin/mytrue"\)\.begin /\* <- process\("mytrue"\)\.begin \*/$' \
	"$STAP" --sysroot="$sr" --sysenv=PATH=/opt/bin -p2 -e 'probe process("mytrue").begin { println(1) }'
expect "without it, this process's PATH" 1 "cannot find executable 'mytrue' in PATH" \
	"$STAP" --sysroot="$sr" -p2 -e 'probe process("mytrue").begin { println(1) }'
expect "--sysenv needs VAR=VALUE" 1 "Invalid --sysenv 'PATH' \(should be VAR=VALUE\)" \
	"$STAP" --sysenv=PATH -p2 -e "$hello"

# stap-prep and stap-report (tools/)
rel=$("$top/testsuite/vm/reference-release")
expect "stap-prep -n says the reference kernel is ready" 0 "^stap-prep: kernel $rel is ready" \
	"$top/tools/stap-prep" -n "$rel"
expect "stap-prep -n names the packages a kernel lacks" 1 \
	'^Please install linux-headers-9\.9\.9-none linux-image-9\.9\.9-none-dbg$' \
	"$top/tools/stap-prep" -n 9.9.9-none
expect "stap-prep refuses an unknown option" 2 '^usage: stap-prep \[-n\] \[KERNEL_RELEASE\]' \
	"$top/tools/stap-prep" -x
expect "stap-report prints its sections" 0 \
	'(?s)^== id ==\nuid=.*\n== .*stap -V ==\nStapler translator/driver.*\n== uname -a ==\n.*\n== the installed packages stap uses \(dpkg-query\) ==\n' \
	env PATH="$(dirname "$STAP"):$PATH" "$top/tools/stap-report"

# what the translator and its library offer, as stap lists it
expect "--dump-probe-types lists the families' forms" 0 \
	'(?s)^begin\nbegin\(number\)\n.*\nkernel\.function\(string\)\.return\.maxactive\(number\)\n.*\nperf\.type\(number\)\.config\(number\)\.hz\(number\)\n.*\ntimer\.s\(number\)\n' \
	"$STAP" --dump-probe-types
expect "--dump-probe-aliases lists the library's aliases as defined" 0 \
	'(?s)\nperf\.sw\.cpu_clock = perf\.type\(1\)\.config\(0\)\n.*\nvfs\.read = kernel\.function\("vfs_read"\)\n' \
	"$STAP" --dump-probe-aliases
expect "--dump-functions lists the public functions with their types" 0 \
	'(?s)^AF_INET6:long \(\) /\* unprivileged \*/\n.*\nexecname:string \(\) /\* unprivileged \*/\n.*\ntask_pid:long \(task:long\) /\* unprivileged \*/\n' \
	"$STAP" --dump-functions
if "$STAP" --dump-functions | grep -q '^_'; then
	fail "cli: --dump-functions leaves the library's internal functions out"
else
	pass "cli: --dump-functions leaves the library's internal functions out"
fi

# stap's SDT markers, for the tapset's stap.* aliases (found in $PATH, as process() finds
# a program)
expect "stap carries the SDT markers of its passes, cache and commands" 0 \
	'(?s)stap\.cache_get source_path:string module_path:string.*stap\.pass6\.end session:long.*stap\.system\.spawn ret:long pid:long' \
	env PATH="$(dirname "$STAP"):$PATH" "$STAP" -L 'stap.**'

# pass 5's options: checked here, passed to staprun as staprun(8) names them (the host
# cannot load the module, so staprun then fails; the command line is what is checked)
expect "-c and -x exclude each other" 1 "You can't specify -c and -x options together" \
	"$STAP" -c true -x 1 -e "$hello"
expect "-S needs -o" 1 '-S needs -o FILE' "$STAP" -S 1,2 -e "$hello"
expect "-S takes SIZE[,N]" 1 "Invalid -S '1,x'" "$STAP" -S 1,x -o f -e "$hello"
expect "-s takes 1 to 4095 megabytes" 1 "Invalid buffer size '0' for -s \\(should be 1-4095\\)" \
	"$STAP" -s 0 -e "$hello"
expect "-x takes a process id" 1 "Invalid process id 'abc' for -x" "$STAP" -x abc -e "$hello"
expect "-T takes seconds" 1 "Invalid timeout '-1' for -T" "$STAP" -T -1 -e "$hello"
expect "-T adds a timer probe that exits, first" 0 \
	'(?s)# probes\ntimer.ms\(5000\) /\* <- timer.ms\(5000\) \*/\nbegin /\* <- begin \*/\n' \
	"$STAP" -p2 -T 5 -e "$hello"
expect "-c, -o, -s, -S, -F (with -o), -w and -G reach staprun" 1 \
	"^Running [^ ]*/staprun -v -v -w -c 'ls -l' -o out.txt -b 8 -S 2,3 -D [^ ]*\\.ko x=1\$" \
	"$STAP" --vp 00002 -w -c 'ls -l' -o out.txt -s 8 -S 2,3 -F -G x=1 \
	-e 'global x; probe begin { println(x + 1) exit() }'
expect "-x and -F (without -o) reach staprun as -x and -L" 1 \
	"^Running [^ ]*/staprun -v -v -x 7 -L [^ ]*\\.ko\$" "$STAP" --vp 00002 -x 7 -F -e "$hello"
expect "--target-namespaces=PID reaches the module as stp_target_ns_pid=PID" 1 \
	"^Running [^ ]*/staprun -v -v [^ ]*\\.ko stp_target_ns_pid=42\$" \
	"$STAP" --vp 00002 --target-namespaces=42 -e 'probe begin { println(ns_pid()) exit() }'
expect "--target-namespaces takes a process id (stap's words)" 1 \
	"^Invalid process ID number for target namespaces.\$" \
	"$STAP" --target-namespaces=0 -p2 -e "$hello"
expect "--runtime=kernel is accepted" 0 '^begin /\* <- begin \*/' \
	"$STAP" --runtime=kernel -p2 -e "$hello"
expect "--runtime takes kernel, dyninst or bpf" 1 "Invalid --runtime 'x'" \
	"$STAP" --runtime=x -p2 -e "$hello"
expect "--prologue-searching takes never, always or auto" 1 \
	"^Invalid argument 'x' for --prologue-searching.\$" \
	"$STAP" --prologue-searching=x -p2 -e "$hello"

# --color: stap's colours on a terminal (testsuite/parse and semantic have the exact
# output of --color=always); SYSTEMTAP_COLORS chooses them
warned='probe begin { print(unset) }'
esc=$'\033'
expect "--color=never colours nothing" 1 '(?s)\A(?!.*\x1b).*^WARNING: never-assigned' \
	"$STAP" --color=never -p2 -e "$warned"
expect "--color alone is --color=always" 1 "^${esc}\\[00;33m${esc}\\[KWARNING:${esc}\\[m" \
	"$STAP" --color -p2 -e "$warned"
expect "--colour is --color" 1 "^${esc}\\[00;33m${esc}\\[KWARNING:${esc}\\[m" \
	"$STAP" --colour=always -p2 -e "$warned"
expect "--color takes always, never or auto" 1 "^Invalid argument 'sometimes' for --color.\$" \
	"$STAP" --color=sometimes -p2 -e "$warned"
expect "--color=auto does not colour a pipe" 1 '(?s)\A(?!.*\x1b).*^WARNING: never-assigned' \
	"$STAP" -p2 -e "$warned"
expect "SYSTEMTAP_COLORS chooses the colours" 1 \
	"^${esc}\\[1;35m${esc}\\[KWARNING:${esc}\\[m${esc}\\[K .* at <input>:1:21\$" \
	env SYSTEMTAP_COLORS='x=1:warning=1;35:error=4' "$STAP" --color -p2 -e "$warned"
expect "SYSTEMTAP_COLORS's parts not named are not coloured" 1 \
	"^ source: probe begin \\{ print\\(unset\\) \\}\$" \
	env SYSTEMTAP_COLORS='warning=1;35:error=4' "$STAP" --color -p2 -e "$warned"
expect "SYSTEMTAP_COLORS ends at an entry not NAME=SGR" 1 \
	'(?s)\AWARNING: never.*\n\x1b\[1m\x1b\[Ksemantic error:\x1b\[m' \
	env SYSTEMTAP_COLORS='error=1:bad:warning=1' "$STAP" --color -p2 -e "$warned"
expect "SYSTEMTAP_COLORS empty colours nothing" 1 '(?s)\A(?!.*\x1b).*^WARNING' \
	env SYSTEMTAP_COLORS= "$STAP" --color -p2 -e "$warned"
if command -v script >/dev/null; then
	expect "--color=auto colours a terminal" 1 "^${esc}\\[00;33m${esc}\\[KWARNING:" \
		env TERM=xterm script -qec "'$STAP' -p2 -e '$warned'" /dev/null
	expect "--color=auto does not colour a dumb terminal" 1 \
		'(?s)\A(?!.*\x1b).*^WARNING' \
		env TERM=dumb script -qec "'$STAP' -p2 -e '$warned'" /dev/null
else
	skip "cli: --color=auto on a terminal (no script(1))"
fi
# --compatible=4.2 and before: proc_mem_rss() leaves shared memory out (stap 4.3's change)
expect "--compatible=4.2 counts the resident set as stap 4.2 did" 0 \
	'^#define STP_RSS_WITHOUT_SHMEM 1$' \
	"$STAP" --compatible=4.2 -p3 -e 'probe begin { println(proc_mem_rss()) }'
expect "without --compatible the resident set has the shared memory" 0 \
	'(?s)\A(?!.*STP_RSS_WITHOUT_SHMEM 1).*stp_proc_mem\(0, STP_MEM_RSS\)' \
	"$STAP" -p3 -e 'probe begin { println(proc_mem_rss()) }'

# --check-version: what tests systemtap_v, in the script and in the library
printf '%s\n' 'global g %( systemtap_v >= "2.0" %? = 1 %)' \
	'function f() { %( systemtap_v >= "2.0" %? return 1 %: return 2 %) }' \
	'probe begin { %( systemtap_v < "1.0" %? println("old") %) println(f(), g) }' \
	'probe end { println(2) }' >"$work/versioned.stp"
expect "--check-version warns of the probe, function and global that test systemtap_v" 0 \
	"(?s)^WARNING: This probe uses tapset constructs that are dependent on systemtap version: keyword at versioned.stp:3:1\n.*WARNING: This function uses tapset constructs that are dependent on systemtap version: identifier 'f' at :2:10\n.*WARNING: This global uses tapset constructs that are dependent on systemtap version: identifier 'g' at :1:8\n" \
	"$STAP" --check-version -p2 versioned.stp
expect "--check-version leaves the probe that tests no version alone" 0 \
	'(?s)\A(?!.*keyword at versioned.stp:4)' "$STAP" --check-version -p2 versioned.stp
expect "without --check-version there is no such warning" 0 \
	'(?s)\A(?!.*dependent on systemtap version)' "$STAP" -p2 versioned.stp
expect "--check-version warns of a library function that tests systemtap_v" 0 \
	"^WARNING: This function uses tapset constructs that are dependent on systemtap version: identifier 'cpuid' at .*/context.stp:[0-9]+:10" \
	"$STAP" --compatible=1.4 --check-version -p2 -e 'probe begin { println(cpuid()) }'

# break and continue outside a loop: pass 2 accepts them, pass 3 refuses them (stap's words)
expect "break outside a loop is pass 3's semantic error" 1 \
	"(?s)^semantic error: cannot 'break' outside loop: keyword at <input>:1:29\n.*Pass 3: translation failed" \
	"$STAP" -p4 -e 'probe begin { println(1); { break } }'
expect "continue in a function outside a loop is pass 3's semantic error" 1 \
	"(?s)^semantic error: cannot 'continue' outside loop: keyword at <input>:1:34\n" \
	"$STAP" -p3 -e 'function f() { println(1) if (1) continue } probe begin { f() }'
expect "a statistic printed as a value is pass 3's semantic error" 1 \
	"^semantic error: print format actual argument evaluation type unsupported: identifier 's' at <input>:1:45" \
	"$STAP" -p3 -e 'global s probe begin { s <<< 1; printd(",", s, 1) }'
expect "break in a try in a loop, continue in a foreach, are in their loops" 0 \
	'^#include' \
	"$STAP" -p3 -e 'global a probe begin { a[1] = 1 while (1) { try { if (1) break } catch { } }
		foreach (k in a) continue }'

# --privilege: the checks are pass 2's (testsuite/semantic/privilege_*)
expect "--privilege takes stapusr, stapsys or stapdev" 1 \
	"^Invalid argument 'root' for --privilege.\$" "$STAP" --privilege=root -p2 -e "$hello"
expect "--privilege is given once" 1 'Privilege level may be set only once' \
	"$STAP" --unprivileged --privilege=stapdev -p2 -e "$hello"
expect "-g and --privilege=stapusr exclude each other" 1 \
	"You can't specify -g and --privilege=stapusr together" \
	"$STAP" -g --privilege=stapusr -p2 -e "$hello"
expect "-g and --privilege=stapsys exclude each other" 1 \
	"You can't specify -g and --privilege=stapsys together" \
	"$STAP" --privilege=stapsys -g -p2 -e "$hello"
expect "-g and --privilege=stapdev go together" 0 '^begin /\* <- begin \*/' \
	"$STAP" --privilege=stapdev -g -p2 -e "$hello"
# pass 5 by a user neither root nor in stapdev: built for the privilege the user has
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && getent group stapusr >/dev/null; then
	stapusr_gid=$(getent group stapusr | cut -d: -f3)
	expect "a user in no stap group is refused pass 5" 1 \
		'^You should either be root, or be part of the group "stapusr"' \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$STAP" -e "$hello"
	expect "a user in stapusr runs pass 5 as --privilege=stapusr" 1 \
		'(?s)^--privilege=stapusr was automatically selected because you are a member of the group stapusr.  \[man stap\]\n.*probe point is not allowed for --privilege=stapusr' \
		setpriv --reuid=65534 --regid=65534 --groups="$stapusr_gid" "$STAP" -v \
		-e 'probe kernel.function("vfs_read") { exit() }'
else
	skip "cli: --privilege for users not in stapdev (not root, or no setpriv or group stapusr)"
fi
expect "--suppress-time-limits needs -g, in stap's words" 1 \
	'^ERROR --suppress-time-limits requires guru mode \(-g\)$' \
	"$STAP" --suppress-time-limits -p1 -e "$hello"
# -t is a flag of the module's compilation (STP_TIMING), as in stap: pass 3 writes the same
# C, and the module cache keeps the two apart (run/timing_report and run/lock_wait run it)
if c_plain=$("$STAP" -m x -p3 -e "$hello" 2>&1) && c_timed=$("$STAP" -m x -t -p3 -e "$hello" 2>&1) &&
	[ "$c_plain" = "$c_timed" ] && grep -q stp_script_probes <<<"$c_timed"; then
	pass "cli: -t leaves pass 3's C as it is (STP_TIMING is a compiler flag)"
else
	fail "cli: -t leaves pass 3's C as it is (STP_TIMING is a compiler flag)" "$c_timed"
fi
expect "-p takes 1 to 5" 1 "Invalid pass number '6'" "$STAP" -p6 -e "$hello"
expect "a script is required" 1 '^A script must be specified\.' "$STAP" -p1
expect "unknown options are reported" 1 "unrecognized option '--frobnicate'" \
	"$STAP" --frobnicate -e "$hello"
expect "-m takes a valid module name" 1 "invalid module name 'bad-name'" \
	"$STAP" -m bad-name -e "$hello"
expect "-D takes a C identifier" 1 "-D takes NAME or NAME=VALUE" "$STAP" -D 1x=2 -e "$hello"
expect "a missing script file is reported" 1 \
	"ERROR: cannot read script '/nonexistent/x.stp': No such file or directory" \
	"$STAP" -p1 /nonexistent/x.stp
expect "-u, -w and -W are accepted" 0 '^begin /\* <- begin \*/' "$STAP" -u -w -W -p2 -e "$hello"

# -l and -L list probe points; -G names a global of the script
tapdir=$top/testsuite/semantic/tapdir
expect "-l lists a probe point" 0 '^begin$' "$STAP" -l begin
expect "-l lists what a wildcard matches, families and aliases" 0 \
	'(?s)^begin\nend\nerror\ninit\njson_data\nnever\noneshot\nprometheus\nticked\nticking\n$' \
	"$STAP" -I "$tapdir" -l '*'
expect "-l fails when nothing matches" 1 '^$' "$STAP" -l nosuch
# as stap: the pattern is the text of "probe PATTERN {}", so it may define an alias first
# and name several points
expect "-L lists an alias the pattern's own text defines, with its locals" 0 \
	'(?s)\A(?!.*Pass 1)my\.point n:long s:string\n\Z' \
	"$STAP" -L 'my.point = begin { n = 1; s = "x" } probe my.point'
expect "-l lists each point the pattern's text names" 0 '(?s)\Abegin\nend\n\Z' \
	"$STAP" -l 'begin {} probe end'
expect "-L adds an alias's variables and their types" 0 \
	'(?s)^tick.fast rate:long\ntick.slow rate:long\nticked rate:long done:long\nticking rate:long kind:string\n$' \
	"$STAP" -I "$tapdir" -L 'tick**'
expect "-L: kprobes have no context variables" 0 '(?s)^kprobe.function\("vfs_read"\)\.return\n$' \
	"$STAP" -r "$top/testsuite/fake-kernel" -L 'kprobe.function("vfs_read").return'
expect "-l with a bad pattern is a parse error" 1 'parse error' "$STAP" -l 'begin('
expect "-G checks its argument as stap does" 1 \
	"Safety pattern mismatch for -G parameter \('x\[1\]=2'" "$STAP" -p2 -G 'x[1]=2' -e "$hello"
expect "-G names a global of the script" 1 "-G nosuch=1: the script has no global 'nosuch'" \
	"$STAP" -p2 -G nosuch=1 -e "global x; $hello"
expect "-G writes the global it names" 0 '^x:long' \
	"$STAP" -p2 -G x=1 -e "global x; probe begin { println(x + 1) }"
# symbol data: kernel modules always come from kallsyms; user-space programs' and
# libraries' tables are read in pass 3 (user_symbols.c), when the script uses them
expect "-d MODULE and --all-modules are accepted, silently, after the script too" 0 \
	'(?s)^# functions\nexit:unknown \(\)\n# probes\nbegin /\* <- begin \*/\n$' \
	"$STAP" -p2 -d kernel --all-modules -e 'probe begin { exit() }' -d ext4 --all-modules
expect "-d PATH and --ldd are accepted, silently" 0 \
	'(?s)^# functions\nexit:unknown \(\)\n# probes\nbegin /\* <- begin \*/\n$' \
	"$STAP" -p2 -e 'probe begin { exit() }' -d /bin/true --ldd
ubt='probe begin { print_ubacktrace(); exit() }'
expect "-d PATH puts the program's symbols and unwind table into the module" 0 \
	'^/\* /usr/bin/true: [1-9][0-9]* symbols, [1-9][0-9]* unwind rows, 0 line rows, [0-9]+ bytes \*/$' \
	"$STAP" -p3 -d /bin/true -e "$ubt"
# the line table only for a script that asks for lines (usymfileline ...), from -g's DWARF
printf 'int main(void)\n{\n\treturn 0;\n}\n' >"$work/lines.c"
cc -g -O0 -o "$work/lines" "$work/lines.c"
expect "a script asking for source lines gets the program's line table" 0 \
	"^/\\* $work/lines: [1-9][0-9]* symbols, [0-9]+ unwind rows, [1-9][0-9]* line rows, " \
	"$STAP" -p3 -d "$work/lines" -e 'probe begin { println(usymfileline(0)); exit() }'
expect "...and one that does not, none" 0 \
	"^/\\* $work/lines: [1-9][0-9]* symbols, [0-9]+ unwind rows, 0 line rows, " \
	"$STAP" -p3 -d "$work/lines" -e "$ubt"
# the kernel's line table (about 4 MB) only for a script asking for kernel source lines
expect "a script asking for kernel source lines gets the kernel's line table" 0 \
	"^/\\* the kernel's line table: [1-9][0-9]* rows, [1-9][0-9]* blocks, [1-9][0-9]* files" \
	"$STAP" -p3 -e 'probe begin { println(symfileline(0)); exit() }'
expect "...and one asking for symbols only, no kernel line table" 0 '(?s)\A(?!.*line table).*\z' \
	"$STAP" -p3 -e 'probe begin { println(symdata(0)); exit() }'
expect "--ldd adds the libraries it needs" 0 \
	'^/\* (/usr)?/lib/x86_64-linux-gnu/libc\.so\.6: [1-9][0-9]* symbols' \
	"$STAP" -p3 -d /bin/true --ldd -e "$ubt"
expect "-d PATH of a file that is not there is a warning in pass 3, as in stap" 0 \
	"^WARNING: missing unwind/symbol data for module '/nonexistent/prog'\$" \
	"$STAP" -p3 -d /nonexistent/prog -e "$ubt"
expect "-w silences it" 0 '(?s)\A(?!.*WARNING).*\z' \
	"$STAP" -w -p3 -d /nonexistent/prog -e "$ubt"
expect "-W makes it an error" 1 "^ERROR: missing unwind/symbol data for module '/nonexistent/prog'" \
	"$STAP" -W -p3 -d /nonexistent/prog -e "$ubt"
rel=$("$top/testsuite/vm/reference-release" 2>/dev/null)
map=/usr/lib/debug/boot/System.map-$rel
if [ -n "$rel" ] && [ -s "$map" ]; then
	want=$(awk '$2 ~ /^[tT]$/ && $3 ~ /^vfs_/ { print "kprobe.function(\"" $3 "\")" }' "$map" |
		sort -u)
	got=$("$STAP" -r "$rel" -l 'kprobe.function("vfs_*")' 2>&1)
	if [ "$got" = "$want" ] && [ -n "$got" ]; then
		pass "cli: -l kprobe.function(\"vfs_*\") -r $rel lists System.map's vfs_ text symbols"
	else
		fail "cli: -l kprobe.function(\"vfs_*\") -r $rel lists System.map's vfs_ text symbols" \
			"$(diff <(echo "$want") <(echo "$got") | head -20)"
	fi
else
	skip "cli: -l against the reference kernel's System.map (install linux-image-$rel-dbg: ./setup)"
fi

printf '%s\n' "$hello" >"$work/hello.stp"
expect "the script may come from a file" 0 '^# file hello.stp' "$STAP" -p1 hello.stp
expect "the script may come from standard input" 0 '^# file <input>' \
	bash -c "printf '%s' '$hello' | '$STAP' -p1 -"
expect "-v reports passes 1 and 2" 0 \
	'Pass 2: analyzed script: 1 probe, 1 function, 0 embeds, 0 globals using [0-9]+virt/' \
	"$STAP" -v -p2 -e "$hello"
expect "-p3 prints the C that includes the runtime" 0 \
	'#include "runtime.h"' "$STAP" -p3 -e "$hello"
out=$("$STAP" -k -p3 -m kept -e "$hello" 2>&1 >/dev/null)
kept=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' <<<"$out")
if [ -n "$kept" ] && [ -f "$kept/kept.c" ]; then
	pass "cli: -k keeps the temporary folder with the C file"
	rm -rf "$kept"
else
	fail "cli: -k keeps the temporary folder with the C file" "$out"
fi
mkdir -p "$work/tmp"
expect "the temporary folder goes in \$TMPDIR" 0 "^Keeping temporary directory \"$work/tmp/stap" \
	env TMPDIR="$work/tmp" "$STAP" -k -p3 -e "$hello"

# passes 4 and 5 on this machine need the reference kernel's headers
if rel=$("$top/testsuite/vm/reference-release" 2>/dev/null) && [ -d "/lib/modules/$rel/build" ]; then
	mkdir -p "$work/relative"
	runtime_from_there=$(realpath --relative-to="$work/relative" "$top/runtime")
	expect "-R and --tmpdir may be relative paths" 0 '^relative\.ko$' \
		bash -c "cd '$work/relative' && '$STAP' -p4 -r '$rel' -m relative \
			-R '$runtime_from_there' --tmpdir . -e '$hello'"
	expect "compiler errors in embedded C point at the script" 1 \
		'<input>:1:[0-9]+:.*error' \
		"$STAP" -g -p4 -r "$rel" -e 'function f() %{ this is not C; %} probe begin { f() }'
	expect "-b builds the module for bulk mode (its bulkmode file)" 0 '^1$' \
		bash -c "'$STAP' -p4 -b -r '$rel' -m bulk -e '$hello' >/dev/null &&
			tr '\\0' '\\n' <bulk.ko | grep -cx bulkmode"
	# the progress line of a long step: on a terminal (script's pseudo-terminal), not in a log
	expect "pass 4 on a terminal shows a progress line, erased at the end" 0 \
		$'\rPass 4: compiling C \\([0-9]+s\\)\e\\[K.*\r\e\\[Kprogress_tty\\.ko' \
		env STAPLER_PROGRESS_AFTER=0 script -qec \
		"'$STAP' --disable-cache -p4 -r '$rel' -m progress_tty -e '$hello'" /dev/null
	expect "pass 4 writes no progress line when stderr is no terminal" 0 '^0$' \
		bash -c "STAPLER_PROGRESS_AFTER=0 '$STAP' --disable-cache -p4 -r '$rel' -m progress_log \
			-e '$hello' 2>&1 | tr -cd '\\r' | wc -c"
	if [ "$(uname -r)" != "$rel" ]; then
		# stap's rule: pass 5 cannot run a -r kernel that is not the running one
		expect "-r of another kernel than the running one forces the last pass to 4" 0 \
			"(?s)\\AWARNING: kernel release/architecture mismatch with host forces last-pass 4\\.\nforced_p4\\.ko\n\\Z" \
			"$STAP" -r "$rel" -m forced_p4 -e "$hello"
		expect "SYSTEMTAP_RELEASE is -r when -r is not given" 0 \
			"(?s)\\AWARNING: kernel release/architecture mismatch with host forces last-pass 4\\.\nenv_p4\\.ko\n\\Z" \
			env SYSTEMTAP_RELEASE="$rel" "$STAP" -m env_p4 -e "$hello"
		expect "... not with --vm, whose pass 5 runs in a guest" 0 \
			"(?s)\\A(?!.*mismatch).*Running /bin/true " \
			env STAPLER_PASS5_PROGRAM=/bin/true "$STAP" --vp 00002 --vm -r "$rel" -e "$hello"
	fi
	# the default kernel when the running one has no build tree: pass 5 runs, and fails
	if [ "$(uname -r)" != "$rel" ] && [ "$(id -u)" = 0 ] &&
	   "$STAP" -v -p1 -e "$hello" 2>&1 | grep -q "^No build tree for the running kernel; using .* ($rel)\$"; then
		expect "pass 5 runs staprun, which refuses a module for another kernel" 1 \
			"(?s)was built for kernel \"$rel\", but this is kernel.*Pass 5: run failed" \
			"$STAP" -e "$hello"
		expect "a run the host's kernel could never load suggests --vm" 1 \
			"(?s)Tip: this kernel cannot load the module \\(it was built for \\Q$rel\\E, and this kernel is \\Q$(uname -r)\\E\\); stap --vm runs the script in a disposable guest booting \\Q$rel\\E.*Pass 5: run failed" \
			"$STAP" -e "$hello"
	fi
else
	skip "cli: passes 4-5 on the host (no reference kernel headers; run ./setup)"
fi

# TMPDIR, checked before anything else as stap does (SystemTap's parseko cmdline06, 22)
expect "an unusable TMPDIR stops stap at once" 1 \
	'^cannot create temporary directory \(" /dev/null/nodir/stap[[:alnum:]]{6} "\): Not a directory$' \
	env TMPDIR=/dev/null/nodir "$STAP" -p1 -e "$hello"
mkdir -p "$work/tmp with space"
expect "a TMPDIR make would take apart is refused" 1 \
	'^ERROR: Safety pattern mismatch for TMPDIR \(.*/tmp with space. vs\. .\^\[-/\._0-9a-z\]\+\$.\) rc=1$' \
	env TMPDIR="$work/tmp with space" "$STAP" -p1 -e "$hello"
expect "staprun -h shows its usage" 0 'Usage: staprun \[options\] MODULE' "$STAPRUN" -h
# make install puts the programs, runtime, tapsets and man pages where the issue says
inst=$work/install
if out=$(make -s -C "$top" install DESTDIR="$inst" prefix=/usr 2>&1); then
	missing=()
	for f in bin/stap bin/staprun libexec/stapler/stapio share/stapler/runtime/runtime.h \
		share/stapler/tapset/logging.stp share/man/man1/stap.1 share/man/man8/staprun.8 \
		share/man/man7/error::dwarf.7stap; do
		[ -e "$inst/usr/$f" ] || missing+=("$f")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		pass "cli: make install honours prefix and DESTDIR"
	else
		fail "cli: make install honours prefix and DESTDIR (missing: ${missing[*]})"
	fi
	expect "make install puts stap-vm on PATH, a link to the one beside its library" 0 \
		'^/usr/libexec/stapler/stap-vm$' readlink "$inst/usr/bin/stap-vm"
	# the link's target is the installed path (DESTDIR is only where the files are put)
	expect "stap-vm run by a link finds its library beside the real file" 1 '^usage: stap-vm' \
		bash -c "ln -sf '$inst/usr/libexec/stapler/stap-vm' link-stap-vm && ./link-stap-vm --no-such-option"
	if [ -x "$top/staprun/stap-exporter" ]; then
		missing=()
		for f in usr/bin/stap-exporter usr/share/man/man8/stap-exporter.8 \
			etc/stapler/exporter/syscalls.stp etc/stapler/exporter/vfs_bytes.stp \
			etc/stapler/exporter/tcp_retransmits.stp; do
			[ -e "$inst/$f" ] || missing+=("$f")
		done
		unit=$inst/usr/lib/systemd/system/stap-exporter.service
		grep -qx 'ExecStart=/usr/bin/stap-exporter -s /etc/stapler/exporter -p 9900 -k 600' \
			"$unit" 2>/dev/null || missing+=("${unit#"$inst"/} with the installed paths")
		if [ ${#missing[@]} -eq 0 ]; then
			pass "cli: make install puts stap-exporter, its scripts in /etc/stapler/exporter and its systemd unit"
		else
			fail "cli: make install puts stap-exporter, its scripts and its unit (missing: ${missing[*]})"
		fi
	fi
	expect "an installed stap finds the tapsets named by SYSTEMTAP_TAPSET" 0 '^warn:unknown' \
		env SYSTEMTAP_TAPSET="$inst/usr/share/stapler/tapset" \
		"$inst/usr/bin/stap" -p2 -e 'probe begin { warn("x") }'
else
	fail "cli: make install honours prefix and DESTDIR" "$out"
fi

# Every tapset function has its man page, and the pages are what the doc comments say.
if out=$("$top/man/make-tapset-man" --check 2>&1); then
	pass "cli: man/function::*.3stap match the tapsets' doc comments"
else
	fail "cli: man/function::*.3stap match the tapsets' doc comments" "$out"
fi

# Every page a message cites ("[man error::fault]", MAN_PAGE("error::dwarf")) exists.
missing=()
for page in $(grep -rhoE '(\[man |MAN_PAGE\(")[a-z]+::[a-z0-9_-]+[]"]' "$top/src" "$top/runtime" \
	"$top/tapset" --include='*.[ch]' --include='*.stp' | sed -E 's/^.* |^MAN_PAGE\("//; s/.$//' |
	sort -u); do
	compgen -G "$top/man/$page.*" >/dev/null || missing+=("$page")
done
if [ ${#missing[@]} -eq 0 ]; then
	pass "cli: every man page a message cites exists"
else
	fail "cli: every man page a message cites exists (missing: ${missing[*]})"
fi

# ---- --remote: the checks that need no host (remote.sh runs it against two guests) ----
script='probe begin { exit() }'
for bad in libvirt://dom unix:/run/sock direct:// stapsh:x; do
	expect "--remote $bad: ssh only" 1 "^ERROR: --remote $bad: stapler reaches remote hosts over ssh only" \
		"$STAP" --remote "$bad" -e "$script"
done
for bad in host:0 host:65536 host:x host: ssh://host:22x; do
	expect "--remote $bad: a bad port" 1 "^ERROR: --remote $bad: the port must be a number from 1 to 65535" \
		"$STAP" --remote "$bad" -e "$script"
done
for bad in @host ssh:// :22 -oProxyCommand=x; do
	expect "--remote '$bad': no host" 1 "^ERROR: --remote $bad: it names no host" \
		"$STAP" --remote "$bad" -e "$script"
done
expect "--remote [::1 needs its bracket" 1 "an IPv6 address goes in brackets" \
	"$STAP" --remote '[::1' -e "$script"
expect "--remote-prefix needs --remote" 1 "^stap: --remote-prefix needs --remote" \
	"$STAP" --remote-prefix -e "$script"
expect "--remote with -r" 1 "--remote builds for each host's own kernel: -r does not go with it" \
	"$STAP" --remote h -r 6.1.0-1-amd64 -e "$script"
expect "--remote with --vm" 1 "--remote and --vm cannot go together" \
	"$STAP" --remote h --vm -e "$script"
expect "--remote with -l" 1 "-l and -L list the probe points of this machine's kernel" \
	"$STAP" --remote h -l 'kernel.function("vfs_read")'
expect "--remote with -F" 1 "-F cannot go with --remote" "$STAP" --remote h -F -e "$script"
expect "--remote with -S" 1 "-S cannot go with --remote" "$STAP" --remote h -o f -S 1 -e "$script"
# a host that refuses the connection: ssh's own words under ours; nothing built, nothing left
mkdir -p "$work/remote-tmp"
expect "--remote to a host that refuses: named, with ssh's reason" 1 \
	'(?s)^ERROR: --remote 127\.0\.0\.1:1 \(0\): cannot connect over ssh\n  ssh: connect to host 127\.0\.0\.1 port 1: Connection refused\n$' \
	env TMPDIR="$work/remote-tmp" STAPLER_SSH_OPTIONS="-F /dev/null -o BatchMode=yes" \
	"$STAP" --remote 127.0.0.1:1 -e "$script"
if [ -z "$(ls -A "$work/remote-tmp")" ]; then
	pass "cli: --remote leaves no temporary folder behind"
else
	fail "cli: --remote leaves no temporary folder behind" "$(ls -A "$work/remote-tmp")"
fi

# ---- stap-exporter on the host: its answers that need no module loaded (remote.sh has
# Prometheus scraping it in a guest) ----
EXPORTER=$top/staprun/stap-exporter
if [ ! -x "$EXPORTER" ]; then
	skip "cli: stap-exporter (not built: libmicrohttpd-dev is missing; run ./setup)"
elif ! command -v curl >/dev/null; then
	skip "cli: stap-exporter (curl is not installed; run ./setup)"
else
	expect "stap-exporter -h documents its options" 0 \
		'(?s)-p PORT.*-a ADDRESS.*-s DIR.*-k SECONDS.*-t SECONDS' "$EXPORTER" -h
	expect "stap-exporter refuses a bad port" 1 "-p PORT must be a number from 1 to 65535, not '0'" \
		"$EXPORTER" -p 0
	expect "stap-exporter names a missing folder" 1 "cannot read the scripts' folder $work/nosuch" \
		"$EXPORTER" -s "$work/nosuch"
	exp=$work/exporter
	mkdir -p "$exp/scripts" "$exp/tmp"
	printf 'probe begin {\n' >"$exp/scripts/broken.stp"
	printf 'probe prometheus { $value .= "x 1\\n" }\n' >"$exp/scripts/fine.stp"
	printf 'not a module' >"$exp/scripts/notko.ko"
	for try in 1 2 3 4 5; do
		port=$(shuf -i 20000-60999 -n 1)
		TMPDIR=$exp/tmp "$EXPORTER" -a 127.0.0.1 -p "$port" -s "$exp/scripts" \
			>"$exp/log" 2>&1 &
		exp_pid=$!
		for ((i = 0; i < 50; i++)); do
			grep -q 'serving' "$exp/log" && break
			kill -0 $exp_pid 2>/dev/null || break
			sleep 0.1
		done
		grep -q 'serving' "$exp/log" && break
		wait $exp_pid
	done
	get() { curl -s -o "$exp/body" -w '%{http_code} %{content_type}' "$@"; }
	got=$(get "http://127.0.0.1:$port/")
	if [ "$got" = "200 text/plain; charset=utf-8" ] && [ "$(cat "$exp/body")" = "$(printf '%s\t%s\t%s\n' \
		/broken broken.stp stopped /fine fine.stp stopped /notko notko.ko stopped)" ]; then
		pass "cli: stap-exporter: / lists the scripts and whether they run"
	else
		fail "cli: stap-exporter: / lists the scripts and whether they run" "$got" "$(cat "$exp/body")"
	fi
	got=$(get "http://127.0.0.1:$port/broken")
	if [ "${got%% *}" = 500 ] && grep -q '^broken did not start (status 1):' "$exp/body" &&
		grep -q 'parse error: expected statement' "$exp/body"; then
		pass "cli: stap-exporter: a script that fails to start is a 500 with stap's words"
	else
		fail "cli: stap-exporter: a script that fails to start is a 500 with stap's words" \
			"$got" "$(cat "$exp/body")"
	fi
	got=$(get "http://127.0.0.1:$port/notko")
	if [ "${got%% *}" = 500 ] && grep -q 'notko.ko is not a kernel module stap -p4 made' "$exp/body"; then
		pass "cli: stap-exporter: a .ko that is no module is a 500 that says so"
	else
		fail "cli: stap-exporter: a .ko that is no module is a 500 that says so" "$got" "$(cat "$exp/body")"
	fi
	ok=1
	for page in nosuch ../etc/passwd .hidden 'a%20b'; do
		got=$(get "http://127.0.0.1:$port/$page")
		[ "${got%% *}" = 404 ] || ok=0
	done
	got=$(get -X POST "http://127.0.0.1:$port/fine")
	[ "${got%% *}" = 405 ] || ok=0
	if [ $ok = 1 ] && kill -0 $exp_pid 2>/dev/null; then
		pass "cli: stap-exporter: unknown pages are 404, other methods 405, and it keeps serving"
	else
		fail "cli: stap-exporter: unknown pages are 404, other methods 405" "$got" "$(cat "$exp/body")"
	fi
	kill -TERM $exp_pid 2>/dev/null
	wait $exp_pid
	st=$?
	if [ $st = 0 ] && [ -z "$(ls -A "$exp/tmp")" ]; then
		pass "cli: stap-exporter ends at SIGTERM with status 0, its work folder removed"
	else
		fail "cli: stap-exporter ends at SIGTERM with status 0" "status $st" "$(ls -A "$exp/tmp")" \
			"$(cat "$exp/log")"
	fi
fi

# doc/ names every source file, so a newcomer finds each one from the notes: a file of
# src/FOLDER/ by "FOLDER/NAME.c", one at src/'s top by its name, one of runtime/ by
# "runtime/NAME.c" or, in doc/runtime.md (whose table lists them), by its name.
named_in_doc() {	# WORD FILES...: WORD stands in FILES, not inside a longer path or name
	local word=${1//./\\.}
	shift
	grep -Eq "(^|[^A-Za-z0-9_./-])(src/|runtime/)?$word([^A-Za-z0-9_]|$)" "$@"
}
missing=()
for f in "$top"/src/*.c "$top"/src/*/*.c; do
	rel=${f#"$top"/src/}
	named_in_doc "$rel" "$top"/doc/*.md || missing+=("src/$rel")
done
for f in "$top"/runtime/*.c; do
	name=$(basename "$f")
	named_in_doc "runtime/$name" "$top"/doc/*.md || named_in_doc "$name" "$top/doc/runtime.md" ||
		missing+=("runtime/$name")
done
if [ ${#missing[@]} -eq 0 ]; then
	pass "cli: doc/ names every file of src/ and runtime/"
else
	fail "cli: doc/ names every file of src/ and runtime/ (not named: ${missing[*]})"
fi
