/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memory.c - (placeholder definitions; being written) */
static int stp_copy_kernel_nofault(void *dst, unsigned long addr, size_t len) { return -EFAULT; }
static int stp_read_kernel(struct context *c, void *dst, unsigned long addr, size_t len) { return -EFAULT; }
static int stp_read_user(struct context *c, void *dst, unsigned long addr, size_t len) { return -EFAULT; }
