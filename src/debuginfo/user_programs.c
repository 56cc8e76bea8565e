/*
 * user_programs.c - the files a process("PATH") or .library("PATH") point names.
 *
 * A program is found as a shell finds a command (relative to the working folder with a
 * '/', else in $PATH), its symbolic links resolved; a script's interpreter is what runs,
 * so that is what is probed, as stap does.  A glob is matched as it is ($PATH is not
 * searched).  A library named without a '/' is one of the program's DT_NEEDED names,
 * looked for in its run path, then in the usual folders.  With --sysroot the files are
 * read under it and named as they are where the probes run.  No DWARF is read here:
 * debuginfo_program() opens a program's.
 */
#include "dw.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <glob.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FILE less the sysroot S has (already absolute and resolved), as a malloc'd path. */
static char *target_of(struct session *s, const char *file)
{
	size_t n = s->sysroot ? strlen(s->sysroot) : 0;

	while (n > 1 && s->sysroot[n - 1] == '/')
		n--;
	if (n > 1 && strncmp(file, s->sysroot, n) == 0 && file[n] == '/')
		return xstrdup(file + n);
	return xstrdup(file);
}

static char *sysroot_path(struct session *s, const char *path)
{
	return s->sysroot ? xasprintf("%s%s", s->sysroot, path) : xstrdup(path);
}

static bool executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The interpreter a script FILE names on its "#!" line, or NULL (not a script). */
static char *script_interpreter(const char *file)
{
	char line[256];
	FILE *f = fopen(file, "r");
	size_t n = f ? fread(line, 1, sizeof(line) - 1, f) : 0;
	char *start;

	if (f)
		fclose(f);
	line[n] = '\0';
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	start = line + 2 + strspn(line + 2, " \t");
	start[strcspn(start, " \t\n")] = '\0';
	return *start ? xstrdup(start) : NULL;
}

static bool find_program(struct session *s, const char *path, char **target, char **file,
			 char **why, int depth)
{
	char *candidate = NULL, *resolved, *interpreter;

	*target = *file = *why = NULL;
	if (!*path) {
		*why = xstrdup("an empty path");
		return false;
	}
	if (path[0] == '/') {
		candidate = sysroot_path(s, path);
	} else if (strchr(path, '/')) {
		char cwd[4096];

		if (!getcwd(cwd, sizeof(cwd))) {
			*why = xasprintf("cannot resolve '%s': %s", path, strerror(errno));
			return false;
		}
		candidate = xasprintf("%s/%s", cwd, path);
	} else {	/* as a shell finds a command */
		const char *dirs = target_env(s, "PATH");
		char *copy = xstrdup(dirs && *dirs ? dirs : "/usr/bin:/bin"), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save); d && !candidate;
		     d = strtok_r(NULL, ":", &save)) {
			char *p = xasprintf("%s/%s", *d ? d : ".", path), *f = sysroot_path(s, p);

			if (executable_file(f))
				candidate = f;
			else
				free(f);
			free(p);
		}
		free(copy);
		if (!candidate) {
			*why = xasprintf("cannot find executable '%s' in PATH", path);
			return false;
		}
	}
	resolved = realpath(candidate, NULL);
	if (!resolved) {
		*why = xasprintf("cannot find '%s': %s", path, strerror(errno));
		free(candidate);
		return false;
	}
	free(candidate);
	interpreter = script_interpreter(resolved);
	if (interpreter && depth < 4) {	/* a script: its interpreter runs, as stap probes */
		bool ok;

		free(resolved);
		ok = find_program(s, interpreter, target, file, why, depth + 1);
		free(interpreter);
		return ok;
	}
	free(interpreter);
	*file = resolved;
	*target = target_of(s, resolved);
	return true;
}

bool program_path(struct session *s, const char *path, char **target, char **file, char **why)
{
	return find_program(s, path, target, file, why, 0);
}

int program_paths(struct session *s, const char *pattern, struct strlist *targets,
		  struct strlist *files, char **why)
{
	glob_t matches;
	char *wanted;
	int found = 0;

	*why = NULL;
	if (!strpbrk(pattern, "*?[")) {
		char *target, *file;

		if (!program_path(s, pattern, &target, &file, why))
			return 0;
		strlist_add(targets, target);
		strlist_add(files, file);
		free(target);
		free(file);
		return 1;
	}
	/* as stap: the files the glob matches, $PATH not searched */
	wanted = pattern[0] == '/' ? sysroot_path(s, pattern) : xstrdup(pattern);
	if (glob(wanted, 0, NULL, &matches) == 0) {
		for (size_t i = 0; i < matches.gl_pathc; i++) {
			char *file = realpath(matches.gl_pathv[i], NULL), *target;
			struct stat st;
			bool seen = false;

			if (!file || stat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
				free(file);
				continue;
			}
			target = target_of(s, file);
			for (int k = 0; k < targets->count && !seen; k++)
				seen = strcmp(targets->items[k], target) == 0;
			if (!seen) {
				strlist_add(targets, target);
				strlist_add(files, file);
				found++;
			}
			free(target);
			free(file);
		}
		globfree(&matches);
	}
	if (!found)
		*why = xasprintf("no file matches '%s'", pattern);
	free(wanted);
	return found;
}

char *process_point_program(struct session *s, const char *path, int64_t pid, char **why)
{
	*why = NULL;
	if (path)
		return xstrdup(path);
	if (pid) {
		char *link = xasprintf("/proc/%" PRId64 "/exe", pid), *exe = realpath(link, NULL);

		free(link);
		if (!exe)
			*why = xasprintf("cannot probe pid %" PRId64 ": %s", pid,
					 pid > 0 && kill((pid_t)pid, 0) == 0 ? "No executable" :
									      "No such process");
		return exe;
	}
	if (s->target_cmd) {	/* as stap: a plain command, its words as they are */
		size_t n;

		if (strpbrk(s->target_cmd, "|&;<>(){}`$\"'\\")) {
			*why = xstrdup("the -c command is not a plain command and its arguments");
			return NULL;
		}
		n = strspn(s->target_cmd, " \t");
		return xstrndup(s->target_cmd + n, strcspn(s->target_cmd + n, " \t"));
	}
	if (s->target_pid > 0)
		return process_point_program(s, NULL, s->target_pid, why);
	*why = xstrdup("unspecified process probe is invalid without a -c COMMAND or -x PID"
		       MAN_PAGE("stapprobes"));
	return NULL;
}

/* The DT_NEEDED names and the run path (DT_RUNPATH, else DT_RPATH) of ELF. */
static void dynamic_needs(Elf *elf, struct strlist *needed, char **runpath)
{
	Elf_Scn *scn = NULL;

	*runpath = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *text;

			if (!gelf_getdyn(data, (int)i, &dyn) ||
			    !(dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH ||
			      dyn.d_tag == DT_RPATH) ||
			    !(text = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if (dyn.d_tag == DT_NEEDED)
				strlist_add(needed, text);
			else if (!*runpath || dyn.d_tag == DT_RUNPATH) {
				free(*runpath);
				*runpath = xstrdup(text);
			}
		}
	}
}

int program_libraries(struct session *s, const char *file, const char *pattern,
		      struct strlist *targets, struct strlist *files, char **why)
{
	static const char *const usual[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", NULL,
	};
	struct strlist needed = { 0 }, dirs = { 0 };
	char *runpath = NULL, *target, *lib_file;
	int fd, found = 0;
	Elf *elf;

	if (strchr(pattern, '/'))	/* a path, or a glob of paths */
		return program_paths(s, pattern, targets, files, why);
	*why = NULL;
	elf_version(EV_CURRENT);
	fd = open(file, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		dynamic_needs(elf, &needed, &runpath);
	if (target_env(s, "LD_LIBRARY_PATH")) {	/* the loader's: first, but for a DT_RPATH */
		char *copy = xstrdup(target_env(s, "LD_LIBRARY_PATH")), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
			strlist_add(&dirs, d);
		free(copy);
	}
	if (runpath) {
		char *save = NULL;

		for (char *d = strtok_r(runpath, ":", &save); d; d = strtok_r(NULL, ":", &save))
			strlist_add(&dirs, d);
	}
	for (int i = 0; usual[i]; i++)
		strlist_add(&dirs, usual[i]);
	for (int i = 0; i < needed.count; i++) {
		bool here = false;

		if (fnmatch(pattern, needed.items[i], 0) != 0)
			continue;
		for (int d = 0; d < dirs.count && !here; d++) {
			char *p = xasprintf("%s/%s", dirs.items[d], needed.items[i]);
			char *f = sysroot_path(s, p), *no = NULL;

			if (access(f, R_OK) == 0 && program_path(s, p, &target, &lib_file, &no)) {
				here = true;
				strlist_add(targets, target);
				strlist_add(files, lib_file);
				free(target);
				free(lib_file);
				found++;
			}
			free(no);
			free(f);
			free(p);
		}
	}
	if (!found)
		*why = xasprintf("no library of %s is '%s'", file, pattern);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(runpath);
	strlist_free(&needed);
	strlist_free(&dirs);
	return found;
}
