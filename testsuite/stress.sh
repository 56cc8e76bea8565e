# stress.sh - the stress layer (make check-stress; not part of make check): the tests that
# were seen failing once in a while, run many times, so a rare failure shows up here
# rather than in somebody's make check.
#   - run/stapio_big_output 50 times in one boot of the reference VM: 20 MB through a 1 MB
#     buffer with a fast and with a stopped reader, each line arrived whole or counted in
#     the dropped total, never blanked or doubled;
#   - run/signal_probes and run/syscall_mix 20 times each, in the same boot;
#   - stap-vm interrupted (SIGINT, as Ctrl-C) at 20 moments spread over its run, from while
#     the guest is being made to while the script runs: each run ends soon after, either as
#     "stopped before the script started" (status 130, no output; or killed by it in the
#     few ms before stap-vm's traps exist, nothing said) or with the end probe's output
#     (status 0), with nothing left behind.
# STAPLER_STRESS_RUNS=N scales every count (N times 50, N times 20 ...; default 1).
# STAPLER_STRESS_SEED picks the moments of the interrupts (default 1).
# STAPLER_STRESS_ONLY=jobs or =interrupts runs that part alone.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
only=${STAPLER_STRESS_ONLY:-}

scale=${STAPLER_STRESS_RUNS:-1}
[[ $scale =~ ^[1-9][0-9]*$ ]] || scale=1
seed=${STAPLER_STRESS_SEED:-1}
[[ $seed =~ ^[0-9]+$ ]] || seed=1
big=$((50 * scale)) small=$((20 * scale)) interrupts=$((20 * scale))

# ---- the jobs, repeated in one boot (vm.sh does the builds, the boot and the checks) ----

if [ "$only" != interrupts ]; then
	STAPLER_TEST_WORK=$WORK/stress STAPLER_SECOND_KERNEL_RELEASE=none \
		STAPLER_VM_ONLY='@(stapio_big_output|signal_probes|syscall_mix)' \
		STAPLER_VM_REPEAT="stapio_big_output=$big $small" \
		bash "$top/testsuite/vm.sh"
fi
[ "$only" = jobs ] && exit 0

# ---- Ctrl-C at any moment of a stap --vm run ----

vm=$top/testsuite/vm
if ! rel=$("$vm/reference-release" 2>/dev/null) || ! command -v qemu-system-x86_64 >/dev/null; then
	skip "stress: Ctrl-C at any moment (no reference kernel or qemu; run ./setup)"
	exit 0
fi
work=$WORK/stress/interrupt
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
cat >interrupted.stp <<'STP'
global ticks
probe begin { println("running") }
probe timer.ms(20) { ticks++ }
probe end { println(ticks >= 0 ? "end" : "") } # (read: a global only written is printed at the end)
STP
if ! "$STAP" -p4 -r "$rel" -m interrupted interrupted.stp >/dev/null 2>build.err; then
	fail "stress: stap -p4 of the interrupted script" "$(cat build.err)"
	exit 0
fi

set -m # each run a process group of its own, as a terminal's foreground job

# stap_vm ARGS...: stap-vm with SIGINT as a terminal leaves it (a suite started in the
# background has it ignored, and a shell cannot trap a signal ignored when it started)
stap_vm() {
	env --default-signal=INT "$top/staprun/stap-vm" "$@"
}

# stop_run PID: waits for the run PID, at most 60 s after the interrupt (then kills its
# group); sets status (its exit status, or "timeout") and took_ms
stop_run() {
	local sent_ms
	sent_ms=$(date +%s%3N)
	wait_job "$1" 60
	status=$job_status
	took_ms=$(($(date +%s%3N) - sent_ms))
}

# How long a run takes to reach its script: the interrupts are spread over that, and a
# little past it.
start_ms=$(date +%s%3N)
stap_vm --rel "$rel" -- interrupted.ko >timing.out 2>timing.err </dev/null &
pid=$!
for ((i = 0; i < 1200; i++)); do
	grep -qx running timing.out 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
span=$(($(date +%s%3N) - start_ms + 2000))
kill -INT -- -"$pid" 2>/dev/null
stop_run "$pid"
if [ "$status" != 0 ] || [ "$(cat timing.out)" != "$(printf 'running\nend')" ]; then
	fail "stress: a stap --vm run of the interrupted script, Ctrl-C once it runs" \
		"status $status" "stdout:" "$(cat timing.out)" "stderr:" "$(cat timing.err)"
	exit 0
fi

RANDOM=$seed
before=0 after=0 bad=0
for ((i = 1; i <= interrupts; i++)); do
	# the moment: (RANDOM is 15 bits) somewhere in [0, span) ms
	delay_ms=$(((RANDOM * 32768 + RANDOM) % span))
	stap_vm --rel "$rel" -- interrupted.ko >"run$i.out" 2>"run$i.err" </dev/null &
	pid=$!
	sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
	kill -INT -- -"$pid" 2>/dev/null
	stop_run "$pid"
	out=$(cat "run$i.out") err=$(cat "run$i.err")
	if [ "$status" = 130 ] && [ -z "$out" ] &&
		{ [ "$err" = "stap-vm: SIGINT before the script started: stopped the guest" ] ||
			[ -z "$err" ]; }; then
		# (nothing said: the interrupt came in the few ms before stap-vm's traps exist)
		before=$((before + 1))
	elif [ "$status" = 0 ] && [ "$out" = "$(printf 'running\nend')" ] && [ -z "$err" ]; then
		after=$((after + 1))
	else
		bad=$((bad + 1))
		fail "stress: Ctrl-C $i of $interrupts, ${delay_ms} ms into the run (of $span)" \
			"status $status, ${took_ms} ms after the interrupt" "stdout:" "$out" "stderr:" "$err"
		continue
	fi
	if [ "$took_ms" -gt 30000 ]; then
		bad=$((bad + 1))
		fail "stress: Ctrl-C $i of $interrupts, ${delay_ms} ms into the run: the run ended" \
			"${took_ms} ms after the interrupt"
	fi
done
echo "stress: $interrupts interrupts over ${span} ms (seed $seed): $before before the script" \
	"started, $after while it ran, $bad wrong"
if [ $bad = 0 ]; then
	pass "stress: Ctrl-C at $interrupts moments of a stap --vm run ends it cleanly each time"
fi
