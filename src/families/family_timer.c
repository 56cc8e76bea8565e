/*
 * family_timer.c - timer probes.
 *
 *   timer.jiffies(N)                 every N jiffies (1..1000000)
 *   timer.s(N) .sec .ms .msec .us .usec .ns .nsec
 *                                    every N of that unit, between 100 us and a day
 *   timer.hz(N)                      N times a second
 *   ... .randomize(M)                each period varies by up to +-M (M <= N)
 *   timer.profile.tick               on every CPU at each scheduler tick (the tapset's
 *                                    timer.profile is an alias of it)
 *   timer.profile.freq.hz(N)         on every CPU, N times a second
 *
 * The periodic ones run on an hrtimer (jiffies on a kernel timer), in softirq context.
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"

#include <inttypes.h>
#include <string.h>

static const char *const timer_templates[] = {
	"timer.jiffies(number)", "timer.jiffies(number).randomize(number)",
	"timer.s(number)", "timer.s(number).randomize(number)",
	"timer.sec(number)", "timer.sec(number).randomize(number)",
	"timer.ms(number)", "timer.ms(number).randomize(number)",
	"timer.msec(number)", "timer.msec(number).randomize(number)",
	"timer.us(number)", "timer.us(number).randomize(number)",
	"timer.usec(number)", "timer.usec(number).randomize(number)",
	"timer.ns(number)", "timer.ns(number).randomize(number)",
	"timer.nsec(number)", "timer.nsec(number).randomize(number)",
	"timer.hz(number)",
	"timer.profile.tick", "timer.profile.freq.hz(number)",
	NULL,
};

/* What pass 3 needs of a timer probe. */
struct timer_probe {
	bool jiffies;		/* a kernel timer counting jiffies, not an hrtimer */
	bool profile;		/* timer.profile.*: every CPU */
	int64_t interval;	/* jiffies, or nanoseconds (0: each tick) */
	int64_t randomize;	/* the same unit */
};

struct unit {
	const char *name;
	int64_t ns;		/* nanoseconds per unit */
	int64_t min, max;	/* allowed intervals, in the unit */
};

/* Intervals from 100 microseconds to a day. */
static const struct unit units[] = {
	{ "s", 1000000000LL, 1, 86400LL },
	{ "sec", 1000000000LL, 1, 86400LL },
	{ "ms", 1000000LL, 1, 86400000LL },
	{ "msec", 1000000LL, 1, 86400000LL },
	{ "us", 1000LL, 100, 86400000000LL },
	{ "usec", 1000LL, 100, 86400000000LL },
	{ "ns", 1LL, 100000, 86400000000000LL },
	{ "nsec", 1LL, 100000, 86400000000000LL },
};

static bool randomization(struct elaborator *el, struct component *c, int64_t interval,
			  bool jiffies, int64_t *out)
{
	bool present;

	*out = c ? component_number(c, &present) : 0;
	if (*out < 0 || *out > interval) {
		semantic_error(el, NULL, jiffies ? "invalid randomize for jiffies timer" :
						   "randomization value out of range");
		return false;
	}
	return true;
}

/* N times a second, as nanoseconds between runs. */
static bool hz_interval(struct elaborator *el, int64_t n, int64_t *interval)
{
	if (n <= 0) {
		semantic_error(el, NULL, "frequency must be greater than 0");
		return false;
	}
	*interval = 1000000000LL / n;
	if (*interval < 100000) {
		semantic_error(el, NULL, "interval value out of range (100000, 86400000000000)");
		return false;
	}
	return true;
}

static bool timer_build(struct elaborator *el, struct probe_point *pp,
			struct derived_probe *proto)
{
	struct component *kind = pp->components->next;
	struct timer_probe *t = xcalloc(1, sizeof(*t));
	bool present;
	int64_t n = component_number(kind, &present);

	if (strcmp(kind->name, "profile") == 0) {
		t->profile = true;
		if (strcmp(kind->next->name, "freq") == 0 &&
		    !hz_interval(el, component_number(kind->next->next, &present), &t->interval))
			return false;
	} else if (strcmp(kind->name, "jiffies") == 0) {
		if (n <= 0 || n > 1000000) {
			semantic_error(el, NULL, "invalid interval for jiffies timer");
			return false;
		}
		t->jiffies = true;
		t->interval = n;
		if (!randomization(el, kind->next, n, true, &t->randomize))
			return false;
	} else if (strcmp(kind->name, "hz") == 0) {
		if (!hz_interval(el, n, &t->interval))
			return false;
	} else {
		const struct unit *u = NULL;

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(units[i].name, kind->name) == 0)
				u = &units[i];
		if (n < u->min || n > u->max) {
			semantic_error(el, NULL, "interval value out of range (%" PRId64 ", %" PRId64 ")",
				       u->min, u->max);
			return false;
		}
		if (!randomization(el, kind->next, n, false, &t->randomize))
			return false;
		t->interval = n * u->ns;
		t->randomize *= u->ns;
	}
	add_derived_probe(el, proto, probe_point_text(pp, false), t);
	return true;
}

static void timer_entry(struct emitter *e, struct derived_probe *dp)
{
	struct timer_probe *t = dp->data;

	emit(e, "\t{ .probe = &stp_probes[%d], .kind = %s, .interval = %" PRId64 "ULL, "
		".randomize = %" PRId64 "ULL },\n", dp->index,
	     t->profile ? "STP_TIMER_PROFILE" : t->jiffies ? "STP_TIMER_JIFFIES" : "STP_TIMER_HR",
	     t->interval, t->randomize);
}

/* The table runtime/timer.c starts and cancels, one entry per timer probe. */
static const struct probe_table timer_table = {
	"struct stp_timer_probe", "stp_timer_probes", "stp_timers_register",
	"stp_timers_unregister", timer_entry,
};

const struct probe_family timer_family = {
	.name = "timer",
	.templates = timer_templates,
	.build = timer_build,
	.table = &timer_table,
};
