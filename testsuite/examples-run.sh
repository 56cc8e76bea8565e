# examples-run.sh - Debian's example scripts run in the guest, not only built: each example
# that builds (testsuite/examples/pass.list, pass.SERIES.list for the second kernel) whose
# NAME.meta has a test_installcheck line of the form `stap ARGS` is run as that line says,
# with its workload (-c, -T, its arguments), all in one boot of the kernel
# (testsuite/vm/vm-batch --userland: the guest's sh is dash, with the host's GNU tools, as
# stap-vm's is), first on the reference kernel, then on the second one (lines
# "examples-run 6.12: NAME").  An example runs cleanly when staprun ends with status 0, the
# kernel log stays clean, and no line of its standard error starts with ERROR; those that
# print nothing in that time (a report every 5 s, and -T 1) are counted apart.
#
#   testsuite/examples/runs.list         the examples that run cleanly: each must go on so
#   testsuite/examples/runs.SERIES.list  the same on the second kernel (runs.6.12.list)
#
# How a stap command line becomes a job: stap --vm ARGS builds the module (the examples
# layer's builds are in the module cache) and runs pass 5 through STAPLER_PASS5_PROGRAM, a
# stand-in for stap-vm that copies the module and writes `staprun STAPRUN-ARGS` as the job;
# the host programs and libraries the script probes (stap-vm's --file) go into the guest at
# their paths.  Lines that are more than stap (an environment prefix, a pipe into stap) are
# left out.
# A script still running after 10 s gets SIGINT, as from its user, and ends with its end
# probes.  STAPLER_UPDATE=1 rewrites the runs lists from this run; STAPLER_EXAMPLES_ONLY='glob'
# runs only the examples whose names match; STAPLER_SECOND_KERNEL_RELEASE=none (or
# STAPLER_EXAMPLES_KERNELS=reference) leaves the second kernel out, and
# STAPLER_EXAMPLES_KERNELS=second the reference one.  Not in `make check` (about 15
# minutes a kernel): `make check-examples-run`.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

examples=/usr/share/systemtap/examples
if ! reference=$("$top/testsuite/vm/reference-release" 2>/dev/null); then
	skip "examples-run: every example (no reference kernel headers; run ./setup)"
	exit 0
fi
if [ ! -d "$examples" ]; then
	skip "examples-run: every example (no $examples: apt-get install systemtap-doc)"
	exit 0
fi

# examples_run REL PASSLIST RUNSLIST LABEL: the examples of PASSLIST run on REL, in one boot;
# those of RUNSLIST must run cleanly; test lines begin with LABEL.
examples_run() {
local rel=$1 passlist=$2 list=$3 label=$4
work=$WORK/examples-run/$rel
rm -rf "$work"
mkdir -p "$work/batch" "$work/src"

# The stand-in for stap-vm: stap-vm [--rel R] [--sysroot D] [--file F]... [-v] -- ARGS
recorder=$work/record-job
cat >"$recorder" <<'EOF'
#!/bin/bash
# writes the guest job for one stap command line: the module, and `staprun ARGS` as run
set -u
job=$STAPLER_EXAMPLE_JOB
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case "$1" in
	--file) printf '%s\n' "$2" >>"$job.files"; shift ;;
	--sysroot) echo "needs --sysroot" >"$job.why"; exit 3 ;;
	esac
	shift
done
shift
mkdir -p "$job"
run="staprun"
for a in "$@"; do
	case "$a" in
	/*.ko)
		# without its debug information (6.12's modules carry 2-3 MB of it, and a
		# batch of them would not fit the guest's memory as an initramfs)
		strip --strip-debug -o "$job/${a##*/}" "$a" 2>/dev/null || cp "$a" "$job/" || exit 4
		a=${a##*/}
		;;
	esac
	run+=" '${a//\'/\'\\\'\'}'"
done
# a script that runs until interrupted gets a Ctrl-C after 10 s, as from its user (stapio
# catches SIGINT, which sh leaves ignored in a background job)
cat >"$job/run" <<JOB
$run &
p=\$!
(sleep 10; kill -INT \$p) 2>/dev/null &
w=\$!
wait \$p
st=\$?
kill \$w 2>/dev/null
exit \$st
JOB
exit 0
EOF
chmod 755 "$recorder"

mapfile -t names < <(while read -r n; do
	[[ -z "${STAPLER_EXAMPLES_ONLY:-}" || $n == ${STAPLER_EXAMPLES_ONLY} ]] && echo "$n"
done <"$passlist")

# make_job NAME: the guest job of example NAME in $work/batch, or the reason for none in
# $work/batch/JOB.why
make_job() {
	local name=$1 meta=$examples/$1.meta job=$work/batch/${1//\//.} line src out
	line=$(sed -n 's/^test_installcheck: *//p' "$meta" 2>/dev/null | head -n 1)
	if [ -z "$line" ]; then
		echo "no test_installcheck line" >"$job.why"
	elif [[ $line != "stap "* ]] || ! (eval "args=(${line#stap })") 2>/dev/null; then
		echo "its test_installcheck is more than stap: $line" >"$job.why"
	elif [[ " $line " == *" -p"[1-4]" "* ]]; then
		echo "its test_installcheck only builds it: $line" >"$job.why"
	else
		# the example's own folder, as its meta line runs there (a copy per job: stap
		# may write there)
		src=$work/src/${name//\//.}
		mkdir -p "$src"
		cp -r "$examples/$(dirname "$name")/." "$src/"
		# Debian's own data: its quoting is the shell's
		eval "local args=(${line#stap })"
		out=$(cd "$src" && STAPLER_PASS5_PROGRAM=$recorder STAPLER_EXAMPLE_JOB=$job \
			"$STAP" --vm -r "$rel" "${args[@]}" 2>&1)
		if [ -f "$job/run" ]; then
			echo 40 >"$job/timeout"
		elif [ ! -f "$job.why" ]; then
			echo "stap did not build it: $(grep -m 1 -E 'ERROR|error' <<<"$out")" >"$job.why"
		fi
		rm -rf "$src"
	fi
}

# builds in parallel, as many as there are CPUs
cpus=$(nproc 2>/dev/null || echo 2)
running=0
for name in "${names[@]}"; do
	make_job "$name" &
	running=$((running + 1))
	if [ $running -ge "$cpus" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
declare -A why
jobs=()
for name in "${names[@]}"; do
	job=$work/batch/${name//\//.}
	if [ -f "$job/run" ]; then
		jobs+=("$name")
	else
		why[$name]=$(cat "$job.why" 2>/dev/null || echo "no job")
		rm -f "$job.why"
	fi
done

results=$work/results
if [ ${#jobs[@]} -gt 0 ]; then
	# the host files the scripts probe, each once
	files=()
	while IFS= read -r f; do
		files+=(--file "$f")
	done < <(cat "$work"/batch/*.files 2>/dev/null | sort -u)
	"$top/testsuite/vm/vm-batch" --userland --rel "$rel" --bin "$STAPRUN" --bin "$STAPIO" \
		${files[@]+"${files[@]}"} "$work/batch" "$results" >"$work/vm-batch.log" 2>&1
fi

clean=0 printed=0
for name in "${names[@]}"; do
	r=$results/${name//\//.}
	if [ -n "${why[$name]:-}" ]; then
		if grep -qxF "$name" "$list" 2>/dev/null && [ "$UPDATE" != 1 ]; then
			fail "$label: $name (listed in ${list##*/})" "${why[$name]}"
		else
			skip "$label: $name (${why[$name]})"
		fi
		continue
	fi
	problem=
	if [ ! -f "$r/status" ]; then
		problem="no result"
	elif [ "$(cat "$r/status")" != 0 ]; then
		problem="status $(cat "$r/status")"
	elif [ "$(cat "$r/verdict")" != clean ]; then
		problem="kernel log: $(paste -sd';' "$r/verdict")"
	elif grep -q '^ERROR' "$r/stderr"; then
		problem=$(grep -m 1 '^ERROR' "$r/stderr")
	fi
	if [ -z "$problem" ]; then
		clean=$((clean + 1))
		echo "$name" >>"$work/clean"
		note=
		if [ -s "$r/stdout" ]; then
			printed=$((printed + 1))
		else
			note=" (printed nothing in its run)"
		fi
		if grep -qxF "$name" "$list" 2>/dev/null || [ "$UPDATE" = 1 ]; then
			pass "$label: $name$note"
		else
			pass "$label: $name$note (runs cleanly now: add it to testsuite/examples/${list##*/})"
		fi
	elif grep -qxF "$name" "$list" 2>/dev/null && [ "$UPDATE" != 1 ]; then
		fail "$label: $name (listed in ${list##*/})" "$problem" \
			"stderr:" "$(head -n 20 "$r/stderr" 2>/dev/null)"
	else
		skip "$label: $name ($problem)"
	fi
done
if [ "$UPDATE" = 1 ]; then
	sort "$work/clean" >"$list" 2>/dev/null || : >"$list"
fi
echo "$label: $clean of ${#names[@]} examples that build ran cleanly in the guest," \
	"$printed of them printing something ($rel, ${#jobs[@]} jobs in one boot)"
}

kernels=${STAPLER_EXAMPLES_KERNELS:-reference second}
[[ " $kernels " != *" reference "* ]] ||
	examples_run "$reference" "$top/testsuite/examples/pass.list" \
		"$top/testsuite/examples/runs.list" examples-run
if [[ " $kernels " != *" second "* ]]; then
	:
elif ! second=$("$top/testsuite/vm/reference-release" --second 2>/dev/null); then
	skip "examples-run: the second kernel (none: STAPLER_SECOND_KERNEL_RELEASE=none)"
elif [ ! -d "/lib/modules/$second/build" ]; then
	skip "examples-run: the second kernel (no build tree for $second; run ./setup)"
else
	series=$(sed 's/^\([0-9]*\.[0-9]*\).*/\1/' <<<"$second")
	examples_run "$second" "$top/testsuite/examples/pass.$series.list" \
		"$top/testsuite/examples/runs.$series.list" "examples-run $series"
fi
