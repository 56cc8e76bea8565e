/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer.c - timer.* probes.
 *
 *   STP_TIMER_HR        timer.s/ms/us/ns/hz: one hrtimer, period in nanoseconds, firing
 *                       in hard interrupt context as stap's: a handler there is not
 *                       interrupted by another one (a profile tick, a probe in an
 *                       interrupt handler), which would find its CPU's context busy and
 *                       be skipped
 *   STP_TIMER_JIFFIES   timer.jiffies: one kernel timer, period in jiffies.  The timer
 *                       wheel never fires early: it rounds an expiry up to the next tick
 *                       (kernel/time/timer.c), so a timer armed for jiffy T runs at T + 1.
 *                       The timer is armed one jiffy before the one it is meant to run
 *                       at, so timer.jiffies(N) runs every N jiffies, not N + 1 (jiffies(1)
 *                       and jiffies(2) both ran every 2)
 *   STP_TIMER_PROFILE   timer.profile.tick / .freq.hz: one hrtimer pinned to each CPU that
 *                       is online at registration, firing in hard interrupt context so the
 *                       handler sees the interrupted registers.  CPU hotplug is ignored:
 *                       a CPU that comes online later gets no timer, and the timer of a
 *                       CPU that goes offline migrates with the kernel's other hrtimers.
 *
 * Each expiry is computed from the previous one, not from when the handler ran, so the
 * period does not drift.  With .randomize(R) every period is interval +- R.
 * Unregistering cancels each timer synchronously: no handler runs after it returns.
 */
#include <linux/cpu.h>
#include <asm/irq_regs.h>

enum stp_timer_kind { STP_TIMER_HR, STP_TIMER_JIFFIES, STP_TIMER_PROFILE };

struct stp_timer_percpu {
	struct hrtimer hrtimer;
	struct stp_timer_probe *owner;
	bool started;
};

/* One timer probe; pass 3 writes a table of them (only the first four fields). */
struct stp_timer_probe {
	const struct stp_probe *probe;
	enum stp_timer_kind kind;
	u64 interval;			/* ns (jiffies for STP_TIMER_JIFFIES); 0: TICK_NSEC */
	u64 randomize;			/* same unit, <= interval */
	/* run-time state */
	bool started;
	bool stopping;			/* the jiffies timer must not re-arm */
	unsigned long due;		/* the jiffy the jiffies timer is meant to run at */
	struct hrtimer hrtimer;
	struct timer_list timer;
	struct stp_timer_percpu __percpu *percpu;
};

/* The next period: interval, or interval +- randomize, never below 1. */
static u64 stp_timer_period(const struct stp_timer_probe *t)
{
	u64 period = t->interval;

	if (t->randomize) {
		u64 r = t->randomize, spread = 2 * r + 1;

		if (spread <= U32_MAX) {
			period += stp_random_below((u32)spread);
		} else {	/* randomize of more than 2 s in ns */
			u64 rem;

			div64_u64_rem(get_random_u64(), spread, &rem);
			period += rem;
		}
		period -= r;
	}
	return period ? period : 1;
}

static enum hrtimer_restart stp_timer_hr_fn(struct hrtimer *timer)
{
	struct stp_timer_probe *t = container_of(timer, struct stp_timer_probe, hrtimer);

	stp_probe_run(t->probe, STP_SESSION_RUNNING);
	/* forwards the last expiry, not now: a late handler does not shift the next ones */
	hrtimer_forward_now(timer, ns_to_ktime(stp_timer_period(t)));
	return HRTIMER_RESTART;
}

static void stp_timer_jiffies_fn(struct timer_list *timer)
{
	struct stp_timer_probe *t = stp_timer_container_of(t, timer, timer);
	unsigned long next;

	stp_probe_run(t->probe, STP_SESSION_RUNNING);
	if (READ_ONCE(t->stopping))
		return;
	next = t->due + (unsigned long)stp_timer_period(t);
	if (time_before_eq(next, jiffies))
		next = jiffies + 1;
	t->due = next;
	mod_timer(timer, next - 1);	/* the wheel's round-up makes it next */
}

static enum hrtimer_restart stp_timer_profile_fn(struct hrtimer *timer)
{
	struct stp_timer_percpu *pc = container_of(timer, struct stp_timer_percpu, hrtimer);
	struct stp_timer_probe *t = pc->owner;
	struct stp_hit hit = { .regs = get_irq_regs() };
	u64 period = t->interval ? stp_timer_period(t) : TICK_NSEC;

	stp_probe_run_hit(t->probe, STP_SESSION_RUNNING, &hit);
	hrtimer_forward_now(timer, ns_to_ktime(period));
	return HRTIMER_RESTART;
}

/* Runs on each online CPU (IPI): starts that CPU's pinned timer. */
static void stp_timer_profile_start(void *arg)
{
	struct stp_timer_probe *t = arg;
	struct stp_timer_percpu *pc = this_cpu_ptr(t->percpu);
	u64 period = t->interval ? stp_timer_period(t) : TICK_NSEC;

	hrtimer_start(&pc->hrtimer, ns_to_ktime(period), HRTIMER_MODE_REL_PINNED_HARD);
	pc->started = true;
}

static int stp_timer_start_one(struct stp_timer_probe *t)
{
	int cpu;

	t->stopping = false;
	switch (t->kind) {
	case STP_TIMER_HR:
		stp_hrtimer_setup(&t->hrtimer, stp_timer_hr_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_HARD);
		hrtimer_start(&t->hrtimer, ns_to_ktime(stp_timer_period(t)),
			      HRTIMER_MODE_REL_HARD);
		break;
	case STP_TIMER_JIFFIES:
		timer_setup(&t->timer, stp_timer_jiffies_fn, 0);
		t->due = jiffies + (unsigned long)stp_timer_period(t);
		t->timer.expires = t->due - 1;
		add_timer(&t->timer);
		break;
	case STP_TIMER_PROFILE:
		t->percpu = alloc_percpu(struct stp_timer_percpu);
		if (!t->percpu)
			return -ENOMEM;
		for_each_possible_cpu(cpu) {
			struct stp_timer_percpu *pc = per_cpu_ptr(t->percpu, cpu);

			pc->owner = t;
			pc->started = false;
			stp_hrtimer_setup(&pc->hrtimer, stp_timer_profile_fn, CLOCK_MONOTONIC,
					  HRTIMER_MODE_REL_PINNED_HARD);
		}
		cpus_read_lock();
		on_each_cpu(stp_timer_profile_start, t, 1);
		cpus_read_unlock();
		break;
	}
	t->started = true;
	return 0;
}

static void stp_timer_stop_one(struct stp_timer_probe *t)
{
	int cpu;

	if (!t->started)
		return;
	switch (t->kind) {
	case STP_TIMER_HR:
		hrtimer_cancel(&t->hrtimer);
		break;
	case STP_TIMER_JIFFIES:
		WRITE_ONCE(t->stopping, true);
		stp_timer_delete_sync(&t->timer);
		break;
	case STP_TIMER_PROFILE:
		for_each_possible_cpu(cpu) {
			struct stp_timer_percpu *pc = per_cpu_ptr(t->percpu, cpu);

			if (pc->started)
				hrtimer_cancel(&pc->hrtimer);
		}
		free_percpu(t->percpu);
		t->percpu = NULL;
		break;
	}
	t->started = false;
}

static __maybe_unused void stp_timers_unregister(struct stp_timer_probe *timers, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		stp_timer_stop_one(&timers[i]);
}

/* Starts every timer, or none: a failure cancels those already started. */
static __maybe_unused int stp_timers_register(struct stp_timer_probe *timers, size_t count)
{
	size_t i;
	int rc;

	for (i = 0; i < count; i++) {
		rc = stp_timer_start_one(&timers[i]);
		if (rc) {
			_stp_error("probe %s registration error (rc %d)", timers[i].probe->point,
				   rc);
			stp_timers_unregister(timers, i);
			return rc;
		}
	}
	return 0;
}
