/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * data.h - the runtime's script values: printf arguments, statistics, associative arrays.
 *
 * runtime.h includes it for the module, with every STP_DECLARE_ set; testsuite/unit/shim.h
 * for the unit tests of format.c, stat.c and map.c, which set the ones they define.
 */
#ifndef STP_DATA_H
#define STP_DATA_H

struct context;

/*
 * format.c: stap's printf language (%d %i %u %x %X %o %s %c %p %b %m %M %%, flags
 * "-+ #0", width, precision, '*').  Pass 2 checked the format against the arguments'
 * types, so each conversion takes the next argument as a long or a string.
 */
union stp_format_arg {
	s64 l;
	const char *s;
};
#ifdef STP_DECLARE_FORMAT
/* Formats into BUF (SIZE > 0 bytes, NUL-terminated, truncated); returns the length
 * written, which may include NULs from %b and %c. */
static __maybe_unused size_t stp_format(char *buf, size_t size, const char *fmt,
					const union stp_format_arg *args, int nargs);
/* printf(): straight into the print buffer, no MAXSTRINGLEN limit on the whole line. */
static __maybe_unused void stp_printf_args(const char *fmt, const union stp_format_arg *args,
					   int nargs);
#endif

/*
 * stat.c: a statistic accumulates values (x <<< v).  What a statistic computes is fixed by
 * the script (pass 3 writes one struct stp_stat_desc per global); every statistic keeps
 * count, sum, min, max, and what variance needs; a histogram adds its buckets.
 */
enum stp_hist_kind { STP_HIST_NONE, STP_HIST_LINEAR, STP_HIST_LOG };
enum stp_aggregate {
	STP_AGG_COUNT, STP_AGG_SUM, STP_AGG_MIN, STP_AGG_MAX, STP_AGG_AVG, STP_AGG_VARIANCE,
};
struct stp_stat_desc {
	enum stp_hist_kind hist;
	s64 start, stop, interval;	/* @hist_linear(x, start, stop, interval) */
	int buckets;			/* filled by stp_stat_desc_init() */
	int bit_shift;			/* @variance(x, N): precision of the running average */
};
struct stp_stat;			/* count, sum, min, max, ..., buckets[] (stat.c) */
struct stp_pstat;			/* a scalar statistic: one struct stp_stat per CPU */
#ifdef STP_DECLARE_STAT
static __maybe_unused void stp_stat_desc_init(struct stp_stat_desc *d);
static __maybe_unused size_t stp_stat_size(const struct stp_stat_desc *d);
static __maybe_unused void stp_stat_clear(struct stp_stat *st, const struct stp_stat_desc *d);
static __maybe_unused void stp_stat_add(struct stp_stat *st, const struct stp_stat_desc *d,
					s64 value);
static __maybe_unused void stp_stat_merge(struct stp_stat *into, const struct stp_stat *from,
					  const struct stp_stat_desc *d);
static __maybe_unused s64 stp_stat_count(const struct stp_stat *st);
/* @count..@variance; @min/@max/@avg/@variance of an empty statistic are soft errors
 * (c may be NULL in unit tests: then 0 is returned silently). */
static __maybe_unused s64 stp_stat_get(struct context *c, const struct stp_stat *st,
				       const struct stp_stat_desc *d, enum stp_aggregate what);
/* print(@hist_log(x)) / print(@hist_linear(x, ...)): the ASCII histogram, as stap draws it;
 * sprint(...) appends it to out (MAXSTRINGLEN bytes) instead */
static __maybe_unused void stp_stat_print_hist(const struct stp_stat *st,
					       const struct stp_stat_desc *d, char *out);
/* @hist_log(x)[i]: the count in bucket i (0 when out of range) */
static __maybe_unused s64 stp_stat_bucket(const struct stp_stat *st,
					  const struct stp_stat_desc *d, s64 index);
/* Scalar statistics: allocated at load (GFP_KERNEL), added to on this CPU (the caller
 * holds the global's read lock), aggregated by a reader holding the write lock. */
static __maybe_unused struct stp_pstat *stp_pstat_alloc(const struct stp_stat_desc *d);
static __maybe_unused void stp_pstat_free(struct stp_pstat *p);
static __maybe_unused void stp_pstat_add(struct stp_pstat *p, s64 value);
static __maybe_unused const struct stp_stat *stp_pstat_aggregate(struct stp_pstat *p);
static __maybe_unused void stp_pstat_clear(struct stp_pstat *p);
#endif

/*
 * map.c: associative arrays.  Every entry is preallocated at load (desc->max_entries of
 * them), so probe context never allocates; a full array refuses new keys (the caller
 * reports "MAXMAPENTRIES exceeded") unless it wraps, when the oldest entry makes room.
 * Keys are up to STP_MAX_KEYS longs or strings (strings copied, MAXSTRINGLEN bounded).
 * Iteration follows the map's order, which stp_map_sort() changes; pass 2 forbids changing
 * an array inside its own foreach.  The caller holds the global's lock throughout: for
 * reading to read, for writing to change (map.c says which each function needs).
 */
enum stp_value_type { STP_TYPE_LONG = 1, STP_TYPE_STRING = 2, STP_TYPE_STATS = 3 };
union stp_key {
	s64 l;
	const char *s;
};
struct stp_map_desc {
	const char *name;		/* the script's name, for messages */
	int nkeys;
	u8 key_types[STP_MAX_KEYS];	/* STP_TYPE_LONG or STP_TYPE_STRING */
	u8 value_type;
	u32 max_entries;		/* global a[N], else MAXMAPENTRIES */
	bool wrap;			/* global a%[N] */
	const struct stp_stat_desc *stat;	/* value_type STP_TYPE_STATS */
};
struct stp_map;
struct stp_map_entry;
struct stp_pmap;			/* an array of statistics: one stp_map per CPU */
#ifdef STP_DECLARE_MAP
static __maybe_unused struct stp_map *stp_map_alloc(const struct stp_map_desc *d);
static __maybe_unused void stp_map_free(struct stp_map *m);
static __maybe_unused struct stp_map_entry *stp_map_find(struct stp_map *m,
							 const union stp_key *keys);
/* the entry (new ones zeroed), or NULL when the map is full and does not wrap */
static __maybe_unused struct stp_map_entry *stp_map_insert(struct stp_map *m,
							   const union stp_key *keys);
static __maybe_unused void stp_map_delete(struct stp_map *m, const union stp_key *keys);
static __maybe_unused void stp_map_clear(struct stp_map *m);
static __maybe_unused u32 stp_map_size(const struct stp_map *m);
/* BY: 0 sorts by value (of stats: by AGG), 1..nkeys by that key; DIRECTION +1 or -1.
 * Ties keep the present order (stable), so sorting by key then value is possible.  TOP:
 * a foreach's limit; up to STP_SORT_TOP_MAX only orders that many first entries, as
 * stap 4.8 does (the others keep an order later loops see). */
#define STP_SORT_TOP_MAX 30
static __maybe_unused void stp_map_sort(struct stp_map *m, int by, int direction,
					enum stp_aggregate agg, s64 top);
static __maybe_unused struct stp_map_entry *stp_map_first(struct stp_map *m);
static __maybe_unused struct stp_map_entry *stp_map_next(struct stp_map *m,
							 struct stp_map_entry *e);
static __maybe_unused s64 stp_entry_key_long(const struct stp_map_entry *e, int i);
static __maybe_unused const char *stp_entry_key_string(const struct stp_map_entry *e, int i);
static __maybe_unused s64 *stp_entry_long(struct stp_map_entry *e);
static __maybe_unused char *stp_entry_string(struct stp_map_entry *e);
static __maybe_unused struct stp_stat *stp_entry_stat(struct stp_map_entry *e);
/* Arrays of statistics: a <<< v adds on this CPU's map (read lock held); -ENOSPC when
 * that map is full.  Readers (write lock held) aggregate every CPU into one map. */
static __maybe_unused struct stp_pmap *stp_pmap_alloc(const struct stp_map_desc *d);
static __maybe_unused void stp_pmap_free(struct stp_pmap *p);
static __maybe_unused int stp_pmap_add(struct stp_pmap *p, const union stp_key *keys,
				       s64 value);
/* all CPUs merged into the pmap's aggregate map, which stays valid until the next call */
static __maybe_unused struct stp_map *stp_pmap_aggregate(struct stp_pmap *p);
static __maybe_unused bool stp_pmap_overflowed(const struct stp_pmap *p);
/* one key merged over the CPUs, or NULL when no CPU has it */
static __maybe_unused const struct stp_stat *stp_pmap_lookup(struct stp_pmap *p,
							     const union stp_key *keys);
static __maybe_unused void stp_pmap_delete(struct stp_pmap *p, const union stp_key *keys);
static __maybe_unused void stp_pmap_clear(struct stp_pmap *p);
/* Keys with wildcards (a[*, 1]): MASK has bit i set when key i is given. */
static __maybe_unused bool stp_keys_match(const struct stp_map_desc *d,
					  const struct stp_map_entry *e,
					  const union stp_key *keys, unsigned int mask);
static __maybe_unused bool stp_map_exists_matching(struct stp_map *m,
						   const struct stp_map_desc *d,
						   const union stp_key *keys, unsigned int mask);
/* M is an array's map, or with P an array of statistics' aggregate (each CPU's goes too). */
static __maybe_unused void stp_delete_matching(struct stp_map *m, struct stp_pmap *p,
					       const struct stp_map_desc *d,
					       const union stp_key *keys, unsigned int mask);
#endif

#endif
