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
#   NAME.args             the script's arguments, one a line; @RELEASE@ in them is the
#                         kernel's release the module is built for
#   NAME.job              the guest's commands instead of "staprun NAME.ko"
#   NAME.timeout          the job's limit in seconds (default 30)
#   NAME.env              VAR=VALUE words for stap's environment when it builds NAME
#                         (STAPLER_NO_DEBUGINFO=1: as if the kernel had no debuginfo)
#   NAME.modules          names of modules of the kernel's image package that the job
#                         loads (copied beside NAME.ko); NAME? only where that kernel has
#                         it as a module (built in elsewhere: the job tests for NAME.ko)
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
# STAPLER_VM_REPEAT='N' runs each job N times in the boot ('NAME=N ...': those jobs N
# times, a bare N the others); each run is compared, the k-th named "NAME (run k)".  The
# stress layer (stress.sh) uses it.
#
# The second kernel (testsuite/vm/reference-release --second: Debian 12's 6.12 LTS) runs
# the tests of testsuite/run/second-kernel.list (at least one per probe family) in a boot
# of its own, named "build 6.12: NAME" and "run 6.12: NAME".  Where that kernel decides
# the output, NAME.6.12.out (.err, .status) is its twin of NAME.out.
# STAPLER_SECOND_KERNEL_RELEASE=none skips it; STAPLER_SECOND_KERNEL_TESTS="a b" runs those
# run/ tests there instead of the list's (to try one that is left out).
# STAPLER_FIRST_KERNEL=none leaves the reference kernel's run out (only the second's runs).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
shopt -s extglob

vm=$top/testsuite/vm
# vm_klog_excerpt: the lines of a kernel log that show its problems
# shellcheck source=staprun/vmlib.sh
source "$top/staprun/vmlib.sh"
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
work=$WORK/vm
rm -rf "$work"
mkdir -p "$work"
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

# ---- one kernel: builds (layer 3) in parallel, its jobs, one boot (layer 4) ----

# repeats NAME: how many times STAPLER_VM_REPEAT runs NAME's job (default 1)
repeats() {
	local word n=1
	for word in ${STAPLER_VM_REPEAT:-}; do
		case "$word" in
		"$1="*) n=${word#*=} && break ;;
		*=*) ;;
		*) n=$word ;;
		esac
	done
	[[ $n =~ ^[1-9][0-9]*$ ]] || n=1
	echo "$n"
}

# build_one NAME: stap -p4 of run/NAME.stp for $rel, in $kwork/build/NAME
build_one() {
	local name=$1 dir=$kwork/build/$1
	local -a opts args
	mkdir -p "$dir"
	cp "$top/testsuite/run/$name.stp" "$dir/"
	local -a env=()
	read_case_options "$top/testsuite/run/$name"
	opts=("${opts[@]//@SYSROOT@/"$sysroot"}")
	args=("${args[@]//@RELEASE@/"$rel"}")
	[ -f "$top/testsuite/run/$name.env" ] && read -r -a env <"$top/testsuite/run/$name.env"
	(cd "$dir" && env "${env[@]}" "$STAP" -p4 -r "$rel" -m "$name" -B KCFLAGS=-Werror \
		"${opts[@]}" "$name.stp" "${args[@]}" >stdout 2>stderr </dev/null)
	echo $? >"$dir/status"
}

# build_all NAME...: every build, $PARALLEL at a time; then a job in $kwork/batch for each
# module built ("build$label: NAME" passes or fails)
build_all() {
	local running=0 name dir job m ko kernel_modules
	kernel_modules=$(dirname "$("$vm/kernel-image" "$rel")")/modules
	for name in "$@"; do
		build_one "$name" &
		running=$((running + 1))
		if [ $running -ge "$PARALLEL" ]; then
			wait -n
			running=$((running - 1))
		fi
	done
	wait
	for name in "$@"; do
		dir=$kwork/build/$name
		if [ "$(cat "$dir/status")" != 0 ] || [ "$(cat "$dir/stdout")" != "$name.ko" ] ||
			[ ! -f "$dir/$name.ko" ]; then
			fail "build$label: $name (stap -p4 status $(cat "$dir/status"))" \
				"$(cat "$dir/stdout" "$dir/stderr")"
			continue
		fi
		pass "build$label: $name"
		job=$kwork/batch/$name
		mkdir -p "$job"
		cp "$dir/$name.ko" "$job/"
		# NAME.modules: modules of the kernel's image package the job loads
		if [ -f "$top/testsuite/run/$name.modules" ]; then
			for m in $(cat "$top/testsuite/run/$name.modules"); do
				# NAME?: only where the kernel has it as a module (else built in)
				optional=$m
				m=${m%\?}
				# compressed as 6.12's package ships them (.ko.xz): the guest's
				# insmod takes a plain .ko
				ko=$(find "$kernel_modules" -name "$m.ko" -o -name "$m.ko.xz" | head -n 1)
				case "$ko" in
				'') [ "$optional" != "$m" ] || echo "no module $m in $kernel_modules" ;;
				*.xz) xz -dc "$ko" >"$job/$m.ko" ;;
				*) cp "$ko" "$job/" ;;
				esac
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
		for ((k = 2; k <= $(repeats "$name"); k++)); do
			cp -r "$job" "$job.run$k"
		done
	done
}

# stuck_backtraces: where the vCPUs of a guest that froze were (vm-batch's JOB.stuck), but
# the harness's own stuck job's
stuck_backtraces() {
	local f
	for f in "$kwork/results"/*.stuck; do
		[ -f "$f" ] && [ "$(basename "$f")" != fixture_stuck.stuck ] || continue
		echo "$(basename "$f" .stuck): the guest's vCPUs when it was stopped"
		grep -E '^(Thread|#[0-9]|rip|  [0-9]+ +Thread)' "$f" | head -n 80
	done
}

# boot_and_compare NAME...: one boot of $rel for $kwork/batch, then each run's status,
# kernel verdict, output and errors against run/NAME.out (NAME.SERIES.out first: the
# kernel series' twin, e.g. NAME.6.12.out)
boot_and_compare() {
	local start batch_status name run job test
	start=$(date +%s)
	"$vm/vm-batch" --rel "$rel" --bin "$STAPRUN" --bin "$STAPIO" --bin "$STAP_MERGE" "${workload_bins[@]}" \
		"${sysroot_opt[@]}" \
		"$kwork/batch" "$kwork/results" \
		2>"$kwork/vm-batch.log"
	batch_status=$?
	echo "vm: $rel: $(ls "$kwork/batch" | wc -l) jobs in one boot, $(($(date +%s) - start)) s"
	# a job without a result fails below; here, what else went wrong (the guest did not
	# boot, the run overran, the guest died; the harness's deliberately stuck and
	# panicking jobs and a boot that worked the second time aside)
	if [ $batch_status -ne 0 ] && grep -v -e fixture_stuck -e guest_panic -e 'booting again' \
		"$kwork/vm-batch.log" |
		grep -qE 'did not boot|timed out|stopped before finishing|stopped responding|died'; then
		# what went wrong first (a summary of a CI run keeps only some of the lines):
		# vm-batch's lines but the clean jobs', then the console's end
		fail "vm$label: the guest ran every job (vm-batch status $batch_status)" \
			"$(grep -v ' verdict=clean$' "$kwork/vm-batch.log")" \
			"$(stuck_backtraces)" \
			"$(tail -n 30 "$kwork/results/console.log" 2>/dev/null)"
	fi
	for name in "$@"; do
		[ -d "$kwork/batch/$name" ] || continue
		for ((run = 1; run <= $(repeats "$name"); run++)); do
			job=$name test=$name
			[ $run -gt 1 ] && job=$name.run$run test="$name (run $run)"
			compare_job
		done
	done
}

# compare_job: boot_and_compare's verdict on one job's results ($job, named $test, the
# test $name)
compare_job() {
	local r=$kwork/results/$job base=$top/testsuite/run/$name expected_status f
	local -a problems
	# the kernel series' twins (NAME.6.12.out ...) where that kernel decides
	local -A expected=()
	for f in out err status; do
		expected[$f]=$base.$f
		[ -n "$series" ] && [ -f "$base.$series.$f" ] && expected[$f]=$base.$series.$f
	done
	expected_status=0
	[ -f "${expected[status]}" ] && expected_status=$(cat "${expected[status]}")
	if [ ! -f "$r/status" ]; then
		fail "run$label: $test (no result)"
		return
	fi
	problems=()
	[ "$(cat "$r/status")" = "$expected_status" ] ||
		problems+=("exit status $(cat "$r/status"), expected $expected_status")
	[ "$(cat "$r/verdict")" = clean ] ||
		problems+=("kernel: $(paste -sd';' "$r/verdict")"
			"$(vm_klog_excerpt "$r/klog" 40 | grep . || tail -n 20 "$r/klog")")
	if [ ${#problems[@]} -gt 0 ]; then
		fail "run$label: $test" "${problems[@]}" "stdout:" "$(cat "$r/stdout")" \
			"stderr:" "$(cat "$r/stderr")"
		return
	fi
	expect_same "run$label: $test (output)" "${expected[out]}" "$r/stdout"
	if [ -f "${expected[err]}" ] || [ -s "$r/stderr" ]; then
		expect_same "run$label: $test (errors)" "${expected[err]}" "$r/stderr"
	fi
}

# use_kernel REL LABEL: the kernel the functions above work on, and its work folder
use_kernel() {
	rel=$1 label=$2
	series=${2# }
	kwork=$work/$rel
	mkdir -p "$kwork/build" "$kwork/batch" "$kwork/results"
}

# ---- the reference kernel: every run/ test and the harness's own tests ----

names=()
for script in "$top"/testsuite/run/*.stp; do
	[ -e "$script" ] || continue
	[ "${STAPLER_FIRST_KERNEL:-}" = none ] && break
	name=$(basename "$script" .stp)
	# shellcheck disable=SC2053
	[[ -n "${STAPLER_VM_ONLY:-}" && $name != ${STAPLER_VM_ONLY} ]] && continue
	names+=("$name")
done
use_kernel "$rel" ""
build_all "${names[@]}"

# A module for another kernel is refused before the kernel sees it (the host is not
# the reference kernel); and a file that is not a module is refused too.
if [ -f "$kwork/build/hello/hello.ko" ] && [ "$(uname -r)" != "$rel" ]; then
	if out=$("$STAPRUN" "$kwork/build/hello/hello.ko" 2>&1); then
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
	[ "${STAPLER_FIRST_KERNEL:-}" = none ] && continue
	name=$(basename "$dir")
	mkdir -p "$kwork/batch/$name"
	if [ -f "$dir/fixture" ]; then
		fixture=$(cat "$dir/fixture")
		if ! ko=$("$top/testsuite/fixtures/build-fixture" \
			"$top/testsuite/fixtures/$fixture" "$rel" "$work/fixtures" 2>&1); then
			fail "harness: fixture $fixture builds" "$ko"
			rm -rf "$kwork/batch/$name"
			continue
		fi
		cp "$ko" "$kwork/batch/$name/"
	fi
	cp "$dir/run" "$kwork/batch/$name/"
	echo $JOB_TIMEOUT >"$kwork/batch/$name/timeout"
	# a test of the harness's limits has its own
	for f in timeout grace; do
		[ -f "$dir/$f" ] && cp "$dir/$f" "$kwork/batch/$name/"
	done
	harness_tests+=("$name")
done

# ---- the second kernel's builds, while the reference kernel's guest runs ----
# (run/second-kernel.list; the guest's one emulation thread leaves a core idle: one build at
# a time beside it.  Their lines are shown after the reference kernel's results.)

second="" second_names=() second_builds=""
if ! second=$("$vm/reference-release" --second 2>/dev/null); then
	second=""
	skip "vm: the second kernel (none: STAPLER_SECOND_KERNEL_RELEASE=none)"
elif [ ! -d "/lib/modules/$second/build" ]; then
	skip "vm: the second kernel (no build tree for $second; run ./setup)"
	second=""
else
	while read -r name rest; do
		[[ -z $name || $name == '#'* ]] && continue
		# shellcheck disable=SC2053
		[[ -n "${STAPLER_VM_ONLY:-}" && $name != ${STAPLER_VM_ONLY} ]] && continue
		if [ ! -f "$top/testsuite/run/$name.stp" ]; then
			fail "vm: $name of run/second-kernel.list has no run/$name.stp"
			continue
		fi
		second_names+=("$name")
	done < <(if [ -n "${STAPLER_SECOND_KERNEL_TESTS:-}" ]; then
			tr ' ' '\n' <<<"$STAPLER_SECOND_KERNEL_TESTS"
		else
			cat "$top/testsuite/run/second-kernel.list"
		fi)
	second_label=" $(sed 's/^\([0-9]*\.[0-9]*\).*/\1/' <<<"$second")"
	if [ ${#second_names[@]} -gt 0 ]; then
		second_builds=$work/second-kernel-builds.out
		(
			use_kernel "$second" "$second_label"
			PARALLEL=1
			build_all "${second_names[@]}"
		) >"$second_builds" 2>&1 &
		second_builds_pid=$!
	fi
fi

# ---- one boot (layer 4) ----

if [ -n "$(ls "$kwork/batch")" ]; then
	boot_and_compare "${names[@]}"
	for name in "${harness_tests[@]}"; do
		bash "$top/testsuite/harness/$name/check" "$kwork/results/$name"
	done
else
	skip "vm: the guest run of $rel (nothing was built)"
fi

# ---- a kernel that loads only signed modules: a boot of its own ----
# (module.sig_enforce=1): staprun explains why it refuses an unsigned module and one signed
# by stap --sign-module's key, which this kernel does not trust (no MOK without firmware:
# an enrolled key is not tested).  testsuite/signing/.

if [ "${STAPLER_FIRST_KERNEL:-}" != none ] && [ -z "${STAPLER_VM_ONLY:-}" ]; then
	sig=$work/signing
	mkdir -p "$sig/batch/sig_enforce" "$sig/home"
	if out=$(cd "$sig/batch/sig_enforce" &&
		"$STAP" -p4 -r "$rel" -m sig_unsigned "$top/testsuite/signing/hello.stp" 2>&1 &&
		HOME=$sig/home "$STAP" -p4 -r "$rel" -m sig_signed --sign-module \
			"$top/testsuite/signing/hello.stp" 2>&1); then
		cp "$top/testsuite/signing/sig_enforce.job" "$sig/batch/sig_enforce/run"
		"$vm/vm-batch" --rel "$rel" --append module.sig_enforce=1 --bin "$STAPRUN" \
			--bin "$STAPIO" "$sig/batch" "$sig/results" 2>"$sig/vm-batch.log"
		r=$sig/results/sig_enforce
		if [ "$(cat "$r/status" 2>/dev/null)" = 0 ] && [ "$(cat "$r/verdict")" = clean ]; then
			expect_same "vm: a kernel that loads only signed modules: staprun says why" \
				"$top/testsuite/signing/sig_enforce.out" "$r/stdout"
		else
			fail "vm: a kernel that loads only signed modules (no clean result)" \
				"$(cat "$sig/vm-batch.log")" "$(cat "$r/stdout" "$r/stderr" 2>/dev/null)"
		fi
	else
		fail "vm: the modules of the signing test build (one with --sign-module)" "$out"
	fi
fi

# ---- the second kernel: the tests of run/second-kernel.list, in a boot of its own ----

if [ -n "$second_builds" ]; then
	wait "$second_builds_pid"
	cat "$second_builds"
	use_kernel "$second" "$second_label"
	if [ -n "$(ls "$kwork/batch")" ]; then
		boot_and_compare "${second_names[@]}"
	fi
fi
