/*
 * blocklist.c - the kernel functions a probe may not go in because of what they are,
 * beside the text kprobes itself refuses (dwarf_module.c: .init/.exit, entry, noinstr,
 * NOKPROBE_SYMBOL).  A kprobe there fires inside the machinery our handlers use or the
 * kprobe itself depends on: a handler that takes a map's lock probing the lock's own
 * code, a probe on the instruction decoder or text-address checks that arming a kprobe
 * calls, on the context switch or the signal frame being built, on the current task's
 * accessors, on interrupt, APIC and paravirt plumbing, on page-table entry helpers.
 * stap 4.8 keeps the same functions out of -l and refuses them with "function NAME is
 * blocklisted" (a rule on its name) or "is in blocklisted file" (on its declaration's
 * file); the rules here were found by comparing its -l 'kernel.function("*")' with ours
 * on the reference kernel: every function they refuse, stap refuses too (doc/dwarf.md).
 *
 * Only kernel objects (the kernel and its modules): a user-space program's functions
 * are probed by uprobes, which have none of these hazards.
 */
#include "dw.h"

#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>

/* Names (whole-name extended regular expressions). */
static const char *const name_rules[] = {
	/* locks: a handler takes spinlocks (maps, statistics, the transport) */
	".*(read|write|spin|mutex)_(un)?(try)?lock.*",
	"(.*_)?down_(read|write)_trylock.*",
	"(.*_)?(spin|mutex|rwsem)_is_(read_|write_)?locked",
	"_raw_.*", "__raw_(spin|read|write)_.*", "(__pfx_)?_?raw_spin_.*",
	"(__)?write_seq(un)?lock.*",
	"(__pfx_)?(__)?rt_mutex_.*lock.*",
	"(__pfx_|do_)?trace_event_raw_event_(.*_)?lock(_.*)?",
	"(__pfx_)?trace_raw_output_(.*_)?lock(_.*)?",
	/* atomics and notifier chains, called from the breakpoint path itself */
	"atomic_.*", "notifier_call_chain",
	/* interrupts, APIC and softirqs: a probe there runs with the machine half set up */
	".*[aA][pP][iI][cC].*", ".*softirq.*", ".*_intr(_.*)?", "xen_irq_.*",
	"unknown_nmi_error", "__die", "HYPERVISOR_event_channel_op",
	/* what arming and hitting a kprobe uses: text checks, decoder, exception tables */
	".*kernel_text.*", "inat_get_opcode_attribute", "(__pfx_)?search_exception_tables",
	/* the current task, preemption count and thread flags, read by every handler */
	"get_current", "current_.*", "(__)?preempt_count.*", "test_ti_thread_flag",
	/* the context switch, a signal frame being written, busy waits */
	"__switch_to", ".*setup_rt_frame", "__delay",
	/* page-table entries and the special mappings uprobes place code in */
	".*_pte_.*", "__pte", "native_set_pte", "special_mapping_.*",
	/* small helpers inlined into the above */
	"(get|put)_bh", "hash_ptr",
	NULL,
};

/* Declaration files (whole-path extended regular expressions, after any folder). */
static const char *const file_rules[] = {
	"kernel/kprobes\\.c",
	"include/linux/atomic/atomic-instrumented\\.h",
	"arch/x86/include/asm/paravirt\\.h", "arch/x86/kernel/paravirt\\.c",
	"arch/x86/include/asm/io\\.h",
	"arch/x86/include/asm/bitops\\.h",
	"include/linux/rwlock_api_smp\\.h", "include/linux/spinlock_api_smp\\.h",
	"fs/seq_file\\.c",	/* the runtime's procfs files are seq_files */
	NULL,
};

static regex_t names_rx, files_rx;
static bool compiled;

/* One regular expression: "^(A|B|...)$", the file rules after an optional folder. */
static void compile_rules(regex_t *rx, const char *const *rules, const char *prefix)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "^%s(", prefix);
	for (int i = 0; rules[i]; i++)
		sb_printf(&sb, "%s(%s)", i ? "|" : "", rules[i]);
	sb_puts(&sb, ")$");
	if (regcomp(rx, sb.data, REG_EXTENDED | REG_NOSUB) != 0)
		abort();	/* the rules above are fixed: tested by every -l */
	sb_free(&sb);
}

const char *dw_blocklisted(const char *name, const char *file)
{
	if (!compiled) {
		compile_rules(&names_rx, name_rules, "");
		compile_rules(&files_rx, file_rules, "(.*/)?");
		compiled = true;
	}
	if (name && regexec(&names_rx, name, 0, NULL, 0) == 0)
		return "blocklisted";
	if (file && regexec(&files_rx, file, 0, NULL, 0) == 0)
		return "blocklisted file";
	return NULL;
}
