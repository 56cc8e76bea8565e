/*
 * stap-merge [-v] [-o FILE] FILE... - the per-CPU files of a bulk-mode session (stap -b:
 * FILE_0, FILE_1 ... or stpd_cpu0 ...) merged into one output in the order the records
 * were written.
 *
 * Each record of a file is a header of two 32-bit numbers in the machine's order, the
 * session's sequence number of the write (1, 2, ... across every CPU) and the length of
 * the data, then the data (runtime/transport.c writes them; a file's records come in
 * increasing order).  The output is each record's data, lowest sequence number first;
 * -v puts "[CPU:N, seq=S, length=L]" on its own line before each (N: the file's place
 * among the arguments, from 0), on standard output even with -o.  A sequence number that
 * is not the one expected (records dropped, the buffers full) is said on standard error
 * ("got S. expected E"), and with -o the count of those is printed at the end ("sequence
 * had N drops"), as SystemTap's stap-merge does.
 *
 * Exit status: 0; 255 for a usage error or a file that cannot be opened; 253 for a file
 * that ends inside a record; 1 when the output cannot be written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct input {
	const char *name;
	FILE *f;
	uint32_t seq, len;	/* the next record's header */
	bool more;		/* a header was read */
};

static const char *program = "stap-merge";

static void usage(void)
{
	fprintf(stderr, "%s [-v] [-o output_filename] input_files ...\n", program);
	exit(255);
}

/* Reads IN's next header; false at the end of its file.  A part of a header: status 253. */
static bool next_header(struct input *in)
{
	uint32_t h[2];
	size_t got = fread(h, 1, sizeof(h), in->f);

	if (got == 0 && feof(in->f))
		return in->more = false;
	if (got != sizeof(h)) {
		fprintf(stderr, "%s: %s ends inside a record's header (%zu of %zu bytes)\n",
			program, in->name, got, sizeof(h));
		exit(253);
	}
	in->seq = h[0];
	in->len = h[1];
	return in->more = true;
}

/* Copies the LEN bytes of IN's record to OUT. */
static void copy_data(struct input *in, FILE *out)
{
	char buf[65536];
	uint32_t left = in->len;

	while (left > 0) {
		size_t want = left < sizeof(buf) ? left : sizeof(buf);
		size_t got = fread(buf, 1, want, in->f);

		if (got != want) {
			fprintf(stderr, "%s: %s ends inside a record (sequence %u: %u bytes "
				"missing)\n", program, in->name, in->seq, left - (uint32_t)got);
			exit(253);
		}
		if (fwrite(buf, 1, got, out) != got) {
			fprintf(stderr, "%s: cannot write the output: %s\n", program,
				strerror(errno));
			exit(1);
		}
		left -= got;
	}
}

int main(int argc, char **argv)
{
	const char *output = NULL;
	bool verbose = false;
	struct input *inputs;
	FILE *out = stdout;
	uint32_t expected = 1;
	unsigned long drops = 0;
	int opt, n;

	program = argv[0];
	while ((opt = getopt(argc, argv, "vo:")) != -1) {
		if (opt == 'v')
			verbose = true;
		else if (opt == 'o')
			output = optarg;
		else
			usage();
	}
	n = argc - optind;
	if (n < 1)
		usage();
	inputs = calloc(n, sizeof(*inputs));
	if (!inputs) {
		fprintf(stderr, "%s: out of memory\n", program);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		inputs[i].name = argv[optind + i];
		inputs[i].f = fopen(inputs[i].name, "rb");
		if (!inputs[i].f) {
			fprintf(stderr, "%s: cannot open %s: %s\n", program, inputs[i].name,
				strerror(errno));
			return 255;
		}
		next_header(&inputs[i]);
	}
	if (output && !(out = fopen(output, "wb"))) {
		fprintf(stderr, "%s: cannot open %s: %s\n", program, output, strerror(errno));
		return 255;
	}
	for (;;) {
		int lowest = -1;

		for (int i = 0; i < n; i++)
			if (inputs[i].more && (lowest < 0 || inputs[i].seq < inputs[lowest].seq))
				lowest = i;
		if (lowest < 0)
			break;
		struct input *in = &inputs[lowest];

		if (in->seq != expected) {
			fflush(out);	/* the message comes between the records it is about */
			fprintf(stderr, "got %u. expected %u\n", in->seq, expected);
			drops++;
		}
		expected = in->seq + 1;
		if (verbose) {
			fflush(out);
			printf("[CPU:%d, seq=%u, length=%u]\n", lowest, in->seq, in->len);
			fflush(stdout);
		}
		copy_data(in, out);
		next_header(in);
	}
	if (output)
		printf("sequence had %lu drops\n", drops);
	if (fflush(out) != 0 || (output && fclose(out) != 0)) {
		fprintf(stderr, "%s: cannot write the output: %s\n", program, strerror(errno));
		return 1;
	}
	return 0;
}
