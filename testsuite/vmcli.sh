# vmcli.sh - `stap --vm` (staprun/stap-vm) end to end: each test is one boot of the reference
# VM, so there are few: output streamed while the script runs, Ctrl-C reaching the end probes,
# exit status and standard error of a failing script, -o copied back and -c run in the guest
# (and the report whole while the command's processes end), the disk and network to trace,
# a program of --sysroot probed there, and one at a host path without it,
# a kernel WARNING and a leftover module reported; and stap-vm's refusals, which need no boot.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

vm=$top/testsuite/vm
STAPVM=$top/staprun/stap-vm
if ! rel=$("$vm/reference-release" 2>/dev/null); then
	skip "vmcli: every test (no reference kernel headers; run ./setup)"
	exit 0
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "vmcli: every test (qemu-system-x86_64 is not installed; run ./setup)"
	exit 0
fi
work=$WORK/vmcli
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
LIMIT=120 # seconds for one run, boot included

# A release whose image the archive does not have: kernel-image says so and names the
# releases it has (apt-cache; no download is tried).
out=$("$top/testsuite/vm/kernel-image" 6.9.9-nosuch-amd64 2>&1)
status=$?
if [ $status = 1 ] && grep -q "linux-image-6.9.9-nosuch-amd64 failed: no such package" <<<"$out" &&
	grep -q "releases there: .*$(uname -m | sed 's/x86_64/amd64/')" <<<"$out"; then
	pass "vmcli: an image the archive does not have is named, with the releases it has"
else
	fail "vmcli: an image the archive does not have is named, with the releases it has" "$out"
fi

# Job control: each background job is a process group of its own, like a terminal's
# foreground job (a signal to the group is a Ctrl-C), and does not start with SIGINT ignored.
set -m

# start_vm NAME ARGS...: `stap --vm ARGS` in the background; NAME.out and NAME.err collect
# its output.  Sets vm_pid (also its process group).
start_vm() {
	local name=$1
	shift
	"$STAP" --vm "$@" >"$name.out" 2>"$name.err" </dev/null &
	vm_pid=$!
}

# finish_vm: waits for vm_pid (killing its group after LIMIT s); sets vm_status.
finish_vm() {
	wait_job "$vm_pid" "$LIMIT"
	vm_status=$job_status
}

# run_vm NAME ARGS...: start_vm and finish_vm.
run_vm() {
	start_vm "$@"
	finish_vm
}

details() {
	printf '%s\n' "status $vm_status" "stdout:" "$(cat "$1.out")" "stderr:" "$(cat "$1.err")"
}

# ---- output arrives while the script runs; SIGINT runs the end probes ----
cat >sigint.stp <<'STP'
global ticks
probe begin { println("running") }
probe timer.ms(50) { ticks++ }
probe end { println(ticks > 0 ? "end probe ran, ticks counted" : "end probe ran, no ticks") }
STP
start_vm sigint sigint.stp
seen=0
for ((i = 0; i < LIMIT * 10; i++)); do
	grep -qx running sigint.out 2>/dev/null && { seen=1; break; }
	kill -0 "$vm_pid" 2>/dev/null || break
	sleep 0.1
done
if [ $seen = 1 ] && kill -0 "$vm_pid" 2>/dev/null; then
	pass "vmcli: output streams to the terminal while the script runs"
	sleep 1
	kill -INT -- -"$vm_pid"
else
	fail "vmcli: output streams to the terminal while the script runs" \
		"$(cat sigint.out sigint.err)"
fi
finish_vm
if [ "$vm_status" = 0 ] &&
	[ "$(cat sigint.out)" = "$(printf 'running\nend probe ran, ticks counted')" ] &&
	! grep -q . sigint.err; then
	pass "vmcli: Ctrl-C (SIGINT) reaches the script in the guest: end probe output, status 0"
else
	fail "vmcli: Ctrl-C (SIGINT) reaches the script in the guest" "$(details sigint)"
fi

# ---- a failing script: its status, its errors on standard error only ----
cat >failing.stp <<'STP'
probe begin { println("before the error"); error("deliberate failure") }
STP
# built by -p4 first: the run (its module named stap_HASH_PID, -p4's stap_HASH) uses it
p4=$("$STAP" -p4 failing.stp 2>&1)
run_vm failing --vp 0001 failing.stp
if [ "$vm_status" = 1 ] && [ "$(cat failing.out)" = "before the error" ] &&
	grep -q '^ERROR: deliberate failure' failing.err &&
	! grep -q 'before the error' failing.err; then
	pass "vmcli: a failing script exits 1, its errors on stderr, its output on stdout"
else
	fail "vmcli: a failing script exits 1, its errors on stderr, its output on stdout" \
		"$(details failing)"
fi
if grep -q '^Pass 4: using cached ' failing.err; then
	pass "vmcli: a --vm run uses the module stap -p4 built for the same script"
else
	fail "vmcli: a --vm run uses the module stap -p4 built for the same script" \
		"stap -p4: $p4" "$(details failing)"
fi

# ---- -o FILE written in the guest comes back; -c CMD runs there ----
# Only the files -o FILE makes come back, not what else the command writes beside them.
cat >outfile.stp <<'STP'
probe begin { printf("target set: %s\n", target() ? "yes" : "no") }
probe end { println("end") }
STP
mkdir -p results
command='echo from the command in $(uname -r); echo planted >/run/out/.bashrc; echo planted >/run/out/other.txt'
run_vm outfile -o results/out.txt -c "$command" outfile.stp
if [ "$vm_status" = 0 ] && [ "$(cat outfile.out)" = "from the command in $rel" ] &&
	[ "$(cat results/out.txt 2>/dev/null)" = "$(printf 'target set: yes\nend')" ]; then
	pass "vmcli: -o FILE is copied back from the guest, -c CMD runs in the guest"
else
	fail "vmcli: -o FILE is copied back from the guest, -c CMD runs in the guest" \
		"$(details outfile)" "results/out.txt:" "$(cat results/out.txt 2>&1)"
fi
if [ "$(ls -A results)" = out.txt ] && grep -q 'ignoring a file .* does not make: \.bashrc' outfile.err &&
	grep -q 'does not make: other\.txt' outfile.err; then
	pass "vmcli: only the files -o FILE makes are copied back, not a planted .bashrc"
else
	fail "vmcli: only the files -o FILE makes are copied back, not a planted .bashrc" \
		"results: $(ls -A results)" "$(details outfile)"
fi

# ---- the report arrives whole while processes of the -c command end ----
# The command leaves behind one long write of empty lines to the report's port (the host
# ignores them) and processes that end (as children of the guest's /init, PID 1) while
# /init waits to send the report: /init's own writes would fail with EINTR and lose a line.
cat >busy.stp <<'STP'
probe begin { println("begin") }
probe end { println("end") }
STP
command='head -c 900000 /dev/zero | tr "\0" "\n" >/run/nl
setsid dd if=/run/nl of=/dev/ttyS3 bs=900000 count=1 </dev/null >/dev/null 2>&1 &
for t in 0.3 0.6 0.9 1.2 1.5 1.8 2.1 2.4 2.7 3.0 3.3; do
	setsid sleep $t </dev/null >/dev/null 2>&1 &
done
echo command done'
run_vm busy -o results/busy.txt -c "$command" busy.stp
if [ "$vm_status" = 0 ] && [ "$(cat busy.out)" = "command done" ] && ! grep -q . busy.err &&
	[ "$(cat results/busy.txt 2>/dev/null)" = "$(printf 'begin\nend')" ]; then
	pass "vmcli: the report and -o FILE arrive whole while the command's processes end and the port is busy"
else
	fail "vmcli: the report and -o FILE arrive whole while the command's processes end and the port is busy" \
		"$(details busy)" "results/busy.txt:" "$(cat results/busy.txt 2>&1)"
fi

# ---- something to trace: a disk at /mnt/disk and a network in the guest ----
cat >devices.stp <<'STP'
global writes, tx, rx
probe ioblock.request { if (devname == "vda" && rw == BIO_WRITE) writes++ }
probe netdev.transmit { if (dev_name == "veth0") tx++ }
probe netdev.receive { if (dev_name == "veth0") rx++ }
probe end { printf("vda writes %d, veth0 sent %d, received %d\n", writes > 0, tx > 0, rx > 0) }
STP
command='grep -q "^/dev/vda /mnt/disk ext4 " /proc/mounts && echo "ext4 at /mnt/disk"
dd if=/dev/zero of=/mnt/disk/file bs=4k count=64 conv=fsync 2>/dev/null
ping -c 3 192.0.2.2 | grep -o "3 packets received"
peer ip -o -4 addr show eth0 | grep -o "inet 192.0.2.2/24"'
run_vm devices -c "$command" devices.stp
if [ "$vm_status" = 0 ] && [ "$(cat devices.out)" = "$(printf '%s\n' "ext4 at /mnt/disk" \
	"3 packets received" "inet 192.0.2.2/24" "vda writes 1, veth0 sent 1, received 1")" ]; then
	pass "vmcli: ioblock and netdev probes see the guest's disk (/mnt/disk) and its veth pair"
else
	fail "vmcli: ioblock and netdev probes see the guest's disk (/mnt/disk) and its veth pair" \
		"$(details devices)"
fi

# ---- the guest's userland: Debian's sh (dash) and the GNU tools before busybox's applets ----
# GNU cat reads with read(2), which vfs.read sees (busybox's cat sends the file with
# sendfile); the -c command's pipes and lists run in dash, and bash and strace are there.
cat >userland.stp <<'STP'
global reads
probe vfs.read.return { if (execname() == "cat" && bytes_read > 0) reads++ }
probe end { printf("cat read %s\n", reads > 0 ? "through vfs_read" : "nothing") }
STP
command='readlink /bin/sh; cat --version | grep -c "GNU coreutils"; cat /etc/passwd >/dev/null
find /mnt/disk -maxdepth 0 -printf "%p %y\n"; bash -c '"'"'echo "bash ${BASH_VERSINFO[0]}"'"'"' | cut -c1-4
strace -f -qq -e trace=execve -o /tmp/trace sh -c "ls /" >/dev/null && grep -c execve /tmp/trace'
run_vm userland -c "$command" userland.stp
if [ "$vm_status" = 0 ] && [ "$(cat userland.out)" = "$(printf '%s\n' dash 1 "/mnt/disk d" bash \
	2 "cat read through vfs_read")" ]; then
	pass "vmcli: the guest's -c command runs in dash with GNU cat, find, bash and strace"
else
	fail "vmcli: the guest's -c command runs in dash with GNU cat, find, bash and strace" \
		"$(details userland)"
fi

# expect_adds NAME FILE LINE WHAT: the run NAME ended with status 0, its -o FILE holds the
# probe's two lines "add 1 10", "add 2 20", and the program printed LINE
expect_adds() {
	if [ "$vm_status" = 0 ] && [ "$(cat "$2" 2>/dev/null)" = "$(printf 'add 1 10\nadd 2 20')" ] &&
		grep -qx "$3" "$1.out"; then
		pass "vmcli: $4"
	else
		fail "vmcli: $4" "$(details "$1")" "$(cat "$2" 2>/dev/null)"
	fi
}

# ---- --sysroot: the programs a script probes are in the guest at their paths ----
if "$top/testsuite/uprograms/build" "$work/sysroot" >sysroot.log 2>&1; then
	cat >uprobe.stp <<'STP'
probe process("/usr/bin/uprog").function("add") { printf("add %d %d\n", $a, $b) }
STP
	run_vm uprobe --sysroot="$work/sysroot" -o add.txt -c '/usr/bin/uprog 2' uprobe.stp
	expect_adds uprobe add.txt 'add 33, area 10, chain 27, twice 6' \
		"--sysroot DIR: a program of DIR is probed in the guest at its path"
else
	fail "vmcli: the user-space test programs build" "$(cat sysroot.log)"
fi

# ---- a kernel WARNING in the guest is reported and fails the run ----
# The -c command, which runs after it, cannot read the report's token or hide the
# WARNING with a begin marker of its own in the kernel log.
cat >warning.stp <<'STP'
function warn_now() %{ WARN(1, "stapler vmcli test warning"); %}
probe begin { println("warning now"); warn_now() }
STP
run_vm warning -g -c 'sh -c "cat /stapvm.conf 2>/dev/null; echo stap-vm: begin >/dev/kmsg"' \
	warning.stp
if [ "$vm_status" = 1 ] && [ "$(cat warning.out)" = "warning now" ] &&
	grep -q "^WARNING: the guest's kernel log shows: kernel WARNING" warning.err &&
	grep -q 'stapler vmcli test warning' warning.err; then
	pass "vmcli: a kernel WARNING in the guest is shown and fails the run, whatever a workload forges"
else
	fail "vmcli: a kernel WARNING in the guest is shown and fails the run, whatever a workload forges" \
		"$(details warning)"
fi

# ---- a module left loaded in the guest is reported and fails the run ----
# (the -c command loads a second, renamed copy of the module and detaches from it)
cat >vmcli_leftover.stp <<'STP'
probe begin { println("loaded") }
STP
run_vm leftover -m vmcli_leftover -c 'staprun -L -R /stapvm/vmcli_leftover.ko' vmcli_leftover.stp
if [ "$vm_status" = 1 ] && [ "$(cat leftover.out)" = "$(printf 'loaded\nloaded')" ] &&
	grep -Eq '^WARNING: the module vmcli_left\w* was still loaded after staprun ended' \
		leftover.err; then
	pass "vmcli: a module left loaded in the guest is reported and fails the run"
else
	fail "vmcli: a module left loaded in the guest is reported and fails the run" \
		"$(details leftover)"
fi

# ---- without --sysroot: the program a script probes, and -c's, go to the guest ----
# (at their host path, with their shared libraries: stap --vm gives stap-vm --file PATH)
mkdir -p hostprog
cat >hostprog/hello.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int add(int a, int b) { return a + b; }
int main(void)
{
	int sum = 0;

	for (int i = 1; i <= 2; i++)
		sum += add(i, 10 * i);
	printf("sum %d\n", sum);
	return 0;
}
C
if gcc -g -O0 -o hostprog/hello hostprog/hello.c 2>hostprog.log; then
	cat >hostprog.stp <<STP
probe process("$work/hostprog/hello").function("add") { printf("add %d %d\n", \$a, \$b) }
STP
	run_vm hostprog -o hostprog.txt -c "$work/hostprog/hello" hostprog.stp
	expect_adds hostprog hostprog.txt 'sum 33' \
		"a program at a host path is probed in the guest without --sysroot"
else
	fail "vmcli: the host program builds" "$(cat hostprog.log)"
fi

# ---- stap-vm on its own: refusals, and Ctrl-C before the guest ran the script ----
if "$STAP" -p4 -r "$rel" -m vmcli_hello -e 'probe begin { println("hello") exit() }' \
	>/dev/null 2>build.err; then
	out=$("$STAPVM" --rel "$rel" -- -L vmcli_hello.ko 2>&1)
	st=$?
	if [ $st = 1 ] && grep -q 'staprun -L (detach) cannot work here' <<<"$out"; then
		pass "vmcli: stap-vm refuses to detach (-L)"
	else
		fail "vmcli: stap-vm refuses to detach (-L) (status $st)" "$out"
	fi
	out=$("$STAPVM" --rel "$rel" --file "$work/no-such-program" -- vmcli_hello.ko 2>&1)
	st=$?
	if [ $st = 1 ] && grep -q "no-such-program: no such file here, so the guest cannot have it" <<<"$out"; then
		pass "vmcli: stap-vm --file of a missing file says so (and names --sysroot)"
	else
		fail "vmcli: stap-vm --file of a missing file says so (status $st)" "$out"
	fi
	out=$("$STAPVM" --rel "$rel" --file /bin/sh -- vmcli_hello.ko 2>&1)
	st=$?
	if [ $st = 1 ] && grep -q -- "--file /bin/sh would replace the guest's own /bin/sh" <<<"$out"; then
		pass "vmcli: stap-vm --file does not replace the guest's own shell"
	else
		fail "vmcli: stap-vm --file does not replace the guest's own shell (status $st)" "$out"
	fi
	# the progress line while the guest boots, on a terminal (script's pseudo-terminal);
	# erased before the script's output
	out=$(STAPLER_PROGRESS_AFTER=0 script -qec "'$STAPVM' --rel '$rel' -- vmcli_hello.ko" \
		/dev/null 2>&1 </dev/null)
	st=$?
	if [ $st = 0 ] && grep -Eq $'\rstap-vm: booting [^ ]+ \\([0-9]+s\\)\e\\[K.*\r\e\\[K.*hello' <<<"$out"
	then
		pass "vmcli: on a terminal, a progress line while the guest boots, erased before the output"
	else
		fail "vmcli: on a terminal, a progress line while the guest boots (status $st)" \
			"$(od -c <<<"$out" | head -20)"
	fi
	# stap-vm's work folder under a TMPDIR with a comma (qemu's -chardev needs it doubled;
	# kbuild cannot build there, so this is stap-vm alone)
	mkdir -p "tmp,dir" comma
	TMPDIR=$work/tmp,dir "$STAPVM" --rel "$rel" -- -o comma/hello.txt vmcli_hello.ko \
		>comma.out 2>comma.err </dev/null
	st=$?
	if [ $st = 0 ] && [ "$(cat comma/hello.txt 2>&1)" = hello ]; then
		pass "vmcli: stap-vm works under a TMPDIR with a comma"
	else
		fail "vmcli: stap-vm works under a TMPDIR with a comma (status $st)" \
			"$(cat comma.out comma.err)" "comma/hello.txt: $(cat comma/hello.txt 2>&1)"
	fi
	# the boot limit is a number, never arithmetic that runs a command
	out=$(STAPLER_VM_BOOT_TIMEOUT="x[\$(touch $work/ran)]" "$STAPVM" --rel "$rel" -- \
		vmcli_hello.ko 2>&1)
	st=$?
	if [ $st = 1 ] && [ ! -e "$work/ran" ] &&
		grep -q "STAPLER_VM_BOOT_TIMEOUT must be a positive number of seconds, not 'x\[" <<<"$out"; then
		pass "vmcli: stap-vm refuses a STAPLER_VM_BOOT_TIMEOUT that is not a number"
	else
		fail "vmcli: stap-vm refuses a STAPLER_VM_BOOT_TIMEOUT that is not a number (status $st)" \
			"$out" "$(ls "$work/ran" 2>&1)"
	fi
	mkdir -p nobin
	for f in /usr/bin/* /bin/*; do
		case "${f##*/}" in
		qemu-system-*) ;;
		*) [ -e "nobin/${f##*/}" ] || ln -s "$f" "nobin/${f##*/}" ;;
		esac
	done
	out=$(PATH=$work/nobin "$STAPVM" --rel "$rel" -- vmcli_hello.ko 2>&1)
	st=$?
	missing='qemu-system-x86_64 not found (apt-get install qemu-system-x86)'
	if [ $st = 1 ] && grep -qF "$missing" <<<"$out"; then
		pass "vmcli: stap-vm says what to install when qemu is missing"
	else
		fail "vmcli: stap-vm says what to install when qemu is missing (status $st)" "$out"
	fi
	# (SIGINT as a terminal leaves it: a suite started in the background has it ignored,
	# and a shell cannot trap a signal ignored when it started)
	env --default-signal=INT "$STAPVM" --rel "$rel" -- vmcli_hello.ko >early.out \
		2>early.err </dev/null &
	vm_pid=$!
	sleep 0.5
	kill -INT -- -"$vm_pid"
	start=$(date +%s)
	finish_vm
	if [ "$vm_status" = 130 ] && [ $(($(date +%s) - start)) -lt 10 ] &&
		grep -q 'SIGINT before the script started: stopped the guest' early.err; then
		pass "vmcli: Ctrl-C before the script started stops the guest at once (status 130)"
	else
		fail "vmcli: Ctrl-C before the script started stops the guest at once" \
			"$(details early)"
	fi
else
	fail "vmcli: stap -p4 of a hello module" "$(cat build.err)"
fi
