/* SPDX-License-Identifier: GPL-2.0-or-later */
/* map.c - (placeholder definitions; being written) */
static struct stp_map *stp_map_alloc(const struct stp_map_desc *d) { return NULL; }
static void stp_map_free(struct stp_map *m) { }
static struct stp_map_entry *stp_map_find(struct stp_map *m, const union stp_key *keys) { return NULL; }
static struct stp_map_entry *stp_map_insert(struct stp_map *m, const union stp_key *keys) { return NULL; }
static void stp_map_delete(struct stp_map *m, const union stp_key *keys) { }
static void stp_map_clear(struct stp_map *m) { }
static u32 stp_map_size(const struct stp_map *m) { return 0; }
static void stp_map_sort(struct stp_map *m, int by, int direction, enum stp_aggregate agg) { }
static struct stp_map_entry *stp_map_first(struct stp_map *m) { return NULL; }
static struct stp_map_entry *stp_map_next(struct stp_map *m, struct stp_map_entry *e) { return NULL; }
static s64 stp_entry_key_long(const struct stp_map_entry *e, int i) { return 0; }
static const char *stp_entry_key_string(const struct stp_map_entry *e, int i) { return ""; }
static s64 *stp_entry_long(struct stp_map_entry *e) { return NULL; }
static char *stp_entry_string(struct stp_map_entry *e) { return NULL; }
static struct stp_stat *stp_entry_stat(struct stp_map_entry *e) { return NULL; }
static struct stp_pmap *stp_pmap_alloc(const struct stp_map_desc *d) { return NULL; }
static void stp_pmap_free(struct stp_pmap *p) { }
static int stp_pmap_add(struct stp_pmap *p, const union stp_key *keys, s64 value) { return 0; }
static struct stp_map *stp_pmap_aggregate(struct stp_pmap *p) { return NULL; }
static const struct stp_stat *stp_pmap_lookup(struct stp_pmap *p, const union stp_key *keys) { return NULL; }
static void stp_pmap_delete(struct stp_pmap *p, const union stp_key *keys) { }
static void stp_pmap_clear(struct stp_pmap *p) { }
