/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracepoint.c - kernel.trace(...) probes through the kernel's tracepoint API.
 *
 * Pass 3 writes a probe function per probe, of the tracepoint's own prototype (void
 * *data, then each argument as a u64: integers and pointers alike take one register or
 * stack slot), which hands the arguments to stp_trace_run(); handlers read them with
 * stp_trace_arg().  A tracepoint is found by name: the kernel's with
 * for_each_kernel_tracepoint() when the session starts, a module's when the module comes
 * (the tracepoint module notifier also tells of those already loaded), and the probe is
 * taken off when the module goes.  At the end every probe is unregistered, then
 * tracepoint_synchronize_unregister() waits for the calls in flight, so that none runs
 * into this module once it is gone.
 */
#include <linux/tracepoint.h>

/* One probe on a tracepoint; pass 3 writes a table of them (the fields before the
 * run-time state). */
struct stp_trace_probe {
	const struct stp_probe *probe;
	const char *name;		/* the tracepoint's */
	const char *module;		/* NULL: the kernel's */
	void *func;			/* stp_trace_probe_N */
	/* run-time state, under stp_traces_mutex */
	struct tracepoint *tp;		/* registered on it, or NULL */
};

static struct stp_trace_probe *stp_traces;
static size_t stp_ntraces;
static DEFINE_MUTEX(stp_traces_mutex);
static bool stp_traces_watching;

/* A hit: ARGS are the tracepoint's arguments, for stp_trace_arg(). */
static __maybe_unused void stp_trace_run(const struct stp_probe *probe, u64 *args)
{
	struct stp_hit hit = { .data = args };

	stp_probe_run_hit(probe, STP_SESSION_RUNNING, &hit);
}

static __maybe_unused u64 stp_trace_arg(struct context *c, int i)
{
	return c->probe_data ? ((const u64 *)c->probe_data)[i] : 0;
}

/* Registers the probes of MODULE (NULL: the kernel's) named as TP.
 * Context: takes no lock; the caller holds stp_traces_mutex. */
static void stp_trace_attach(struct tracepoint *tp, const char *module)
{
	size_t i;

	for (i = 0; i < stp_ntraces; i++) {
		struct stp_trace_probe *t = &stp_traces[i];
		int rc;

		if (t->tp || strcmp(t->name, tp->name) != 0 ||
		    (module ? !t->module || strcmp(t->module, module) != 0 : t->module != NULL))
			continue;
		rc = tracepoint_probe_register(tp, t->func, NULL);
		if (rc)
			_stp_warn("probe %s registration error (rc %d)", t->probe->point, rc);
		else
			t->tp = tp;
	}
}

static void stp_trace_kernel_tracepoint(struct tracepoint *tp, void *priv)
{
	stp_trace_attach(tp, NULL);
}

static int stp_trace_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	unsigned int i;
	size_t k;

	mutex_lock(&stp_traces_mutex);
	if (state == MODULE_STATE_COMING) {
		for (i = 0; i < mod->num_tracepoints; i++)
			stp_trace_attach(tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]),
					 mod->name);
	} else if (state == MODULE_STATE_GOING) {
		for (k = 0; k < stp_ntraces; k++) {
			struct stp_trace_probe *t = &stp_traces[k];

			if (t->tp && t->module && strcmp(t->module, mod->name) == 0) {
				tracepoint_probe_unregister(t->tp, t->func, NULL);
				t->tp = NULL;
			}
		}
	}
	mutex_unlock(&stp_traces_mutex);
	return NOTIFY_OK;
}

static struct notifier_block stp_trace_module_notifier = {
	.notifier_call = stp_trace_module_event,
};

static __maybe_unused void stp_traces_unregister(struct stp_trace_probe *probes, size_t count)
{
	size_t i;

	if (stp_traces_watching) {	/* no module comes or goes while the probes go */
		unregister_tracepoint_module_notifier(&stp_trace_module_notifier);
		stp_traces_watching = false;
	}
	mutex_lock(&stp_traces_mutex);
	for (i = 0; i < count; i++) {
		if (!probes[i].tp)
			continue;
		tracepoint_probe_unregister(probes[i].tp, probes[i].func, NULL);
		probes[i].tp = NULL;
	}
	mutex_unlock(&stp_traces_mutex);
	tracepoint_synchronize_unregister();
}

/*
 * Registers the kernel's tracepoints now and the modules' as they come; fails only when
 * none of the kernel's is found and no probe is on a module's.
 */
static __maybe_unused int stp_traces_register(struct stp_trace_probe *probes, size_t count)
{
	size_t i, found = 0;
	bool waits = false;
	int rc;

	stp_traces = probes;
	stp_ntraces = count;
	mutex_lock(&stp_traces_mutex);
	for_each_kernel_tracepoint(stp_trace_kernel_tracepoint, NULL);
	mutex_unlock(&stp_traces_mutex);
	for (i = 0; i < count; i++) {
		waits |= probes[i].module != NULL;
		if (!probes[i].module && !probes[i].tp)
			_stp_warn("probe %s registration error (no tracepoint %s)",
				  probes[i].probe->point, probes[i].name);
		found += probes[i].tp != NULL;
	}
	if (waits) {
		rc = register_tracepoint_module_notifier(&stp_trace_module_notifier);
		if (rc) {
			stp_traces_unregister(probes, count);
			return rc;
		}
		stp_traces_watching = true;
	}
	if (!found && !waits) {
		_stp_error("no tracepoint could be registered");
		stp_traces_unregister(probes, count);
		return -ENOENT;
	}
	return 0;
}
