/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timing.c - stap -t (STP_TIMING): how long each probe's handler took and how often a
 * global's lock was found taken, written to the output after the end probes in the form
 * SystemTap 4.8 gives it:
 *
 *   ----- probe hit report: 
 *   POINT, (WHERE), hits: N, cycles: MINmin/AVGavg/MAXmax, variance: V, from: POINT
 *   from: FROM_POINT, index: I           (one line per probe that ran at least once)
 *   ----- refresh report:
 *   'NAME' lock contention occurred N times          (each global whose lock was)
 *
 * A hit's cycles are get_cycles() from when its handler starts (before it takes its
 * globals' locks, so a wait for a lock counts) to when it ends.  Each CPU keeps one
 * statistic per probe (its handler owns the CPU, so no lock), merged for the report.
 * The refresh report stays empty: this runtime has no periodic refresh work to time.
 * Without -t none of it is compiled in (runtime.h makes the two hooks nothing).
 */

#ifdef STP_TIMING

static struct stp_stat_desc stp_timing_desc = { .hist = STP_HIST_NONE };
/* per CPU: one struct stp_stat per probe (allocated apart: a per-CPU allocation is at
 * most 32 KB, which a script with a thousand probes would pass) */
static DEFINE_PER_CPU(struct stp_stat *, stp_timing_stats);
static bool stp_timing_ready;

static struct stp_stat *stp_timing_slot(struct stp_stat *cpu_stats, size_t i)
{
	return (struct stp_stat *)((char *)cpu_stats + i * stp_stat_size(&stp_timing_desc));
}

static void stp_timing_free(void)
{
	int cpu;

	stp_timing_ready = false;
	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(stp_timing_stats, cpu));
		per_cpu(stp_timing_stats, cpu) = NULL;
	}
}

/* At load: the statistics of every probe on every CPU.  Return: 0 or -ENOMEM. */
static int stp_timing_alloc(void)
{
	size_t n, size;
	int cpu;

	stp_script_probes(&n);
	stp_stat_desc_init(&stp_timing_desc);
	size = max_t(size_t, n, 1) * stp_stat_size(&stp_timing_desc);
	for_each_possible_cpu(cpu) {
		struct stp_stat *stats = stp_kvzalloc(size);

		if (!stats) {
			stp_timing_free();
			return -ENOMEM;
		}
		per_cpu(stp_timing_stats, cpu) = stats;
	}
	stp_timing_ready = true;
	return 0;
}

/* A hit of PROBE took CYCLES; called by its handler's CPU with preemption off. */
static void stp_timing_record(const struct stp_probe *probe, u64 cycles)
{
	size_t n;
	const struct stp_probe *all = stp_script_probes(&n);
	size_t i = probe - all;

	/* a return probe's entry part is a probe of its own, outside the table */
	if (!stp_timing_ready || probe < all || i >= n)
		return;
	stp_stat_add(stp_timing_slot(__this_cpu_read(stp_timing_stats), i), &stp_timing_desc,
		     (s64)cycles);
}

/* A hit found LOCK taken at its first attempt. */
static void stp_timing_contended(struct stp_global_lock *lock)
{
	atomic64_inc(&lock->contended);
}

/* One line of the report into the output, as a handler's output goes there. */
static __printf(1, 2) void stp_timing_line(const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	line = kvasprintf(GFP_KERNEL, fmt, ap);
	va_end(ap);
	if (!line)
		return;
	preempt_disable();
	stp_relay_write(line, strlen(line));
	preempt_enable();
	kfree(line);
}

/* After the end probes, in process context (stapio's EXIT). */
static void stp_timing_report(void)
{
	size_t n, i;
	const struct stp_probe *probes = stp_script_probes(&n);
	struct stp_global_lock *const *lock;
	struct stp_stat sum;		/* no histogram: no buckets after it */
	int cpu;

	if (!stp_timing_ready)
		return;
	stp_timing_line("----- probe hit report: \n");
	for (i = 0; i < n; i++) {
		const struct stp_probe *p = &probes[i];

		stp_stat_clear(&sum, &stp_timing_desc);
		for_each_possible_cpu(cpu)
			stp_stat_merge(&sum, stp_timing_slot(per_cpu(stp_timing_stats, cpu), i),
				       &stp_timing_desc);
		if (!sum.count)
			continue;
		stp_timing_line("%s, (%s), hits: %lld, cycles: %lldmin/%lldavg/%lldmax, "
				"variance: %lld, from: %s, index: %zu\n",
				p->point, p->location, sum.count, sum.min,
				div64_s64(sum.sum, sum.count), sum.max,
				stp_stat_variance(&sum, &stp_timing_desc), p->from_point, i);
	}
	stp_timing_line("----- refresh report:\n");
	for (lock = stp_script_global_locks(); *lock; lock++) {
		s64 times = atomic64_read(&(*lock)->contended);

		if (times)
			stp_timing_line("'%s' lock contention occurred %lld times\n",
					(*lock)->name, times);
	}
}

#else /* !STP_TIMING */

static int stp_timing_alloc(void) { return 0; }
static void stp_timing_free(void) { }
static void stp_timing_report(void) { }

#endif /* STP_TIMING */
