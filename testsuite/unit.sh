# unit.sh - layer 1: runtime pieces that need no kernel, compiled in user space against
# testsuite/unit/shim.h, with the sanitizers on.  Each testsuite/unit/*_test.c is one
# program that prints PASS:/FAIL: lines and "unit finished" at its end.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$WORK/unit"
for src in "$top"/testsuite/unit/*_test.c; do
	name=$(basename "$src" .c)
	bin=$WORK/unit/$name
	if ! log=$(cc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all -I"$top/testsuite/unit" -I"$top/runtime" -iquote "$top/src" \
		-o "$bin" "$src" -lm 2>&1); then
		fail "unit: $name compiles" "$log"
		continue
	fi
	out=$("$bin" 2>&1)
	printf '%s\n' "$out" | grep -v '^unit finished$'
	# a crash or sanitizer report ends the program before it says it finished
	grep -qx 'unit finished' <<<"$out" || fail "unit: $name ran to the end" "$out"
done
