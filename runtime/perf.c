/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.c - perf.type(T).config(C)[.sample(N)|.hz(N)] probes: a kernel perf event per
 * probe on every CPU online when the session starts (perf_event_create_kernel_counter()),
 * whose overflow handler runs the probe each N counts of the event (or N times a second,
 * the kernel adapting the period).  Pass 3's side is src/families/family_perf.c.
 *
 * The handler runs where the event overflows: a software event's (cpu_clock, task_clock)
 * in the hrtimer's hard interrupt, page faults and context switches in the task that
 * counted, a hardware counter's in an NMI; with the interrupted registers, so
 * user_mode(), print_backtrace() and print_ubacktrace() tell where the CPU was.
 *
 * An event the kernel refuses (an unknown type or config, a hardware counter the CPU or
 * the virtual machine does not have, counters exhausted) fails the session's start, as
 * in stap: "probe perf.type(0).config(0).sample(1000000) registration error (rc -2)".
 * CPU hotplug is ignored, as for timer.profile: a CPU that comes online later has no
 * event.  Unregistering releases every event (perf_event_release_kernel() waits for
 * nothing, but an event removed from its context runs no overflow handler once the
 * removal's IPI has returned).
 */
#include <linux/perf_event.h>

/* One probe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_perf_probe {
	const struct stp_probe *probe;
	u32 type;
	u64 config;
	u64 period;			/* counts, or runs a second with freq */
	bool freq;
	/* run-time state: the event of each possible CPU (NULL: none) */
	struct perf_event **events;
};

static void stp_perf_hit(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	struct stp_perf_probe *p = event->overflow_handler_context;
	struct stp_hit hit = { .regs = regs };

	stp_probe_run_hit(p->probe, STP_SESSION_RUNNING, &hit);
}

static void stp_perf_release(struct stp_perf_probe *p)
{
	int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

static int stp_perf_start(struct stp_perf_probe *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.freq = p->freq,
	};
	int cpu, rc = 0;

	if (p->freq)
		attr.sample_freq = p->period;
	else
		attr.sample_period = p->period;
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *event =
			perf_event_create_kernel_counter(&attr, cpu, NULL, stp_perf_hit, p);

		if (IS_ERR(event)) {
			rc = PTR_ERR(event);
			break;
		}
		p->events[cpu] = event;
	}
	cpus_read_unlock();
	if (rc)
		stp_perf_release(p);
	return rc;
}

static __maybe_unused void stp_perf_unregister(struct stp_perf_probe *probes, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		stp_perf_release(&probes[i]);
}

/* Starts every probe's events, or none: a refused event fails the session. */
static __maybe_unused int stp_perf_register(struct stp_perf_probe *probes, size_t count)
{
	size_t i;
	int rc;

	for (i = 0; i < count; i++) {
		rc = stp_perf_start(&probes[i]);
		if (rc) {
			_stp_error("probe %s registration error (rc %d)", probes[i].probe->point,
				   rc);
			stp_perf_unregister(probes, i);
			return rc;
		}
	}
	return 0;
}
