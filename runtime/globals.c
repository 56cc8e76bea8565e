/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * globals.c - what generated code needs around the script's globals: their locks, -G
 * module parameters, and the soft errors of arrays and statistics.
 *
 * Each global has a reader/writer lock.  A handler takes the locks of every global it (or a
 * function it calls) uses before it runs, in one fixed order (the order of the globals in the
 * program), so two handlers can never wait on each other.  A lock is only tried, MAXTRYLOCK
 * times TRYLOCKDELAY ns apart; a handler that cannot get its locks is skipped and counted.
 */

struct stp_lock_req {
	rwlock_t *lock;
	bool write;
};

static void stp_unlock_globals(const struct stp_lock_req *reqs, int n)
{
	while (n-- > 0) {
		if (reqs[n].write)
			write_unlock(reqs[n].lock);
		else
			read_unlock(reqs[n].lock);
	}
}

static bool stp_try_one_lock(const struct stp_lock_req *req)
{
	int attempt;

	for (attempt = 0; attempt < MAXTRYLOCK; attempt++) {
		if (req->write ? write_trylock(req->lock) : read_trylock(req->lock))
			return true;
		ndelay(TRYLOCKDELAY);
	}
	return false;
}

/* All of REQS (sorted by global), or none: then the hit counts as skipped. */
static __maybe_unused bool stp_lock_globals(const struct stp_lock_req *reqs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!stp_try_one_lock(&reqs[i])) {
			stp_unlock_globals(reqs, i);
			if (atomic64_inc_return(&stp_skipped_count) > MAXSKIPPED)
				_stp_exit();
			return false;
		}
	}
	return true;
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

/* ---- soft errors of arrays and statistics ---- */

static __maybe_unused void stp_array_overflow(struct context *c, const struct stp_map_desc *d)
{
	if (d->max_entries != MAXMAPENTRIES)
		stp_soft_error(c, "Array overflow, check size limit (%u)", d->max_entries);
	else
		stp_soft_error(c, "Array overflow, check MAXMAPENTRIES");
}

static __maybe_unused void stp_aggregation_overflow(struct context *c,
						     const struct stp_map_desc *d)
{
	if (d->max_entries != MAXMAPENTRIES)
		stp_soft_error(c, "Aggregation overflow, check size limit (%u)", d->max_entries);
	else
		stp_soft_error(c, "Aggregation overflow, check MAXMAPENTRIES");
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

/* ---- keys with wildcards: a[*, 1] in delete, in and foreach ---- */

/* Whether E's keys equal KEYS at the positions in MASK (bit i: key i is given). */
static __maybe_unused bool stp_keys_match(const struct stp_map_desc *d,
					  const struct stp_map_entry *e,
					  const union stp_key *keys, unsigned int mask)
{
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (d->key_types[i] == STP_TYPE_STRING) {
			if (strncmp(stp_entry_key_string(e, i), keys[i].s, MAXSTRINGLEN - 1))
				return false;
		} else if (stp_entry_key_long(e, i) != keys[i].l) {
			return false;
		}
	}
	return true;
}

static __maybe_unused bool stp_map_exists_matching(struct stp_map *m,
						   const struct stp_map_desc *d,
						   const union stp_key *keys, unsigned int mask)
{
	struct stp_map_entry *e;

	for (e = stp_map_first(m); e; e = stp_map_next(m, e))
		if (stp_keys_match(d, e, keys, mask))
			return true;
	return false;
}

/*
 * Deletes the entries of M that match.  For an array of statistics M is P's aggregate and
 * each entry goes from every CPU's map too.  The next entry is found before the current
 * one goes.
 */
static __maybe_unused void stp_delete_matching(struct stp_map *m, struct stp_pmap *p,
					       const struct stp_map_desc *d,
					       const union stp_key *keys, unsigned int mask)
{
	struct stp_map_entry *e = stp_map_first(m), *next;
	union stp_key found[STP_MAX_KEYS];
	int i;

	for (; e; e = next) {
		next = stp_map_next(m, e);
		if (!stp_keys_match(d, e, keys, mask))
			continue;
		for (i = 0; i < d->nkeys; i++) {
			if (d->key_types[i] == STP_TYPE_STRING)
				found[i].s = stp_entry_key_string(e, i);
			else
				found[i].l = stp_entry_key_long(e, i);
		}
		if (p)
			stp_pmap_delete(p, found);	/* the aggregate's entry last */
		else
			stp_map_delete(m, found);
	}
}
