// SPDX-License-Identifier: GPL-2.0
/*
 * floor_probes.c - the kernel's own cost of a probe, for bench/probe-overhead.sh: a kprobe
 * (kret=0) or a kretprobe (kret=1) on __x64_sys_getppid whose handler only counts, with
 * no SystemTap runtime around it.  What a module built by stap adds is measured against
 * this.  The count is the module parameter hits (/sys/module/floor_probes/parameters/hits).
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static int kret;
module_param(kret, int, 0444);
static atomic_long_t hit_count = ATOMIC_LONG_INIT(0);

static int hits_get(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%ld\n", atomic_long_read(&hit_count));
}
static const struct kernel_param_ops hits_ops = { .get = hits_get };
module_param_cb(hits, &hits_ops, NULL, 0444);

static int count_entry(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_long_inc(&hit_count);
	return 0;
}

static int count_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&hit_count);
	return 0;
}

static struct kprobe entry = { .symbol_name = "__x64_sys_getppid", .pre_handler = count_entry };
static struct kretprobe ret = {
	.kp.symbol_name = "__x64_sys_getppid",
	.handler = count_return,
};

static int __init floor_init(void)
{
	return kret ? register_kretprobe(&ret) : register_kprobe(&entry);
}

static void __exit floor_exit(void)
{
	if (kret)
		unregister_kretprobe(&ret);
	else
		unregister_kprobe(&entry);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("the kernel's own cost of a counting kprobe or kretprobe");
