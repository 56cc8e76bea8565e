# parse.sh - layer 2a: pass 1.  testsuite/parse/NAME.stp with NAME.p1 (accepted; the
# parse tree dump) or NAME.err (rejected; the errors).  See check_translator_cases.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
check_translator_cases "$top/testsuite/parse" 1
