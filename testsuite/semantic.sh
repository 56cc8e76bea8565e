# semantic.sh - layer 2b: pass 2.  testsuite/semantic/NAME.stp with NAME.p2 (accepted;
# the elaborated program) or NAME.err (rejected; the errors).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
check_translator_cases "$top/testsuite/semantic" 2
