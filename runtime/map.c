/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.c - associative arrays, and per-CPU arrays of statistics.
 *
 * All of a map's entries are allocated at load in one block and kept on a free list; a
 * hash table (power-of-two buckets, at least as many as entries) finds them by key.  Used
 * entries are on two lists: the iteration order, which stp_map_sort() rearranges, and
 * the insertion age, which picks the entry a wrapping array (a%[N]) gives up when full.
 * Nothing here allocates, sleeps or loops more than the map's size after load.
 *
 * An entry's data holds its keys then its value, each 8-byte aligned: a long key or value
 * takes 8 bytes, a string MAXSTRINGLEN, a statistic stp_stat_size(desc->stat).
 */

struct stp_map_entry {
	struct stp_map_entry *hnext;		/* hash chain, or the free list */
	struct stp_map_entry *prev, *next;	/* iteration order */
	struct stp_map_entry *older, *newer;	/* insertion age */
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
	struct stp_map_entry **table;
	struct stp_map_entry *free;
	struct stp_map_entry *head, *tail;	/* iteration order */
	struct stp_map_entry *oldest, *newest;
	char *pool;
};

struct stp_pmap {
	const struct stp_map_desc *desc;
	struct stp_map *agg;			/* every CPU merged, for readers */
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
	return (char *)e->data;
}

/* A script string as a key: at most MAXSTRINGLEN - 1 characters count. */
static inline const char *stp_key_str(const union stp_key *k)
{
	return k->s ? k->s : "";
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

static bool stp_entry_matches(const struct stp_map *m, const struct stp_map_entry *e,
			      const union stp_key *keys)
{
	const struct stp_map_desc *d = m->desc;
	const char *p = stp_entry_data(e);
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == STP_TYPE_STRING) {
			if (strncmp(p + m->key_off[i], stp_key_str(&keys[i]), MAXSTRINGLEN - 1))
				return false;
		} else if (*(const s64 *)(p + m->key_off[i]) != keys[i].l) {
			return false;
		}
	}
	return true;
}

static void stp_map_free(struct stp_map *m)
{
	if (!m)
		return;
	kvfree(m->table);
	kvfree(m->pool);
	kvfree(m);
}

static struct stp_map *stp_map_alloc(const struct stp_map_desc *d)
{
	struct stp_map *m;
	size_t off = 0, esize;
	u32 nb = 1, i;

	if (!d || d->nkeys < 1 || d->nkeys > STP_MAX_KEYS || d->max_entries < 1 ||
	    (d->value_type == STP_TYPE_STATS && !d->stat))
		return NULL;
	m = kvzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->desc = d;
	for (i = 0; i < (u32)d->nkeys; i++) {
		m->key_off[i] = off;
		off += stp_map_slot_size(d->key_types[i], d);
	}
	m->value_off = off;
	off += stp_map_slot_size(d->value_type, d);
	esize = ALIGN(sizeof(struct stp_map_entry) + off, 8);
	m->entry_size = esize;
	while (nb < d->max_entries && nb < (1U << 30))
		nb <<= 1;
	m->hmask = nb - 1;
	m->table = kvzalloc(sizeof(*m->table) * (size_t)nb, GFP_KERNEL);
	if (esize <= SIZE_MAX / d->max_entries)
		m->pool = kvzalloc(esize * d->max_entries, GFP_KERNEL);
	if (!m->table || !m->pool) {
		stp_map_free(m);
		return NULL;
	}
	for (i = d->max_entries; i-- > 0;) {
		struct stp_map_entry *e = (struct stp_map_entry *)(m->pool + esize * i);

		e->map = m;
		e->hnext = m->free;
		m->free = e;
	}
	return m;
}

/* The entry with KEYS, and the link that points to it in its hash chain. */
static struct stp_map_entry *stp_map_lookup(struct stp_map *m, const union stp_key *keys,
					    u32 hash, struct stp_map_entry ***linkp)
{
	struct stp_map_entry **link = &m->table[hash & m->hmask];
	struct stp_map_entry *e;

	/* a chain never holds more than the map's entries */
	for (e = *link; e; link = &e->hnext, e = e->hnext) {
		if (e->hash == hash && stp_entry_matches(m, e, keys)) {
			if (linkp)
				*linkp = link;
			return e;
		}
	}
	return NULL;
}

static struct stp_map_entry *stp_map_find(struct stp_map *m, const union stp_key *keys)
{
	return stp_map_lookup(m, keys, stp_map_hash(m->desc, keys), NULL);
}

/* Takes E off the hash table and both lists, back to the free list. */
static void stp_map_unlink(struct stp_map *m, struct stp_map_entry *e,
			   struct stp_map_entry **link)
{
	*link = e->hnext;
	if (e->prev)
		e->prev->next = e->next;
	else
		m->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		m->tail = e->prev;
	if (e->older)
		e->older->newer = e->newer;
	else
		m->oldest = e->newer;
	if (e->newer)
		e->newer->older = e->older;
	else
		m->newest = e->older;
	e->hnext = m->free;
	m->free = e;
	m->size--;
}

static void stp_map_evict_oldest(struct stp_map *m)
{
	struct stp_map_entry *e = m->oldest;
	struct stp_map_entry **link = &m->table[e->hash & m->hmask];

	while (*link != e)
		link = &(*link)->hnext;
	stp_map_unlink(m, e, link);
}

static struct stp_map_entry *stp_map_insert(struct stp_map *m, const union stp_key *keys)
{
	const struct stp_map_desc *d = m->desc;
	u32 hash = stp_map_hash(d, keys);
	struct stp_map_entry *e = stp_map_lookup(m, keys, hash, NULL);
	char *p;
	size_t n;
	int i;

	if (e)
		return e;
	if (!m->free) {
		if (!d->wrap || !m->oldest)
			return NULL;
		stp_map_evict_oldest(m);
	}
	e = m->free;
	m->free = e->hnext;
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
	e->hnext = m->table[hash & m->hmask];
	m->table[hash & m->hmask] = e;
	e->next = NULL;
	e->prev = m->tail;
	if (m->tail)
		m->tail->next = e;
	else
		m->head = e;
	m->tail = e;
	e->newer = NULL;
	e->older = m->newest;
	if (m->newest)
		m->newest->newer = e;
	else
		m->oldest = e;
	m->newest = e;
	m->size++;
	return e;
}

static void stp_map_delete(struct stp_map *m, const union stp_key *keys)
{
	struct stp_map_entry **link;
	struct stp_map_entry *e = stp_map_lookup(m, keys, stp_map_hash(m->desc, keys), &link);

	if (e)
		stp_map_unlink(m, e, link);
}

static void stp_map_clear(struct stp_map *m)
{
	struct stp_map_entry *e, *next;

	for (e = m->head; e; e = next) {
		next = e->next;
		m->table[e->hash & m->hmask] = NULL;
		e->hnext = m->free;
		m->free = e;
	}
	m->head = m->tail = m->oldest = m->newest = NULL;
	m->size = 0;
}

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

/*
 * A bottom-up merge sort of the iteration list: runs of 1, 2, 4, ... merged pairwise,
 * taking from the left run on ties so equal entries keep their order.
 */
static void stp_map_sort(struct stp_map *m, int by, int direction, enum stp_aggregate agg)
{
	struct stp_map_entry *list = m->head, *p, *q, *e, *tail, *prev;
	u32 width, psize, qsize, merges;

	if (m->size < 2 || by < 0 || by > m->desc->nkeys)
		return;
	for (width = 1;; width *= 2) {
		p = list;
		list = NULL;
		tail = NULL;
		merges = 0;
		while (p) {
			merges++;
			q = p;
			for (psize = 0; psize < width && q; psize++)
				q = q->next;
			qsize = width;
			while (psize > 0 || (qsize > 0 && q)) {
				if (psize == 0) {
					e = q;
					q = q->next;
					qsize--;
				} else if (qsize == 0 || !q ||
					   direction * stp_map_compare(m, p, q, by, agg) <= 0) {
					e = p;
					p = p->next;
					psize--;
				} else {
					e = q;
					q = q->next;
					qsize--;
				}
				if (tail)
					tail->next = e;
				else
					list = e;
				tail = e;
			}
			p = q;
		}
		tail->next = NULL;
		if (merges <= 1)
			break;
	}
	m->head = list;
	for (prev = NULL, e = list; e; prev = e, e = e->next)
		e->prev = prev;
	m->tail = prev;
}

static struct stp_map_entry *stp_map_first(struct stp_map *m)
{
	return m->head;
}

static struct stp_map_entry *stp_map_next(struct stp_map *m, struct stp_map_entry *e)
{
	return e && e->map == m ? e->next : NULL;
}

/* Keys are numbered from 0 here (stp_map_sort's BY counts them from 1). */
static s64 stp_entry_key_long(const struct stp_map_entry *e, int i)
{
	return *(const s64 *)(stp_entry_data(e) + e->map->key_off[i]);
}

static const char *stp_entry_key_string(const struct stp_map_entry *e, int i)
{
	return stp_entry_data(e) + e->map->key_off[i];
}

static s64 *stp_entry_long(struct stp_map_entry *e)
{
	return (s64 *)(stp_entry_data(e) + e->map->value_off);
}

static char *stp_entry_string(struct stp_map_entry *e)
{
	return stp_entry_data(e) + e->map->value_off;
}

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

/* Arrays of statistics. */

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

static struct stp_pmap *stp_pmap_alloc(const struct stp_map_desc *d)
{
	struct stp_pmap *p;
	unsigned int cpu;

	if (!d || d->value_type != STP_TYPE_STATS || !d->stat)
		return NULL;
	p = kvzalloc(sizeof(*p) + sizeof(p->cpu[0]) * nr_cpu_ids, GFP_KERNEL);
	if (!p)
		return NULL;
	p->desc = d;
	p->agg = stp_map_alloc(d);
	p->scratch = kvzalloc(stp_stat_size(d->stat), GFP_KERNEL);
	if (!p->agg || !p->scratch)
		goto fail;
	for_each_possible_cpu(cpu) {
		p->cpu[cpu] = stp_map_alloc(d);
		if (!p->cpu[cpu])
			goto fail;
	}
	return p;
fail:
	stp_pmap_free(p);
	return NULL;
}

static int stp_pmap_add(struct stp_pmap *p, const union stp_key *keys, s64 value)
{
	struct stp_map_entry *e = stp_map_insert(p->cpu[smp_processor_id()], keys);

	if (!e)
		return -ENOSPC;
	stp_stat_add(stp_entry_stat(e), p->desc->stat, value);
	return 0;
}

/*
 * Keys appear in the order CPU 0 first had them, then the keys only later CPUs have.  An
 * aggregate holds max_entries keys like each CPU's map: keys beyond that (possible only
 * when CPUs saw different keys) are left out, or push the oldest out of a wrapping array.
 */
static struct stp_map *stp_pmap_aggregate(struct stp_pmap *p)
{
	union stp_key keys[STP_MAX_KEYS];
	struct stp_map_entry *e, *a;
	unsigned int cpu;

	stp_map_clear(p->agg);
	for_each_possible_cpu(cpu) {
		for (e = p->cpu[cpu]->head; e; e = e->next) {
			stp_entry_keys(e, keys);
			a = stp_map_insert(p->agg, keys);
			if (a)
				stp_stat_merge(stp_entry_stat(a), stp_entry_stat(e), p->desc->stat);
		}
	}
	return p->agg;
}

static const struct stp_stat *stp_pmap_lookup(struct stp_pmap *p, const union stp_key *keys)
{
	struct stp_map_entry *e;
	unsigned int cpu;
	bool found = false;

	stp_stat_clear(p->scratch, p->desc->stat);
	for_each_possible_cpu(cpu) {
		e = stp_map_find(p->cpu[cpu], keys);
		if (e) {
			stp_stat_merge(p->scratch, stp_entry_stat(e), p->desc->stat);
			found = true;
		}
	}
	return found ? p->scratch : NULL;
}

static void stp_pmap_delete(struct stp_pmap *p, const union stp_key *keys)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_map_delete(p->cpu[cpu], keys);
	stp_map_delete(p->agg, keys);
}

static void stp_pmap_clear(struct stp_pmap *p)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_map_clear(p->cpu[cpu]);
	stp_map_clear(p->agg);
}
