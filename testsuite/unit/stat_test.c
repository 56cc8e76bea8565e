/*
 * stat_test.c - unit tests of runtime/stat.c in user space: aggregates, @variance,
 * histogram buckets and their drawing, per-CPU scalar statistics.  The expected drawings
 * are SystemTap's own published outputs (language reference, example scripts' .txt).
 */
#define UNIT_STAT
#include "shim.h"

#include "stat.c"

#include "check.h"

static struct stp_stat *new_stat(struct stp_stat_desc *d)
{
	stp_stat_desc_init(d);
	return kvzalloc(stp_stat_size(d), GFP_KERNEL);
}

/* Adds COUNT samples of VALUE. */
static void add_n(struct stp_stat *st, const struct stp_stat_desc *d, s64 value, int count)
{
	while (count-- > 0)
		stp_stat_add(st, d, value);
}

/* Draws the histogram and compares it with WANT, showing both when they differ. */
static bool hist_is(const struct stp_stat *st, const struct stp_stat_desc *d, const char *want)
{
	bool same;

	stp_unit_print_len = 0;
	stp_stat_print_hist(st, d, NULL);
	same = stp_unit_print_len == strlen(want) &&
	       memcmp(stp_unit_print_buf, want, stp_unit_print_len) == 0;
	if (!same)
		printf("--- want:\n%s--- got:\n%.*s---\n", want, (int)stp_unit_print_len,
		       stp_unit_print_buf);
	return same;
}

static void test_aggregates(void)
{
	struct stp_stat_desc d = { .hist = STP_HIST_NONE };
	struct stp_stat *st = new_stat(&d);
	struct context c = { 0 };

	CHECK("empty statistic: @count and @sum are 0 without an error",
	      stp_stat_get(&c, st, &d, STP_AGG_COUNT) == 0 &&
	      stp_stat_get(&c, st, &d, STP_AGG_SUM) == 0 && !c.last_error);
	CHECK("empty statistic: @min is the soft error \"empty aggregate\"",
	      stp_stat_get(&c, st, &d, STP_AGG_MIN) == 0 && c.last_error &&
	      strcmp(c.last_error, "empty aggregate") == 0);
	c = (struct context){ 0 };
	CHECK("empty statistic: @max is an error", stp_stat_get(&c, st, &d, STP_AGG_MAX) == 0 &&
						      c.last_error);
	c = (struct context){ 0 };
	CHECK("empty statistic: @avg is an error", stp_stat_get(&c, st, &d, STP_AGG_AVG) == 0 &&
						      c.last_error);
	c = (struct context){ 0 };
	CHECK("empty statistic: @variance is an error",
	      stp_stat_get(&c, st, &d, STP_AGG_VARIANCE) == 0 && c.last_error);
	CHECK("empty statistic without a context: 0, silently",
	      stp_stat_get(NULL, st, &d, STP_AGG_MIN) == 0);

	stp_stat_add(st, &d, 7);
	c = (struct context){ 0 };
	CHECK("one sample: min = max = avg, variance 0",
	      stp_stat_get(&c, st, &d, STP_AGG_MIN) == 7 &&
	      stp_stat_get(&c, st, &d, STP_AGG_MAX) == 7 &&
	      stp_stat_get(&c, st, &d, STP_AGG_AVG) == 7 &&
	      stp_stat_get(&c, st, &d, STP_AGG_VARIANCE) == 0 && !c.last_error);
	stp_stat_add(st, &d, -3);
	stp_stat_add(st, &d, -8);
	CHECK("count, sum, min, max", stp_stat_count(st) == 3 &&
				      stp_stat_get(&c, st, &d, STP_AGG_SUM) == -4 &&
				      stp_stat_get(&c, st, &d, STP_AGG_MIN) == -8 &&
				      stp_stat_get(&c, st, &d, STP_AGG_MAX) == 7);
	CHECK("@avg divides like stap (toward zero): -4 / 3 = -1",
	      stp_stat_get(&c, st, &d, STP_AGG_AVG) == -1);
	stp_stat_clear(st, &d);
	CHECK("clear empties it", stp_stat_count(st) == 0 &&
				  stp_stat_get(&c, st, &d, STP_AGG_SUM) == 0);
	add_n(st, &d, INT64_MAX, 2);
	CHECK("@sum wraps like script arithmetic", stp_stat_get(&c, st, &d, STP_AGG_SUM) == -2);
	kvfree(st);
}

/* stap(1): x <<< 1..5 gives @variance(x) 12 and @variance(x, 1) 2 (python says 2.5). */
static void test_variance(void)
{
	struct stp_stat_desc d0 = { .hist = STP_HIST_NONE }, d1 = { .bit_shift = 1 };
	struct stp_pstat *p0, *p1;
	const struct stp_stat *agg;
	struct stp_stat *st;
	s64 i;

	nr_cpu_ids = 4;
	stp_unit_cpu = 2;
	stp_stat_desc_init(&d0);
	stp_stat_desc_init(&d1);
	p0 = stp_pstat_alloc(&d0);
	p1 = stp_pstat_alloc(&d1);
	for (i = 1; i <= 5; i++) {
		stp_pstat_add(p0, i);
		stp_pstat_add(p1, i);
	}
	agg = stp_pstat_aggregate(p0);
	CHECK("@variance(x) of 1..5 is 12, as stap(1) shows",
	      stp_stat_get(NULL, agg, &d0, STP_AGG_VARIANCE) == 12);
	agg = stp_pstat_aggregate(p1);
	CHECK("@variance(x, 1) of 1..5 is 2, as stap(1) shows",
	      stp_stat_get(NULL, agg, &d1, STP_AGG_VARIANCE) == 2);
	stp_pstat_free(p0);
	stp_pstat_free(p1);

	/* 10, 20 on one CPU and 30, 40 on another: the exact sample variance, 500 / 3 */
	p0 = stp_pstat_alloc(&d0);
	stp_unit_cpu = 0;
	stp_pstat_add(p0, 10);
	stp_pstat_add(p0, 20);
	stp_unit_cpu = 3;
	stp_pstat_add(p0, 30);
	stp_pstat_add(p0, 40);
	agg = stp_pstat_aggregate(p0);
	CHECK("@variance merges the CPUs around the common mean",
	      stp_stat_get(NULL, agg, &d0, STP_AGG_VARIANCE) == 166 &&
	      stp_stat_get(NULL, agg, &d0, STP_AGG_AVG) == 25);
	stp_pstat_free(p0);

	/* an array's entry that one CPU saw keeps that CPU's running mean (stap 4.8: 7) */
	st = new_stat(&d0);
	{
		struct stp_stat *cpu = new_stat(&d0);

		for (i = 1; i <= 5; i++)
			stp_stat_add(cpu, &d0, i);
		stp_stat_merge_entry(st, cpu, &d0);
		CHECK("an array entry's @variance of 1..5 on one CPU is 7, as stap 4.8's",
		      stp_stat_get(NULL, st, &d0, STP_AGG_VARIANCE) == 7);
		kvfree(cpu);
	}
	kvfree(st);

	st = new_stat(&d0);
	add_n(st, &d0, 1000, 10);
	CHECK("@variance of a constant is 0", stp_stat_get(NULL, st, &d0, STP_AGG_VARIANCE) == 0);
	stp_stat_clear(st, &d0);
	for (i = 0; i < 100; i++)
		stp_stat_add(st, &d0, i * 1000);
	/* exact: 841666666.67 */
	CHECK("@variance of 0, 1000, ..., 99000",
	      stp_stat_get(NULL, st, &d0, STP_AGG_VARIANCE) == 841666666);
	kvfree(st);
}

static void test_buckets(void)
{
	struct stp_stat_desc lin = { .hist = STP_HIST_LINEAR, .start = 1, .stop = 3,
				     .interval = 1 };
	struct stp_stat_desc lin2 = { .hist = STP_HIST_LINEAR, .start = 0, .stop = 100,
				      .interval = 10 };
	struct stp_stat_desc lg = { .hist = STP_HIST_LOG };
	struct stp_stat *st = new_stat(&lin), *st2 = new_stat(&lin2), *sl = new_stat(&lg), *m;
	int i;

	CHECK("@hist_linear(x, 1, 3, 1): 3 buckets and the 2 out-of-range ones",
	      lin.buckets == 5);
	stp_stat_add(st, &lin, -100);
	stp_stat_add(st, &lin, 1);
	stp_stat_add(st, &lin, 2);
	stp_stat_add(st, &lin, 3);
	stp_stat_add(st, &lin, 100);
	CHECK("stap(1)'s example: -100, 1, 2, 3, 100 land in buckets 0..4",
	      stp_stat_bucket(st, &lin, 0) == 1 && stp_stat_bucket(st, &lin, 1) == 1 &&
	      stp_stat_bucket(st, &lin, 2) == 1 && stp_stat_bucket(st, &lin, 3) == 1 &&
	      stp_stat_bucket(st, &lin, 4) == 1);
	CHECK("a bucket index out of range counts 0",
	      stp_stat_bucket(st, &lin, 5) == 0 && stp_stat_bucket(st, &lin, -1) == 0);

	CHECK("@hist_linear(x, 0, 100, 10): 0..100 inclusive is 11 buckets", lin2.buckets == 13);
	stp_stat_add(st2, &lin2, 0);
	stp_stat_add(st2, &lin2, 9);
	stp_stat_add(st2, &lin2, 10);
	stp_stat_add(st2, &lin2, 100);
	stp_stat_add(st2, &lin2, 109);
	stp_stat_add(st2, &lin2, 110);
	stp_stat_add(st2, &lin2, -1);
	stp_stat_add(st2, &lin2, INT64_MIN);
	stp_stat_add(st2, &lin2, INT64_MAX);
	CHECK("linear buckets: [0,10) [10,20) ... [100,110), below, above",
	      stp_stat_bucket(st2, &lin2, 1) == 2 && stp_stat_bucket(st2, &lin2, 2) == 1 &&
	      stp_stat_bucket(st2, &lin2, 11) == 2 && stp_stat_bucket(st2, &lin2, 12) == 2 &&
	      stp_stat_bucket(st2, &lin2, 0) == 2);

	CHECK("@hist_log has 128 buckets", lg.buckets == 128);
	stp_stat_add(sl, &lg, 0);
	stp_stat_add(sl, &lg, 1);
	stp_stat_add(sl, &lg, 2);
	stp_stat_add(sl, &lg, 3);
	stp_stat_add(sl, &lg, 4);
	stp_stat_add(sl, &lg, -1);
	stp_stat_add(sl, &lg, -2);
	stp_stat_add(sl, &lg, -3);
	stp_stat_add(sl, &lg, INT64_MAX);
	stp_stat_add(sl, &lg, INT64_MIN);
	CHECK("log buckets: 0 alone, 1, 2-3, 4-7, and mirrored for negatives",
	      stp_stat_bucket(sl, &lg, 64) == 1 && stp_stat_bucket(sl, &lg, 65) == 1 &&
	      stp_stat_bucket(sl, &lg, 66) == 2 && stp_stat_bucket(sl, &lg, 67) == 1 &&
	      stp_stat_bucket(sl, &lg, 63) == 1 && stp_stat_bucket(sl, &lg, 62) == 2);
	CHECK("log buckets: the extremes are the last buckets",
	      stp_stat_bucket(sl, &lg, 127) == 1 && stp_stat_bucket(sl, &lg, 0) == 1);
	m = new_stat(&lin2);
	stp_stat_add(m, &lin2, 5);
	for (i = 0; i < 2; i++)
		stp_stat_merge(m, st2, &lin2);
	CHECK("merge adds counts and buckets, keeps min and max",
	      stp_stat_count(m) == 1 + 18 && stp_stat_bucket(m, &lin2, 1) == 1 + 4 &&
	      stp_stat_bucket(m, &lin2, 12) == 4 &&
	      stp_stat_get(NULL, m, &lin2, STP_AGG_MIN) == INT64_MIN &&
	      stp_stat_get(NULL, m, &lin2, STP_AGG_MAX) == INT64_MAX);
	kvfree(m);
	kvfree(st);
	kvfree(st2);
	kvfree(sl);
}

static void test_draw_log(void)
{
	struct stp_stat_desc d = { .hist = STP_HIST_LOG };
	struct stp_stat *st = new_stat(&d);

	/* examples/process/sched-latency.txt */
	add_n(st, &d, 1, 9);
	add_n(st, &d, 3, 46);
	add_n(st, &d, 5, 40);
	add_n(st, &d, 15, 30);
	add_n(st, &d, 16, 2);
	CHECK("hist_log drawing: counts up to 50 are bars of that length; 0 before 1",
	      hist_is(st, &d,
	"value |-------------------------------------------------- count\n"
	"    0 |                                                    0\n"
	"    1 |@@@@@@@@@                                           9\n"
	"    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@     46\n"
	"    4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           40\n"
	"    8 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                     30\n"
	"   16 |@@                                                  2\n"
	"   32 |                                                    0\n"
	"   64 |                                                    0\n"
	"\n"));

	/* examples/lwtools/bitesize-nd_example.txt, process "tar" */
	stp_stat_clear(st, &d);
	add_n(st, &d, 4096, 1645);
	add_n(st, &d, 8192 + 100, 836);
	add_n(st, &d, 16384, 1394);
	add_n(st, &d, 65535, 532);
	add_n(st, &d, 65536, 180);
	add_n(st, &d, 131072, 219);
	CHECK("hist_log drawing: bars scaled to 50 columns, value column widened",
	      hist_is(st, &d,
	" value |-------------------------------------------------- count\n"
	"  1024 |                                                      0\n"
	"  2048 |                                                      0\n"
	"  4096 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@  1645\n"
	"  8192 |@@@@@@@@@@@@@@@@@@@@@@@@@                           836\n"
	" 16384 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         1394\n"
	" 32768 |@@@@@@@@@@@@@@@@                                    532\n"
	" 65536 |@@@@@                                               180\n"
	"131072 |@@@@@@                                              219\n"
	"262144 |                                                      0\n"
	"524288 |                                                      0\n"
	"\n"));

	/* examples/general/func_time_stats.txt */
	stp_stat_clear(st, &d);
	stp_stat_add(st, &d, 1000199);
	CHECK("hist_log drawing: one sample",
	      hist_is(st, &d,
	"  value |-------------------------------------------------- count\n"
	" 131072 |                                                   0\n"
	" 262144 |                                                   0\n"
	" 524288 |@                                                  1\n"
	"1048576 |                                                   0\n"
	"2097152 |                                                   0\n"
	"\n"));

	/* examples/io/deviceseeks.txt, device sdd: negative buckets and elided runs */
	stp_stat_clear(st, &d);
	add_n(st, &d, -8589934592LL, 1);
	add_n(st, &d, -67108864 - 5, 1);
	add_n(st, &d, -8192, 47);
	add_n(st, &d, -4097, 115);
	add_n(st, &d, -2048, 31);
	add_n(st, &d, 0, 246);
	add_n(st, &d, 32, 1);
	add_n(st, &d, 64, 3);
	add_n(st, &d, 128, 1);
	add_n(st, &d, 256, 1);
	add_n(st, &d, 512, 8);
	add_n(st, &d, 1024, 7);
	add_n(st, &d, 2048, 102);
	add_n(st, &d, 4096, 102);
	add_n(st, &d, 8192, 37);
	add_n(st, &d, 16384, 3);
	add_n(st, &d, 67108864, 2);
	add_n(st, &d, 8589934592LL, 1);
	CHECK("hist_log drawing: negative values, \"~\" for runs of empty buckets",
	      hist_is(st, &d,
	"       value |-------------------------------------------------- count\n"
	"-34359738368 |                                                     0\n"
	"-17179869184 |                                                     0\n"
	" -8589934592 |                                                     1\n"
	" -4294967296 |                                                     0\n"
	" -2147483648 |                                                     0\n"
	"             ~\n"
	"  -268435456 |                                                     0\n"
	"  -134217728 |                                                     0\n"
	"   -67108864 |                                                     1\n"
	"   -33554432 |                                                     0\n"
	"   -16777216 |                                                     0\n"
	"             ~\n"
	"      -32768 |                                                     0\n"
	"      -16384 |                                                     0\n"
	"       -8192 |@@@@@@@@@                                           47\n"
	"       -4096 |@@@@@@@@@@@@@@@@@@@@@@@                            115\n"
	"       -2048 |@@@@@@                                              31\n"
	"       -1024 |                                                     0\n"
	"        -512 |                                                     0\n"
	"             ~\n"
	"          -2 |                                                     0\n"
	"          -1 |                                                     0\n"
	"           0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@  246\n"
	"           1 |                                                     0\n"
	"           2 |                                                     0\n"
	"             ~\n"
	"           8 |                                                     0\n"
	"          16 |                                                     0\n"
	"          32 |                                                     1\n"
	"          64 |                                                     3\n"
	"         128 |                                                     1\n"
	"         256 |                                                     1\n"
	"         512 |@                                                    8\n"
	"        1024 |@                                                    7\n"
	"        2048 |@@@@@@@@@@@@@@@@@@@@                               102\n"
	"        4096 |@@@@@@@@@@@@@@@@@@@@                               102\n"
	"        8192 |@@@@@@@                                             37\n"
	"       16384 |                                                     3\n"
	"       32768 |                                                     0\n"
	"       65536 |                                                     0\n"
	"             ~\n"
	"    16777216 |                                                     0\n"
	"    33554432 |                                                     0\n"
	"    67108864 |                                                     2\n"
	"   134217728 |                                                     0\n"
	"   268435456 |                                                     0\n"
	"             ~\n"
	"  2147483648 |                                                     0\n"
	"  4294967296 |                                                     0\n"
	"  8589934592 |                                                     1\n"
	" 17179869184 |                                                     0\n"
	" 34359738368 |                                                     0\n"
	"\n"));

	/* the language reference's @hist_log example (netdev.receive lengths) */
	stp_stat_clear(st, &d);
	add_n(st, &d, 40, 254);
	add_n(st, &d, 64, 3);
	add_n(st, &d, 128, 2);
	add_n(st, &d, 300, 2);
	add_n(st, &d, 600, 4);
	add_n(st, &d, 1500, 16689);
	CHECK("hist_log drawing: the language reference's example",
	      hist_is(st, &d,
	"value |-------------------------------------------------- count\n"
	"    8 |                                                       0\n"
	"   16 |                                                       0\n"
	"   32 |                                                     254\n"
	"   64 |                                                       3\n"
	"  128 |                                                       2\n"
	"  256 |                                                       2\n"
	"  512 |                                                       4\n"
	" 1024 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@  16689\n"
	" 2048 |                                                       0\n"
	" 4096 |                                                       0\n"
	"\n"));

	stp_stat_clear(st, &d);
	CHECK("hist_log drawing: an empty histogram is the header alone",
	      hist_is(st, &d,
	"value |-------------------------------------------------- count\n"
	"\n"));
	kvfree(st);
}

static void test_draw_linear(void)
{
	struct stp_stat_desc d = { .hist = STP_HIST_LINEAR, .start = 0, .stop = 10240,
				   .interval = 200 };
	struct stp_stat_desc d2 = { .hist = STP_HIST_LINEAR, .start = -5, .stop = 25,
				    .interval = 10 };
	struct stp_stat *st = new_stat(&d), *st2 = new_stat(&d2);

	/* the language reference's @hist_linear(reads, 0, 10240, 200) example */
	add_n(st, &d, 60, 1650);
	add_n(st, &d, 399, 8);
	add_n(st, &d, 1400, 1);
	CHECK("hist_linear drawing: the language reference's example",
	      hist_is(st, &d,
	"value |-------------------------------------------------- count\n"
	"    0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1650\n"
	"  200 |                                                      8\n"
	"  400 |                                                      0\n"
	"  600 |                                                      0\n"
	"      ~\n"
	" 1000 |                                                      0\n"
	" 1200 |                                                      0\n"
	" 1400 |                                                      1\n"
	" 1600 |                                                      0\n"
	" 1800 |                                                      0\n"
	"\n"));

	/* out-of-range buckets appear when they count something */
	add_n(st2, &d2, -100, 2);
	add_n(st2, &d2, 30, 1);
	add_n(st2, &d2, 1000, 1);
	CHECK("hist_linear drawing: values below start and above stop",
	      hist_is(st2, &d2,
	"value |-------------------------------------------------- count\n"
	"  <-5 |@@                                                 2\n"
	"   -5 |                                                   0\n"
	"    5 |                                                   0\n"
	"   15 |                                                   0\n"
	"   25 |@                                                  1\n"
	"  >25 |@                                                  1\n"
	"\n"));
	stp_stat_clear(st2, &d2);
	add_n(st2, &d2, 6, 3);
	CHECK("hist_linear drawing: the empty ends stop at start and stop",
	      hist_is(st2, &d2,
	"value |-------------------------------------------------- count\n"
	"   -5 |                                                   0\n"
	"    5 |@@@                                                3\n"
	"   15 |                                                   0\n"
	"   25 |                                                   0\n"
	"\n"));
	kvfree(st);
	kvfree(st2);
}

static void test_pstat(void)
{
	struct stp_stat_desc d = { .hist = STP_HIST_LOG };
	const struct stp_stat *agg;
	struct stp_pstat *p;
	unsigned int cpu;

	nr_cpu_ids = 3;
	stp_stat_desc_init(&d);
	p = stp_pstat_alloc(&d);
	CHECK("pstat allocates", p != NULL);
	for (cpu = 0; cpu < 3; cpu++) {
		stp_unit_cpu = cpu;
		stp_pstat_add(p, (s64)cpu * 10 + 1);
		stp_pstat_add(p, -(s64)cpu);
	}
	CHECK("pstat: each CPU adds to its own statistic",
	      stp_stat_count(stp_pstat_cpu(p, 0)) == 2 && stp_stat_count(stp_pstat_cpu(p, 2)) == 2);
	agg = stp_pstat_aggregate(p);
	CHECK("pstat aggregate: count, sum, min, max over the CPUs",
	      stp_stat_count(agg) == 6 && stp_stat_get(NULL, agg, &d, STP_AGG_SUM) == 30 &&
	      stp_stat_get(NULL, agg, &d, STP_AGG_MIN) == -2 &&
	      stp_stat_get(NULL, agg, &d, STP_AGG_MAX) == 21 &&
	      stp_stat_get(NULL, agg, &d, STP_AGG_AVG) == 5);
	CHECK("pstat aggregate: histogram buckets summed",
	      stp_stat_bucket(agg, &d, 65) == 1 && stp_stat_bucket(agg, &d, 64) == 1 &&
	      stp_stat_bucket(agg, &d, 63) == 1 && stp_stat_bucket(agg, &d, 62) == 1 &&
	      stp_stat_bucket(agg, &d, 68) == 1 && stp_stat_bucket(agg, &d, 69) == 1);
	agg = stp_pstat_aggregate(p);
	CHECK("pstat aggregate twice gives the same", stp_stat_count(agg) == 6);
	stp_pstat_clear(p);
	agg = stp_pstat_aggregate(p);
	CHECK("pstat clear empties every CPU", stp_stat_count(agg) == 0 &&
					       stp_stat_bucket(agg, &d, 65) == 0);
	stp_pstat_free(p);
	stp_pstat_free(NULL);
}

int main(void)
{
	test_aggregates();
	test_variance();
	test_buckets();
	test_draw_log();
	test_draw_linear();
	test_pstat();
	if (failures)
		printf("%d unit check(s) failed\n", failures);
	puts("unit finished");
	return failures != 0;
}
