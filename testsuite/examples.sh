# examples.sh - Debian's example scripts (/usr/share/systemtap/examples) as a corpus for
# passes 1 to 4: each script's own check (`stap -p4 NAME.stp ARGS`, the test_check line
# of its NAME.meta) run by bench/examples.sh against the reference kernel, then against
# the second kernel (testsuite/vm/reference-release --second: 6.12), whose lines are
# named "examples 6.12: NAME".
#
#   testsuite/examples/pass.list        the examples that pass on the reference kernel:
#                                       each must go on passing (one name per line, as
#                                       "general/helloworld")
#   testsuite/examples/pass.SERIES.list the same for the second kernel (pass.6.12.list)
#
# An example that passes but is not listed is reported (PASS, "add it to pass.list");
# STAPLER_UPDATE=1 rewrites the list from this run.  The ones that fail are listed as
# SKIP with the first error, so the run shows what is missing.  The module cache keeps a
# second run short: only scripts whose program changed are built again.
# STAPLER_SECOND_KERNEL_RELEASE=none leaves the second kernel out.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ ! -d /usr/share/systemtap/examples ]; then
	skip "examples: every example (Debian's systemtap-doc is not installed; run ./setup)"
	exit 0
fi
if ! rel=$("$top/testsuite/vm/reference-release" 2>/dev/null); then
	skip "examples: every example (no reference kernel headers; run ./setup)"
	exit 0
fi

# examples REL LIST LABEL: every example against REL, compared with LIST
examples() {
	local rel=$1 list=$2 label=$3 work summary verdict name rest
	work=$WORK/examples-$rel
	rm -rf "$work"
	mkdir -p "$work"
	touch "$list"
	summary=$(STAPLER_KERNEL_RELEASE=$rel bash "$top/bench/examples.sh" "$STAP" "$work/results" 2>&1 |
		tail -n 1)
	while read -r verdict name rest; do
		name=${name%:}
		if [ "$verdict" = pass ]; then
			if grep -qxF "$name" "$list" || [ "$UPDATE" = 1 ]; then
				pass "$label: $name"
			else
				pass "$label: $name (passes now: add it to testsuite/examples/$(basename "$list"))"
			fi
		elif grep -qxF "$name" "$list" && [ "$UPDATE" != 1 ]; then
			fail "$label: $name (listed in $(basename "$list"))" "$rest"
		else
			skip "$label: $name ($rest)"
		fi
	done <"$work/results"
	if [ "$UPDATE" = 1 ]; then
		grep '^pass ' "$work/results" | cut -d' ' -f2 >"$list"
	fi
	# a listed example that no longer exists (Debian dropped it) is worth a look, not a failure
	while read -r name; do
		grep -q " $name:\?\( \|$\)" "$work/results" ||
			skip "$label: $name (listed, but no such example)"
	done <"$list"
	echo "$label: $summary"
}

examples "$rel" "$top/testsuite/examples/pass.list" examples
echo "(Debian's stap 4.8 on the same kernel: 153 of 193)"
if ! second=$("$top/testsuite/vm/reference-release" --second 2>/dev/null); then
	skip "examples: the second kernel (none: STAPLER_SECOND_KERNEL_RELEASE=none)"
elif [ ! -d "/lib/modules/$second/build" ]; then
	skip "examples: the second kernel (no build tree for $second; run ./setup)"
else
	series=$(sed 's/^\([0-9]*\.[0-9]*\).*/\1/' <<<"$second")
	examples "$second" "$top/testsuite/examples/pass.$series.list" "examples $series"
	echo "(Debian's stap 4.8 does not build modules for $series)"
fi
