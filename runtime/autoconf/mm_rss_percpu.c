/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mm_struct's rss_stat[]: one percpu_counter per MM_* counter (6.2; a struct of
 * atomic_long_t count[] before). */
#include <linux/mm_types.h>
#include <linux/percpu_counter.h>

struct percpu_counter *stp_autoconf_probe(struct mm_struct *mm);
struct percpu_counter *stp_autoconf_probe(struct mm_struct *mm)
{
	return &mm->rss_stat[MM_FILEPAGES];
}
