# lib.sh - what the test layers share.  Sourced by testsuite/*.sh.
#
# A layer prints one line per test: "PASS: name", "FAIL: name" (details indented below),
# or "SKIP: name (why)".  testsuite/run-tests counts them.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAP=$top/stap
STAPRUN=$top/staprun/staprun
STAPIO=$top/staprun/stapio
STAP_MERGE=$top/staprun/stap-merge
WORK=${STAPLER_TEST_WORK:-$top/testsuite/work}
# STAPLER_UPDATE=1 rewrites expected-output files from what the programs print now.
UPDATE=${STAPLER_UPDATE:-0}

pass() { echo "PASS: $*"; }
skip() { echo "SKIP: $*"; }
fail() {
	echo "FAIL: $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | head -n 40 | sed 's/^/    /'
	return 0
}

# wait_job PID SECONDS: waits for the background job PID (a process group of its own, under
# set -m) at most SECONDS, then kills its group; sets job_status (its exit status, or
# "timeout").
wait_job() {
	local pid=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL -- -"$pid" 2>/dev/null
		wait "$pid"
		job_status=timeout
	else
		wait "$pid"
		job_status=$?
	fi
}

# expect NAME STATUS REGEX COMMAND...: COMMAND, run in $work, exits with STATUS and its output (stdout
# and stderr together) matches the extended regular expression REGEX, line by line; a
# REGEX starting with (?s) is a Perl one matched against the whole output.  The result is
# named "$EXPECT_PREFIX: NAME".
expect() {
	local name=$1 status=$2 regex=$3 out actual
	shift 3
	out=$(cd "$work" && "$@" 2>&1 </dev/null)
	actual=$?
	if [ "$actual" != "$status" ]; then
		fail "$EXPECT_PREFIX: $name (status $actual, expected $status)" "$out"
	elif [[ $regex == "(?s)"* ]] && ! grep -Pzq -- "$regex" <<<"$out"; then
		fail "$EXPECT_PREFIX: $name (output does not match /$regex/)" "$out"
	elif [[ $regex != "(?s)"* ]] && ! grep -Eq -- "$regex" <<<"$out"; then
		fail "$EXPECT_PREFIX: $name (output does not match /$regex/)" "$out"
	else
		pass "$EXPECT_PREFIX: $name"
	fi
}

# expect_same NAME EXPECTED_FILE ACTUAL_FILE: passes when they are equal; with
# STAPLER_UPDATE=1 copies ACTUAL over EXPECTED instead.
expect_same() {
	local name=$1 expected=$2 actual=$3
	if [ "$UPDATE" = 1 ]; then
		cp "$actual" "$expected"
		pass "$name (expected output updated)"
	elif [ ! -f "$expected" ]; then
		fail "$name" "no expected file $expected; this run printed:" "$(cat "$actual")"
	elif cmp -s "$expected" "$actual"; then
		pass "$name"
	else
		fail "$name" "$(diff -u "$expected" "$actual" | tail -n +3)"
	fi
}

# check NAME COMMAND...: PASS when COMMAND succeeds, else FAIL showing $details (then
# cleared).  The result is named "$CHECK_PREFIX: NAME".
check() {
	local name=$1
	shift
	if "$@"; then pass "$CHECK_PREFIX: $name"; else fail "$CHECK_PREFIX: $name" "${details:-}"; fi
	details=
}
has() { grep -Eq -- "$1" <<<"$2"; }
lacks() { ! grep -Eq -- "$1" <<<"$2"; }

# Reads NAME.opts (stap options, whitespace-separated) and NAME.args (one script
# argument per line) beside a test script into the arrays opts and args.
read_case_options() {
	local base=$1
	opts=()
	args=()
	[ -f "$base.opts" ] && read -r -a opts <"$base.opts"
	[ -f "$base.args" ] && mapfile -t args <"$base.args"
	return 0
}

# check_translator_cases DIR PASS: every DIR/NAME.stp (or .stpm) goes through stap -pPASS
# (plus NAME.opts and NAME.args).  With DIR/NAME.err the script must be rejected with
# exactly that standard error; otherwise accepted, printing exactly DIR/NAME.pPASS, and on
# standard error exactly DIR/NAME.warn (nothing without one).
check_translator_cases() {
	local dir=$1 pass=$2 layer
	layer=$(basename "$dir")
	mkdir -p "$WORK/$layer"
	for script in "$dir"/*.stp "$dir"/*.stpm; do
		[ -e "$script" ] || continue
		local name base out err status file
		file=$(basename "$script")
		name=${file%.*}
		base=$dir/$name
		out=$WORK/$layer/$name.out
		err=$WORK/$layer/$name.err
		read_case_options "$base"
		(cd "$dir" && "$STAP" -p"$pass" "${opts[@]}" "$file" "${args[@]}") \
			>"$out" 2>"$err" </dev/null
		status=$?
		# -v's resource use differs run to run
		sed -i 's/ using [0-9]*virt\/.*/ using .../' "$err"
		if [ -f "$base.err" ] || { [ "$UPDATE" = 1 ] && [ $status -ne 0 ] && [ ! -f "$base.p$pass" ]; }; then
			if [ $status -ne 1 ]; then
				fail "$layer: $name is rejected (status $status, expected 1)" "$(cat "$err")"
			else
				expect_same "$layer: $name is rejected" "$base.err" "$err"
			fi
		elif [ $status -ne 0 ]; then
			fail "$layer: $name is accepted (status $status)" "$(cat "$err")"
		elif [ -f "$base.warn" ] || { [ "$UPDATE" = 1 ] && [ -s "$err" ]; }; then
			expect_same "$layer: $name (warnings)" "$base.warn" "$err"
			expect_same "$layer: $name" "$base.p$pass" "$out"
		elif [ -s "$err" ]; then
			fail "$layer: $name is accepted without messages" "$(cat "$err")"
		else
			expect_same "$layer: $name" "$base.p$pass" "$out"
		fi
	done
}
