/* SPDX-License-Identifier: GPL-2.0-or-later */
/* task_work_cancel(task, callback_head) -> bool (6.11, 6.1.y); it took the function before. */
#include <linux/task_work.h>

_Static_assert(__builtin_types_compatible_p(typeof(&task_work_cancel),
	bool (*)(struct task_struct *, struct callback_head *)),
	"task_work_cancel() takes a function");
