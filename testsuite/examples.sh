# examples.sh - Debian's example scripts (/usr/share/systemtap/examples) as a corpus for
# passes 1 to 4: each script's own check (`stap -p4 NAME.stp ARGS`, the test_check line
# of its NAME.meta) run against the reference kernel by bench/examples.sh.
#
#   testsuite/examples/pass.list   the examples that pass: each must go on passing
#                                  (one name per line, as "general/helloworld")
#
# An example that passes but is not listed is reported (PASS, "add it to pass.list");
# STAPLER_UPDATE=1 rewrites the list from this run.  The ones that fail are listed as
# SKIP with the first error, so the run shows what is missing.  The module cache keeps a
# second run short: only scripts whose program changed are built again.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

list=$top/testsuite/examples/pass.list
if [ ! -d /usr/share/systemtap/examples ]; then
	skip "examples: every example (Debian's systemtap-doc is not installed; run ./setup)"
	exit 0
fi
if ! "$top/testsuite/vm/reference-release" >/dev/null 2>&1; then
	skip "examples: every example (no reference kernel headers; run ./setup)"
	exit 0
fi
work=$WORK/examples
rm -rf "$work"
mkdir -p "$work"
summary=$(bash "$top/bench/examples.sh" "$STAP" "$work/results" 2>&1 | tail -n 1)

while read -r verdict name rest; do
	name=${name%:}
	if [ "$verdict" = pass ]; then
		if grep -qxF "$name" "$list" || [ "$UPDATE" = 1 ]; then
			pass "examples: $name"
		else
			pass "examples: $name (passes now: add it to testsuite/examples/pass.list)"
		fi
	elif grep -qxF "$name" "$list" && [ "$UPDATE" != 1 ]; then
		fail "examples: $name (listed in pass.list)" "$rest"
	else
		skip "examples: $name ($rest)"
	fi
done <"$work/results"
if [ "$UPDATE" = 1 ]; then
	grep '^pass ' "$work/results" | cut -d' ' -f2 >"$list"
fi
# a listed example that no longer exists (Debian dropped it) is worth a look, not a failure
while read -r name; do
	grep -q " $name:\?\( \|$\)" "$work/results" || skip "examples: $name (listed, but no such example)"
done <"$list"
echo "examples: $summary (Debian's stap 4.8 on the same kernel: 153 of 193)"
