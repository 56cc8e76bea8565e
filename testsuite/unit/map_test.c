/*
 * map_test.c - unit tests of runtime/map.c (with stat.c) in user space: associative
 * arrays, their sorting and iteration, and per-CPU arrays of statistics on fake CPUs.
 */
#define UNIT_MAP
#include "shim.h"

#include "stat.c"
#include "map.c"

#include "check.h"

#define LKEY(v) ((union stp_key){ .l = (v) })
#define SKEY(v) ((union stp_key){ .s = (v) })

static struct stp_map_entry *ins_l(struct stp_map *m, s64 k, s64 v)
{
	union stp_key key = LKEY(k);
	struct stp_map_entry *e = stp_map_insert(m, &key);

	if (e)
		*stp_entry_long(e) = v;
	return e;
}

static s64 *find_l(struct stp_map *m, s64 k)
{
	union stp_key key = LKEY(k);
	struct stp_map_entry *e = stp_map_find(m, &key);

	return e ? stp_entry_long(e) : NULL;
}

/* The map's long keys in iteration order, as "1,2,3". */
static const char *order(struct stp_map *m)
{
	static char buf[512];
	struct stp_map_entry *e;
	size_t n = 0;

	buf[0] = '\0';
	for (e = stp_map_first(m); e && n < sizeof(buf) - 24; e = stp_map_next(m, e))
		n += snprintf(buf + n, sizeof(buf) - n, "%s%lld", n ? "," : "",
			      (long long)stp_entry_key_long(e, 0));
	return buf;
}

static void test_basic(void)
{
	struct stp_map_desc d = { .name = "a", .nkeys = 1, .key_types = { STP_TYPE_LONG },
				  .value_type = STP_TYPE_LONG, .max_entries = 4 };
	struct stp_map *m = stp_map_alloc(&d);
	union stp_key k = LKEY(2);
	s64 *v;

	CHECK("map allocates", m != NULL);
	CHECK("new map is empty", stp_map_size(m) == 0 && !stp_map_first(m) && !find_l(m, 1));
	ins_l(m, 1, 10);
	ins_l(m, 2, 20);
	v = find_l(m, 2);
	CHECK("insert then find", v && *v == 20 && stp_map_size(m) == 2);
	CHECK("a new entry's value is zero", *stp_entry_long(stp_map_insert(m, &(union stp_key){
					       .l = -7 })) == 0);
	ins_l(m, 2, 21);
	CHECK("insert of an existing key finds it", *find_l(m, 2) == 21 && stp_map_size(m) == 3);
	ins_l(m, 3, 30);
	CHECK("full map refuses a new key", stp_map_size(m) == 4 && ins_l(m, 5, 50) == NULL &&
					    !find_l(m, 5));
	CHECK("full map still updates existing keys", ins_l(m, 3, 31) && *find_l(m, 3) == 31);
	stp_map_delete(m, &k);
	CHECK("delete", !find_l(m, 2) && stp_map_size(m) == 3 && *find_l(m, 1) == 10);
	stp_map_delete(m, &k);
	CHECK("delete of a missing key is fine", stp_map_size(m) == 3);
	CHECK("after a delete there is room again", ins_l(m, 5, 50) && *find_l(m, 5) == 50);
	CHECK("iteration follows insertion", strcmp(order(m), "1,-7,3,5") == 0);
	stp_map_clear(m);
	CHECK("clear", stp_map_size(m) == 0 && !find_l(m, 1) && !stp_map_first(m));
	CHECK("a cleared map fills again", ins_l(m, 9, 1) && ins_l(m, 8, 1) && ins_l(m, 7, 1) &&
					   ins_l(m, 6, 1) && !ins_l(m, 5, 1) &&
					   strcmp(order(m), "9,8,7,6") == 0);
	stp_map_free(m);
	stp_map_free(NULL);
}

static void test_wrap(void)
{
	struct stp_map_desc d = { .nkeys = 1, .key_types = { STP_TYPE_LONG },
				  .value_type = STP_TYPE_LONG, .max_entries = 3, .wrap = true };
	struct stp_map *m = stp_map_alloc(&d);

	ins_l(m, 1, 1);
	ins_l(m, 2, 2);
	ins_l(m, 3, 3);
	ins_l(m, 1, 100);
	CHECK("wrap: a full map evicts the oldest entry",
	      ins_l(m, 4, 4) && !find_l(m, 1) && *find_l(m, 4) == 4 && stp_map_size(m) == 3 &&
	      strcmp(order(m), "2,3,4") == 0);
	stp_map_sort(m, 0, -1, STP_AGG_COUNT, 0);
	CHECK("wrap: sorted", strcmp(order(m), "4,3,2") == 0);
	ins_l(m, 5, 5);
	CHECK("wrap: eviction goes by age, not by the sorted order",
	      !find_l(m, 2) && strcmp(order(m), "4,3,5") == 0);
	ins_l(m, 6, 6);
	ins_l(m, 7, 7);
	CHECK("wrap: oldest first, again", strcmp(order(m), "5,6,7") == 0);
	stp_map_free(m);
}

static void test_strings(void)
{
	struct stp_map_desc d = { .nkeys = 1, .key_types = { STP_TYPE_STRING },
				  .value_type = STP_TYPE_STRING, .max_entries = 8 };
	struct stp_map *m = stp_map_alloc(&d);
	union stp_key k = SKEY("0123456789abcdefXYZ"), k2 = SKEY("0123456789abcdeQQ");
	union stp_key k3 = SKEY("0123456789abcd");
	struct stp_map_entry *e = stp_map_insert(m, &k);

	CHECK("string key is truncated to MAXSTRINGLEN - 1",
	      strcmp(stp_entry_key_string(e, 0), "0123456789abcde") == 0);
	CHECK("a key equal in its first MAXSTRINGLEN - 1 chars is the same key",
	      stp_map_find(m, &k2) == e);
	CHECK("a shorter prefix is another key", stp_map_find(m, &k3) == NULL);
	CHECK("string value starts empty", strcmp(stp_entry_string(e), "") == 0);
	strcpy(stp_entry_string(e), "value");
	k = SKEY("");
	e = stp_map_insert(m, &k);
	CHECK("empty string key", e && stp_map_find(m, &k) == e && stp_map_size(m) == 2);
	CHECK("string values kept", strcmp(stp_entry_string(stp_map_find(m, &k2)), "value") == 0);
	stp_map_free(m);
}

static void test_nine_keys(void)
{
	struct stp_map_desc d = { .nkeys = 9,
				  .key_types = { STP_TYPE_LONG, STP_TYPE_STRING, STP_TYPE_LONG,
						 STP_TYPE_STRING, STP_TYPE_LONG, STP_TYPE_LONG,
						 STP_TYPE_STRING, STP_TYPE_STRING, STP_TYPE_LONG },
				  .value_type = STP_TYPE_LONG, .max_entries = 16 };
	struct stp_map *m = stp_map_alloc(&d);
	union stp_key k[9] = { LKEY(1), SKEY("a"), LKEY(-3), SKEY("b"), LKEY(5), LKEY(6),
			       SKEY("c"), SKEY("d"), LKEY(9) };
	struct stp_map_entry *e1, *e2;

	e1 = stp_map_insert(m, k);
	*stp_entry_long(e1) = 1;
	k[8] = LKEY(10);
	e2 = stp_map_insert(m, k);
	*stp_entry_long(e2) = 2;
	CHECK("9 keys: tuples differing in the last key are distinct",
	      e1 != e2 && stp_map_size(m) == 2 && stp_map_find(m, k) == e2);
	k[8] = LKEY(9);
	CHECK("9 keys: find", stp_map_find(m, k) == e1);
	k[7] = SKEY("D");
	CHECK("9 keys: a different string key misses", stp_map_find(m, k) == NULL);
	k[7] = SKEY("d");
	k[2] = LKEY(3);
	CHECK("9 keys: a different long key misses", stp_map_find(m, k) == NULL);
	CHECK("9 keys: key accessors",
	      stp_entry_key_long(e1, 0) == 1 && strcmp(stp_entry_key_string(e1, 1), "a") == 0 &&
	      stp_entry_key_long(e1, 2) == -3 && strcmp(stp_entry_key_string(e1, 7), "d") == 0 &&
	      stp_entry_key_long(e1, 8) == 9 && stp_entry_key_long(e2, 8) == 10);
	/* ("ab", "") and ("a", "b") are different tuples */
	{
		struct stp_map_desc d2 = { .nkeys = 2,
					   .key_types = { STP_TYPE_STRING, STP_TYPE_STRING },
					   .value_type = STP_TYPE_LONG, .max_entries = 4 };
		struct stp_map *m2 = stp_map_alloc(&d2);
		union stp_key a[2] = { SKEY("ab"), SKEY("") }, b[2] = { SKEY("a"), SKEY("b") };

		stp_map_insert(m2, a);
		CHECK("string keys do not run into each other", stp_map_find(m2, b) == NULL);
		stp_map_free(m2);
	}
	stp_map_free(m);
}

static void test_sort(void)
{
	struct stp_map_desc d = { .nkeys = 2, .key_types = { STP_TYPE_LONG, STP_TYPE_STRING },
				  .value_type = STP_TYPE_LONG, .max_entries = 64 };
	struct stp_map *m = stp_map_alloc(&d);
	static const struct { s64 k; const char *s; s64 v; } rows[] = {
		{ 5, "e", 30 }, { 2, "b", 10 }, { 9, "a", 30 }, { 1, "d", 20 },
		{ 7, "c", 10 }, { 3, "f", 20 }, { 8, "g", 30 },
	};
	struct stp_map_entry *e;
	union stp_key k[2];
	char buf[64];
	size_t i, n;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		k[0] = LKEY(rows[i].k);
		k[1] = SKEY(rows[i].s);
		*stp_entry_long(stp_map_insert(m, k)) = rows[i].v;
	}
	stp_map_sort(m, 0, 1, STP_AGG_COUNT, 0);
	CHECK("sort by value ascending is stable", strcmp(order(m), "2,7,1,3,5,9,8") == 0);
	stp_map_sort(m, 0, -1, STP_AGG_COUNT, 0);
	CHECK("sort by value descending keeps ties in order",
	      strcmp(order(m), "5,9,8,1,3,2,7") == 0);
	stp_map_sort(m, 1, 1, STP_AGG_COUNT, 0);
	CHECK("sort by key 1 ascending", strcmp(order(m), "1,2,3,5,7,8,9") == 0);
	stp_map_sort(m, 1, -1, STP_AGG_COUNT, 0);
	CHECK("sort by key 1 descending", strcmp(order(m), "9,8,7,5,3,2,1") == 0);
	stp_map_sort(m, 2, 1, STP_AGG_COUNT, 0);
	CHECK("sort by key 2 (string) ascending", strcmp(order(m), "9,2,7,1,5,3,8") == 0);
	stp_map_sort(m, 2, -1, STP_AGG_COUNT, 0);
	CHECK("sort by key 2 descending", strcmp(order(m), "8,3,5,1,7,2,9") == 0);
	stp_map_sort(m, 1, 1, STP_AGG_COUNT, 0);
	stp_map_sort(m, 0, -1, STP_AGG_COUNT, 0);
	CHECK("sort by key then by value: key order within equal values",
	      strcmp(order(m), "5,8,9,1,3,2,7") == 0);
	n = 0;
	for (e = stp_map_first(m); e && n < sizeof(buf) - 24; e = stp_map_next(m, e))
		n += snprintf(buf + n, sizeof(buf) - n, "%s", stp_entry_key_string(e, 1));
	CHECK("iteration after sort carries every entry's keys", strcmp(buf, "egadfbc") == 0);
	k[0] = LKEY(4);
	k[1] = SKEY("h");
	stp_map_insert(m, k);
	CHECK("an insert after a sort goes last", strcmp(order(m), "5,8,9,1,3,2,7,4") == 0);
	k[0] = LKEY(1);
	k[1] = SKEY("d");
	stp_map_delete(m, k);
	stp_map_sort(m, 1, 1, STP_AGG_COUNT, 0);
	CHECK("sort after a delete", strcmp(order(m), "2,3,4,5,7,8,9") == 0 &&
				     stp_map_size(m) == 7);
	stp_map_free(m);
}

/* A foreach with a limit of 30 or less: what stap 4.8 printed in the guest (40 keys,
 * values key % 4, `foreach (k in a- limit N)` then `foreach (k in a)`). */
static void test_sort_top(void)
{
	static const s64 keys[] = { 23, 24, 4, 19, 38, 20, 34, 31, 21, 9, 14, 35, 37, 28, 2, 25,
				    5, 8, 13, 6, 0, 26, 18, 30, 17, 12, 7, 27, 36, 11, 32, 10,
				    3, 15, 29, 1, 33, 22, 16, 39 };
	static const struct { s64 top; const char *after; } cases[] = {
		{ 5, "23,19,31,35,7,38,34,24,4,20,21,9,14,37,28,2,25,5,8,13,6,0,26,18,30,17,"
		     "12,27,36,11,32,10,3,15,29,1,33,22,16,39" },
		{ 20, "23,19,31,35,7,27,11,3,15,39,38,34,14,2,6,26,18,30,10,22,21,9,37,25,5,13,"
		      "17,24,4,20,28,8,0,12,36,32,29,1,33,16" },
		{ 31, "23,19,31,35,7,27,11,3,15,39,38,34,14,2,6,26,18,30,10,22,21,9,37,25,5,13,"
		      "17,29,1,33,24,4,20,28,8,0,12,36,32,16" },	/* past 30: all, stably */
	};
	struct stp_map_desc d = { .nkeys = 1, .key_types = { STP_TYPE_LONG },
				  .value_type = STP_TYPE_LONG, .max_entries = 64 };
	size_t c, i;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct stp_map *m = stp_map_alloc(&d);
		char name[80];

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			*stp_entry_long(stp_map_insert(m, (union stp_key[]){ LKEY(keys[i]) })) =
				keys[i] % 4;
		stp_map_sort(m, 0, -1, STP_AGG_COUNT, cases[c].top);
		snprintf(name, sizeof(name), "a limit of %lld sorts as stap 4.8's",
			 (long long)cases[c].top);
		CHECK(name, strcmp(order(m), cases[c].after) == 0);
		stp_map_free(m);
	}
}

static void test_sort_values(void)
{
	struct stp_map_desc ds = { .nkeys = 1, .key_types = { STP_TYPE_LONG },
				   .value_type = STP_TYPE_STRING, .max_entries = 8 };
	struct stp_stat_desc sd = { .hist = STP_HIST_NONE };
	struct stp_map_desc dt = { .nkeys = 1, .key_types = { STP_TYPE_LONG },
				   .value_type = STP_TYPE_STATS, .max_entries = 8, .stat = &sd };
	struct stp_map *m = stp_map_alloc(&ds), *t;
	static const char *const words[] = { "pear", "apple", "fig", "apple" };
	union stp_key k;
	s64 i;

	for (i = 0; i < 4; i++) {
		k = LKEY(i);
		strcpy(stp_entry_string(stp_map_insert(m, &k)), words[i]);
	}
	stp_map_sort(m, 0, 1, STP_AGG_COUNT, 0);
	CHECK("sort by string value", strcmp(order(m), "1,3,2,0") == 0);
	stp_map_sort(m, 0, -1, STP_AGG_COUNT, 0);
	CHECK("sort by string value descending", strcmp(order(m), "0,2,1,3") == 0);
	stp_map_free(m);

	stp_stat_desc_init(&sd);
	t = stp_map_alloc(&dt);
	/* key 0: 3 samples summing 3; key 1: 1 sample of 50; key 2: 2 samples, avg 10 */
	k = LKEY(0);
	for (i = 0; i < 3; i++)
		stp_stat_add(stp_entry_stat(stp_map_insert(t, &k)), &sd, 1);
	k = LKEY(1);
	stp_stat_add(stp_entry_stat(stp_map_insert(t, &k)), &sd, 50);
	k = LKEY(2);
	stp_stat_add(stp_entry_stat(stp_map_insert(t, &k)), &sd, 5);
	stp_stat_add(stp_entry_stat(stp_map_insert(t, &k)), &sd, 15);
	k = LKEY(3);
	stp_map_insert(t, &k);	/* empty: sorts as 0, no error */
	stp_map_sort(t, 0, -1, STP_AGG_COUNT, 0);
	CHECK("sort statistics by @count", strcmp(order(t), "0,2,1,3") == 0);
	stp_map_sort(t, 0, -1, STP_AGG_SUM, 0);
	CHECK("sort statistics by @sum", strcmp(order(t), "1,2,0,3") == 0);
	stp_map_sort(t, 0, 1, STP_AGG_AVG, 0);
	CHECK("sort statistics by @avg", strcmp(order(t), "3,0,2,1") == 0);
	stp_map_sort(t, 0, 1, STP_AGG_MIN, 0);
	CHECK("sort statistics by @min", strcmp(order(t), "3,0,2,1") == 0);
	stp_map_sort(t, 0, -1, STP_AGG_MAX, 0);
	CHECK("sort statistics by @max", strcmp(order(t), "1,2,0,3") == 0);
	stp_map_free(t);
}

static void test_big(void)
{
	struct stp_map_desc d = { .nkeys = 1, .key_types = { STP_TYPE_LONG },
				  .value_type = STP_TYPE_LONG, .max_entries = 2048 };
	struct stp_map *m = stp_map_alloc(&d);
	struct stp_map_entry *e;
	bool ok = true;
	s64 i;

	for (i = 0; i < 2048; i++)
		ok = ok && ins_l(m, i * 4096, i);
	CHECK("2048 entries fit MAXMAPENTRIES' worth of map", ok && stp_map_size(m) == 2048 &&
							      !ins_l(m, -1, 0));
	for (i = 0; i < 2048 && ok; i++)
		ok = find_l(m, i * 4096) && *find_l(m, i * 4096) == i;
	CHECK("every entry is found again", ok);
	for (i = 0; i < 2048; i += 2) {
		union stp_key k = LKEY(i * 4096);

		stp_map_delete(m, &k);
	}
	for (i = 0; i < 2048 && ok; i++)
		ok = (find_l(m, i * 4096) != NULL) == (i % 2 == 1);
	CHECK("deleting every other entry leaves the rest", ok && stp_map_size(m) == 1024);
	stp_map_sort(m, 0, -1, STP_AGG_COUNT, 0);
	CHECK("sorting 1024 entries", *stp_entry_long(stp_map_first(m)) == 2047 &&
				      stp_entry_key_long(stp_map_first(m), 0) == 2047 * 4096);
	ok = true;
	for (e = stp_map_first(m); e && stp_map_next(m, e); e = stp_map_next(m, e))
		ok = ok && *stp_entry_long(e) > *stp_entry_long(stp_map_next(m, e));
	CHECK("sorted 1024 entries are in order", ok);
	stp_map_free(m);
}

static void test_pmap(void)
{
	struct stp_stat_desc sd = { .hist = STP_HIST_LOG };
	struct stp_map_desc d = { .nkeys = 1, .key_types = { STP_TYPE_STRING },
				  .value_type = STP_TYPE_STATS, .max_entries = 4, .stat = &sd };
	const struct stp_stat *st;
	struct stp_map_entry *e;
	struct stp_pmap *p;
	struct stp_map *agg;
	union stp_key k;
	char buf[64];
	size_t n = 0;

	nr_cpu_ids = 3;
	stp_stat_desc_init(&sd);
	p = stp_pmap_alloc(&d);
	CHECK("pmap allocates", p != NULL);
	stp_unit_cpu = 0;
	k = SKEY("sh");
	stp_pmap_add(p, &k, 1);
	stp_pmap_add(p, &k, 2);
	k = SKEY("cat");
	stp_pmap_add(p, &k, 10);
	stp_unit_cpu = 2;
	k = SKEY("ls");
	stp_pmap_add(p, &k, 100);
	k = SKEY("sh");
	stp_pmap_add(p, &k, 4);
	agg = stp_pmap_aggregate(p);
	for (e = stp_map_first(agg); e; e = stp_map_next(agg, e))
		n += snprintf(buf + n, sizeof(buf) - n, "%s=%lld/%lld ", stp_entry_key_string(e, 0),
			      (long long)stp_stat_count(stp_entry_stat(e)),
			      (long long)stp_stat_get(NULL, stp_entry_stat(e), &sd, STP_AGG_SUM));
	CHECK("pmap aggregate: every CPU's keys, statistics merged",
	      stp_map_size(agg) == 3 && strcmp(buf, "sh=3/7 cat=1/10 ls=1/100 ") == 0);
	k = SKEY("sh");
	st = stp_pmap_lookup(p, &k);
	CHECK("pmap lookup merges one key over the CPUs",
	      st && stp_stat_count(st) == 3 && stp_stat_get(NULL, st, &sd, STP_AGG_MAX) == 4 &&
	      stp_stat_bucket(st, &sd, 67) == 1 && stp_stat_bucket(st, &sd, 65) == 1);
	k = SKEY("vi");
	CHECK("pmap lookup of a missing key is NULL", stp_pmap_lookup(p, &k) == NULL);
	stp_map_sort(agg, 0, -1, STP_AGG_SUM, 0);
	CHECK("the aggregate sorts by an aggregate",
	      strcmp(stp_entry_key_string(stp_map_first(agg), 0), "ls") == 0);
	k = SKEY("sh");
	stp_pmap_delete(p, &k);
	CHECK("pmap delete removes the key on every CPU", stp_pmap_lookup(p, &k) == NULL &&
							  stp_map_size(stp_pmap_aggregate(p)) == 2);
	stp_unit_cpu = 1;
	k = SKEY("a");
	stp_pmap_add(p, &k, 1);
	k = SKEY("b");
	stp_pmap_add(p, &k, 1);
	k = SKEY("c");
	stp_pmap_add(p, &k, 1);
	k = SKEY("d");
	CHECK("pmap add: this CPU's map full is -ENOSPC",
	      stp_pmap_add(p, &k, 1) == 0 && (k = SKEY("e"), stp_pmap_add(p, &k, 1)) == -ENOSPC);
	stp_pmap_clear(p);
	CHECK("pmap clear", stp_map_size(stp_pmap_aggregate(p)) == 0 &&
			    stp_pmap_lookup(p, &k) == NULL);
	stp_pmap_free(p);
	stp_pmap_free(NULL);
	CHECK("pmap of a non-statistic is refused", stp_pmap_alloc(&(struct stp_map_desc){
		      .nkeys = 1, .value_type = STP_TYPE_LONG, .max_entries = 1 }) == NULL);
}

/* The map's (long, string) keys in iteration order, as "1a,2b". */
static const char *order2(struct stp_map *m)
{
	static char buf[512];
	struct stp_map_entry *e;
	size_t n = 0;

	buf[0] = '\0';
	for (e = stp_map_first(m); e && n < sizeof(buf) - 40; e = stp_map_next(m, e))
		n += snprintf(buf + n, sizeof(buf) - n, "%s%lld%s", n ? "," : "",
			      (long long)stp_entry_key_long(e, 0), stp_entry_key_string(e, 1));
	return buf;
}

static void test_wildcards(void)
{
	struct stp_stat_desc sd = { .hist = STP_HIST_NONE };
	struct stp_map_desc d = { .nkeys = 2, .key_types = { STP_TYPE_LONG, STP_TYPE_STRING },
				  .value_type = STP_TYPE_LONG, .max_entries = 8 };
	struct stp_map_desc ds = { .nkeys = 2, .key_types = { STP_TYPE_LONG, STP_TYPE_STRING },
				   .value_type = STP_TYPE_STATS, .max_entries = 8, .stat = &sd };
	static const struct { s64 k; const char *s; } rows[] = {
		{ 1, "a" }, { 2, "a" }, { 1, "b" }, { 3, "c" }, { 2, "b" },
	};
	struct stp_map *m = stp_map_alloc(&d);
	struct stp_pmap *p;
	union stp_key k[2];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		k[0] = LKEY(rows[i].k);
		k[1] = SKEY(rows[i].s);
		stp_map_insert(m, k);
	}
	k[0] = LKEY(0);
	k[1] = SKEY("b");
	CHECK("[*, \"b\"] in a", stp_map_exists_matching(m, &d, k, 0x2) &&
				  !stp_map_exists_matching(m, &d, k, 0x3));
	k[0] = LKEY(3);
	k[1] = SKEY("zz");
	CHECK("[3, *] in a", stp_map_exists_matching(m, &d, k, 0x1));
	k[1] = SKEY("b");
	stp_delete_matching(m, NULL, &d, k, 0x2);
	CHECK("delete a[*, \"b\"] keeps the others in order",
	      strcmp(order2(m), "1a,2a,3c") == 0 && stp_map_size(m) == 3);
	k[0] = LKEY(7);
	stp_delete_matching(m, NULL, &d, k, 0x1);
	CHECK("delete of a pattern that matches nothing", stp_map_size(m) == 3);
	stp_delete_matching(m, NULL, &d, k, 0);
	CHECK("delete a[*, *] empties the array", stp_map_size(m) == 0 && !stp_map_first(m));
	stp_map_free(m);

	nr_cpu_ids = 2;
	stp_stat_desc_init(&sd);
	p = stp_pmap_alloc(&ds);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		stp_unit_cpu = i % 2;
		k[0] = LKEY(rows[i].k);
		k[1] = SKEY(rows[i].s);
		stp_pmap_add(p, k, 1);
	}
	k[0] = LKEY(1);
	stp_delete_matching(stp_pmap_aggregate(p), p, &ds, k, 0x1);
	CHECK("delete s[1, *] of statistics goes from every CPU",
	      strcmp(order2(stp_pmap_aggregate(p)), "2b,2a,3c") == 0);
	stp_pmap_free(p);
}

int main(void)
{
	test_basic();
	test_wrap();
	test_strings();
	test_nine_keys();
	test_sort();
	test_sort_top();
	test_sort_values();
	test_big();
	test_pmap();
	test_wildcards();
	if (failures)
		printf("%d unit check(s) failed\n", failures);
	puts("unit finished");
	return failures != 0;
}
