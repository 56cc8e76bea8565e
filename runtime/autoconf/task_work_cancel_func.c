/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task_work_cancel_func(): cancel by function, the old task_work_cancel() (6.11, 6.1.y). */
#include <linux/task_work.h>

struct callback_head *stp_autoconf_probe(struct task_struct *t, task_work_func_t fn);
struct callback_head *stp_autoconf_probe(struct task_struct *t, task_work_func_t fn)
{
	return task_work_cancel_func(t, fn);
}
