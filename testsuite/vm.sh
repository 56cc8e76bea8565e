# vm.sh - layers 3 and 4: modules built with pass 4 against the reference kernel (compiler
# warnings are errors), then run in ONE boot of the reference VM together with the tests of
# the harness itself.
#
# testsuite/run/NAME.stp   a script; the module is built with stap -p4 -m NAME
#   NAME.out              its expected standard output in the guest
#   NAME.err              its expected standard error (default: none)
#   NAME.status           its expected exit status (default: 0)
#   NAME.opts             more stap options (e.g. -g, -DMAXACTION=5); the word @SYSROOT@
#                         is the sysroot of the user-space programs (--sysroot=@SYSROOT@,
#                         then process("/usr/bin/uprog") is its uprog)
#   NAME.job              the guest's commands instead of "staprun NAME.ko"
#   NAME.timeout          the job's limit in seconds (default 30)
#   NAME.env              VAR=VALUE words for stap's environment when it builds NAME
#                         (STAPLER_NO_DEBUGINFO=1: as if the kernel had no debuginfo)
#   NAME.modules          names of modules of the reference kernel's image package that
#                         the job loads (copied beside NAME.ko)
# testsuite/harness/NAME/  a test of the harness (see harness/README)
# testsuite/workloads/NAME.c  a program jobs can run (/bin/NAME in the guest), built static
#   NAME.cflags           more gcc flags for it (-m32: a 32-bit program)
# testsuite/uprograms/    the user-space probes' programs, dynamically linked, with DWARF:
#                         built once (uprograms/build) into a sysroot, whose tree the guest's
#                         root gets: /usr/bin/uprog, uprog-O2, uprog-stripped, uthreads,
#                         /usr/lib/stapler/libustap.so
# Every job must also leave the kernel log clean and no module behind, unless its test
# says otherwise (the harness tests check their own verdicts).
# STAPLER_VM_ONLY='glob' runs only the run/ tests whose names match (and no harness tests);
# extended globs work: STAPLER_VM_ONLY='@(hello|arrays)'.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
shopt -s extglob

vm=$top/testsuite/vm
if ! rel=$("$vm/reference-release" 2>/dev/null); then
	skip "vm: every test (no reference kernel headers; run ./setup)"
	exit 0
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "vm: every test (qemu-system-x86_64 is not installed; run ./setup)"
	exit 0
fi
# one guest at a time on this machine (two TCG guests on two cores starve each other), and
# one run per work folder
exec 9>"${TMPDIR:-/tmp}/stapler-vm.lock"
flock 9
kbuild=/lib/modules/$rel/build
kernel_modules=$(dirname "$("$vm/kernel-image" "$rel")")/modules
work=$WORK/vm
rm -rf "$work"
mkdir -p "$work/build" "$work/batch" "$work/results"
JOB_TIMEOUT=30
PARALLEL=$(nproc 2>/dev/null || echo 2)

# ---- the workloads: static programs for the guest, in its /bin ----

workload_bins=()
mkdir -p "$work/workloads"
for src in "$top"/testsuite/workloads/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	cflags=()
	[ -f "${src%.c}.cflags" ] && read -ra cflags <"${src%.c}.cflags"
	if out=$(gcc -static -O2 -Wall -Wextra -Werror "${cflags[@]}" -o "$work/workloads/$name" \
		"$src" 2>&1); then
		workload_bins+=(--bin "$work/workloads/$name")
	else
		fail "workload: $name builds (gcc -static)" "$out"
	fi
done

# ---- the user-space programs: a sysroot, the same tree in the guest's root ----

sysroot=$work/sysroot
sysroot_opt=()
if out=$("$top/testsuite/uprograms/build" "$sysroot" 2>&1); then
	sysroot_opt=(--sysroot "$sysroot")
else
	fail "uprograms: the sysroot builds (testsuite/uprograms/build)" "$out"
fi

# ---- builds (layer 3), in parallel ----

build_one() {
	local name=$1 dir=$work/build/$1
	local -a opts args
	mkdir -p "$dir"
	cp "$top/testsuite/run/$name.stp" "$dir/"
	local -a env=()
	read_case_options "$top/testsuite/run/$name"
	opts=("${opts[@]//@SYSROOT@/"$sysroot"}")
	[ -f "$top/testsuite/run/$name.env" ] && read -r -a env <"$top/testsuite/run/$name.env"
	(cd "$dir" && env "${env[@]}" "$STAP" -p4 -r "$rel" -m "$name" -B KCFLAGS=-Werror \
		"${opts[@]}" "$name.stp" "${args[@]}" >stdout 2>stderr </dev/null)
	echo $? >"$dir/status"
}

names=()
for script in "$top"/testsuite/run/*.stp; do
	[ -e "$script" ] || continue
	name=$(basename "$script" .stp)
	# shellcheck disable=SC2053
	[[ -n "${STAPLER_VM_ONLY:-}" && $name != ${STAPLER_VM_ONLY} ]] && continue
	names+=("$name")
done
running=0
for name in "${names[@]}"; do
	build_one "$name" &
	running=$((running + 1))
	if [ $running -ge "$PARALLEL" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

for name in "${names[@]}"; do
	dir=$work/build/$name
	if [ "$(cat "$dir/status")" != 0 ] || [ "$(cat "$dir/stdout")" != "$name.ko" ] ||
		[ ! -f "$dir/$name.ko" ]; then
		fail "build: $name (stap -p4 status $(cat "$dir/status"))" "$(cat "$dir/stdout" "$dir/stderr")"
		continue
	fi
	pass "build: $name"
	job=$work/batch/$name
	mkdir -p "$job"
	cp "$dir/$name.ko" "$job/"
	# NAME.modules: modules of the reference kernel's image package the job loads
	if [ -f "$top/testsuite/run/$name.modules" ]; then
		for m in $(cat "$top/testsuite/run/$name.modules"); do
			ko=$(find "$kernel_modules" -name "$m.ko" | head -n 1)
			[ -n "$ko" ] && cp "$ko" "$job/" || echo "no module $m in $kernel_modules"
		done
	fi
	if [ -f "$top/testsuite/run/$name.job" ]; then
		cp "$top/testsuite/run/$name.job" "$job/run"
	else
		echo "staprun $name.ko" >"$job/run"
	fi
	if [ -f "$top/testsuite/run/$name.timeout" ]; then
		cp "$top/testsuite/run/$name.timeout" "$job/timeout"
	else
		echo $JOB_TIMEOUT >"$job/timeout"
	fi
done

# A module for another kernel is refused before the kernel sees it (the host is not
# the reference kernel); and a file that is not a module is refused too.
if [ -f "$work/build/hello/hello.ko" ] && [ "$(uname -r)" != "$rel" ]; then
	if out=$("$STAPRUN" "$work/build/hello/hello.ko" 2>&1); then
		fail "staprun: refuses a module built for another kernel (it ran)" "$out"
	elif grep -q "was built for kernel \"$rel\", but this is kernel \"$(uname -r)\"" <<<"$out"; then
		pass "staprun: refuses a module built for another kernel"
	else
		fail "staprun: refuses a module built for another kernel" "$out"
	fi
fi

# ---- the harness's own tests ----

harness_tests=()
for dir in "$top"/testsuite/harness/*/; do
	[ -f "$dir/run" ] || continue
	[ -n "${STAPLER_VM_ONLY:-}" ] && continue
	name=$(basename "$dir")
	fixture=$(cat "$dir/fixture")
	if ! ko=$("$top/testsuite/fixtures/build-fixture" "$top/testsuite/fixtures/$fixture" \
		"$rel" "$work/fixtures" 2>&1); then
		fail "harness: fixture $fixture builds" "$ko"
		continue
	fi
	mkdir -p "$work/batch/$name"
	cp "$ko" "$dir/run" "$work/batch/$name/"
	echo $JOB_TIMEOUT >"$work/batch/$name/timeout"
	# a test of the harness's limits has its own
	for f in timeout grace; do
		[ -f "$dir/$f" ] && cp "$dir/$f" "$work/batch/$name/"
	done
	harness_tests+=("$name")
done

# ---- one boot (layer 4) ----

if [ -z "$(ls "$work/batch")" ]; then
	skip "vm: the guest run (nothing was built)"
	exit 0
fi
start=$(date +%s)
"$vm/vm-batch" --rel "$rel" --bin "$STAPRUN" --bin "$STAPIO" "${workload_bins[@]}" \
	"${sysroot_opt[@]}" \
	"$work/batch" "$work/results" \
	2>"$work/vm-batch.log"
batch_status=$?
echo "vm: one boot, $(ls "$work/batch" | wc -l) jobs, $(($(date +%s) - start)) s"
# a job without a result fails below; here, what else went wrong (the guest did not
# boot, the run overran; the harness's deliberately stuck job and a boot that worked the
# second time aside)
if [ $batch_status -ne 0 ] && grep -v -e fixture_stuck -e 'booting again' "$work/vm-batch.log" |
	grep -qE 'did not boot|timed out|stopped before finishing|stopped responding'; then
	fail "vm: the guest ran every job (vm-batch status $batch_status)" \
		"$(cat "$work/vm-batch.log")" "$(tail -n 30 "$work/results/console.log" 2>/dev/null)"
fi

for name in "${names[@]}"; do
	r=$work/results/$name
	[ -d "$work/batch/$name" ] || continue
	base=$top/testsuite/run/$name
	expected_status=0
	[ -f "$base.status" ] && expected_status=$(cat "$base.status")
	if [ ! -f "$r/status" ]; then
		fail "run: $name (no result)"
		continue
	fi
	problems=()
	[ "$(cat "$r/status")" = "$expected_status" ] ||
		problems+=("exit status $(cat "$r/status"), expected $expected_status")
	[ "$(cat "$r/verdict")" = clean ] ||
		problems+=("kernel: $(paste -sd';' "$r/verdict")" "$(tail -n 20 "$r/klog")")
	if [ ${#problems[@]} -gt 0 ]; then
		fail "run: $name" "${problems[@]}" "stdout:" "$(cat "$r/stdout")" "stderr:" "$(cat "$r/stderr")"
		continue
	fi
	expect_same "run: $name (output)" "$base.out" "$r/stdout"
	if [ -f "$base.err" ] || [ -s "$r/stderr" ]; then
		expect_same "run: $name (errors)" "$base.err" "$r/stderr"
	fi
done

for name in "${harness_tests[@]}"; do
	bash "$top/testsuite/harness/$name/check" "$work/results/$name"
done
