# shellcheck shell=bash
# vmlib.sh - what staprun/stap-vm and testsuite/vm/vm-batch share to boot the disposable
# QEMU guest: the tools it needs, the guest's root folder (busybox, host programs with their
# shared libraries, a sysroot's tree), the initramfs, the qemu command line, and the kernel-log scan.
# Sourced (bash); installed beside stap-vm.  The caller sets vm_prog (for messages) first.

vm_prog=${vm_prog:-stap-vm}

vm_die() {
	# a caller's last word first (stap-vm: a Ctrl-C that came meanwhile is the real reason)
	if declare -F vm_before_die >/dev/null; then vm_before_die; fi
	echo "$vm_prog: $*" >&2
	exit 1
}

# vm_check_tools: qemu, cpio, base64, timeout and a static busybox, with what to install when
# one is missing.  Sets VM_BUSYBOX.
vm_check_tools() {
	local tool c
	command -v qemu-system-x86_64 >/dev/null 2>&1 ||
		vm_die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	for tool in cpio base64 timeout; do
		command -v "$tool" >/dev/null 2>&1 ||
			vm_die "$tool not found (apt-get install cpio coreutils)"
	done
	VM_BUSYBOX=
	for c in /bin/busybox /usr/bin/busybox; do
		if [ -x "$c" ] && "$c" --list-full >/dev/null 2>&1; then
			VM_BUSYBOX=$c
			break
		fi
	done
	[ -n "$VM_BUSYBOX" ] || vm_die "busybox-static not found (apt-get install busybox-static)"
	if ldd "$VM_BUSYBOX" >/dev/null 2>&1; then
		vm_die "$VM_BUSYBOX is dynamically linked; install busybox-static"
	fi
}

# vm_make_root ROOT REL: the skeleton of the guest's root: merged /usr, the usual mount
# points, busybox (its applets are linked by /init with `busybox --install -s`, much faster
# than hundreds of links made here), root's passwd and group entries.
vm_make_root() {
	local root=$1 rel=$2
	mkdir -p "$root"/usr/bin "$root"/usr/sbin "$root"/usr/lib "$root"/usr/lib64 ||
		vm_die "cannot create $root"
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	mkdir -p "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/root \
		"$root"/etc "$root"/run "$root"/mnt "$root/lib/modules/$rel"
	cp "$VM_BUSYBOX" "$root/usr/bin/busybox" || vm_die "cannot copy $VM_BUSYBOX"
	ln -s busybox "$root/usr/bin/sh"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
}

# vm_copy_lib ROOT PATH: a shared library at the same path in the guest.
vm_copy_lib() {
	local root=$1 src=$2
	case "$src" in
	/*) ;;
	*) return 0 ;;
	esac
	[ -e "$root$src" ] && return 0
	mkdir -p "$(dirname "$root$src")"
	cp -L "$src" "$root$src" || vm_die "cannot copy $src"
}

# vm_add_libs ROOT PATH [DIR]: the shared libraries and the loader that ldd reports for the
# ELF file PATH, at their host paths in the guest, except those under the folder DIR (a
# sysroot copied in whole).  Nothing for a static program.
vm_add_libs() {
	local root=$1 b=$2 skip=${3:-} out a rest lib
	out=$(ldd "$b" 2>&1) || return 0
	if printf '%s\n' "$out" | grep -q 'not found'; then
		vm_die "$b: missing shared libraries:" \
			"$(printf '%s\n' "$out" | grep 'not found' | tr -s ' \t' ' ')"
	fi
	while read -r a rest; do
		case "$rest" in
		"=> /"*)
			lib=${rest#=> }
			lib=${lib%% (*}
			;;
		"("*) lib=$a ;;
		*) continue ;;
		esac
		[ -n "$skip" ] && [[ $lib == "$skip"/* ]] && continue
		vm_copy_lib "$root" "$lib"
	done <<<"$out"
}

# vm_add_program ROOT PATH: the host program PATH into the guest's /bin, with the shared
# libraries and the loader that ldd reports (same paths as on the host).
vm_add_program() {
	local root=$1 b=$2 base
	base=${b##*/}
	rm -f "$root/usr/bin/$base"
	cp -L "$b" "$root/usr/bin/$base" || vm_die "cannot copy $b"
	chmod 755 "$root/usr/bin/$base"
	vm_add_libs "$root" "$b"
}

# vm_is_elf FILE: whether FILE begins with the ELF magic (a program or a library).
vm_is_elf() {
	[ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]
}

# vm_add_file ROOT PATH: the host file PATH into the guest at the same path (its mode
# kept), with the shared libraries and the loader ldd reports if it is an ELF program or
# library.  A guest's /bin, /lib... path is under usr/, as the guest's root merges them.
vm_add_file() {
	local root=$1 f=$2 rel
	rel=${f#/}
	case "$rel" in
	bin/* | sbin/* | lib/* | lib64/*) rel=usr/$rel ;;
	tmp/*) rel=.tmp-files/${rel#tmp/} ;; # /init mounts a tmpfs on /tmp, then copies these
	esac
	mkdir -p "$(dirname "$root/$rel")" || vm_die "cannot create the folder of $f in the guest"
	rm -f "$root/$rel"
	cp -L --preserve=mode "$f" "$root/$rel" || vm_die "cannot copy $f into the guest"
	vm_is_elf "$f" && vm_add_libs "$root" "$f"
	return 0
}

# vm_add_sysroot ROOT DIR: the tree of the sysroot DIR into the guest's root at the same
# paths (DIR/usr/bin/x is /usr/bin/x; DIR/bin, sbin, lib and lib64 go to usr/..., as the
# guest's root merges them), symbolic links kept (but not one that would replace a folder of
# the guest's); then, for every ELF file of DIR, the host's shared libraries and loader it
# needs that DIR does not provide (ldd, with DIR's folders that hold libraries in
# LD_LIBRARY_PATH), at their host paths.
vm_add_sysroot() {
	local root=$1 dir f rel libdirs=
	dir=$(cd "$2" 2>/dev/null && pwd) || vm_die "sysroot $2 is not a folder"
	while IFS= read -r -d '' f; do
		rel=${f#./}
		case "$rel" in
		bin | bin/* | sbin | sbin/* | lib | lib/* | lib64 | lib64/*) rel=usr/$rel ;;
		esac
		if [ -d "$dir/$f" ] && [ ! -L "$dir/$f" ]; then
			mkdir -p "$root/$rel" || vm_die "cannot create $root/$rel"
			continue
		fi
		# a link where the guest has a folder (DIR/bin -> usr/bin): the guest's stays
		[ -L "$dir/$f" ] && [ -d "$root/$rel" ] && [ ! -L "$root/$rel" ] && continue
		mkdir -p "$(dirname "$root/$rel")"
		rm -f "$root/$rel"
		cp -P --preserve=mode,timestamps "$dir/$f" "$root/$rel" ||
			vm_die "cannot copy $dir/$f"
	done < <(cd "$dir" && find . -mindepth 1 -print0 | LC_ALL=C sort -z)
	while IFS= read -r f; do
		libdirs+=${libdirs:+:}$dir/${f#./}
	done < <(cd "$dir" && find . \( -name '*.so' -o -name '*.so.*' \) -printf '%h\n' | LC_ALL=C sort -u)
	while IFS= read -r -d '' f; do
		vm_is_elf "$f" || continue
		LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} vm_add_libs "$root" "$f" "$dir"
	done < <(find "$dir" -type f -print0 | LC_ALL=C sort -z)
}

# vm_add_kernel_modules ROOT MODULES_DIR NAME...: the modules NAME of a kernel's image
# package (MODULES_DIR: kernel-image's modules folder of the release) and those they depend
# on, into ROOT's /lib/modules/stapler/ as plain .ko files (6.12's package compresses them:
# the guest's insmod takes them plain), with /lib/modules/stapler/order listing them
# dependencies first for /init to insmod.  One built into the kernel (modules.builtin)
# needs nothing; one the package does not have is left out.
vm_add_kernel_modules() {
	local root=$1 dir=$2 m
	shift 2
	mkdir -p "$root/lib/modules/stapler" || vm_die "cannot create $root/lib/modules/stapler"
	touch "$root/lib/modules/stapler/order"
	for m in "$@"; do
		vm_add_kernel_module "$root" "$dir" "$m"
	done
}

vm_add_kernel_module() {
	local root=$1 dir=$2 m=$3 ko dep
	grep -qx "$m" "$root/lib/modules/stapler/order" && return 0
	grep -q "/$m\.ko\(\.xz\)\?$" "$dir/modules.builtin" 2>/dev/null && return 0
	ko=$(find "$dir" \( -name "$m.ko" -o -name "$m.ko.xz" \) -print -quit 2>/dev/null)
	[ -n "$ko" ] || return 0
	for dep in $(modinfo -F depends "$ko" 2>/dev/null | tr ',' ' '); do
		vm_add_kernel_module "$root" "$dir" "$dep"
	done
	case "$ko" in
	*.xz) xz -dc "$ko" >"$root/lib/modules/stapler/$m.ko" || vm_die "cannot unpack $ko" ;;
	*) cp "$ko" "$root/lib/modules/stapler/$m.ko" || vm_die "cannot copy $ko" ;;
	esac
	echo "$m" >>"$root/lib/modules/stapler/order"
}

# vm_init_prologue: the start of every guest /init: PATH, busybox's applets, the pseudo
# file systems (debugfs for the transport, tracefs), /tmp; init's own output goes to the
# kernel console (ttyS0).
vm_init_prologue() {
	cat <<'EOF'
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LC_ALL=C
/usr/bin/busybox --install -s 2>/dev/null # keeps programs copied into /bin
umask 022
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/null >/dev/ttyS0 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
# files the host put under /tmp (vm_add_file) wait in /.tmp-files until /tmp is mounted
if [ -d /.tmp-files ]; then cp -a /.tmp-files/. /tmp/ && rm -rf /.tmp-files; fi
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hostname stapler-vm
modlist() { while read -r m rest; do echo "$m"; done </proc/modules; }
EOF
}

# vm_make_disk FILE: a 64 MiB ext4 file system in FILE (sparse), for the guest's /mnt/disk
# (the caller attaches it and makes the guest's /etc/stapler-disk, which /init waits for);
# fails quietly when mkfs.ext4 (e2fsprogs) is missing.
vm_make_disk() {
	command -v mkfs.ext4 >/dev/null 2>&1 || return 1
	rm -f "$1"
	truncate -s 64M "$1" && mkfs.ext4 -q -F -L stapler-disk "$1" >/dev/null 2>&1
}

# vm_init_devices: the part of a guest /init (after vm_init_prologue) that loads the kernel
# modules vm_add_kernel_modules put in, mounts the virtio disk (the first one, /dev/vda) at
# /mnt/disk, and makes a network to trace: a veth pair whose end veth0 (192.0.2.1/24) is
# here and whose other end, eth0 (192.0.2.2/24), is in a second network namespace held by a
# process whose pid is in /run/peer.pid; `peer CMD` runs CMD there.  192.0.2.0/24 is
# TEST-NET-1, and no interface leads out of the guest.  What fails is said in the kernel log.
vm_init_devices() {
	cat <<'EOF'
if [ -f /lib/modules/stapler/order ]; then
	while read -r m; do
		insmod "/lib/modules/stapler/$m.ko" 2>/dev/null ||
			echo "stapler-vm: cannot load the module $m" >/dev/kmsg
	done </lib/modules/stapler/order
fi
i=0
while [ -f /etc/stapler-disk ] && [ ! -b /dev/vda ] && [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -f /etc/stapler-disk ]; then
	mkdir -p /mnt/disk
	mount -t ext4 /dev/vda /mnt/disk ||
		echo "stapler-vm: cannot mount /dev/vda at /mnt/disk" >/dev/kmsg
fi
ip link set lo up
if ip link add stapvm_peer type veth 2>/dev/null; then
	# the namespace's holder says when it is in it (a subshell reads: this shell is PID 1,
	# whose SIGCHLD handler would cut a wait short)
	mkfifo /run/peer.ready
	unshare -n sh -c 'echo >/run/peer.ready; exec sleep 2147483647' </dev/null >/dev/null 2>&1 &
	echo $! >/run/peer.pid
	(read -r _ </run/peer.ready)
	rm -f /run/peer.ready
	printf '#!/bin/sh\nexec nsenter -t "$(cat /run/peer.pid)" -n "$@"\n' >/usr/bin/peer
	chmod 755 /usr/bin/peer
	{
		ip link set stapvm_peer netns "$(cat /run/peer.pid)" &&
			peer sh -c 'ip link set stapvm_peer name eth0 && ip link set lo up &&
				ip addr add 192.0.2.2/24 dev eth0 && ip link set eth0 up' &&
			ip addr add 192.0.2.1/24 dev veth0 &&
			ip link set veth0 up
	} >/dev/null 2>&1 || echo "stapler-vm: cannot set up the veth pair" >/dev/kmsg
fi
EOF
}

# vm_make_initrd ROOT OUT [ARCHIVE]: the initramfs (newc cpio, owned by root), after the
# cpio ARCHIVE if given (vm_userland_archive's): the kernel unpacks archives laid end to end
# in turn, a later file replacing an earlier one, so ROOT's files (the caller's programs)
# win.  Not compressed: the guest unpacks it faster than it would run gunzip under
# emulation, and it is only read once.
vm_make_initrd() {
	local root=$1 out=$2 first=${3:-}
	{
		if [ -n "$first" ]; then cat "$first"; fi &&
			(cd "$root" && find . -print0 | LC_ALL=C sort -z |
				cpio --null -o -H newc -R 0:0 --quiet)
	} >"$out" || vm_die "cannot build the initramfs"
}

# The host's packages whose programs make the guest's userland next to busybox: Debian's
# shell (dash, as /bin/sh) and bash, the GNU tools, and what the examples' workloads call.
# A package the host does not have is left out.
VM_USERLAND_PACKAGES=(dash bash coreutils grep sed findutils gzip diffutils mawk
	strace psmisc)

# vm_userland_archive CACHE: prints the path of a cpio archive of the guest's userland: the
# programs of VM_USERLAND_PACKAGES (their /bin, /sbin, /usr/bin, /usr/sbin files as the host
# has them, with their shared libraries and the loader, at their host paths under usr/),
# and /usr/bin/awk (the host's awk).  A program named after a busybox applet stands where
# the applet's link would (`busybox --install -s` keeps what is there), and dash, which has
# no applets, runs each command it is given from PATH: with /usr/bin/sh leading to dash (the
# caller's root makes that link, its archive coming last), the -c command and every
# script's `sh` get the GNU tools, as on a Debian machine, while /init, which names
# busybox's sh, goes on with the applets.  Made once per set of installed versions
# (dpkg-query), kept in CACHE/userland/; prints nothing (status 1) on a host without
# dpkg-query or dash.
vm_userland_archive() {
	local cache=$1 versions key dir out tmp pkg f link
	command -v dpkg-query >/dev/null 2>&1 || return 1
	versions=$(dpkg-query -W -f '${db:Status-Abbrev}${Package} ${Version}\n' \
		"${VM_USERLAND_PACKAGES[@]}" 2>/dev/null | sed -n 's/^ii *//p')
	printf '%s\n' "$versions" | grep -q '^dash ' || return 1
	key=$(printf '%s\n%s\n' "${VM_USERLAND_PACKAGES[*]}" "$versions" | sha256sum | cut -c1-16)
	dir=$cache/userland
	out=$dir/$key.cpio
	if [ -s "$out" ]; then
		printf '%s\n' "$out"
		return 0
	fi
	mkdir -p "$dir" 2>/dev/null || return 1
	tmp=$(mktemp -d "$dir/.new.XXXXXX") || return 1
	(
		set -e
		mkdir -p "$tmp/root/usr/bin" "$tmp/root/usr/sbin" "$tmp/root/usr/lib" "$tmp/root/usr/lib64"
		ln -s usr/bin "$tmp/root/bin"
		ln -s usr/sbin "$tmp/root/sbin"
		ln -s usr/lib "$tmp/root/lib"
		ln -s usr/lib64 "$tmp/root/lib64"
		for pkg in $(printf '%s\n' "$versions" | cut -d' ' -f1); do
			dpkg-query -L "$pkg" 2>/dev/null
		done | grep -E '^/(usr/)?s?bin/[^/]+$' | LC_ALL=C sort -u >"$tmp/list"
		while IFS= read -r f; do
			[ -f "$f" ] && [ -x "$f" ] || continue
			# a link to a program of the list beside it stays a link (rbash -> bash)
			link=$(readlink "$f" 2>/dev/null) || link=
			if [ -n "$link" ] && [[ $link != */* ]] && grep -qx "${f%/*}/$link" "$tmp/list"; then
				f=${f#/}
				ln -sf "$link" "$tmp/root/usr/${f#usr/}"
			else
				vm_add_file "$tmp/root" "$f"
			fi
		done <"$tmp/list"
		if f=$(command -v awk) && [ ! -e "$tmp/root/usr/bin/awk" ]; then
			cp -L "$f" "$tmp/root/usr/bin/awk"
			vm_add_libs "$tmp/root" "$f"
		fi
		(cd "$tmp/root" && find ./usr -print0 | LC_ALL=C sort -z |
			cpio --null -o -H newc -R 0:0 --quiet) >"$tmp/archive"
	) 2>"$tmp/err" && [ -s "$tmp/archive" ] && mv "$tmp/archive" "$out"
	rm -rf -- "$tmp"
	[ -s "$out" ] || return 1
	printf '%s\n' "$out"
}

# vm_host_tsc_khz: the rate of the host's time stamp counter in kHz, which is the guest's
# too (qemu's software emulation reads the host's TSC for the guest's rdtsc): what the
# host's kernel measured at boot if its log still says, else /proc/cpuinfo's clock.
vm_host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n -E -e 's/.*tsc: Refined TSC clocksource calibration: ([0-9]+(\.[0-9]+)?) MHz.*/\1/p' \
		-e 's/.*tsc: Detected ([0-9]+(\.[0-9]+)?) MHz processor.*/\1/p' | tail -n 1)
	[ -n "$mhz" ] || mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	awk -v mhz="${mhz:-0}" 'BEGIN { printf "%d\n", mhz * 1000 }'
}

# vm_qemu_command VMLINUZ INITRD: sets the array VM_QEMU to the qemu command that boots the
# guest (software emulation: KVM does not work on the machines this targets).  The caller
# appends the serial ports; the first one is the kernel console.
# One emulation thread runs both vCPUs in turn (thread=single): with one thread per vCPU,
# qemu 7.2 (Debian 12's) can keep a translation of kernel text that the other vCPU has just
# patched (text_poke_bp: kprobes, jump labels, static calls), and the guest calls a torn
# instruction or loops for ever on an int3 that is gone (doc/testing.md, harness test
# code_patching).  Taking turns breaks the second vCPU's boot-time delay calibration
# (udelay would wait about 1/2500 of its time there), so the loops per jiffy are given:
# lpj=, the TSC ticks per jiffy of the kernel's HZ.
vm_qemu_command() {
	local hz khz lpj=
	hz=$(sed -n 's/^CONFIG_HZ=\([0-9][0-9]*\)$/\1/p' "$(dirname "$1")/config" 2>/dev/null)
	khz=$(vm_host_tsc_khz)
	[ "${khz:-0}" -gt 0 ] && lpj=$((khz * 1000 / ${hz:-250}))
	VM_QEMU=(qemu-system-x86_64
		-accel "tcg,thread=${STAPLER_VM_TCG_THREAD:-single}" -cpu max -smp 2 -m 1024
		-nodefaults -display none -monitor none -no-reboot -net none
		-kernel "$1" -initrd "$2"
		-append "console=ttyS0 panic=-1 printk.devkmsg=on log_buf_len=4M${lpj:+ lpj=$lpj}")
}

# vm_scan_klog FILE: one line per kind of kernel problem found in the kernel log FILE.
# Each problem: its name, then `grep -q` options (maybe none) and pattern.  A BUG line that is a lockup
# report counts as that lockup only.
vm_klog_problems=(
	"kernel WARNING|-E|WARNING:|-----------\[ cut here \]"
	"kernel oops|-E|Oops[:#]|Oops: "
	"general protection fault||general protection"
	"kernel panic|-iE|Kernel panic"
	"soft lockup|-i|soft lockup"
	"hard lockup|-iE|hard lockup|NMI watchdog: Watchdog detected hard"
	"RCU stall|-iE|rcu.*(self-)?detected (expedited )?stall|RCU stall"
	"hung task|-E|blocked for more than [0-9]+ seconds"
	"sanitizer report|-E|UBSAN:|KASAN:|KFENCE:"
)
vm_scan_klog() {
	local f=$1 found=0 entry name opts pattern
	for entry in "${vm_klog_problems[@]}"; do
		name=${entry%%|*}
		entry=${entry#*|}
		opts=${entry%%|*}
		pattern=${entry#*|}
		if grep -q ${opts:+"$opts"} -e "$pattern" "$f"; then
			echo "$name"
			found=1
		fi
		if [ "$name" = "kernel WARNING" ] &&
			grep -E 'BUG:|kernel BUG at' "$f" | grep -qvE 'soft lockup|hard LOCKUP'; then
			echo "kernel BUG"
			found=1
		fi
	done
	if [ $found = 0 ] && grep -q 'Call Trace' "$f"; then
		echo "call trace in kernel log"
	fi
}

# vm_klog_excerpt FILE [MAX]: the lines of FILE that show the problems vm_scan_klog finds,
# each with the few lines that follow it (the call trace), at most MAX lines (default 40).
vm_klog_excerpt() {
	local f=$1 max=${2:-40} re
	re='WARNING:|\[ cut here \]|BUG:|kernel BUG at|Oops|general protection|Kernel panic'
	re+='|soft lockup|hard lockup|hard LOCKUP|Watchdog detected|detected (expedited )?stall'
	re+='|RCU stall|blocked for more than|UBSAN:|KASAN:|KFENCE:|Call Trace'
	grep -E -A 8 "$re" "$f" | head -n "$max"
}

# The taint flags of /proc/sys/kernel/tainted, bit by bit.
VM_TAINT_LETTERS=(P F S R M B U D A W C I O E L K X T)

# vm_new_taint BEFORE AFTER: one line "tainted: X" per taint flag that AFTER has and BEFORE
# had not, leaving out O and E (an out-of-tree, unsigned module: every stapler module).
vm_new_taint() {
	local before=$1 after=$2 new bit
	case "$before$after" in
	'' | *[!0-9]*) return 0 ;;
	esac
	new=$((after & ~before & ~(4096 | 8192)))
	for bit in "${!VM_TAINT_LETTERS[@]}"; do
		if [ $((new & (1 << bit))) != 0 ]; then
			echo "tainted: ${VM_TAINT_LETTERS[$bit]}"
			new=$((new & ~(1 << bit)))
		fi
	done
	[ "$new" = 0 ] || echo "tainted: bits $new"
}
