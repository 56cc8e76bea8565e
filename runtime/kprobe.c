/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kprobe.c - kprobes and kretprobes: kprobe.* probes (a function's entry, an absolute
 * address, a function's return) and the DWARF family's (kernel.function(...),
 * module(...).statement(...): a symbol and an offset from it, which pass 2 chose so that
 * the kernel finds the symbol by name whatever KASLR or a module's load address).
 *
 * Functions are found by name when the session starts ("name", or "module:name" for a
 * module's, which the kernel resolves only while that module is loaded), so a missing
 * one is known only then.  As in stap, a probe that fails to register is a warning and
 * the session goes on, even when none of them registered.  A probe in a module
 * (wait_for_module: DWARF's module(...) points, kprobe.module(...)) waits silently for
 * the module instead: a module notifier registers it when the module comes, and
 * unregisters it when it goes.
 * At the end, hits the kernel could not deliver (a kprobe hit while another kprobe ran on
 * that CPU, a return missed because every kretprobe instance was in use) count as
 * skipped probes and are reported per probe.
 *
 * Several probes at one address run in the order the script has them, as in stap: the
 * kernel runs the kprobes of an address newest first, so a table registers from its end
 * (its warnings still come in the table's order).
 */

/* One kprobe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_kprobe_probe {
	const struct stp_probe *probe;
	const char *symbol;		/* "name" or "module:name"; NULL: at address */
	unsigned long offset;		/* from the symbol */
	unsigned long address;
	bool is_return;
	int maxactive;			/* <= 0: the kernel's default */
	bool wait_for_module;		/* "module:name" not loaded yet: wait for it */
	/* .callee(...) at a function's entry: where the caller's calls of it return, from
	 * the probe's address; it runs only when the return address on the stack is one */
	const long *callers;
	int ncallers;
	const struct stp_call_chain *chain;	/* .callees(N): the frames above (callers.c) */
	/* a return probe's @entry(...): the handler its function's entry runs, and the
	 * bytes each instance keeps for the return (kretprobe instance data) */
	const struct stp_probe *entry_probe;
	size_t data_size;
	/* run-time state, under stp_kprobes_mutex once the session has started */
	bool registered;
	int error;			/* of the last registration */
	union {
		struct kprobe kp;
		struct kretprobe krp;
	} u;
};

/*
 * A kprobe on a function's fentry call is run by ftrace and has no copy of the
 * instruction to single-step.  Yet a CPU can still reach it through an int3: the one the
 * kernel's text patching puts at that address while (dis)arming it, when the CPU sees
 * the breakpoint late (QEMU's emulation makes that window wide).  The kernel would then
 * single-step a NULL copy (an oops at address 0 under a hot probe being unregistered).
 * Send the CPU back to the address instead, as the kernel does when its breakpoint is
 * gone: the instruction runs again, through ftrace or as the nop it becomes.  A kernel
 * int3 runs as an NMI with orig_ax -1; ftrace's call never does both.
 */
static bool stp_kprobe_stray_int3(struct kprobe *kp, struct pt_regs *regs)
{
	if (!(kp->flags & KPROBE_FLAG_FTRACE) || !in_nmi() || regs->orig_ax != ~0UL)
		return false;
	instruction_pointer_set(regs, (unsigned long)kp->addr);
	return true;
}

#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

/*
 * Where the function of K, a probe at a function's entry that the kernel put at AT,
 * starts: a probe asked at symbol+0 goes past the function's ENDBR instruction when the
 * kernel is built for IBT.
 */
static unsigned long stp_kprobe_function_start(const struct stp_kprobe_probe *k,
					       unsigned long at)
{
#ifdef CONFIG_X86_KERNEL_IBT
	if (k->symbol && k->offset == 0 && is_endbr(*(u32 *)(at - ENDBR_INSN_SIZE)))
		return at - ENDBR_INSN_SIZE;
#endif
	return at;
}

/*
 * Whether K, a probe at a function's entry (put at AT), was reached from one of its
 * callers' calls: the return address on top of the stack (the entry has pushed nothing
 * yet) is one of theirs.  Always with -DSTAP_CALLEE_MATCHALL, as stap.
 */
static bool stp_kprobe_from_caller(const struct stp_kprobe_probe *k, struct pt_regs *regs,
				   unsigned long at)
{
#ifndef STAP_CALLEE_MATCHALL
	unsigned long ret;

	if (k->chain)
		return stp_call_chain_matches(k->chain, stp_kprobe_function_start(k, at),
					      kernel_stack_pointer(regs), regs->bp, false);
	if (!k->ncallers)
		return true;
	at = stp_kprobe_function_start(k, at);
	ret = *(unsigned long *)kernel_stack_pointer(regs);
	for (int i = 0; i < k->ncallers; i++)
		if (ret == at + k->callers[i])
			return true;
	return false;
#else
	return true;
#endif
}

/* A hit, in a kprobe's handler: the reader's wakeups wait for a timer (transport.c). */
static void stp_kprobe_run_hit(const struct stp_probe *probe, struct stp_hit *hit)
{
	this_cpu_inc(stp_in_kprobe);
	stp_probe_run_hit(probe, STP_SESSION_RUNNING, hit);
	this_cpu_dec(stp_in_kprobe);
}

static int stp_kprobe_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct stp_kprobe_probe *k = container_of(kp, struct stp_kprobe_probe, u.kp);
	struct stp_hit hit = { .regs = regs, .addr = (unsigned long)kp->addr };

	if (stp_kprobe_stray_int3(kp, regs))
		return 1;	/* the ip is changed: the kernel does not single-step */
	/* a probe without .callee(s) runs on every hit: no call on that path */
	if ((!k->ncallers && !k->chain) ||
	    stp_kprobe_from_caller(k, regs, (unsigned long)kp->addr))
		stp_kprobe_run_hit(k->probe, &hit);
	return 0;
}

/* A return probe's function is entered: its @entry values are evaluated and kept. */
static int stp_kretprobe_entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = stp_kretprobe_of(ri);
	struct stp_kprobe_probe *k;
	struct stp_hit hit = { .regs = regs, .data = ri, .kept = ri->data };

	if (unlikely(!rp))
		return 0;
	k = container_of(rp, struct stp_kprobe_probe, u.krp);
	if (!stp_kprobe_from_caller(k, regs, (unsigned long)rp->kp.addr))
		return 1;	/* another caller's call: no return probe for it */
	if (!k->entry_probe)
		return 0;
	memset(ri->data, 0, k->data_size);	/* an entry that is skipped keeps zeros */
	stp_kprobe_run_hit(k->entry_probe, &hit);
	return 0;
}

static int stp_kretprobe_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = stp_kretprobe_of(ri);
	struct stp_kprobe_probe *k;
	struct stp_hit hit = { .regs = regs, .is_return = true, .data = ri, .kept = ri->data };

	if (unlikely(!rp))	/* being unregistered */
		return 0;
	k = container_of(rp, struct stp_kprobe_probe, u.krp);
	stp_kprobe_run_hit(k->probe, &hit);
	return 0;
}

static int stp_kprobe_register_one(struct stp_kprobe_probe *k)
{
	struct kprobe *kp = k->is_return ? &k->u.krp.kp : &k->u.kp;

	memset(&k->u, 0, sizeof(k->u));
	if (k->symbol) {
		kp->symbol_name = k->symbol;
		kp->offset = k->offset;
	} else
		kp->addr = (kprobe_opcode_t *)k->address;
	if (!k->is_return) {
		kp->pre_handler = stp_kprobe_pre_handler;
		return register_kprobe(kp);
	}
	k->u.krp.handler = stp_kretprobe_handler;
	if (k->entry_probe || k->ncallers || k->chain) {
		k->u.krp.entry_handler = stp_kretprobe_entry_handler;
		k->u.krp.data_size = k->data_size;
	}
	if (k->maxactive > 0)
		k->u.krp.maxactive = k->maxactive;
	return register_kretprobe(&k->u.krp);
}

/* K did not register: stap 4.8's words; the address is the kernel's, once it found one. */
static void stp_kprobe_warn_failed(struct stp_kprobe_probe *k, int err)
{
	struct kprobe *kp = k->is_return ? &k->u.krp.kp : &k->u.kp;

	_stp_warn("probe %s (address 0x%lx) registration error [man warning::pass5] (rc %d)",
		  k->probe->point, (unsigned long)kp->addr, err);
}

/* What the kernel could not deliver to K: counted as skipped, and said once per probe. */
static void stp_kprobe_report_missed(struct stp_kprobe_probe *k)
{
	unsigned long missed;

	if (k->is_return) {
		missed = k->u.krp.nmissed + k->u.krp.kp.nmissed;
		if (missed)
			_stp_warn("Skipped due to missed kretprobe on '%s': %lu", k->probe->point,
				  missed);
	} else {
		missed = k->u.kp.nmissed;
		if (missed)
			_stp_warn("Skipped due to missed kprobe on '%s': %lu", k->probe->point,
				  missed);
	}
	atomic64_add(missed, &stp_skipped_count);
}

/* The tables of the session (the kprobe and DWARF families'), for the module notifier. */
struct stp_kprobe_table {
	struct stp_kprobe_probe *probes;
	size_t count;
};
static struct stp_kprobe_table stp_kprobe_tables[2];
static int stp_kprobe_ntables;
static DEFINE_MUTEX(stp_kprobes_mutex);
static bool stp_kprobes_watching;

/* Whether K is in the module called NAME ("NAME:function"). */
static bool stp_kprobe_in_module(const struct stp_kprobe_probe *k, const char *name)
{
	const char *colon = k->symbol ? strchr(k->symbol, ':') : NULL;

	return colon && strlen(name) == (size_t)(colon - k->symbol) &&
	       strncmp(k->symbol, name, colon - k->symbol) == 0;
}

static void stp_kprobe_unregister_one(struct stp_kprobe_probe *k)
{
	if (k->is_return)
		unregister_kretprobe(&k->u.krp);
	else
		unregister_kprobe(&k->u.kp);
	stp_kprobe_report_missed(k);
	k->registered = false;
}

/*
 * A module comes (its text in place, before its init runs) or goes: its waiting probes
 * are registered, or unregistered before its text is freed.
 * Context: process context; takes stp_kprobes_mutex.
 */
static int stp_kprobe_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;
	int t;
	size_t i;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&stp_kprobes_mutex);
	for (t = 0; t < stp_kprobe_ntables; t++) {
		size_t count = stp_kprobe_tables[t].count;

		for (i = count; i-- > 0;) {	/* from the end: see the top */
			struct stp_kprobe_probe *k = &stp_kprobe_tables[t].probes[i];

			k->error = 0;
			if (!k->wait_for_module || !stp_kprobe_in_module(k, mod->name))
				continue;
			if (state == MODULE_STATE_GOING && k->registered) {
				stp_kprobe_unregister_one(k);
			} else if (state == MODULE_STATE_COMING && !k->registered) {
				k->error = stp_kprobe_register_one(k);
				k->registered = !k->error;
			}
		}
		for (i = 0; i < count; i++)
			if (stp_kprobe_tables[t].probes[i].error)
				stp_kprobe_warn_failed(&stp_kprobe_tables[t].probes[i],
						       stp_kprobe_tables[t].probes[i].error);
	}
	mutex_unlock(&stp_kprobes_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block stp_kprobe_module_notifier = {
	.notifier_call = stp_kprobe_module_event,
};

static __maybe_unused void stp_kprobes_unregister(struct stp_kprobe_probe *probes, size_t count)
{
	struct kprobe **kps = kcalloc(count, sizeof(*kps), GFP_KERNEL);
	struct kretprobe **krps = kcalloc(count, sizeof(*krps), GFP_KERNEL);
	size_t i, nkp = 0, nkrp = 0;

	/* no module may come or go while the probes go: the notifier first */
	if (stp_kprobes_watching) {
		unregister_module_notifier(&stp_kprobe_module_notifier);
		stp_kprobes_watching = false;
	}
	mutex_lock(&stp_kprobes_mutex);

	for (i = 0; i < count; i++) {
		struct stp_kprobe_probe *k = &probes[i];

		if (!k->registered)
			continue;
		if (k->is_return && krps)
			krps[nkrp++] = &k->u.krp;
		else if (k->is_return)
			unregister_kretprobe(&k->u.krp);
		else if (kps)
			kps[nkp++] = &k->u.kp;
		else
			unregister_kprobe(&k->u.kp);
	}
	/* in batches: one RCU grace period for all of them */
	if (nkp)
		unregister_kprobes(kps, nkp);
	if (nkrp)
		unregister_kretprobes(krps, nkrp);
	kfree(kps);
	kfree(krps);
	for (i = 0; i < count; i++) {
		if (!probes[i].registered)
			continue;
		stp_kprobe_report_missed(&probes[i]);
		probes[i].registered = false;
	}
	mutex_unlock(&stp_kprobes_mutex);
}

/*
 * Registers what it can, warning of each probe that fails (the session goes on, as in
 * stap); fails only when the module notifier cannot be set up.  The notifier is on
 * first, so that a module coming while the others register is not missed.
 */
static __maybe_unused int stp_kprobes_register(struct stp_kprobe_probe *probes, size_t count)
{
	size_t i;
	int rc;
	bool waits = false;

	for (i = 0; i < count; i++)
		waits |= probes[i].wait_for_module;
	if (stp_kprobe_ntables < (int)ARRAY_SIZE(stp_kprobe_tables))
		stp_kprobe_tables[stp_kprobe_ntables++] = (struct stp_kprobe_table){ probes, count };
	if (waits && !stp_kprobes_watching) {
		rc = register_module_notifier(&stp_kprobe_module_notifier);
		if (rc)
			return rc;
		stp_kprobes_watching = true;
	}
	stp_wake_poll_start();
	mutex_lock(&stp_kprobes_mutex);
	for (i = count; i-- > 0;) {	/* from the end: see the top */
		int err = probes[i].registered ? 0 : stp_kprobe_register_one(&probes[i]);

		probes[i].error = 0;
		if (err == -ENOENT && probes[i].wait_for_module)
			continue;	/* the module is not loaded: the notifier will do it */
		probes[i].error = err;
		probes[i].registered = !err;
	}
	for (i = 0; i < count; i++)
		if (probes[i].error)
			stp_kprobe_warn_failed(&probes[i], probes[i].error);
	mutex_unlock(&stp_kprobes_mutex);
	return 0;
}
