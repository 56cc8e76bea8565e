/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * klines.c - kernel addresses to source files and lines, from the line table pass 3
 * writes into the module (src/debuginfo/kernel_lines.c says its encoding): the block
 * whose first address is the last at or before the address, decoded row by row.  The
 * table is the link-time kernel's; the kernel runs relocated (KASLR) by as much as the
 * address of KLINES_ANCHOR moved.  Only the kernel's own text: a module's address has
 * no line.  No lock, no allocation: any context.
 */
#include <linux/kallsyms.h>

struct stp_klines {
	unsigned long base, anchor;
	size_t nblocks;
	const u32 *index;		/* per block: its first address from BASE, its offset */
	const u8 *stream;
	size_t stream_len;
	const u32 *files;		/* offsets in NAMES */
	u32 nfiles;
	const char *names;
};

static u64 stp_klines_varint(const u8 **p, const u8 *end)
{
	u64 v = 0;
	int shift = 0;

	while (*p < end && shift < 64) {
		u8 b = *(*p)++;

		v |= (u64)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	return v;
}

/* The source file and line of the kernel address ADDR in T, or false if none. */
static __maybe_unused bool stp_kline(const struct stp_klines *t, unsigned long addr,
				     const char **file, unsigned int *line)
{
	unsigned long rel = addr - ((unsigned long)&sprint_symbol - t->anchor) - t->base;
	size_t lo = 0, hi = t->nblocks, b;
	const u8 *p, *end;
	u64 at;
	u32 row_line = 0, row_file = 0;
	bool found = false;

	if (!t->nblocks || rel > U32_MAX || rel < t->index[0])
		return false;
	while (hi - lo > 1) {				/* the last block starting at or before */
		size_t mid = lo + (hi - lo) / 2;

		if (t->index[2 * mid] <= rel)
			lo = mid;
		else
			hi = mid;
	}
	b = lo;
	p = t->stream + t->index[2 * b + 1];
	end = b + 1 < t->nblocks ? t->stream + t->index[2 * b + 3] : t->stream + t->stream_len;
	at = t->index[2 * b];
	while (p < end) {
		u64 v;
		s64 delta;

		at += stp_klines_varint(&p, end);
		if (at > rel)
			break;
		v = stp_klines_varint(&p, end);
		delta = (v >> 1) & 1 ? -(s64)((v >> 2) + 1) : (s64)(v >> 2);
		row_line = (u32)((s64)row_line + delta);
		if (v & 1)
			row_file = (u32)stp_klines_varint(&p, end);
		found = true;		/* the row at or before ADDR so far */
	}
	if (!found || !row_line || row_file >= t->nfiles)
		return false;
	*file = t->names + t->files[row_file];
	*line = row_line;
	return true;
}
