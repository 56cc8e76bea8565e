/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.c - associative arrays, and per-CPU arrays of statistics.
 *
 * All of a map's entries are allocated at load in one block and kept on a free list; a
 * hash table (power-of-two buckets, at least as many as entries) finds them by key.  Used
 * entries are on two lists: the iteration order, which stp_map_sort() rearranges, and
 * the insertion age, which picks the entry a wrapping array (a%[N]) gives up when full.
 * After load nothing here allocates or sleeps, and no loop runs longer than the map's
 * size (sorting: n log n comparisons; a foreach's limit of N <= 30, about N * n).
 *
 * An entry's data holds its keys then its value, each 8-byte aligned: a long key or value
 * takes 8 bytes, a string MAXSTRINGLEN, a statistic stp_stat_size(desc->stat).
 *
 * Locking: a map is one script global's, and the global's rwlock (globals.c) is taken by
 * the handler before it runs, for reading or for writing as pass 3 decided.  A map does
 * not know that lock (pass 3 keeps it beside the map), so the rule is stated on each
 * function here instead of asserted:
 *   - reading a map (find, first/next, size, reading an entry) needs the lock for reading;
 *   - changing it (insert, delete, clear, sort, writing an entry) needs it for writing;
 *   - an array of statistics adds to this CPU's own map under the read lock (one handler
 *     runs per CPU at a time, preemption off); reading it needs the write lock, since
 *     that merges every CPU into the pmap's aggregate;
 *   - alloc and free run at load and unload, when no handler runs, without the lock.
 * Everything but alloc and free may run in any context a handler runs in (IRQs off,
 * from a kprobe).
 */
struct stp_map_entry {
	struct hlist_node hash_node;		/* in the bucket of its hash */
	struct list_head list;			/* iteration order, or the free list */
	struct list_head age;			/* insertion age, oldest first */
	const struct stp_map *map;
	u32 hash;
	u64 data[];
};

struct stp_map {
	const struct stp_map_desc *desc;
	u32 size;
	u32 hmask;				/* hash buckets - 1 */
	size_t entry_size;
	u32 key_off[STP_MAX_KEYS];		/* byte offsets into data */
	u32 value_off;
	struct hlist_head *table;
	struct list_head entries;		/* used entries, in iteration order */
	struct list_head by_age;		/* used entries, oldest first */
	struct list_head free;			/* unused entries */
	char *pool;
};

struct stp_pmap {
	const struct stp_map_desc *desc;
	struct stp_map *agg;			/* every CPU merged, for readers */
	bool agg_overflow;			/* the last merge left keys out */
	struct stp_stat *scratch;		/* stp_pmap_lookup()'s result */
	struct stp_map *cpu[];			/* nr_cpu_ids maps, possible CPUs only */
};

static size_t stp_map_slot_size(u8 type, const struct stp_map_desc *d)
{
	switch (type) {
	case STP_TYPE_STRING:
		return ALIGN(MAXSTRINGLEN, 8);
	case STP_TYPE_STATS:
		return ALIGN(stp_stat_size(d->stat), 8);
	default:
		return 8;
	}
}

static inline char *stp_entry_data(const struct stp_map_entry *e)
{
	char *data = (char *)e->data;

	/* the entry's size is the map's, not the struct's: gcc must not judge reads of the
	 * keys by the flexible array's size of 0 (-Wstringop-overread) */
	OPTIMIZER_HIDE_VAR(data);
	return data;
}

/*
 * A script string as a key: at most MAXSTRINGLEN - 1 characters count.  The pointer is
 * hidden from the optimizer: where a handler fills a number key (k.l = 7) and the map's
 * key type is known only at run time, gcc would otherwise follow 7 into the string
 * branch and warn that strncmp() reads past an object of size 0.
 */
static inline const char *stp_key_str(const union stp_key *k)
{
	const char *s = k->s;

	OPTIMIZER_HIDE_VAR(s);
	return s ? s : "";
}

static u32 stp_map_hash(const struct stp_map_desc *d, const union stp_key *keys)
{
	u64 h = 0xcbf29ce484222325ULL;
	const char *s;
	int i, n;

	for (i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == STP_TYPE_STRING) {
			s = stp_key_str(&keys[i]);
			for (n = 0; n < MAXSTRINGLEN - 1 && s[n]; n++)
				h = (h ^ (u8)s[n]) * 0x100000001b3ULL;
			h = (h ^ 0xff) * 0x100000001b3ULL;	/* ("a","b") != ("ab","") */
		} else {
			h = (h ^ (u64)keys[i].l) * 0x9e3779b97f4a7c15ULL;
			h ^= h >> 29;
		}
	}
	return (u32)(h ^ (h >> 32));
}

/**
 * stp_map_free() - Free a map and all its entries.
 * @m: the map, or NULL
 *
 * Context: Process context, at unload (no handler runs); no lock.
 */
static void stp_map_free(struct stp_map *m)
{
	if (!m)
		return;
	kvfree(m->table);
	kvfree(m->pool);
	kvfree(m);
}

/**
 * stp_map_alloc() - Allocate a map and every entry it can hold.
 * @d: what pass 3 says of the array; must outlive the map
 *
 * Context: Process context, at load (no handler runs); may sleep.  No lock.
 * Return: the empty map, or NULL when @d is invalid or memory is short.
 */
static struct stp_map *stp_map_alloc(const struct stp_map_desc *d)
{
	struct stp_map_entry *e;
	struct stp_map *m;
	size_t off = 0;
	u32 nb = 1, i;

	if (!d || d->nkeys < 1 || d->nkeys > STP_MAX_KEYS || d->max_entries < 1 ||
	    (d->value_type == STP_TYPE_STATS && !d->stat))
		return NULL;
	m = stp_kvzalloc(sizeof(*m));
	if (!m)
		return NULL;
	m->desc = d;
	for (i = 0; i < (u32)d->nkeys; i++) {
		m->key_off[i] = off;
		off += stp_map_slot_size(d->key_types[i], d);
	}
	m->value_off = off;
	off += stp_map_slot_size(d->value_type, d);
	m->entry_size = ALIGN(sizeof(struct stp_map_entry) + off, 8);
	while (nb < d->max_entries && nb < (1U << 30))
		nb <<= 1;
	m->hmask = nb - 1;
	m->table = stp_kvcalloc(nb, sizeof(*m->table));	/* zeroed: empty buckets */
	if (!m->table)
		goto err_free_map;
	m->pool = stp_kvcalloc(d->max_entries, m->entry_size);
	if (!m->pool)
		goto err_free_table;
	INIT_LIST_HEAD(&m->entries);
	INIT_LIST_HEAD(&m->by_age);
	INIT_LIST_HEAD(&m->free);
	for (i = 0; i < d->max_entries; i++) {
		e = (struct stp_map_entry *)(m->pool + m->entry_size * i);
		e->map = m;
		list_add_tail(&e->list, &m->free);
	}
	return m;

err_free_table:
	kvfree(m->table);
err_free_map:
	kvfree(m);
	return NULL;
}

/**
 * stp_keys_match() - Whether an entry's keys equal some of the given ones.
 * @d: the entry's map's description
 * @e: the entry
 * @keys: @d->nkeys keys; those not in @mask are not looked at
 * @mask: bit i set: key i is compared (a[*, 1] gives 0x2)
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: true when every key in @mask matches.
 */
static bool stp_keys_match(const struct stp_map_desc *d, const struct stp_map_entry *e,
			   const union stp_key *keys, unsigned int mask)
{
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (d->key_types[i] == STP_TYPE_STRING) {
			if (strncmp(stp_entry_key_string(e, i), stp_key_str(&keys[i]),
				    MAXSTRINGLEN - 1))
				return false;
		} else if (stp_entry_key_long(e, i) != keys[i].l) {
			return false;
		}
	}
	return true;
}

#define STP_KEYS_ALL (~0u)

static struct stp_map_entry *stp_map_lookup(struct stp_map *m, const union stp_key *keys,
					    u32 hash)
{
	struct stp_map_entry *e;

	/* a chain never holds more than the map's entries */
	hlist_for_each_entry(e, &m->table[hash & m->hmask], hash_node)
		if (e->hash == hash && stp_keys_match(m->desc, e, keys, STP_KEYS_ALL))
			return e;
	return NULL;
}

/**
 * stp_map_find() - Find the entry of a key tuple.
 * @m: the map
 * @keys: its desc->nkeys keys
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: the entry, or NULL when the map has no such key.
 */
static struct stp_map_entry *stp_map_find(struct stp_map *m, const union stp_key *keys)
{
	return stp_map_lookup(m, keys, stp_map_hash(m->desc, keys));
}

/* Takes E off the hash table and both lists, back to the free list. */
static void stp_map_unlink(struct stp_map *m, struct stp_map_entry *e)
{
	hlist_del(&e->hash_node);
	list_del(&e->age);
	list_move(&e->list, &m->free);
	m->size--;
}

/**
 * stp_map_insert() - Find the entry of a key tuple, or add one.
 * @m: the map
 * @keys: its desc->nkeys keys (strings are copied, MAXSTRINGLEN - 1 bytes at most)
 *
 * A new entry goes last in the iteration order, with its value zeroed.  When the map is
 * full, a wrapping one (a%[N]) first gives up its oldest entry; others refuse.
 *
 * Context: Any context; the caller holds the global's lock for writing.
 * Return: the entry, or NULL when the map is full and does not wrap.
 */
static struct stp_map_entry *stp_map_insert(struct stp_map *m, const union stp_key *keys)
{
	const struct stp_map_desc *d = m->desc;
	u32 hash = stp_map_hash(d, keys);
	struct stp_map_entry *e = stp_map_lookup(m, keys, hash);
	char *p;
	size_t n;
	int i;

	if (e)
		return e;
	if (list_empty(&m->free)) {
		if (!d->wrap)
			return NULL;
		stp_map_unlink(m, list_first_entry(&m->by_age, struct stp_map_entry, age));
	}
	e = list_first_entry(&m->free, struct stp_map_entry, list);
	p = stp_entry_data(e);
	for (i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == STP_TYPE_STRING) {
			/* memmove: a key may come from the very entry evicted to make room */
			n = strnlen(stp_key_str(&keys[i]), MAXSTRINGLEN - 1);
			memmove(p + m->key_off[i], stp_key_str(&keys[i]), n);
			memset(p + m->key_off[i] + n, 0, MAXSTRINGLEN - n);
		} else {
			*(s64 *)(p + m->key_off[i]) = keys[i].l;
		}
	}
	memset(p + m->value_off, 0, m->entry_size - sizeof(*e) - m->value_off);
	e->hash = hash;
	hlist_add_head(&e->hash_node, &m->table[hash & m->hmask]);
	list_move_tail(&e->list, &m->entries);
	list_add_tail(&e->age, &m->by_age);
	m->size++;
	return e;
}

/**
 * stp_map_delete() - Delete the entry of a key tuple, if there is one.
 * @m: the map
 * @keys: its desc->nkeys keys
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_map_delete(struct stp_map *m, const union stp_key *keys)
{
	struct stp_map_entry *e = stp_map_find(m, keys);

	if (e)
		stp_map_unlink(m, e);
}

/**
 * stp_map_clear() - Delete every entry.
 * @m: the map
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_map_clear(struct stp_map *m)
{
	struct stp_map_entry *e;

	list_for_each_entry(e, &m->entries, list)
		hlist_del(&e->hash_node);
	list_splice_init(&m->entries, &m->free);
	INIT_LIST_HEAD(&m->by_age);
	m->size = 0;
}

/**
 * stp_map_size() - The number of entries.
 * @m: the map
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: how many entries @m holds.
 */
static u32 stp_map_size(const struct stp_map *m)
{
	return m->size;
}

static int stp_cmp_s64(s64 a, s64 b)
{
	return a < b ? -1 : a > b;
}

static int stp_map_compare(const struct stp_map *m, const struct stp_map_entry *a,
			   const struct stp_map_entry *b, int by, enum stp_aggregate agg)
{
	const struct stp_map_desc *d = m->desc;
	u32 off = by ? m->key_off[by - 1] : m->value_off;
	u8 type = by ? d->key_types[by - 1] : d->value_type;
	const char *pa = stp_entry_data(a) + off, *pb = stp_entry_data(b) + off;
	int r;

	switch (type) {
	case STP_TYPE_STRING:
		r = strncmp(pa, pb, MAXSTRINGLEN);
		return r < 0 ? -1 : r > 0;
	case STP_TYPE_STATS:
		return stp_cmp_s64(stp_stat_get(NULL, (const struct stp_stat *)pa, d->stat, agg),
				   stp_stat_get(NULL, (const struct stp_stat *)pb, d->stat, agg));
	default:
		return stp_cmp_s64(*(const s64 *)pa, *(const s64 *)pb);
	}
}

/* What stp_map_sort() sorts by, for its list_sort() comparison. */
struct stp_map_order {
	const struct stp_map *map;
	int by;
	int direction;
	enum stp_aggregate agg;
};

/* > 0 when A goes after B; list_sort() keeps the order of A and B otherwise. */
static int stp_map_order_cmp(void *priv, const struct list_head *a, const struct list_head *b)
{
	const struct stp_map_order *o = priv;

	return o->direction * stp_map_compare(o->map, list_entry(a, struct stp_map_entry, list),
					      list_entry(b, struct stp_map_entry, list), o->by,
					      o->agg);
}

/*
 * The first @n entries in order, the rest left almost as they were: what stap 4.8 does
 * for a foreach with a limit of 30 or less, whose order the next foreach sees.  Bubble
 * passes order the first n entries; then each later entry that the n-th would go after
 * takes its place among the first n (after the last one it does not beat), and the
 * n-th entry moves out to just behind them.  Ties never move.
 */
static void stp_map_sort_top(struct stp_map *m, u32 n, struct stp_map_order *o)
{
	struct list_head *head = &m->entries, *p, *q, *c, *next;
	bool swapped;
	u32 i;

	do {
		swapped = false;
		p = head->next;
		for (i = 1; i < n && p->next != head; i++) {
			q = p->next;
			if (stp_map_order_cmp(o, p, q) > 0) {
				list_move(p, q);	/* p goes on behind q */
				swapped = true;
			} else {
				p = q;
			}
		}
	} while (swapped);
	/* p: the n-th entry (or the last) */
	for (q = p->next; q != head; q = next) {
		next = q->next;
		for (c = p; c != head && stp_map_order_cmp(o, c, q) > 0; c = c->prev)
			;
		if (c != p) {
			list_move(q, c);
			p = p->prev;
		}
	}
}

/**
 * stp_map_sort() - Reorder the iteration order.
 * @m: the map
 * @by: 0 to sort by value (of statistics: by @agg), 1..nkeys by that key
 * @direction: +1 ascending, -1 descending
 * @agg: the aggregate of statistics values that @by 0 sorts by
 * @top: a foreach's limit: 1 to 30 orders only that many first entries (stap's way,
 *       which leaves the others in an order later foreach loops see); else all
 *
 * The whole sort is stable: entries that compare equal keep their present order, so
 * sorting by key and then by value orders equal values by key.  Insertion age does not
 * change.
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_map_sort(struct stp_map *m, int by, int direction, enum stp_aggregate agg,
			 s64 top)
{
	struct stp_map_order order = { .map = m, .by = by, .direction = direction, .agg = agg };

	if (m->size < 2 || by < 0 || by > m->desc->nkeys)
		return;
	if (top > 0 && top <= STP_SORT_TOP_MAX)
		stp_map_sort_top(m, top, &order);
	else
		stp_list_sort(&order, &m->entries, stp_map_order_cmp);
}

/**
 * stp_map_first() - The first entry in iteration order.
 * @m: the map
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: the entry, or NULL when @m is empty.
 */
static struct stp_map_entry *stp_map_first(struct stp_map *m)
{
	return list_first_entry_or_null(&m->entries, struct stp_map_entry, list);
}

/**
 * stp_map_next() - The entry after @e in iteration order.
 * @m: the map
 * @e: an entry of @m, or NULL
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: the entry, or NULL after the last one (or when @e is not @m's).
 */
static struct stp_map_entry *stp_map_next(struct stp_map *m, struct stp_map_entry *e)
{
	if (!e || e->map != m || list_is_last(&e->list, &m->entries))
		return NULL;
	return list_next_entry(e, list);
}

/**
 * stp_entry_key_long() - A long key of an entry.
 * @e: the entry
 * @i: which key, from 0 (stp_map_sort()'s @by counts them from 1)
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: the key.
 */
static s64 stp_entry_key_long(const struct stp_map_entry *e, int i)
{
	return *(const s64 *)(stp_entry_data(e) + e->map->key_off[i]);
}

/**
 * stp_entry_key_string() - A string key of an entry.
 * @e: the entry
 * @i: which key, from 0
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: the key, inside the entry: valid until the entry is deleted.
 */
static const char *stp_entry_key_string(const struct stp_map_entry *e, int i)
{
	return stp_entry_data(e) + e->map->key_off[i];
}

/**
 * stp_entry_long() - The value of an entry of a map of longs.
 * @e: the entry
 *
 * Context: Any context; the caller holds the global's lock for reading, or for writing
 * to change the value.
 * Return: where the value is.
 */
static s64 *stp_entry_long(struct stp_map_entry *e)
{
	return (s64 *)(stp_entry_data(e) + e->map->value_off);
}

/**
 * stp_entry_string() - The value of an entry of a map of strings.
 * @e: the entry
 *
 * Context: As stp_entry_long().
 * Return: where the value is: MAXSTRINGLEN bytes.
 */
static char *stp_entry_string(struct stp_map_entry *e)
{
	return stp_entry_data(e) + e->map->value_off;
}

/**
 * stp_entry_stat() - The value of an entry of a map of statistics.
 * @e: the entry
 *
 * Context: As stp_entry_long().
 * Return: where the statistic is.
 */
static struct stp_stat *stp_entry_stat(struct stp_map_entry *e)
{
	return (struct stp_stat *)(stp_entry_data(e) + e->map->value_off);
}

/* The keys of E as stp_map_find() takes them (strings point into E). */
static void stp_entry_keys(const struct stp_map_entry *e, union stp_key *keys)
{
	const struct stp_map_desc *d = e->map->desc;
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == STP_TYPE_STRING)
			keys[i].s = stp_entry_key_string(e, i);
		else
			keys[i].l = stp_entry_key_long(e, i);
	}
}

/* ---- arrays of statistics ---- */

/**
 * stp_pmap_free() - Free an array of statistics.
 * @p: the array, or NULL
 *
 * Context: Process context, at unload (no handler runs); no lock.
 */
static void stp_pmap_free(struct stp_pmap *p)
{
	unsigned int cpu;

	if (!p)
		return;
	for_each_possible_cpu(cpu)
		stp_map_free(p->cpu[cpu]);
	stp_map_free(p->agg);
	kvfree(p->scratch);
	kvfree(p);
}

/**
 * stp_pmap_alloc() - Allocate an array of statistics: a map per possible CPU.
 * @d: what pass 3 says of the array (value_type STP_TYPE_STATS); must outlive it
 *
 * Context: Process context, at load (no handler runs); may sleep.  No lock.
 * Return: the empty array, or NULL when @d is invalid or memory is short.
 */
static struct stp_pmap *stp_pmap_alloc(const struct stp_map_desc *d)
{
	struct stp_pmap *p;
	unsigned int cpu;

	if (!d || d->value_type != STP_TYPE_STATS || !d->stat)
		return NULL;
	p = stp_kvzalloc(struct_size(p, cpu, nr_cpu_ids));
	if (!p)
		return NULL;
	p->desc = d;
	p->agg = stp_map_alloc(d);
	p->scratch = stp_kvzalloc(stp_stat_size(d->stat));
	if (!p->agg || !p->scratch)
		goto err_free_pmap;
	for_each_possible_cpu(cpu) {
		p->cpu[cpu] = stp_map_alloc(d);
		if (!p->cpu[cpu])
			goto err_free_pmap;
	}
	return p;

err_free_pmap:
	stp_pmap_free(p);	/* takes the maps allocated so far, NULL for the others */
	return NULL;
}

/**
 * stp_pmap_add() - a[keys] <<< value: add to this CPU's statistic of the key tuple.
 * @p: the array
 * @keys: its desc->nkeys keys
 * @value: the value added
 *
 * Context: A handler (preemption off), the only one on this CPU; the caller holds the
 * global's lock for reading at least.
 * Return: 0, or -ENOSPC when this CPU's map is full (and does not wrap).
 */
static int stp_pmap_add(struct stp_pmap *p, const union stp_key *keys, s64 value)
{
	struct stp_map_entry *e = stp_map_insert(p->cpu[smp_processor_id()], keys);

	if (!e)
		return -ENOSPC;
	stp_stat_add(stp_entry_stat(e), p->desc->stat, value);
	return 0;
}

/**
 * stp_pmap_aggregate() - Merge every CPU's statistics into the pmap's aggregate map.
 * @p: the array
 *
 * Keys appear in the order CPU 0 first had them, then the keys only later CPUs have.  The
 * aggregate holds max_entries keys like each CPU's map: keys beyond that (possible only
 * when CPUs saw different keys) are left out, and stp_pmap_overflowed() says so, or push
 * the oldest out of a wrapping array.
 *
 * Context: Any context; the caller holds the global's lock for writing.
 * Return: the aggregate map, valid until the next call (or stp_pmap_free()).
 */
static struct stp_map *stp_pmap_aggregate(struct stp_pmap *p)
{
	union stp_key keys[STP_MAX_KEYS];
	struct stp_map_entry *e, *a;
	unsigned int cpu;

	stp_map_clear(p->agg);
	p->agg_overflow = false;
	for_each_possible_cpu(cpu) {
		list_for_each_entry(e, &p->cpu[cpu]->entries, list) {
			stp_entry_keys(e, keys);
			a = stp_map_insert(p->agg, keys);
			if (a)
				stp_stat_merge_entry(stp_entry_stat(a), stp_entry_stat(e),
						     p->desc->stat);
			else
				p->agg_overflow = true;
		}
	}
	return p->agg;
}

/* Whether the last stp_pmap_aggregate() had more keys than the aggregate holds. */
static bool stp_pmap_overflowed(const struct stp_pmap *p)
{
	return p->agg_overflow;
}

/**
 * stp_pmap_lookup() - One key tuple's statistics merged over the CPUs.
 * @p: the array
 * @keys: its desc->nkeys keys
 *
 * Context: Any context; the caller holds the global's lock for writing.
 * Return: the merged statistic, valid until the next call; NULL when no CPU has the key.
 */
static const struct stp_stat *stp_pmap_lookup(struct stp_pmap *p, const union stp_key *keys)
{
	struct stp_map_entry *e;
	unsigned int cpu;
	bool found = false;

	stp_stat_clear(p->scratch, p->desc->stat);
	for_each_possible_cpu(cpu) {
		e = stp_map_find(p->cpu[cpu], keys);
		if (e) {
			stp_stat_merge_entry(p->scratch, stp_entry_stat(e), p->desc->stat);
			found = true;
		}
	}
	return found ? p->scratch : NULL;
}

/**
 * stp_pmap_delete() - Delete a key tuple from every CPU's map and the aggregate.
 * @p: the array
 * @keys: its desc->nkeys keys
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_pmap_delete(struct stp_pmap *p, const union stp_key *keys)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_map_delete(p->cpu[cpu], keys);
	stp_map_delete(p->agg, keys);
}

/**
 * stp_pmap_clear() - Delete every key from every CPU's map and the aggregate.
 * @p: the array
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_pmap_clear(struct stp_pmap *p)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_map_clear(p->cpu[cpu]);
	stp_map_clear(p->agg);
}

/* ---- keys with wildcards: a[*, 1] in delete, in and foreach ---- */

/**
 * stp_map_exists_matching() - [*, 1] in a: whether an entry matches.
 * @m: the map (of an array of statistics: its aggregate)
 * @d: @m's description
 * @keys: @d->nkeys keys; those not in @mask are not looked at
 * @mask: bit i set: key i is given
 *
 * Context: Any context; the caller holds the global's lock for reading.
 * Return: true when an entry's keys match.
 */
static bool stp_map_exists_matching(struct stp_map *m, const struct stp_map_desc *d,
				    const union stp_key *keys, unsigned int mask)
{
	struct stp_map_entry *e;

	list_for_each_entry(e, &m->entries, list)
		if (stp_keys_match(d, e, keys, mask))
			return true;
	return false;
}

/**
 * stp_delete_matching() - delete a[*, 1]: delete the entries that match.
 * @m: the map (of an array of statistics: @p's aggregate)
 * @p: for an array of statistics, the array (each entry goes from every CPU too); or NULL
 * @d: @m's description
 * @keys: @d->nkeys keys; those not in @mask are not looked at
 * @mask: bit i set: key i is given
 *
 * Context: Any context; the caller holds the global's lock for writing.
 */
static void stp_delete_matching(struct stp_map *m, struct stp_pmap *p,
				const struct stp_map_desc *d, const union stp_key *keys,
				unsigned int mask)
{
	union stp_key found[STP_MAX_KEYS];
	struct stp_map_entry *e, *next;

	list_for_each_entry_safe(e, next, &m->entries, list) {
		if (!stp_keys_match(d, e, keys, mask))
			continue;
		stp_entry_keys(e, found);
		if (p)
			stp_pmap_delete(p, found);	/* the aggregate's entry last */
		else
			stp_map_delete(m, found);
	}
}
