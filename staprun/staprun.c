/*
 * staprun.c - the privileged loader: checks a stapler module, inserts it into the kernel
 * and hands over to stapio; `staprun -d MODULE` removes one.
 *
 * usage: staprun [-v] [-o FILE] MODULE[.ko] [VAR=VALUE ...]
 *        staprun -d MODULE
 */
#include "staprun.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef STAPIO_PATH
#define STAPIO_PATH "/usr/local/libexec/stapler/stapio"
#endif

static const char usage_text[] =
"Usage: staprun [options] MODULE[.ko] [VAR=VALUE ...]\n"
"       staprun -d MODULE\n"
"\n"
"Loads a module built by stap -p4, runs it (output on standard output), and removes it\n"
"when the script exits or on Ctrl-C.  VAR=VALUE arguments set the script's global VAR\n"
"before it starts (what stap -G passes).\n"
"\n"
"   -v          more verbose; repeatable\n"
"   -o FILE     send the script's output to FILE\n"
"   -d MODULE   remove the named module (a session left running)\n"
"   -h          show this help\n"
"\n"
"Not implemented yet (refused): -c CMD, -x PID, -R, -L, -A, -b, -D, -S, -T, -u, -C.\n";

struct modinfo {
	char *name;		/* modinfo name= */
	char *vermagic;		/* modinfo vermagic= */
};

/* Reads name= and vermagic= from the module's .modinfo section. */
static bool read_modinfo(int fd, const char *path, struct modinfo *info)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		fprintf(stderr, "ERROR: %s is not an ELF kernel module\n", path);
		if (elf)
			elf_end(elf);
		return false;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *section;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		section = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!section || strcmp(section, ".modinfo") != 0)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t off = 0; data && off < data->d_size;) {
			const char *entry = (const char *)data->d_buf + off;
			size_t len = strnlen(entry, data->d_size - off);

			if (len && strncmp(entry, "name=", 5) == 0)
				info->name = strndup(entry + 5, len - 5);
			else if (len && strncmp(entry, "vermagic=", 9) == 0)
				info->vermagic = strndup(entry + 9, len - 9);
			off += len + 1;
		}
		found = true;
	}
	elf_end(elf);
	if (!found || !info->name || !info->vermagic) {
		fprintf(stderr, "ERROR: %s has no module information (.modinfo); "
			"is it a kernel module?\n", path);
		return false;
	}
	return true;
}

/* MODULE may be a path, a file name, or a name installed under /lib/modules/REL/systemtap. */
static char *find_module(const char *arg, const char *release)
{
	size_t n = strlen(arg);
	char *path;

	if (n > 3 && strcmp(arg + n - 3, ".ko") == 0)
		path = strdup(arg);
	else if (asprintf(&path, "%s.ko", arg) < 0)
		fatal("out of memory");
	if (access(path, R_OK) == 0 || strchr(arg, '/'))
		return path;
	free(path);
	if (asprintf(&path, "/lib/modules/%s/systemtap/%s%s", release, arg,
		     n > 3 && strcmp(arg + n - 3, ".ko") == 0 ? "" : ".ko") < 0)
		fatal("out of memory");
	return path;
}

static void explain_insert_error(int err, const char *path, const char *name)
{
	switch (err) {
	case EEXIST:
		fatal("a module named %s is already loaded; remove it with 'staprun -d %s'",
		      name, name);
	case ENOEXEC:
		fatal("the kernel rejected %s as an invalid module (built for another kernel?)",
		      path);
	case EPERM:
		fatal("the kernel does not allow loading %s: %s (module loading disabled, "
		      "lockdown, or missing privilege?)", path, strerror(err));
	case ENOSYS:
		fatal("this kernel cannot load modules");
	default:
		fatal("cannot insert module %s: %s", path, strerror(err));
	}
}

static int remove_module(const char *name)
{
	say(1, "removing module %s", name);
	if (syscall(SYS_delete_module, name, O_NONBLOCK) != 0) {
		fprintf(stderr, "ERROR: cannot remove module %s: %s\n", name, strerror(errno));
		return 1;
	}
	say(1, "module %s removed", name);
	return 0;
}

static void refuse_unprivileged(void)
{
	if (geteuid() == 0)
		return;
	fatal("you are trying to run stapler as a normal user; you must be root.\n"
	      "(Loading for members of the groups stapusr and stapdev is not implemented yet.)");
}

int main(int argc, char **argv)
{
	const char *output_file = NULL, *remove_name = NULL;
	struct modinfo info = { 0 };
	struct utsname uts;
	char *path, *params = NULL, *stapio;
	size_t params_len = 0;
	char **stapio_argv;
	int opt, fd, n = 0;

	program_name = "staprun";
	while ((opt = getopt(argc, argv, "+vo:d:hc:x:RLAbDS:T:uC:")) != -1) {
		switch (opt) {
		case 'v':
			verbosity++;
			break;
		case 'o':
			output_file = optarg;
			break;
		case 'd':
			remove_name = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case '?':
			fputs(usage_text, stderr);
			return 1;
		default:
			fatal("staprun option -%c is not implemented yet", opt);
		}
	}
	if (!remove_name && optind >= argc) {
		fputs(usage_text, stderr);
		return 1;
	}
	refuse_unprivileged();
	if (remove_name)
		return remove_module(remove_name);

	uname(&uts);
	path = find_module(argv[optind++], uts.release);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && !strchr(argv[optind - 1], '/'))
		fatal("cannot find module %s: not in the current folder, nor at %s",
		      argv[optind - 1], path);
	if (fd < 0)
		fatal("cannot open module %s: %s", path, strerror(errno));
	if (!read_modinfo(fd, path, &info))
		return 1;
	if (strncmp(info.vermagic, uts.release, strlen(uts.release)) != 0 ||
	    (info.vermagic[strlen(uts.release)] != ' ' && info.vermagic[strlen(uts.release)]))
		fatal("module %s was built for kernel \"%.*s\", but this is kernel \"%s\"", path,
		      (int)strcspn(info.vermagic, " "), info.vermagic, uts.release);

	/* VAR=VALUE arguments become the module's parameter string */
	for (; optind < argc; optind++) {
		size_t len = strlen(argv[optind]);

		if (!strchr(argv[optind], '='))
			fatal("'%s' is not a VAR=VALUE setting", argv[optind]);
		params = realloc(params, params_len + len + 2);
		if (!params)
			fatal("out of memory");
		if (params_len)
			params[params_len++] = ' ';
		memcpy(params + params_len, argv[optind], len + 1);
		params_len += len;
	}
	if (!ensure_debugfs_mounted())
		return 1;

	say(1, "inserting module %s (name %s)", path, info.name);
	if (syscall(SYS_finit_module, fd, params ? params : "", 0) != 0)
		explain_insert_error(errno, path, info.name);
	close(fd);

	/* hand over: stapio [-v...] [-o FILE] MODULE */
	stapio = sibling_program("stapio", STAPIO_PATH);
	stapio_argv = calloc(verbosity + 5, sizeof(*stapio_argv));
	if (!stapio_argv)
		fatal("out of memory");
	stapio_argv[n++] = "stapio";
	for (int i = 0; i < verbosity; i++)
		stapio_argv[n++] = "-v";
	if (output_file) {
		stapio_argv[n++] = "-o";
		stapio_argv[n++] = (char *)output_file;
	}
	stapio_argv[n++] = info.name;
	say(1, "starting %s", stapio);
	execv(stapio, stapio_argv);
	fprintf(stderr, "ERROR: cannot run %s: %s\n", stapio, strerror(errno));
	remove_module(info.name);
	return 1;
}
