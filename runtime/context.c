/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * context.c - per-CPU probe contexts, the session state, running a handler, soft errors.
 */

static DEFINE_PER_CPU(struct context *, stp_contexts);

static atomic64_t stp_error_count = ATOMIC64_INIT(0);
static atomic64_t stp_skipped_count = ATOMIC64_INIT(0);
static atomic64_t stp_skipped_reentrant = ATOMIC64_INIT(0);	/* of those: context busy */
/* --suppress-handler-errors: the handlers' errors, counted but neither shown nor fatal */
static atomic64_t stp_suppressed_error_count = ATOMIC64_INIT(0);

/*
 * A hit that finds its CPU's context busy (it came from inside a handler: a tracepoint the
 * handler's own code fires, an interrupt while a handler runs with interrupts on) is not
 * run.  As in stap 4.8 with INTERRUPTIBLE (the default), it is then neither counted among
 * the skipped probes (nor against MAXSKIPPED, as stap(1) says) nor reported; with
 * -DINTERRUPTIBLE=0 or -t it is, with "Skipped due to reentrancy: N".
 */
#if !INTERRUPTIBLE || defined(STP_TIMING)
#define STP_COUNT_REENTRANCY true
#else
#define STP_COUNT_REENTRANCY false
#endif

#ifdef STP_SUPPRESS_HANDLER_ERRORS
#define STP_HANDLER_ERRORS_SUPPRESSED true
#else
#define STP_HANDLER_ERRORS_SUPPRESSED false
#endif

static int stp_contexts_alloc(void)
{
	size_t size = sizeof(struct context) + (MAXNESTING + 1) * stp_script_frame_size();
	int cpu;

	for_each_possible_cpu(cpu) {
		struct context *c = stp_kvzalloc(size);

		if (!c) {
			stp_contexts_free();
			return -ENOMEM;
		}
		per_cpu(stp_contexts, cpu) = c;
		atomic_long_add(size, &stp_mem_contexts);
	}
	return 0;
}

static void stp_contexts_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(stp_contexts, cpu));
		per_cpu(stp_contexts, cpu) = NULL;
	}
}

/* Only meaningful inside a handler, with preemption off. */
static struct context *stp_current_context(void)
{
	return __this_cpu_read(stp_contexts);
}

/* Asks stapio to end the session; end probes run once it answers. */
static void _stp_exit(void)
{
	int old = atomic_read(&stp_session_state);

	while (old == STP_SESSION_STARTING || old == STP_SESSION_RUNNING) {
		int seen = atomic_cmpxchg(&stp_session_state, old, STP_SESSION_STOPPING);

		if (seen == old) {
			stp_ctl_send(STP_MSG_REQUEST_EXIT, NULL, 0);
			return;
		}
		old = seen;
	}
}

static void stp_ctl_vprintf(u32 type, const char *prefix, const char *fmt, va_list ap)
{
	char buf[STP_CTL_PAYLOAD_MAX];
	int n = scnprintf(buf, sizeof(buf), "%s", prefix);

	n += vscnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (n > 0 && buf[n - 1] != '\n' && n < (int)sizeof(buf) - 1)
		buf[n++] = '\n';
	stp_ctl_send(type, buf, n);
}

static __printf(3, 4) void stp_ctl_printf(u32 type, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_ctl_vprintf(type, prefix, fmt, ap);
	va_end(ap);
}

/* Counts as a soft error; too many of them end the session. */
static void _stp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_ctl_vprintf(STP_MSG_ERROR, "ERROR: ", fmt, ap);
	va_end(ap);
	if (atomic64_inc_return(&stp_error_count) > MAXERRORS)
		_stp_exit();
}

/* From a handler: what it printed so far goes out first, to keep the order. */
static void _stp_warn(const char *fmt, ...)
{
	va_list ap;

	_stp_print_flush();
	va_start(ap, fmt);
	stp_ctl_vprintf(STP_MSG_WARNING, "WARNING: ", fmt, ap);
	va_end(ap);
}

/*
 * The end of a family's registration, where a probe the kernel refused was a warning and
 * only none of COUNT registering fails the session: "no WHAT could be registered", with
 * RC, the last refusal's code (-EINVAL when there was none).
 */
static int stp_registered_any(size_t count, size_t registered, int rc, const char *what)
{
	if (count && !registered) {
		_stp_error("no %s could be registered", what);
		return rc ? rc : -EINVAL;
	}
	return 0;
}

/*
 * A hit that could not run (its context busy, a global's lock not taken, no memory):
 * counted; more than MAXSKIPPED end the session, unless --suppress-handler-errors.
 */
static void stp_skip_hit(void)
{
	if (atomic64_inc_return(&stp_skipped_count) > MAXSKIPPED &&
	    !STP_HANDLER_ERRORS_SUPPRESSED)
		_stp_exit();
}

/* Errors of every kind, for the count stapio shows at the end. */
static u64 stp_errors_seen(void)
{
	return atomic64_read(&stp_error_count) + atomic64_read(&stp_suppressed_error_count);
}

/* Aborts the running handler: generated code checks last_error after each step. */
static void stp_soft_error(struct context *c, const char *fmt, ...)
{
	va_list ap;

	if (c->last_error)
		return;
	va_start(ap, fmt);
	vscnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
}

/* A lump of actions spent the hit's MAXACTION budget, at WHERE: the error, true (the code
 * leaves); the budget stays spent for a catch to see. */
static __maybe_unused bool stp_out_of_actions(struct context *c, const char *where)
{
	c->actions_remaining = -1;
	c->last_stmt = where;
	stp_soft_error(c, "MAXACTION exceeded");
	return true;
}

/*
 * The overload check after a hit that began at cycle START on this CPU (context C): the
 * cycles spent in handlers are summed over an interval, and judged when it is over (at
 * the first hit after it), as stap 4.8 does; past the threshold the session ends with an
 * error, told once: CPUs overloaded together (the hot probe runs on each) are one error.
 * A burst of hits shorter than an interval is never judged.
 */
static void stp_overload_check(struct context *c, u64 start)
{
#ifndef STP_NO_OVERLOAD
	static atomic_t overloaded = ATOMIC_INIT(0);
	u64 now = get_cycles();

	c->overload_used += now - start;
	if (now - c->overload_start <= (u64)STP_OVERLOAD_INTERVAL)
		return;
	if (unlikely(c->overload_used > (u64)STP_OVERLOAD_THRESHOLD && c->overload_start)) {
		if (atomic_cmpxchg(&overloaded, 0, 1) == 0)
			_stp_error("probe overhead (%llu cycles) exceeded threshold (%llu cycles) "
				   "in last %llu cycles", (unsigned long long)c->overload_used,
				   (unsigned long long)STP_OVERLOAD_THRESHOLD,
				   (unsigned long long)STP_OVERLOAD_INTERVAL);
		_stp_exit();
	}
	c->overload_start = now;
	c->overload_used = 0;
#endif
}

/*
 * Runs one probe hit if the session is in STATE: takes this CPU's context (a hit that
 * arrives while it is busy is skipped and counted), runs the handler, flushes what it
 * printed, and reports its soft error.
 */
static void stp_probe_run_hit(const struct stp_probe *probe, enum stp_session_state state,
			      const struct stp_hit *hit)
{
	struct context *c;
	u64 start;

	preempt_disable();
	if (atomic_read(&stp_session_state) != state)
		goto out;
	c = stp_current_context();
	if (unlikely(!c || local_inc_return(&c->busy) != 1)) {
		if (c)
			local_dec(&c->busy);
		if (c && !STP_COUNT_REENTRANCY)
			goto out;
		if (c)
			atomic64_inc(&stp_skipped_reentrant);
		stp_skip_hit();
		goto out;
	}
	c->probe = probe;
	c->regs = hit ? hit->regs : NULL;
	c->probe_addr = hit ? hit->addr : 0;
	c->is_return = hit ? hit->is_return : false;
	c->probe_data = hit ? hit->data : NULL;
	c->kept = hit ? hit->kept : NULL;
	c->user_bias = hit ? hit->user_bias : 0;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->actions_remaining = INTERRUPTIBLE ? MAXACTION_INTERRUPTIBLE : MAXACTION;
	c->nesting = 0;
	c->next_called = false;
	c->aborted = false;
	c->regex.ok = false;
	c->regex.ngroups = 0;
	start = get_cycles();

	probe->handler(c);

	if (unlikely(c->actions_remaining < 0 && !c->last_error))
		stp_soft_error(c, "MAXACTION exceeded");
	_stp_print_flush();
	if (unlikely(c->aborted)) {
		/* abort(): the session ends, and that is no error */
	} else if (unlikely(c->last_error) && STP_HANDLER_ERRORS_SUPPRESSED) {
		/* as if each handler were in try { } catch { next }, counted */
		atomic64_inc(&stp_suppressed_error_count);
	} else if (unlikely(c->last_error)) {
		if (c->last_stmt && *c->last_stmt)
			_stp_error("%s near %s", c->last_error, c->last_stmt);
		else if (c->last_stmt)	/* STP_NO_PLACE: the message alone */
			_stp_error("%s", c->last_error);
		else
			_stp_error("%s in probe %s at %s", c->last_error, probe->point,
				   probe->location);
	}
	stp_timing_record(probe, get_cycles() - start);
	stp_overload_check(c, start);
	c->probe = NULL;
	c->regs = NULL;
	c->probe_data = NULL;
	c->kept = NULL;
	local_dec(&c->busy);
out:
	preempt_enable();
}

static void stp_probe_run(const struct stp_probe *probe, enum stp_session_state state)
{
	stp_probe_run_hit(probe, state, NULL);
}
