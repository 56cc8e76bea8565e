/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list_sort() compares const list_heads (5.13); before, mutable ones. */
#include <linux/list_sort.h>

static int stp_autoconf_cmp(void *priv, const struct list_head *a, const struct list_head *b)
{
	return 0;
}

void stp_autoconf_probe(struct list_head *head);
void stp_autoconf_probe(struct list_head *head)
{
	list_sort(NULL, head, stp_autoconf_cmp);
}
