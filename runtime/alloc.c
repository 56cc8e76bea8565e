/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alloc.c - the runtime's memory made at load (contexts, maps, statistics, timing), made
 * through these helpers so module_size() can say how much there is: the bytes asked for,
 * and the bytes the allocator gave (a kmalloc size class or whole vmalloc pages).
 */

static atomic_long_t stp_mem_asked;	/* every block's size as asked for */
static atomic_long_t stp_mem_given;	/* what the allocator set aside for them */
static atomic_long_t stp_mem_contexts;	/* the probe contexts' share of stp_mem_asked */

static void stp_mem_count(const void *p, size_t size)
{
	size_t given = is_vmalloc_addr(p) ? PAGE_ALIGN(size) : kmalloc_size_roundup(size);

	atomic_long_add(size, &stp_mem_asked);
	atomic_long_add(given, &stp_mem_given);
}

/* kvzalloc(), counted.  Context: process context; may sleep. */
static void *stp_kvzalloc(size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL);

	if (p)
		stp_mem_count(p, size);
	return p;
}

/* kvcalloc(), counted.  Context: process context; may sleep. */
static void *stp_kvcalloc(size_t n, size_t size)
{
	void *p = kvcalloc(n, size, GFP_KERNEL);

	if (p)
		stp_mem_count(p, n * size);	/* kvcalloc refused an overflowing product */
	return p;
}
