/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stat.c - statistics: what x <<< v accumulates and what @count, @sum, @min, @max, @avg,
 * @variance, @hist_linear and @hist_log read back.
 *
 * Every statistic keeps count, sum, min and max, plus Welford's running mean and sum of
 * squared deviations for @variance, both scaled by 2^bit_shift as stap's @variance(x, N)
 * asks.  Histograms add their buckets:
 *   @hist_linear(x, start, stop, interval): bucket 0 counts values below start, buckets
 *     1..N the ranges start + (i-1)*interval (stop inclusive), bucket N+1 the rest above;
 *   @hist_log(x): 128 buckets, 0 in the middle (STP_HIST_LOG_ZERO), positive powers of two
 *     above it (1, 2-3, 4-7, ...), their negative mirrors below it (-1, -2..-3, ...).
 * Arithmetic wraps like script arithmetic (through u64, so it is defined in C).
 *
 * Locking: nothing here takes a lock.  A struct stp_stat is always part of something the
 * caller already holds: an entry of a map (map.c's rule), a scalar statistic's CPU slot,
 * or an aggregate.  A scalar statistic (struct stp_pstat) is one script global's, and
 * the global's rwlock (globals.c) is taken by the handler before it runs:
 *   - x <<< v adds to this CPU's slot under the read lock (one handler runs per CPU at a
 *     time, preemption off);
 *   - reading x (@count(x), ...) needs the write lock, since it merges every CPU's slot
 *     into the one aggregate;
 *   - alloc and free run at load and unload, when no handler runs, without the lock.
 * The lock is not reachable from here (pass 3 keeps it beside the statistic), so the rule
 * is stated on each function instead of asserted.  Everything but alloc and free may run
 * in any context a handler runs in (IRQs off, from a kprobe); nothing sleeps or allocates.
 */

#ifndef HIST_ELISION
#define HIST_ELISION 2		/* empty buckets kept at each end of an elided run */
#endif

#define STP_HIST_WIDTH 50		/* columns of the widest bar */
#define STP_HIST_LOG_BUCKETS 128
#define STP_HIST_LOG_ZERO 64		/* the bucket of 0 in a log histogram */

struct stp_stat {
	s64 count;
	s64 sum;
	s64 min, max;
	s64 avg_s;			/* running mean << bit_shift */
	s64 m2;				/* sum of squared deviations from avg_s */
	s64 buckets[];
};

/* A scalar statistic: one struct stp_stat per possible CPU, stride bytes apart. */
struct stp_pstat {
	const struct stp_stat_desc *desc;
	size_t stride;
	struct stp_stat *agg;
	char *cpus;
};

static inline s64 stp_wrap_add(s64 a, s64 b)
{
	return (s64)((u64)a + (u64)b);
}

static inline s64 stp_wrap_sub(s64 a, s64 b)
{
	return (s64)((u64)a - (u64)b);
}

static inline s64 stp_wrap_mul(s64 a, s64 b)
{
	return (s64)((u64)a * (u64)b);
}

static inline int stp_stat_shift(const struct stp_stat_desc *d)
{
	/* pass 2 allows 0..62; anything else would be undefined in C */
	return d->bit_shift < 0 ? 0 : d->bit_shift > 62 ? 62 : d->bit_shift;
}

/**
 * stp_stat_desc_init() - Work out what a statistic's description implies (its buckets).
 * @d: the description pass 3 wrote
 *
 * Context: Process context, at load, before any statistic of @d is allocated.
 */
static void stp_stat_desc_init(struct stp_stat_desc *d)
{
	u64 span, n;

	switch (d->hist) {
	case STP_HIST_LOG:
		d->buckets = STP_HIST_LOG_BUCKETS;
		break;
	case STP_HIST_LINEAR:
		/* stp_hist_linear_check() refuses these as the session starts; stay sane */
		if (d->interval <= 0 || d->stop < d->start) {
			d->buckets = 3;
			break;
		}
		span = (u64)d->stop - (u64)d->start;
		n = div64_u64(span, (u64)d->interval) + 1;
		d->buckets = n > 1000000 ? 1000002 : (int)n + 2;
		break;
	default:
		d->buckets = 0;
		break;
	}
}

/**
 * stp_stat_size() - The size of a statistic of a description.
 * @d: the description, after stp_stat_desc_init()
 *
 * Context: Any context.
 * Return: bytes of a struct stp_stat with @d's buckets.
 */
static size_t stp_stat_size(const struct stp_stat_desc *d)
{
	return sizeof(struct stp_stat) + (size_t)d->buckets * sizeof(s64);
}

/**
 * stp_stat_clear() - Empty a statistic.
 * @st: the statistic, the caller's to change (see the top of this file)
 * @d: its description
 *
 * Context: Any context.
 */
static void stp_stat_clear(struct stp_stat *st, const struct stp_stat_desc *d)
{
	memset(st, 0, stp_stat_size(d));
}

/* The log bucket of v (see the top of this file). */
static int stp_hist_log_index(s64 v)
{
	u64 mag;

	if (v == 0)
		return STP_HIST_LOG_ZERO;
	if (v > 0)
		return STP_HIST_LOG_ZERO + 1 + (63 - __builtin_clzll((u64)v));
	mag = 0 - (u64)v;
	return STP_HIST_LOG_ZERO - 1 - (63 - __builtin_clzll(mag));
}

static int stp_hist_index(const struct stp_stat_desc *d, s64 v)
{
	u64 i;

	if (d->hist == STP_HIST_LOG)
		return stp_hist_log_index(v);
	if (v < d->start || d->interval <= 0)
		return 0;
	i = div64_u64((u64)v - (u64)d->start, (u64)d->interval);
	if (i >= (u64)(d->buckets - 2))
		return d->buckets - 1;
	return (int)i + 1;
}

/**
 * stp_stat_add() - st <<< value.
 * @st: the statistic, the caller's to change (see the top of this file)
 * @d: its description
 * @value: the value added
 *
 * Context: Any context.
 */
static void stp_stat_add(struct stp_stat *st, const struct stp_stat_desc *d, s64 value)
{
	int shift = stp_stat_shift(d);
	s64 x = (s64)((u64)value << shift);
	s64 delta;

	if (st->count == 0) {
		st->count = 1;
		st->sum = st->min = st->max = value;
		st->avg_s = x;
		st->m2 = 0;
	} else {
		st->count++;
		st->sum = stp_wrap_add(st->sum, value);
		if (value < st->min)
			st->min = value;
		if (value > st->max)
			st->max = value;
		/* Welford: the mean moves by delta / n, m2 grows by delta * (x - new mean) */
		delta = stp_wrap_sub(x, st->avg_s);
		st->avg_s = stp_wrap_add(st->avg_s, div64_s64(delta, st->count));
		st->m2 = stp_wrap_add(st->m2, stp_wrap_mul(delta, stp_wrap_sub(x, st->avg_s)));
	}
	if (d->hist != STP_HIST_NONE && d->buckets > 0)
		st->buckets[stp_hist_index(d, value)]++;
}

/* The mean of everything in st, scaled like avg_s. */
static s64 stp_stat_mean_s(const struct stp_stat *st, const struct stp_stat_desc *d)
{
	return div64_s64((s64)((u64)st->sum << stp_stat_shift(d)), st->count);
}

/* m2 measured from the exact mean instead of st's running one: m2 + n * (avg_s - mean)^2 */
static s64 stp_stat_m2_at(const struct stp_stat *st, s64 mean_s)
{
	s64 off = stp_wrap_sub(st->avg_s, mean_s);

	return stp_wrap_add(st->m2, stp_wrap_mul(st->count, stp_wrap_mul(off, off)));
}

/**
 * stp_stat_merge() - into += from.
 * @into: the statistic merged into, the caller's to change (see the top of this file)
 * @from: the statistic merged, the caller's to read
 * @d: the description of both
 *
 * The merged deviations are measured from the merged exact mean, which is what stap's
 * @variance computes when it aggregates the CPUs.
 *
 * Context: Any context.
 */
static void stp_stat_merge(struct stp_stat *into, const struct stp_stat *from,
			   const struct stp_stat_desc *d)
{
	struct stp_stat tmp;
	s64 mean_s;
	int i;

	if (from->count == 0)
		return;
	tmp = *into;
	tmp.count = into->count + from->count;
	tmp.sum = stp_wrap_add(into->sum, from->sum);
	if (into->count == 0 || from->min < into->min)
		tmp.min = from->min;
	if (into->count == 0 || from->max > into->max)
		tmp.max = from->max;
	mean_s = stp_stat_mean_s(&tmp, d);
	tmp.m2 = stp_stat_m2_at(from, mean_s);
	if (into->count)
		tmp.m2 = stp_wrap_add(tmp.m2, stp_stat_m2_at(into, mean_s));
	tmp.avg_s = mean_s;
	into->count = tmp.count;
	into->sum = tmp.sum;
	into->min = tmp.min;
	into->max = tmp.max;
	into->avg_s = tmp.avg_s;
	into->m2 = tmp.m2;
	for (i = 0; i < d->buckets; i++)
		into->buckets[i] += from->buckets[i];
}

/**
 * stp_stat_merge_entry() - into += from, for an array's entry.
 * @into: the entry's statistic merged into, the caller's to change
 * @from: one CPU's statistic of the entry, the caller's to read
 * @d: the description of both
 *
 * As stp_stat_merge(), but the first CPU's statistic is taken as it is, running mean
 * and all: stap 4.8's @variance of an array's entry whose values one CPU saw is that
 * CPU's running one (x[1] <<< 1..5 gives 7 where a scalar x gives 12; measured).
 *
 * Context: Any context.
 */
static __maybe_unused void stp_stat_merge_entry(struct stp_stat *into,
						 const struct stp_stat *from,
						 const struct stp_stat_desc *d)
{
	int i;

	if (into->count || !from->count) {
		stp_stat_merge(into, from, d);
		return;
	}
	into->count = from->count;
	into->sum = from->sum;
	into->min = from->min;
	into->max = from->max;
	into->avg_s = from->avg_s;
	into->m2 = from->m2;
	for (i = 0; i < d->buckets; i++)
		into->buckets[i] += from->buckets[i];
}

/**
 * stp_stat_count() - @count of a statistic.
 * @st: the statistic, the caller's to read (see the top of this file)
 *
 * Context: Any context.
 * Return: how many values were added.
 */
static s64 stp_stat_count(const struct stp_stat *st)
{
	return st->count;
}

static s64 stp_stat_variance(const struct stp_stat *st, const struct stp_stat_desc *d)
{
	int shift2 = 2 * stp_stat_shift(d);
	s64 v;

	if (st->count < 2)
		return 0;
	/* m2 as the statistic has it: a merge measured it from the exact mean already
	   (stp_stat_merge()), an array entry one CPU saw keeps its running one */
	v = div64_s64(st->m2, st->count - 1);
	if (shift2 >= 64)
		return v < 0 ? -1 : 0;
	return v >> shift2;
}

/**
 * stp_stat_get() - @count, @sum, @min, @max, @avg or @variance of a statistic.
 * @c: the running handler's context, for the soft error; NULL: none is raised
 * @st: the statistic, the caller's to read (see the top of this file)
 * @d: its description
 * @what: which aggregate
 *
 * Context: Any context.
 * Return: the aggregate; 0 for @min, @max, @avg and @variance of an empty statistic,
 * which are the soft error "empty aggregate".
 */
static s64 stp_stat_get(struct context *c, const struct stp_stat *st,
			const struct stp_stat_desc *d, enum stp_aggregate what)
{
	switch (what) {
	case STP_AGG_COUNT:
		return st->count;
	case STP_AGG_SUM:
		return st->sum;
	default:
		break;
	}
	if (st->count == 0) {
		if (c)
			stp_soft_error(c, "empty aggregate");
		return 0;
	}
	switch (what) {
	case STP_AGG_MIN:
		return st->min;
	case STP_AGG_MAX:
		return st->max;
	case STP_AGG_AVG:
		return div64_s64(st->sum, st->count);
	case STP_AGG_VARIANCE:
		return stp_stat_variance(st, d);
	default:
		return 0;
	}
}

/**
 * stp_stat_bucket() - @hist_log(x)[index], @hist_linear(x, ...)[index].
 * @st: the statistic, the caller's to read (see the top of this file)
 * @d: its description
 * @index: the bucket
 *
 * Context: Any context.
 * Return: the count in the bucket; 0 out of range or without a histogram.
 */
static s64 stp_stat_bucket(const struct stp_stat *st, const struct stp_stat_desc *d,
			   s64 index)
{
	if (d->hist == STP_HIST_NONE || index < 0 || index >= d->buckets)
		return 0;
	return st->buckets[index];
}

/* The value column's label of bucket i. */
static int stp_hist_label(char *buf, size_t size, const struct stp_stat_desc *d, int i)
{
	s64 v;

	if (d->hist == STP_HIST_LOG) {
		if (i == STP_HIST_LOG_ZERO)
			v = 0;
		else if (i > STP_HIST_LOG_ZERO)
			v = (s64)((u64)1 << (i - STP_HIST_LOG_ZERO - 1));
		else
			v = (s64)(0 - ((u64)1 << (STP_HIST_LOG_ZERO - 1 - i)));
		return scnprintf(buf, size, "%lld", (long long)v);
	}
	if (i == 0)
		return scnprintf(buf, size, "<%lld", (long long)d->start);
	if (i == d->buckets - 1)
		return scnprintf(buf, size, ">%lld", (long long)d->stop);
	v = stp_wrap_add(d->start, stp_wrap_mul(i - 1, d->interval));
	return scnprintf(buf, size, "%lld", (long long)v);
}

/* What a drawing shows, and how wide its columns are. */
struct stp_hist_layout {
	int first, last;	/* the first and last non-empty buckets; -1 when all are empty */
	int lo, hi;		/* the buckets drawn (some elided between them) */
	int vwidth, cwidth;	/* columns of the value labels, of the counts */
	s64 scale;		/* one '@' stands for this many */
};

/*
 * From STP_HIST_MARGIN buckets before the first non-empty one to as many after the last,
 * whatever HIST_ELISION is (as stap 4.8 draws them).  A log histogram shows negative
 * buckets only when it has negative values (its positive side follows the margin); the
 * out-of-range buckets of a linear one only when they are not empty.
 */
#define STP_HIST_MARGIN 2

static void stp_hist_layout(struct stp_hist_layout *l, const struct stp_stat *st,
			    const struct stp_stat_desc *d)
{
	int nb = d->buckets, lo_lim, hi_lim, i, n;
	char label[24];
	s64 max = 0, m;

	l->first = -1;
	l->last = -1;
	for (i = 0; i < nb; i++) {
		if (!st->buckets[i])
			continue;
		if (l->first < 0)
			l->first = i;
		l->last = i;
		if (st->buckets[i] > max)
			max = st->buckets[i];
	}
	if (l->first < 0) {
		l->lo = 0;	/* nothing to show: the header alone */
		l->hi = -1;
	} else {
		if (d->hist == STP_HIST_LOG) {
			lo_lim = l->first < STP_HIST_LOG_ZERO ? 0 : STP_HIST_LOG_ZERO;
			hi_lim = nb - 1;
		} else {
			lo_lim = 1;
			hi_lim = nb - 2;
		}
		l->lo = l->first - STP_HIST_MARGIN < lo_lim ? lo_lim : l->first - STP_HIST_MARGIN;
		l->hi = l->last + STP_HIST_MARGIN > hi_lim ? hi_lim : l->last + STP_HIST_MARGIN;
		if (l->first < l->lo)	/* a linear histogram's values below start */
			l->lo = l->first;
		if (l->last > l->hi)	/* ... and above stop */
			l->hi = l->last;
	}
	l->vwidth = 5;
	for (i = l->lo; i <= l->hi; i++) {
		n = stp_hist_label(label, sizeof(label), d, i);
		if (n > l->vwidth)
			l->vwidth = n;
	}
	l->cwidth = 1;
	for (m = max; m >= 10; m = div64_s64(m, 10))
		l->cwidth++;
	l->scale = max > STP_HIST_WIDTH ? div64_s64(max + STP_HIST_WIDTH - 1, STP_HIST_WIDTH) : 1;
}

/* A histogram's text goes to the print buffer, or (out) is appended to a string of
 * MAXSTRINGLEN bytes, cut where it fills: sprint(@hist_log(x)). */
static void stp_hist_put(char *out, const char *s, int n)
{
	size_t used, room;

	if (!out) {
		stp_print_bytes(s, n);
		return;
	}
	used = strnlen(out, MAXSTRINGLEN - 1);
	room = MAXSTRINGLEN - 1 - used;
	if ((size_t)n > room)
		n = room;
	memcpy(out + used, s, n);
	out[used + n] = '\0';
}

/* "value |---...--- count" */
static void stp_hist_print_header(const struct stp_hist_layout *l, char *out)
{
	char line[160];
	int n;

	n = scnprintf(line, sizeof(line), "%*s |", l->vwidth, "value");
	memset(line + n, '-', STP_HIST_WIDTH);
	n += STP_HIST_WIDTH;
	n += scnprintf(line + n, sizeof(line) - n, " count\n");
	stp_hist_put(out, line, n);
}

static void stp_hist_print_row(const struct stp_hist_layout *l, const struct stp_stat *st,
			       const struct stp_stat_desc *d, int i, char *out)
{
	char line[160], label[24];
	int n, bar;

	stp_hist_label(label, sizeof(label), d, i);
	n = scnprintf(line, sizeof(line), "%*s |", l->vwidth, label);
	bar = (int)div64_s64(st->buckets[i], l->scale);
	memset(line + n, '@', bar);
	memset(line + n + bar, ' ', STP_HIST_WIDTH - bar);
	n += STP_HIST_WIDTH;
	n += scnprintf(line + n, sizeof(line) - n, " %*lld\n", l->cwidth,
		       (long long)st->buckets[i]);
	stp_hist_put(out, line, n);
}

/**
 * stp_stat_print_hist() - print(@hist_*(x)): draw the histogram as stap draws it.
 * @st: the statistic, the caller's to read (see the top of this file)
 * @d: its description
 * @out: NULL to print; else a string of MAXSTRINGLEN bytes the text is appended to
 *
 * A "value |--- count" header, one row per bucket that stp_hist_layout() keeps, and a
 * blank line after.  Runs of empty buckets are shortened as stap 4.8 shortens them, with
 * HIST_ELISION (E) rows kept: a run between non-empty buckets longer than 2 * E keeps its
 * first and last E around a "~" line; the margin before the first non-empty bucket, if
 * longer than E, its last E after a "~"; the margin after the last, its first E (no "~").
 * A negative HIST_ELISION shortens nothing.  Bars are scaled so the largest count fits
 * STP_HIST_WIDTH columns.
 *
 * Context: A handler (preemption off): it writes to this CPU's print buffer.
 */
static void stp_stat_print_hist(const struct stp_stat *st, const struct stp_stat_desc *d,
				char *out)
{
	int elide = HIST_ELISION, i, j, k, from, to, n;
	struct stp_hist_layout l;
	char line[160];

	if (d->hist == STP_HIST_NONE || d->buckets <= 0)
		return;
	stp_hist_layout(&l, st, d);
	stp_hist_print_header(&l, out);
	for (i = l.lo; i <= l.hi; i = j) {
		if (st->buckets[i] || elide < 0) {
			stp_hist_print_row(&l, st, d, i, out);
			j = i + 1;
			continue;
		}
		for (j = i; j <= l.hi && !st->buckets[j]; j++)
			;
		from = i;
		to = j;		/* the rows from..to-1 are drawn */
		if (i < l.first) {
			if (j - i > elide)
				from = j - elide;
		} else if (j > l.last) {
			if (j - i > elide)
				to = i + elide;
		} else if (j - i > 2 * elide) {
			for (k = i; k < i + elide; k++)
				stp_hist_print_row(&l, st, d, k, out);
			from = j - elide;
		}
		if (from > i) {		/* rows left out: "~" in their place */
			n = scnprintf(line, sizeof(line), "%*s~\n", l.vwidth + 1, "");
			stp_hist_put(out, line, n);
		}
		for (k = from; k < to; k++)
			stp_hist_print_row(&l, st, d, k, out);
	}
	stp_hist_put(out, "\n", 1);
}

/* ---- scalar statistics ---- */

/**
 * stp_pstat_free() - Free a scalar statistic.
 * @p: the statistic, or NULL
 *
 * Context: Process context, at unload (no handler runs); no lock.
 */
static void stp_pstat_free(struct stp_pstat *p)
{
	if (!p)
		return;
	kvfree(p->agg);
	kvfree(p->cpus);
	kvfree(p);
}

/**
 * stp_pstat_alloc() - Allocate a scalar statistic: a slot per CPU id, and the aggregate.
 * @d: its description, after stp_stat_desc_init(); must outlive it
 *
 * Context: Process context, at load (no handler runs); may sleep.  No lock.
 * Return: the empty statistic, or NULL when memory is short.
 */
static struct stp_pstat *stp_pstat_alloc(const struct stp_stat_desc *d)
{
	struct stp_pstat *p;

	p = stp_kvzalloc(sizeof(*p));
	if (!p)
		return NULL;
	p->desc = d;
	/* one slot per CPU id, each on its own cache lines */
	p->stride = ALIGN(stp_stat_size(d), SMP_CACHE_BYTES);
	p->agg = stp_kvzalloc(stp_stat_size(d));
	if (!p->agg)
		goto err_free_pstat;
	p->cpus = stp_kvcalloc(nr_cpu_ids, p->stride);
	if (!p->cpus)
		goto err_free_agg;
	return p;

err_free_agg:
	kvfree(p->agg);
err_free_pstat:
	kvfree(p);
	return NULL;
}

static struct stp_stat *stp_pstat_cpu(struct stp_pstat *p, unsigned int cpu)
{
	return (struct stp_stat *)(p->cpus + p->stride * cpu);
}

/**
 * stp_pstat_add() - x <<< value: add to this CPU's slot.
 * @p: the statistic
 * @value: the value added
 *
 * Context: A handler (preemption off), the only one on this CPU; the caller holds the
 * global's lock for reading at least.
 */
static void stp_pstat_add(struct stp_pstat *p, s64 value)
{
	stp_stat_add(stp_pstat_cpu(p, smp_processor_id()), p->desc, value);
}

/**
 * stp_pstat_aggregate() - Merge every CPU's slot into the aggregate.
 * @p: the statistic
 *
 * Context: Any context; the caller holds the global's lock for writing.
 * Return: the aggregate, valid until the next call (or stp_pstat_free()).
 */
static const struct stp_stat *stp_pstat_aggregate(struct stp_pstat *p)
{
	unsigned int cpu;

	stp_stat_clear(p->agg, p->desc);
	for_each_possible_cpu(cpu)
		stp_stat_merge(p->agg, stp_pstat_cpu(p, cpu), p->desc);
	return p->agg;
}

/**
 * stp_pstat_clear() - delete x: empty every CPU's slot and the aggregate.
 * @p: the statistic
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_pstat_clear(struct stp_pstat *p)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_stat_clear(stp_pstat_cpu(p, cpu), p->desc);
	stp_stat_clear(p->agg, p->desc);
}
