/*
 * fuzz_frontend.c - a libFuzzer target for passes 1 and 2: tokenize, preprocess, parse,
 * print the tree back (-p1), then elaborate and print the program (-p2), for any input.
 * Built and run by testsuite/fuzz.sh:
 *
 *   clang -fsanitize=fuzzer,address,undefined -DSTAP_FUZZING -iquote src ... (every .c
 *   file of src/ and its folders but src/main.c)
 *
 * Every input runs against a pretend kernel (no symbol table: kprobes fail to resolve),
 * two script arguments, a small macro library and the tapset folder named by
 * $STAPLER_FUZZ_TAPSET; everything it allocated is freed afterwards, so leaks are
 * reported.
 */
#include "stap.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

static const char macro_library[] =
	"@define twice(x) %( ((@x) * 2) %)\n"
	"%( kernel_v >= \"5.0\" %? @define modern %( 1 %) %: @define modern %( 0 %) %)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct session s = {
		.kernel_release = "5.10.0-7-fuzz",
		.kernel_build_dir = "/nonexistent",
		.tapset_dir = getenv("STAPLER_FUZZ_TAPSET") ? getenv("STAPLER_FUZZ_TAPSET") :
							      "/nonexistent",
		.guru = size % 3 == 0,
	};
	struct source_file *library, *script;
	struct preprocessor *pp;
	struct stapfile *file;
	int errors = 0;

	if (!sink)
		sink = fopen("/dev/null", "w");
	diag_quiet = 1;
	strlist_add(&s.script_args, "1");
	strlist_add(&s.script_args, "two words");

	pp = preprocessor_new(&s);
	library = xcalloc(1, sizeof(*library));
	library->name = "<library>";
	library->text = xstrdup(macro_library);
	load_macro_library(pp, library, &errors, NULL);

	script = xcalloc(1, sizeof(*script));
	script->name = "<fuzz>";
	script->text = xstrndup((const char *)data, size);
	errors = 0;
	file = parse_file(pp, script, size % 2 == 0, true, &errors);
	if (!errors) {
		struct program *prog;

		dump_parse_tree(sink, file);
		prog = elaborate(&s, pp, file, &errors);
		if (!errors)
			dump_program(sink, prog, true);
	}

	xfree_all();
	forget_probe_templates();
	return 0;
}
