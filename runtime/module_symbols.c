/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * module_symbols.c - where a module's static variables are: target variables of modules
 * (@var("x", "mod"), a static of a module's function) are placed from a symbol of the
 * module, whose address is known only once the module is loaded.
 *
 * Pass 3 names the symbols (STP_MODULE_SYMBOLS: "module:symbol", ...).  When the
 * session starts each is looked up with kallsyms_lookup_name(), which reads a loaded
 * module's own symbol table for "module:symbol" (the kernel no longer exports it to
 * modules: its address comes from a kprobe on it, which is then removed).  A module
 * notifier looks them up again when a module comes, and forgets them when it goes; a
 * handler that reads one of an absent module gets a soft error.
 *
 * The lookup itself (stp_find_kallsyms_lookup_name()) serves other glue too: the
 * hardware breakpoints of kernel.data("symbol").
 */
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

static unsigned long (*stp_kallsyms_lookup_name)(const char *name);

/* The address of kallsyms_lookup_name, from a kprobe placed on it for a moment.
 * Context: process context (registers a kprobe). */
static __maybe_unused int stp_find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	int rc;

	if (stp_kallsyms_lookup_name)
		return 0;
	rc = register_kprobe(&kp);
	if (rc)
		return rc;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
#ifdef CONFIG_X86_KERNEL_IBT
	/* a kprobe at a function's entry goes after its ENDBR; a call must not */
	if (is_endbr(*(u32 *)(addr - ENDBR_INSN_SIZE)))
		addr -= ENDBR_INSN_SIZE;
#endif
	stp_kallsyms_lookup_name = (unsigned long (*)(const char *))addr;
	return 0;
}

#ifdef STP_MODULE_SYMBOLS

static const char *const stp_module_symbol_names[] = { STP_MODULE_SYMBOLS };
static unsigned long stp_module_symbol_addresses[ARRAY_SIZE(stp_module_symbol_names)];
static DEFINE_MUTEX(stp_module_symbols_mutex);

/* Whether "module:symbol" NAME is of the module called MODULE. */
static bool stp_module_symbol_of(const char *name, const char *module)
{
	size_t len = strlen(module);

	return strncmp(name, module, len) == 0 && name[len] == ':';
}

/* Looks up the symbols of MODULE (NULL: every module); forgets them when GOING.
 * Context: process context; takes stp_module_symbols_mutex. */
static void stp_module_symbols_update(const char *module, bool going)
{
	size_t i;

	mutex_lock(&stp_module_symbols_mutex);
	for (i = 0; i < ARRAY_SIZE(stp_module_symbol_names); i++) {
		const char *name = stp_module_symbol_names[i];

		if (module && !stp_module_symbol_of(name, module))
			continue;
		WRITE_ONCE(stp_module_symbol_addresses[i],
			   going ? 0 : stp_kallsyms_lookup_name(name));
	}
	mutex_unlock(&stp_module_symbols_mutex);
}

static int stp_module_symbols_event(struct notifier_block *nb, unsigned long state,
				    void *data)
{
	struct module *mod = data;

	if (state == MODULE_STATE_COMING || state == MODULE_STATE_GOING)
		stp_module_symbols_update(mod->name, state == MODULE_STATE_GOING);
	return NOTIFY_DONE;
}

static struct notifier_block stp_module_symbols_notifier = {
	.notifier_call = stp_module_symbols_event,
};

/* Before any probe: the notifier first, so that no module comes unseen. */
static int stp_module_symbols_start(void)
{
	int rc = stp_find_kallsyms_lookup_name();

	if (rc) {
		_stp_error("cannot find kallsyms_lookup_name for module variables (rc %d)", rc);
		return rc;
	}
	rc = register_module_notifier(&stp_module_symbols_notifier);
	if (rc)
		return rc;
	stp_module_symbols_update(NULL, false);
	return 0;
}

/* After the probes are gone. */
static void stp_module_symbols_stop(void)
{
	unregister_module_notifier(&stp_module_symbols_notifier);
}

/* The address OFFSET bytes from module symbol INDEX, or 0 and a soft error. */
static __maybe_unused u64 stp_module_address(struct context *c, int index, u64 offset)
{
	unsigned long base = READ_ONCE(stp_module_symbol_addresses[index]);

	if (!base) {
		stp_soft_error(c, "module variable %s: the module is not loaded",
			       stp_module_symbol_names[index]);
		return 0;
	}
	return base + offset;
}

#endif /* STP_MODULE_SYMBOLS */
