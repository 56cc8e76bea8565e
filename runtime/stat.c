/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stat.c - (placeholder definitions; being written) */
struct stp_stat { s64 count; };
struct stp_pstat { int unused; };
static void stp_stat_desc_init(struct stp_stat_desc *d) { }
static size_t stp_stat_size(const struct stp_stat_desc *d) { return sizeof(struct stp_stat); }
static void stp_stat_clear(struct stp_stat *st, const struct stp_stat_desc *d) { }
static void stp_stat_add(struct stp_stat *st, const struct stp_stat_desc *d, s64 value) { }
static void stp_stat_merge(struct stp_stat *into, const struct stp_stat *from, const struct stp_stat_desc *d) { }
static s64 stp_stat_count(const struct stp_stat *st) { return 0; }
static s64 stp_stat_get(struct context *c, const struct stp_stat *st, const struct stp_stat_desc *d, enum stp_aggregate what) { return 0; }
static void stp_stat_print_hist(const struct stp_stat *st, const struct stp_stat_desc *d) { }
static s64 stp_stat_bucket(const struct stp_stat *st, const struct stp_stat_desc *d, s64 index) { return 0; }
static struct stp_pstat *stp_pstat_alloc(const struct stp_stat_desc *d) { return NULL; }
static void stp_pstat_free(struct stp_pstat *p) { }
static void stp_pstat_add(struct stp_pstat *p, s64 value) { }
static const struct stp_stat *stp_pstat_aggregate(struct stp_pstat *p) { return NULL; }
static void stp_pstat_clear(struct stp_pstat *p) { }
