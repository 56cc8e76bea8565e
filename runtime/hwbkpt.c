/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hwbkpt.c - kernel.data(...) probes: a hardware breakpoint (a debug register of every
 * CPU, through the kernel's perf hw_breakpoint API) per probe, on writes or on reads and
 * writes of 1, 2, 4 or 8 bytes.  A symbol's address comes from kallsyms when the session
 * starts.  The handler runs in the debug exception that follows the access, with its
 * registers (print_backtrace() shows who touched the data).
 *
 * Debug registers are few (4 per CPU on x86): a probe the kernel has none left for, or
 * whose address it refuses (misaligned for its length, a user address), is a warning,
 * and only when none registers does the session fail.
 */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

/* One probe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_hwbkpt_probe {
	const struct stp_probe *probe;
	const char *symbol;		/* or NULL: address */
	unsigned long address;
	int length;
	bool rw;
	/* run-time state */
	struct perf_event *__percpu *events;
};

static struct stp_hwbkpt_probe *stp_hwbkpts;
static size_t stp_nhwbkpts;

static void stp_hwbkpt_hit(struct perf_event *bp, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	size_t i;

	for (i = 0; i < stp_nhwbkpts; i++) {
		struct stp_hwbkpt_probe *p = &stp_hwbkpts[i];
		struct stp_hit hit = { .regs = regs };

		if (p->events && bp->attr.bp_addr == p->address &&
		    bp->attr.bp_len == (u64)p->length &&
		    bp->attr.bp_type == (p->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W)) {
			stp_probe_run_hit(p->probe, STP_SESSION_RUNNING, &hit);
			return;
		}
	}
}

static __maybe_unused void stp_hwbkpts_unregister(struct stp_hwbkpt_probe *probes,
						  size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (!probes[i].events)
			continue;
		unregister_wide_hw_breakpoint(probes[i].events);
		probes[i].events = NULL;
	}
}

static __maybe_unused int stp_hwbkpts_register(struct stp_hwbkpt_probe *probes, size_t count)
{
	size_t i, registered = 0;
	int rc = 0;

	stp_hwbkpts = probes;
	stp_nhwbkpts = count;
	for (i = 0; i < count; i++) {
		struct stp_hwbkpt_probe *p = &probes[i];
		struct perf_event_attr attr;
		struct perf_event *__percpu *events;

		if (p->symbol) {
			rc = stp_find_kallsyms_lookup_name();
			p->address = rc ? 0 : stp_kallsyms_lookup_name(p->symbol);
			if (!p->address) {
				_stp_warn("probe %s registration error (no kernel symbol %s)",
					  p->probe->point, p->symbol);
				rc = -ENOENT;
				continue;
			}
		}
		hw_breakpoint_init(&attr);
		attr.bp_addr = p->address;
		attr.bp_len = p->length;
		attr.bp_type = p->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
		events = register_wide_hw_breakpoint(&attr, stp_hwbkpt_hit, NULL);
		if (IS_ERR_OR_NULL((void __force *)events)) {
			rc = events ? PTR_ERR((void __force *)events) : -EINVAL;
			_stp_warn("probe %s registration error (rc %d)", p->probe->point, rc);
			continue;
		}
		p->events = events;
		registered++;
	}
	return stp_registered_any(count, registered, rc, "hardware breakpoint");
}
