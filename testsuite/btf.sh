# btf.sh - layer 2c: kernel.function, module().function, their target variables, @cast
# and tracepoints from the reference kernel's BTF, as on a machine without its debuginfo
# (STAPLER_NO_DEBUGINFO=1): the BTF comes from the kernel image ./setup caches for the VM,
# unpacked once.
#
#   testsuite/btf/NAME.cmd   stap's arguments after -r REL, one line of shell words;
#                            NAME.out is its standard output, NAME.err (status 1) or
#                            NAME.warn (status 0) its standard error
# Then the properties: -L from BTF gives the types -L from DWARF gives, for every function
# and tracepoint both describe; the image is unpacked once and then read from the cache;
# --btf chooses BTF when the DWARF is there.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! rel=$("$top/testsuite/vm/reference-release" 2>/dev/null); then
	skip "btf: every test (no reference kernel headers; run ./setup)"
	exit 0
fi
image=${STAPLER_CACHE:-/var/cache/stapler}/kernels/$rel/vmlinuz
if [ ! -f "$image" ]; then
	skip "btf: every test (no kernel image $image; ./setup caches it)"
	exit 0
fi
dir=$top/testsuite/btf
work=$WORK/btf
rm -rf "$work"
mkdir -p "$work"
export STAPLER_CACHE_DIR=$work/cache

# the first run unpacks the image, and says where its BTF came from (-v)
out=$(STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" -v -l 'kernel.function("vfs_read")' 2>&1)
if has "^Kernel types from BTF: $image \(unpacked\) \([0-9]+ types, [0-9]+ functions\)$" "$out" &&
   has '^kernel.function\("vfs_read"\)$' "$out" && ls "$work/cache/btf/vmlinux-"* >/dev/null 2>&1; then
	pass "btf: the image's vmlinux is unpacked, its .BTF kept in the cache, and -v says so"
else
	fail "btf: the image's vmlinux is unpacked, its .BTF kept in the cache, and -v says so" "$out"
fi
# a cache file that is not BTF is not trusted: the image is unpacked again
cp "$work/cache/btf/vmlinux-"* "$work/good.btf"
echo garbage >"$(ls "$work/cache/btf/vmlinux-"*)"
out=$(STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" -L 'kernel.function("vfs_read")' 2>&1)
if [ "$out" = 'kernel.function("vfs_read") $file:struct file* $buf:char* $count:size_t $pos:loff_t*' ] &&
   cmp -s "$work/good.btf" "$(ls "$work/cache/btf/vmlinux-"*)"; then
	pass "btf: a damaged cache file is replaced by the image's BTF"
else
	fail "btf: a damaged cache file is replaced by the image's BTF" "$out"
fi

for cmd in "$dir"/*.cmd; do
	name=$(basename "$cmd" .cmd)
	eval "words=($(cat "$cmd"))"
	(cd "$dir" && STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" "${words[@]}") \
		>"$work/$name.out" 2>"$work/$name.err" </dev/null
	status=$?
	if [ "$UPDATE" = 1 ]; then
		cp "$work/$name.out" "$dir/$name.out"
		rm -f "$dir/$name.err" "$dir/$name.warn"
		if [ $status -ne 0 ]; then
			cp "$work/$name.err" "$dir/$name.err"
		elif [ -s "$work/$name.err" ]; then
			cp "$work/$name.err" "$dir/$name.warn"
		fi
		[ -s "$dir/$name.out" ] || rm -f "$dir/$name.out"
	fi
	expected_status=0
	[ -f "$dir/$name.err" ] && expected_status=1
	if [ $status -ne $expected_status ]; then
		fail "btf: $name (status $status, expected $expected_status)" "$(cat "$work/$name.err")"
	elif ! diff -u "$dir/$name.out" "$work/$name.out" >"$work/$name.diff" 2>&1 &&
	     ! { [ ! -f "$dir/$name.out" ] && [ ! -s "$work/$name.out" ]; }; then
		fail "btf: $name (standard output differs)" "$(cat "$work/$name.diff")"
	elif ! diff -u "$dir/$name.err" "$work/$name.err" >"$work/$name.diff" 2>&1 &&
	     ! diff -u "$dir/$name.warn" "$work/$name.err" >"$work/$name.diff" 2>&1 &&
	     ! { [ ! -f "$dir/$name.err" ] && [ ! -f "$dir/$name.warn" ] && [ ! -s "$work/$name.err" ]; }; then
		fail "btf: $name (standard error differs)" "$(cat "$work/$name.diff")"
	else
		pass "btf: $name"
	fi
done

# ---- BTF and DWARF agree ----

# agree KIND PATTERN: for each probe point both -L list, each variable both list has one
# type in both, except for names -l lists with several files (static functions of one
# name: the kernel's kprobe and BTF each have one of them).  Prints "N M" (points and
# variables compared), or the first differences.
agree() {
	local pattern=$1
	"$STAP" -r "$rel" -L "$pattern" >"$work/dwarf.L" 2>/dev/null
	STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" -L "$pattern" >"$work/btf.L" 2>/dev/null
	awk '
	function split_line(line, vars,    parts, n, i, name, k) {
		n = split(line, parts, / \$/)
		point = parts[1]
		sub(/@[^"]*"/, "\"", point)
		for (i = 2; i <= n; i++) {
			k = index(parts[i], ":")
			vars[point, substr(parts[i], 1, k - 1)] = substr(parts[i], k + 1)
		}
		return point
	}
	FNR == 1 { file++ }
	file == 1 {
		p = $0; sub(/ .*/, "", p); q = p; sub(/@[^"]*"/, "\"", q)
		if (q in seen && seen[q] != p) ambiguous[q] = 1
		seen[q] = p
		points[split_line($0, dwarf)] = 1
		next
	}
	{
		point = split_line($0, btf)
		if (!(point in points) || point in ambiguous)
			next
		compared++
		for (key in btf) {
			split(key, kk, SUBSEP)
			if (kk[1] != point || !(key in dwarf))
				continue
			vars++
			if (dwarf[key] != btf[key] && bad++ < 10)
				print point " $" kk[2] ": DWARF " dwarf[key] ", BTF " btf[key]
		}
		delete btf
	}
	END { if (!bad) print compared, vars }' "$work/dwarf.L" "$work/btf.L"
}

for pattern in 'kernel.function("*")' 'kernel.function("vfs_*")' 'kernel.function("tcp_*")' 'kernel.function("*sched*")' \
	       'module("binfmt_misc").function("*")' 'kernel.trace("sched:*")' 'kernel.trace("*")'; do
	out=$(agree "$pattern")
	if [[ $out =~ ^([0-9]+)\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] &&
	   [ "${BASH_REMATCH[2]}" -gt 0 ]; then
		pass "btf: -L $pattern gives DWARF's types ($out points and variables)"
	else
		fail "btf: -L $pattern gives DWARF's types" "$out"
	fi
done

# the calling convention: the first six in registers (rdi, rsi, rdx, rcx, r8, r9: DWARF
# 5 4 1 2 8 9), the others on the stack above the return address
out=$(STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" -p3 -e 'probe kernel.function("ip_append_data") {
	println($sk, $fl4, $getfrag, $from, $length, $transhdrlen, $ipc, $rtp, $flags) }' 2>&1)
regs=$(grep -oE 'u64 _t[0-9]+ = \(u64\)\([^;]*;' <<<"$out" | sed -E 's/.*= \(u64\)//' | tr '\n' ' ')
if [ "$regs" = "(stp_dwarf_register(c, 5)); (stp_dwarf_register(c, 4)); (stp_dwarf_register(c, 1)); (stp_dwarf_register(c, 2)); (stp_dwarf_register(c, 8)); (stp_dwarf_register(c, 9)); ((stp_dwarf_register(c, 7) + 8)); ((stp_dwarf_register(c, 7) + 16)); ((stp_dwarf_register(c, 7) + 24)); " ]; then
	pass "btf: parameters in registers, then on the stack"
else
	fail "btf: parameters in registers, then on the stack" "$regs"
fi

# --btf: BTF even when the DWARF is there
out=$("$STAP" -r "$rel" --btf -p2 -e 'probe kernel.function("vfs_read") { println($count) }' 2>&1)
if has 'pc=vfs_read\+0x0 btf' "$out"; then
	pass "btf: --btf places a function probe by BTF with the DWARF installed"
else
	fail "btf: --btf places a function probe by BTF with the DWARF installed" "$out"
fi
out=$("$STAP" -r "$rel" -p2 -e 'probe kernel.function("vfs_read") { println($count) }' 2>&1)
if has 'pc=_stext\+0x' "$out"; then
	pass "btf: without --btf the DWARF places it"
else
	fail "btf: without --btf the DWARF places it" "$out"
fi

# the running kernel's BTF, from /sys/kernel/btf (when this machine's kernel has it)
if [ -r /sys/kernel/btf/vmlinux ]; then
	out=$("$STAP" -r "$(uname -r)" -v -L 'kernel.function("vfs_read")' 2>&1)
	if has '^Kernel types from BTF: /sys/kernel/btf/vmlinux \(' "$out" &&
	   has '^kernel.function\("vfs_read"\) .*\$count:size_t' "$out"; then
		pass "btf: the running kernel's BTF from /sys/kernel/btf"
	else
		fail "btf: the running kernel's BTF from /sys/kernel/btf" "$out"
	fi
else
	skip "btf: the running kernel's BTF from /sys/kernel/btf (this kernel has none)"
fi

# images compressed otherwise than the reference kernel's lz4: a bzImage made here of the
# reference image's setup code and a vmlinux of only the .BTF section (gzip, xz, zstd)
objcopy --only-section=.BTF "/usr/lib/debug/boot/vmlinux-$rel" "$work/btf-only.elf" 2>/dev/null ||
	fail "btf: objcopy makes a vmlinux of the .BTF section"
setup_bytes=$(( ($(od -An -tu1 -j$((0x1f1)) -N1 "$image") + 1) * 512 ))
for kind in gzip xz zstd; do
	if ! command -v $kind >/dev/null; then
		skip "btf: a $kind-compressed image (no $kind command)"
		continue
	fi
	fake=$work/fake-$kind/kernels/$rel
	mkdir -p "$fake"
	$kind -c "$work/btf-only.elf" >"$work/payload.$kind"
	head -c "$setup_bytes" "$image" >"$fake/vmlinuz"
	# payload_offset 0 and payload_length at 0x248 and 0x24c (little-endian)
	len=$(stat -c %s "$work/payload.$kind")
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o' 0 0 0 0 \
		$((len & 255)) $((len >> 8 & 255)) $((len >> 16 & 255)) $((len >> 24 & 255)))" |
		dd of="$fake/vmlinuz" bs=1 seek=$((0x248)) conv=notrunc status=none
	cat "$work/payload.$kind" >>"$fake/vmlinuz"
	out=$(STAPLER_CACHE=$work/fake-$kind STAPLER_CACHE_DIR=$work/cache-$kind \
	      STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" -v -L 'kernel.function("vfs_read")' 2>&1)
	if has "^Kernel types from BTF: $work/fake-$kind/kernels/$rel/vmlinuz \\(unpacked\\)" "$out" &&
	   has '^kernel.function\("vfs_read"\) .*\$count:size_t' "$out"; then
		pass "btf: a $kind-compressed image is unpacked"
	else
		fail "btf: a $kind-compressed image is unpacked" "$out"
	fi
done

# one type model: the C of target variables through bitfields, enums, unions, arrays,
# nested structs, pretty-printing, $return and @entry is the DWARF build's (the probe
# points' names aside, which have no @file:line from BTF)
script='probe kernel.function("tcp_sendmsg") { println($sk->sk_userlocks, $sk->sk_type,
	$sk->__sk_common->skc_family, $sk->__sk_common->skc_state, $msg->msg_iter->count, $size,
	kernel_string($sk->__sk_common->skc_prot->name), $msg$, $sk->sk_rcvbuf,
	$sk->__sk_common->skc_v6_daddr->in6_u->u6_addr8[3], $sk->sk_peer_pid$$) }
probe kernel.function("tcp_sendmsg").return { println($return, @entry($$parms$)) }'
"$STAP" -r "$rel" -p3 -e "$script" 2>&1 | sed -E 's/@[^"]*\\"/\\"/g' >"$work/dwarf.c"
STAPLER_NO_DEBUGINFO=1 "$STAP" -r "$rel" -p3 -e "$script" 2>&1 >"$work/btf.c"
if [ "$(wc -l <"$work/btf.c")" -gt 100 ] && diff -u "$work/dwarf.c" "$work/btf.c" >"$work/c.diff"; then
	pass "btf: target variables translate to the DWARF build's C"
else
	fail "btf: target variables translate to the DWARF build's C" "$(cat "$work/c.diff")"
fi
