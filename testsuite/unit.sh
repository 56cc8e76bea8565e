# unit.sh - layer 1: runtime pieces that need no kernel, compiled in user space against
# testsuite/unit/shim.h, with the sanitizers on.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$WORK/unit"
bin=$WORK/unit/runtime_test
if ! log=$(cc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
	-fno-sanitize-recover=all -I"$top/testsuite/unit" -I"$top/runtime" \
	-o "$bin" "$top/testsuite/unit/runtime_test.c" 2>&1); then
	fail "unit: runtime_test compiles" "$log"
	exit 0
fi
out=$("$bin" 2>&1)
printf '%s\n' "$out" | grep -v '^unit finished$'
# a crash or sanitizer report ends the program before it says it finished
grep -qx 'unit finished' <<<"$out" || fail "unit: runtime_test ran to the end" "$out"
