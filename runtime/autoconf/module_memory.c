/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct module's mem[] (6.4): a module's memory by kind (MOD_TEXT, MOD_DATA, ...), which
 * core_layout (size, text_size) and init_layout held before. */
#include <linux/module.h>

unsigned int stp_autoconf_probe(const struct module *m);
unsigned int stp_autoconf_probe(const struct module *m)
{
	return m->mem[MOD_TEXT].size + m->mem[MOD_RO_AFTER_INIT].size;
}
