/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.c - perf.type(T).config(C)... probes: kernel perf events
 * (perf_event_create_kernel_counter()) whose overflow handler runs the probe each N counts
 * of the event (.sample(N), 1000000 by default) or N times a second (.hz(N), the kernel
 * adapting the period).  Pass 3's side is src/families/family_perf.c.
 *
 *   every CPU      a probe without .process has an event on each CPU online when the
 *                  session starts (CPU hotplug is ignored, as for timer.profile: a CPU that
 *                  comes online later has none), made at registration
 *   .process       an event per task of the program, counting while that task runs, made
 *                  when the task begins: the process family's begin and thread.begin
 *                  probes of the program (which pass 2 adds) call stp_perf_attach(), which
 *                  cannot sleep; it queues a task_work on the task, which makes the events
 *                  in the task before it runs user code again (after the exec of the
 *                  program, or the fork).  At most STP_PERF_MAX_TASKS tasks per probe (a
 *                  warning says when more were left out).
 *   .counter       the same events (per CPU, or per task) without a handler: @perf("NAME")
 *                  reads the current task's (stp_perf_read()), 0 before it has one
 *
 * The handler runs where the event overflowed: a software event's (cpu_clock, task_clock)
 * in the hrtimer's hard interrupt, page faults and context switches in the task that
 * counted, a hardware counter's in an NMI; with the interrupted registers, so user_mode(),
 * print_backtrace() and print_ubacktrace() tell where the CPU was.
 *
 * An event the kernel refuses at registration (an unknown type or config, a hardware
 * counter the CPU or a virtual machine does not have, counters exhausted) fails the
 * session's start, as in stap: "probe perf.type(0).config(0).sample(1000000) registration
 * error (rc -2)"; one refused for a task is a warning (once per probe).
 *
 * Unregistering: new attach requests are refused (stp_perf_stopping, under stp_perf_lock),
 * the task_works not run yet are taken back with task_work_cancel() (which the process
 * family found: our begin probes are its), the running ones waited for
 * (stp_perf_outstanding, then synchronize_rcu_tasks() for the tails of their code), then
 * every event is released
 * (perf_event_release_kernel(): an event removed from its context runs no handler after).
 * Each per-task event holds a reference on its task (which @perf compares with current)
 * until then.
 */
#include <linux/perf_event.h>
#include <linux/task_work.h>

#ifndef STP_PERF_MAX_TASKS
#define STP_PERF_MAX_TASKS 1024
#endif

/* A task counted by a .process probe. */
struct stp_perf_task {
	struct task_struct *task;	/* referenced */
	struct perf_event *event;
};

/* One probe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_perf_probe {
	const struct stp_probe *probe;
	u32 type;
	u64 config;
	u64 period;			/* counts, or runs a second with freq; 0: a counter */
	bool freq;
	int attach_id;			/* .process: its begin probes' stp_perf_attach(ID) */
	const char *counter;		/* .counter("NAME"), or NULL */
	/* run-time state */
	struct perf_event **events;	/* every CPU: the event of each possible CPU */
	struct stp_perf_task *tasks;	/* .process: the tasks counted (stp_perf_lock) */
	size_t ntasks;
	bool refused_warned;		/* a task's event refused, or too many tasks */
};

/* A task to count: a task_work queued on it, which makes its events on its way out to user
 * space (in stp_perf_requests until it runs or is taken back). */
struct stp_perf_request {
	struct callback_head cb;
	struct list_head node;
	struct task_struct *task;	/* referenced */
	int attach_id;
};

static struct stp_perf_probe *stp_perfs;
static size_t stp_nperfs;
static DEFINE_RAW_SPINLOCK(stp_perf_lock);
static LIST_HEAD(stp_perf_requests);
static bool stp_perf_stopping;
static atomic_t stp_perf_outstanding = ATOMIC_INIT(0);	/* requests queued or running */
static bool stp_perf_queued_any;	/* a request was queued this session */
static DECLARE_WAIT_QUEUE_HEAD(stp_perf_wq);

static void stp_perf_hit(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	struct stp_perf_probe *p = event->overflow_handler_context;
	struct stp_hit hit = { .regs = regs };

	stp_probe_run_hit(p->probe, STP_SESSION_RUNNING, &hit);
}

/* An event of P for CPU (-1: any) and TASK (NULL: every task), or an error pointer. */
static struct perf_event *stp_perf_event(struct stp_perf_probe *p, int cpu,
					 struct task_struct *task)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.freq = p->freq,
	};

	if (p->freq)
		attr.sample_freq = p->period;
	else
		attr.sample_period = p->period;
	return perf_event_create_kernel_counter(&attr, cpu, task,
						p->counter ? NULL : stp_perf_hit, p);
}

/* ---- .process: an event per task ---- */

static bool stp_perf_counts(const struct stp_perf_probe *p, const struct task_struct *task)
{
	size_t i;

	for (i = 0; i < p->ntasks; i++)
		if (p->tasks[i].task == task)
			return true;
	return false;
}

/* The current task counted by P, in the task (it may sleep). */
static void stp_perf_count_current(struct stp_perf_probe *p)
{
	struct perf_event *event;
	unsigned long flags;
	bool known, full;

	raw_spin_lock_irqsave(&stp_perf_lock, flags);
	known = stp_perf_counts(p, current);
	full = p->ntasks >= STP_PERF_MAX_TASKS;
	raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
	if (known)
		return;
	event = full ? NULL : stp_perf_event(p, -1, current);
	if (!IS_ERR_OR_NULL(event)) {
		raw_spin_lock_irqsave(&stp_perf_lock, flags);
		full = p->ntasks >= STP_PERF_MAX_TASKS;	/* another task may have come first */
		if (!full) {
			p->tasks[p->ntasks].task = get_task_struct(current);
			p->tasks[p->ntasks].event = event;
			p->ntasks++;
		}
		raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
		if (!full)
			return;
		perf_event_release_kernel(event);
		event = NULL;
	}
	if (!xchg(&p->refused_warned, true)) {
		if (full)
			_stp_warn("probe %s: more than %d tasks, the others are not counted",
				  p->probe->point, STP_PERF_MAX_TASKS);
		else
			_stp_warn("probe %s registration error for pid %d (rc %ld)",
				  p->probe->point, task_pid_nr(current), PTR_ERR(event));
	}
}

static void stp_perf_request_done(struct stp_perf_request *r)
{
	put_task_struct(r->task);
	kfree(r);
	if (atomic_dec_and_test(&stp_perf_outstanding))
		wake_up(&stp_perf_wq);
}

/* The task_work: in its task, on the way out to user space (or at its exit). */
static void stp_perf_attach_run(struct callback_head *cb)
{
	struct stp_perf_request *r = container_of(cb, struct stp_perf_request, cb);
	unsigned long flags;
	bool stopping;
	size_t i;

	raw_spin_lock_irqsave(&stp_perf_lock, flags);
	list_del_init(&r->node);
	stopping = stp_perf_stopping;
	raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
	for (i = 0; !stopping && !(current->flags & PF_EXITING) && i < stp_nperfs; i++)
		if (stp_perfs[i].attach_id == r->attach_id)
			stp_perf_count_current(&stp_perfs[i]);
	stp_perf_request_done(r);
}

/* Called by the begin probes of a .process probe's program (process("PATH").begin and
 * .thread.begin, which pass 2 adds), in the task that begins: its events will be made
 * before it next runs user code.  A probe handler: nothing here sleeps. */
static __maybe_unused void stp_perf_attach(int id)
{
	struct stp_perf_request *r = kmalloc(sizeof(*r), GFP_ATOMIC | __GFP_NOWARN);
	unsigned long flags;
	bool stopping;

	if (!r) {
		stp_skip_hit();
		return;
	}
	init_task_work(&r->cb, stp_perf_attach_run);
	r->task = get_task_struct(current);
	r->attach_id = id;
	raw_spin_lock_irqsave(&stp_perf_lock, flags);
	stopping = stp_perf_stopping;
	if (!stopping) {
		list_add_tail(&r->node, &stp_perf_requests);
		atomic_inc(&stp_perf_outstanding);
		stp_perf_queued_any = true;
	}
	raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
	if (stopping) {
		put_task_struct(r->task);
		kfree(r);
		return;
	}
	if (task_work_add(current, &r->cb, TWA_RESUME) == 0)
		return;
	/* past exit_task_work(): nothing to count */
	raw_spin_lock_irqsave(&stp_perf_lock, flags);
	list_del_init(&r->node);
	raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
	stp_perf_request_done(r);
}

/* Takes back the request works not run yet, waits for the ones running. */
static void stp_perf_requests_drain(void)
{
	for (;;) {
		struct stp_perf_request *r;
		struct task_struct *task;
		unsigned long flags;
		bool cancelled;

		raw_spin_lock_irqsave(&stp_perf_lock, flags);
		stp_perf_stopping = true;
		r = list_first_entry_or_null(&stp_perf_requests, struct stp_perf_request, node);
		if (r) {
			list_del_init(&r->node);
			task = get_task_struct(r->task);	/* R may run and go now */
		}
		raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
		if (!r)
			break;
		/* the process family found task_work_cancel() (our begin probes are its) */
#ifdef STP_HAVE_TASK_WORK_CANCEL_CB
		cancelled = stp_task_work_cancel && stp_task_work_cancel(task, &r->cb);
#else
		cancelled = stp_task_work_cancel &&
			    stp_task_work_cancel(task, stp_perf_attach_run) == &r->cb;
#endif
		put_task_struct(task);
		if (cancelled)	/* it will not run: ours to free */
			stp_perf_request_done(r);
	}
	wait_event(stp_perf_wq, atomic_read(&stp_perf_outstanding) == 0);
	/* a task that counted down may still be in the tail of stp_perf_attach_run(); it
	 * does not sleep there, so it is not quiescent for RCU Tasks until it has left */
	if (stp_perf_queued_any)
		synchronize_rcu_tasks();
	stp_perf_queued_any = false;
}

/* The count of EVENT, which counts the current task: brought up to date first when it is
 * counting on this CPU now (what perf_event_read_local() does, which modules cannot call;
 * perf_event_read_value() may sleep). */
static u64 stp_perf_current_count(struct perf_event *event)
{
	unsigned long flags;
	u64 count;

	local_irq_save(flags);
	if (event->state == PERF_EVENT_STATE_ACTIVE &&
	    event->oncpu == smp_processor_id())
		event->pmu->read(event);
	count = local64_read(&event->count);
	local_irq_restore(flags);
	return count;
}

/* @perf("NAME"): the current task's count of the counter NAME; 0 when it has none (yet). */
static __maybe_unused s64 stp_perf_read(const char *name)
{
	unsigned long flags;
	s64 value = 0;
	size_t i, k;

	for (i = 0; i < stp_nperfs; i++) {
		struct stp_perf_probe *p = &stp_perfs[i];

		if (!p->counter || strcmp(p->counter, name) != 0)
			continue;
		if (p->events) {	/* every CPU: this CPU's */
			struct perf_event *event = p->events[smp_processor_id()];

			return event ? (s64)stp_perf_current_count(event) : 0;
		}
		raw_spin_lock_irqsave(&stp_perf_lock, flags);
		for (k = 0; k < p->ntasks; k++)
			if (p->tasks[k].task == current)
				value = (s64)stp_perf_current_count(p->tasks[k].event);
		raw_spin_unlock_irqrestore(&stp_perf_lock, flags);
		return value;
	}
	return 0;
}

/* ---- registration ---- */

static void stp_perf_release(struct stp_perf_probe *p)
{
	size_t i;
	int cpu;

	if (p->events) {
		for_each_possible_cpu(cpu)
			if (p->events[cpu])
				perf_event_release_kernel(p->events[cpu]);
		kfree(p->events);
		p->events = NULL;
	}
	for (i = 0; i < p->ntasks; i++) {
		perf_event_release_kernel(p->tasks[i].event);
		put_task_struct(p->tasks[i].task);
	}
	kfree(p->tasks);
	p->tasks = NULL;
	p->ntasks = 0;
}

static int stp_perf_start(struct stp_perf_probe *p)
{
	int cpu, rc = 0;

	p->refused_warned = false;
	if (p->attach_id) {	/* .process: the tasks come as they begin */
		p->tasks = kcalloc(STP_PERF_MAX_TASKS, sizeof(*p->tasks), GFP_KERNEL);
		return p->tasks ? 0 : -ENOMEM;
	}
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *event = stp_perf_event(p, cpu, NULL);

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

	stp_perf_requests_drain();
	for (i = 0; i < count; i++)
		stp_perf_release(&probes[i]);
}

/* Starts every probe's events, or none: a refused event fails the session. */
static __maybe_unused int stp_perf_register(struct stp_perf_probe *probes, size_t count)
{
	size_t i;
	int rc;

	stp_perfs = probes;
	stp_nperfs = count;
	stp_perf_stopping = false;
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
