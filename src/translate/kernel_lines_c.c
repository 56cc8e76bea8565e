/*
 * kernel_lines_c.c - the kernel's line table (debuginfo/kernel_lines.c) as the module's
 * C, for runtime/klines.c: the encoded rows as one string literal (stp_klines_stream),
 * the blocks' index, the file names, and stp_klines, which ties them together.  Only for
 * a program whose functions say pragma:klines (symfileline() and the like); without a
 * table (no debuginfo) stp_klines has no rows and every address reads as unknown.
 */
#include "emit.h"
#include "debuginfo/kernel_lines.h"

#include <inttypes.h>

void kernel_lines_emit(struct emitter *e, struct session *s)
{
	struct kernel_lines t;
	const char *why;

	if (!kernel_lines_read(s, &t, &why) && verbose_at(s, 3, 1))
		fprintf(stderr, "Pass 3: no source lines for the kernel: %s\n", why);
	emit(e, "/* the kernel's line table: %zu rows, %zu blocks, %u files (runtime/klines.c) */\n",
	     t.nrows, t.nblocks, t.nfiles);
	if (verbose_at(s, 3, 2))
		fprintf(stderr, "Pass 3: the kernel's line table: %zu rows, %zu bytes\n", t.nrows,
			t.stream.len + t.names.len + 8 * t.nblocks + 4 * t.nfiles);
	emit_bytes(e, "stp_klines_stream", t.stream.data, t.stream.len);
	emit_bytes(e, "stp_klines_names", t.names.data, t.names.len);
	emit(e, "static const u32 stp_klines_index[] = {");
	for (size_t i = 0; i < t.nblocks; i++)
		emit(e, "%s%u, %u,", i % 6 ? " " : "\n\t", t.index[i].addr, t.index[i].offset);
	emit(e, "%s};\n", t.nblocks ? "\n" : " 0 ");
	emit(e, "static const u32 stp_klines_files[] = {");
	for (uint32_t i = 0; i < t.nfiles; i++)
		emit(e, "%s%u,", i % 12 ? " " : "\n\t", t.file_offsets[i]);
	emit(e, "%s};\n", t.nfiles ? "\n" : " 0 ");
	emit(e, "static const struct stp_klines stp_klines = {\n"
		"\t.base = %#" PRIx64 "UL, .anchor = %#" PRIx64 "UL, .nblocks = %zu,\n"
		"\t.index = stp_klines_index, .stream = (const u8 *)stp_klines_stream,\n"
		"\t.stream_len = %zu, .files = stp_klines_files, .nfiles = %u,\n"
		"\t.names = stp_klines_names,\n};\n\n", t.base, t.anchor, t.nblocks, t.stream.len,
		t.nfiles);
	kernel_lines_free(&t);
}
