/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * globals.c - what generated code needs around the script's globals: their locks, -G
 * module parameters, and the soft errors of arrays and statistics.
 *
 * Each global has a reader/writer lock.  A handler takes the locks of every global it (or a
 * function it calls) uses before it runs, in one fixed order (the order of the globals in the
 * program), so two handlers can never wait on each other.  A lock is only tried,
 * MAXTRYLOCK times (at least once) TRYLOCKDELAY microseconds apart; a handler that cannot get its locks
 * is skipped and counted, and so is the lock (stap's "Skipped due to global 'NAME' lock
 * timeout: N" at the end).
 */

struct stp_global_lock {
	rwlock_t rw;
	const char *name;		/* the global's name in the script */
	atomic64_t timeouts;		/* hits skipped because it was not taken in time */
	atomic64_t contended;		/* hits that found it taken (counted with -t) */
};

/* The lock of a global of the script, called NAME there (pass 3 writes these). */
#define STP_GLOBAL_LOCK(var, script_name)						\
	static __maybe_unused struct stp_global_lock var = {				\
		.rw = __RW_LOCK_UNLOCKED(var.rw), .name = script_name,			\
		.timeouts = ATOMIC64_INIT(0), .contended = ATOMIC64_INIT(0) }

struct stp_lock_req {
	struct stp_global_lock *lock;
	bool write;
};

static void stp_unlock_globals(const struct stp_lock_req *reqs, int n)
{
	while (n-- > 0) {
		if (reqs[n].write)
			write_unlock(&reqs[n].lock->rw);
		else
			read_unlock(&reqs[n].lock->rw);
	}
}

static bool stp_try_one_lock(const struct stp_lock_req *req)
{
	rwlock_t *rw = &req->lock->rw;
	int attempt, attempts = MAXTRYLOCK > 0 ? MAXTRYLOCK : 1;	/* 0: one, no wait */

	for (attempt = 0; attempt < attempts; attempt++) {
		if (req->write ? write_trylock(rw) : read_trylock(rw))
			return true;
		if (attempt == 0)
			stp_timing_contended(req->lock);
		if (attempt + 1 < attempts)
			udelay(TRYLOCKDELAY);
	}
	atomic64_inc(&req->lock->timeouts);
	return false;
}

/* All of REQS (sorted by global), or none: then the hit counts as skipped. */
static __maybe_unused bool stp_lock_globals(const struct stp_lock_req *reqs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!stp_try_one_lock(&reqs[i])) {
			stp_unlock_globals(reqs, i);
			stp_skip_hit();
			return false;
		}
	}
	return true;
}

/*
 * Why hits were skipped, as stap says it after the counts: each global whose lock timed
 * out, then the hits that found their CPU's context busy.
 */
static void stp_report_skip_reasons(void)
{
	struct stp_global_lock *const *lock;
	s64 n;

	for (lock = stp_script_global_locks(); *lock; lock++) {
		n = atomic64_read(&(*lock)->timeouts);
		if (n)
			stp_ctl_printf(STP_MSG_SKIP_REASON, "WARNING: ",
				       "Skipped due to global '%s' lock timeout: %lld",
				       (*lock)->name, n);
	}
	n = atomic64_read(&stp_skipped_reentrant);
	if (n)
		stp_ctl_printf(STP_MSG_SKIP_REASON, "WARNING: ", "Skipped due to reentrancy: %lld",
			       n);
}

/* ---- -G var=value: long globals as module parameters ---- */

static int stp_param_set_s64(const char *val, const struct kernel_param *kp)
{
	return kstrtoll(val, 0, (s64 *)kp->arg);
}

static int stp_param_get_s64(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%lld\n", *(s64 *)kp->arg);
}

static const struct kernel_param_ops stp_param_ops_s64 __maybe_unused = {
	.set = stp_param_set_s64,
	.get = stp_param_get_s64,
};

/*
 * The parameter TEXT (its name, a string) of global number ID, as module_param_cb() and
 * module_param_string() make one, but without pasting the script's name into C
 * identifiers: a global called like a kernel macro (PAGE_SIZE, HZ) stays itself.
 */
#define STP_PARAM(id, text, ops_, member, value)				\
	static const char stp_param_name_##id[] = MODULE_PARAM_PREFIX text;	\
	static const struct kernel_param stp_param_##id __used			\
		__section("__param") __aligned(sizeof(void *)) = {		\
		.name = stp_param_name_##id, .mod = THIS_MODULE, .ops = ops_,	\
		.perm = 0, .level = -1, .flags = 0, .member = value,		\
	}
#define STP_PARAM_S64(id, text, var) STP_PARAM(id, text, &stp_param_ops_s64, arg, &(var))
#define STP_PARAM_STRING(id, text, buf)						\
	static const struct kparam_string stp_param_string_##id = {		\
		.maxlen = MAXSTRINGLEN, .string = (buf),			\
	};									\
	STP_PARAM(id, text, &param_ops_string, str, &stp_param_string_##id)

/* ---- soft errors of arrays and statistics ---- */

static void stp_map_overflow(struct context *c, const char *what, const struct stp_map_desc *d)
{
	if (d->max_entries != MAXMAPENTRIES)
		stp_soft_error(c, "%s overflow, check size limit (%u)", what, d->max_entries);
	else
		stp_soft_error(c, "%s overflow, check MAXMAPENTRIES", what);
}

/* a[k] = v on a full array. */
static __maybe_unused void stp_array_overflow(struct context *c, const struct stp_map_desc *d)
{
	stp_map_overflow(c, "Array", d);
}

/* a[k] <<< v on a full array of statistics (this CPU's map is full): stap 4.8 says
 * "Array overflow" here too (compared in the guest) */
static __maybe_unused void stp_aggregation_overflow(struct context *c,
						     const struct stp_map_desc *d)
{
	stp_map_overflow(c, "Array", d);
}

/* foreach over an array of statistics whose CPUs' keys together are more than it holds:
 * stap names the global by its C name there ("aggregation overflow in
 * global(s___global_stat)", compared in the guest). */
static __maybe_unused void stp_merge_overflow(struct context *c, const struct stp_map_desc *d)
{
	stp_soft_error(c, "aggregation overflow in global(s___global_%s)", d->name);
}

/* A histogram of ST (NULL: an element never added to) can be drawn or read: else
 * stap's "empty aggregate" error, placed at WHERE if not NULL. */
static __maybe_unused bool stp_stat_nonempty(struct context *c, const struct stp_stat *st,
					     const char *where)
{
	if (st && stp_stat_count(st))
		return true;
	if (where)
		c->last_stmt = where;
	stp_soft_error(c, "empty aggregate");
	return false;
}

/* @count(a[k]) and friends where ST may be NULL: an element that was never added to. */
static __maybe_unused s64 stp_stat_value(struct context *c, const struct stp_stat *st,
					 const struct stp_stat_desc *d, enum stp_aggregate what)
{
	if (st)
		return stp_stat_get(c, st, d, what);
	if (what == STP_AGG_COUNT || what == STP_AGG_SUM)
		return 0;
	stp_soft_error(c, "empty aggregate");
	return 0;
}

/*
 * stap's bounds on @hist_linear(x, start, stop, interval), checked as the session starts
 * (before any probe is registered): a zero interval, or a number of buckets
 * ((stop - start) / interval + 1) outside 1..126, ends it with stap 4.8's words, the
 * warning and then "ERROR: global variable '__global_x' allocation failed".  Returns 0
 * or STP_START_REPORTED.
 */
#define STP_HIST_LINEAR_MAX_BUCKETS 126

static __maybe_unused int stp_hist_linear_check(const struct stp_stat_desc *d,
						const char *name)
{
	s64 n;

	if (d->hist != STP_HIST_LINEAR)
		return 0;
	if (d->interval == 0) {
		_stp_warn("histogram: interval cannot be zero.");
	} else {
		/* (0, 0, 1) has one bucket and is drawn; (0, 1500, 2) has 751, too many */
		n = div64_s64(d->stop - d->start, d->interval) + 1;
		if (n >= 1 && n <= STP_HIST_LINEAR_MAX_BUCKETS)
			return 0;
		_stp_warn("histogram: Number of buckets must be between 1 and %d\n"
			  "Number_of_buckets = (stop - start) / interval.\n"
			  "Please adjust your start, stop, and interval values.",
			  STP_HIST_LINEAR_MAX_BUCKETS);
	}
	/* an error of the session's start, not of a handler: not in the error count */
	stp_ctl_printf(STP_MSG_ERROR, "ERROR: ", "global variable '__global_%s' allocation failed",
		       name);
	return STP_START_REPORTED;
}
