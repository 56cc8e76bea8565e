/*
 * syscall_tapset.c - the syscall.* and nd_syscall.* probe aliases, generated for the
 * target kernel from its own DWARF.
 *
 * Each system call NAME of x86-64 has an entry point __x64_sys_NAME(const struct
 * pt_regs *regs) in the kernel's symbol table, and (when it takes arguments) the
 * function SYSCALL_DEFINE made of its body, __do_sys_NAME, whose parameters are the
 * arguments with their names and C types.  From them this file writes, for each:
 *
 *   probe syscall.NAME = kernel.function("__x64_sys_NAME").call { ... }
 *   probe syscall.NAME.return = kernel.function("__x64_sys_NAME").return { ... }
 *   probe nd_syscall.NAME = kprobe.function("__x64_sys_NAME") { ... }
 *   probe nd_syscall.NAME.return = kprobe.function("__x64_sys_NAME").return { ... }
 *
 * The arguments are read from the saved user registers (di, si, dx, r10, r8, r9): the
 * syscall probes through the DWARF ($regs->di), the nd_syscall ones from the pt_regs
 * the entry point gets (its layout is the x86-64 ABI's, no DWARF needed to read it).
 * Each handler sets `name`, `argstr` (as strace and stap show it) and one variable per
 * argument, named and shown by its type (a const char * is a string: NAME quoted and
 * NAME_unquoted; another pointer NAME_uaddr; numbers by their size and sign); the
 * return probes set `retstr` ("-2 (ENOENT)").  The table below, written by hand, says
 * where stap's tapset names an argument otherwise or decodes it (flags_str, dfd_str:
 * tapset/syscall_args.stp).
 *
 * The file is written once per kernel into the cache (CACHE/tapsets/KEY/syscalls.stp,
 * KEY a hash of the kernel's debuginfo file and of this program), and that folder joins
 * the tapset search path when a script or -l/-L names a syscall probe.
 */
#include "elaborate.h"
#include "cache.h"
#include "ctype.h"
#include "dw.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GENERATOR "syscalls-11"

/* How an argument is kept and shown. */
enum arg_kind {
	ARG_DEFAULT,		/* by its type */
	ARG_STRING,		/* a user string: NAME (quoted), NAME_unquoted */
	ARG_POINTER,		/* NAME_uaddr, shown 0x... */
	ARG_SIGNED,		/* NAME, %d */
	ARG_UNSIGNED,		/* NAME, %u */
	ARG_HEX,		/* NAME, 0x%x */
	ARG_OCTAL,		/* NAME, %#o */
	ARG_BUFFER,		/* a user buffer of COUNT bytes: NAME_uaddr, NAME_str (quoted) */
	ARG_ARGV,		/* a user array of strings: NAME, ["a", "b"] */
};

/*
 * Where stap's tapset differs from the defaults: for SYSCALL ("*": any) and the kernel's
 * parameter PARAM, the variable's name VAR, its kind, and a decoder (a tapset function
 * of the value, VAR_str = DECODER(VAR), shown in argstr in its place; STR names VAR_str
 * otherwise).
 */
struct arg_rule {
	const char *syscall, *param;
	const char *var;		/* NULL: PARAM */
	enum arg_kind kind;
	const char *decoder;
	const char *str;		/* the decoded variable's name (NULL: VAR_str) */
	const char *count;		/* ARG_BUFFER: the parameter with its size */
};

#define RULE(syscall, param, var, kind) { syscall, param, var, kind, NULL, NULL, NULL }
#define DECODE(syscall, param, kind, decoder) \
	{ syscall, param, NULL, kind, decoder, NULL, NULL }
#define DECODE_AS(syscall, param, kind, decoder, str) \
	{ syscall, param, NULL, kind, decoder, str, NULL }
#define DECODE_RENAMED(syscall, param, var, kind, decoder) \
	{ syscall, param, var, kind, decoder, NULL, NULL }
#define BUFFER(syscall, param, count) \
	{ syscall, param, NULL, ARG_BUFFER, NULL, NULL, count }
#define ARGV(syscall, param, var) { syscall, param, var, ARG_ARGV, NULL, NULL, NULL }

static const struct arg_rule arg_rules[] = {
	/* file descriptors relative to a directory */
	DECODE("*", "dfd", ARG_SIGNED, "_dfd_str"),
	DECODE("*", "olddfd", ARG_SIGNED, "_dfd_str"),
	DECODE("*", "newdfd", ARG_SIGNED, "_dfd_str"),
	/* open */
	DECODE("open", "flags", ARG_HEX, "_sys_open_flag_str"),
	DECODE("openat", "flags", ARG_HEX, "_sys_open_flag_str"),
	DECODE_RENAMED("open_by_handle_at", "mountdirfd", "mount_dfd", ARG_SIGNED, "_dfd_str"),
	DECODE("open_by_handle_at", "flags", ARG_HEX, "_sys_open_flag_str"),
	RULE("open", "mode", NULL, ARG_OCTAL),
	RULE("openat", "mode", NULL, ARG_OCTAL),
	RULE("creat", "mode", NULL, ARG_OCTAL),
	RULE("mkdir", "mode", NULL, ARG_OCTAL),
	RULE("mkdirat", "mode", NULL, ARG_OCTAL),
	RULE("chmod", "mode", NULL, ARG_OCTAL),
	RULE("fchmod", "mode", NULL, ARG_OCTAL),
	RULE("fchmodat", "mode", NULL, ARG_OCTAL),
	RULE("mknod", "mode", NULL, ARG_OCTAL),
	RULE("mknodat", "mode", NULL, ARG_OCTAL),
	RULE("umask", "mask", NULL, ARG_OCTAL),
	RULE("access", "filename", "pathname", ARG_STRING),
	DECODE("access", "mode", ARG_SIGNED, "_access_mode_str"),
	RULE("faccessat", "filename", "pathname", ARG_STRING),
	DECODE("faccessat", "mode", ARG_SIGNED, "_access_mode_str"),
	RULE("faccessat2", "filename", "pathname", ARG_STRING),
	DECODE("faccessat2", "mode", ARG_SIGNED, "_access_mode_str"),
	DECODE("faccessat2", "flags", ARG_SIGNED, "_faccessat2_flags_str"),
	DECODE_RENAMED("newfstatat", "flag", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE("unlinkat", "flag", ARG_SIGNED, "_at_flag_str"),
	DECODE("fchownat", "flag", ARG_SIGNED, "_at_flag_str"),
	DECODE("linkat", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE("statx", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE("statx", "mask", ARG_UNSIGNED, "_statx_mask_str"),
	DECODE("renameat2", "flags", ARG_UNSIGNED, "_renameat2_flags_str"),
	/* stap's names for what the kernel names otherwise */
	RULE("acct", "name", "filename", ARG_STRING),
	RULE("exit", "error_code", "status", ARG_SIGNED),
	RULE("exit_group", "error_code", "status", ARG_SIGNED),
	RULE("dup", "fildes", "oldfd", ARG_UNSIGNED),
	RULE("chdir", "filename", "path", ARG_STRING),
	RULE("chroot", "filename", "path", ARG_STRING),
	RULE("chmod", "filename", "path", ARG_STRING),
	RULE("chown", "filename", "path", ARG_STRING),
	RULE("lchown", "filename", "path", ARG_STRING),
	RULE("chown", "user", "owner", ARG_UNSIGNED),
	RULE("lchown", "user", "owner", ARG_UNSIGNED),
	RULE("fchown", "user", "owner", ARG_UNSIGNED),
	RULE("accept", "fd", "sockfd", ARG_SIGNED),
	RULE("accept4", "fd", "sockfd", ARG_SIGNED),
	RULE("connect", "fd", "sockfd", ARG_SIGNED),
	RULE("bind", "fd", "sockfd", ARG_SIGNED),
	RULE("listen", "fd", "sockfd", ARG_SIGNED),
	RULE("accept", "upeer_sockaddr", "addr", ARG_POINTER),
	RULE("accept4", "upeer_sockaddr", "addr", ARG_POINTER),
	RULE("accept", "upeer_addrlen", "addrlen", ARG_POINTER),
	RULE("accept4", "upeer_addrlen", "addrlen", ARG_POINTER),
	RULE("connect", "uservaddr", "serv_addr", ARG_POINTER),
	RULE("bind", "umyaddr", "my_addr", ARG_POINTER),
	DECODE_RENAMED("clock_gettime", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("clock_getres", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("clock_settime", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("clock_nanosleep", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	RULE("clock_nanosleep", "rqtp", "req", ARG_POINTER),
	RULE("clock_nanosleep", "rmtp", "rem", ARG_POINTER),
	DECODE_RENAMED("newfstatat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	RULE("newfstatat", "filename", "path", ARG_STRING),
	RULE("newfstatat", "statbuf", "buf", ARG_POINTER),
	RULE("readlinkat", "pathname", "path", ARG_STRING),
	RULE("readv", "vec", "vector", ARG_POINTER),
	RULE("readv", "vlen", "count", ARG_UNSIGNED),
	RULE("writev", "vec", "vector", ARG_POINTER),
	RULE("writev", "vlen", "count", ARG_UNSIGNED),
	/* programs */
	ARGV("execve", "argv", "args"),
	ARGV("execve", "envp", "env_str"),
	ARGV("execveat", "argv", "args"),
	ARGV("execveat", "envp", "env_str"),
	/* reads and writes */
	RULE("read", "buf", NULL, ARG_POINTER),
	RULE("pread64", "buf", NULL, ARG_POINTER),
	BUFFER("write", "buf", "count"),
	BUFFER("pwrite64", "buf", "count"),
	DECODE("lseek", "whence", ARG_UNSIGNED, "_seek_whence_str"),
	DECODE("fcntl", "cmd", ARG_UNSIGNED, "_fcntl_cmd_str"),
	/* memory */
	RULE("mmap", "addr", "start", ARG_POINTER),
	RULE("mmap", "len", "length", ARG_UNSIGNED),
	DECODE("mmap", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE("mmap", "flags", ARG_UNSIGNED, "_mmap_flags"),
	RULE("mmap", "off", "offset", ARG_UNSIGNED),
	DECODE("mprotect", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE_RENAMED("madvise", "behavior", "advice", ARG_SIGNED, "_madvice_advice_str"),
	/* processes and signals */
	DECODE_AS("kill", "sig", ARG_SIGNED, "_signal_name", "sig_name"),
	DECODE_AS("tkill", "sig", ARG_SIGNED, "_signal_name", "sig_str"),
	DECODE_AS("tgkill", "sig", ARG_SIGNED, "_signal_name", "sig_str"),
	DECODE("rt_sigaction", "sig", ARG_SIGNED, "_signal_name"),
	DECODE("rt_sigprocmask", "how", ARG_SIGNED, "_sigprocmask_how_str"),
	RULE("wait4", "upid", "pid", ARG_SIGNED),
	RULE("wait4", "stat_addr", "status", ARG_POINTER),
	RULE("wait4", "ru", "rusage", ARG_POINTER),
	DECODE("wait4", "options", ARG_SIGNED, "_wait4_opt_str"),
	DECODE("prlimit64", "resource", ARG_UNSIGNED, "_rlimit_resource_str"),
	DECODE("getrlimit", "resource", ARG_UNSIGNED, "_rlimit_resource_str"),
	DECODE("setrlimit", "resource", ARG_UNSIGNED, "_rlimit_resource_str"),
	DECODE("futex", "op", ARG_SIGNED, "_futex_op_str"),
	DECODE("setitimer", "which", ARG_SIGNED, "_itimer_which_str"),
	DECODE("getitimer", "which", ARG_SIGNED, "_itimer_which_str"),
	DECODE("clock_nanosleep", "flags", ARG_SIGNED, "_stp_clock_nanosleep_flags_str"),
	/* sockets */
	DECODE("socket", "family", ARG_SIGNED, "_sock_family_str"),
	DECODE("socket", "type", ARG_SIGNED, "_sock_type_str"),
	DECODE("socketpair", "family", ARG_SIGNED, "_sock_family_str"),
	DECODE("socketpair", "type", ARG_SIGNED, "_sock_type_str"),
	DECODE("accept4", "flags", ARG_SIGNED, "_sock_flags_str"),
	DECODE("inotify_add_watch", "mask", ARG_UNSIGNED, "_inotify_watch_mask_str"),
	DECODE("eventfd2", "flags", ARG_SIGNED, "_eventfd2_flag_str"),
};

/* Where stap's argstr shows a system call otherwise than by its arguments in order. */
static const struct { const char *syscall, *argstr; } argstr_rules[] = {
	/* the mode only when the call may create the file (O_CREAT, O_TMPFILE) */
	{ "open", "flags & 0x400040 ? sprintf(\"%s, %s, %#o\", filename, flags_str, mode)"
		  " : sprintf(\"%s, %s\", filename, flags_str)" },
	{ "openat", "flags & 0x400040 ? sprintf(\"%s, %s, %s, %#o\", dfd_str, filename, "
		    "flags_str, mode) : sprintf(\"%s, %s, %s\", dfd_str, filename, flags_str)" },
};

/*
 * Where stap's tapset names a system call's probe otherwise than the kernel does: its
 * alias PROBE (several kernel calls may share one, each alias definition adding its
 * points) and the value of `name` in it (NULL: PROBE).
 */
static const struct { const char *syscall, *probe, *name; } probe_names[] = {
	{ "newstat", "stat", NULL },
	{ "newlstat", "lstat", NULL },
	{ "newfstat", "fstat", NULL },
	{ "newfstatat", "fstatat", NULL },
	{ "newuname", "uname", NULL },
	{ "olduname", "uname", NULL },
	{ "old_readdir", "readdir", NULL },
	{ "oldumount", "umount", NULL },
	{ "pread64", "pread", NULL },
	{ "pwrite64", "pwrite", NULL },
	{ "getdents64", "getdents", NULL },
	{ "sendfile64", "sendfile", NULL },
	{ "pipe2", "pipe", "pipe2" },
	{ "eventfd2", "eventfd", "eventfd2" },
	{ "epoll_create1", "epoll_create", "epoll_create1" },
	{ "inotify_init1", "inotify_init", "inotify_init1" },
	{ "signalfd4", "signalfd", "signalfd4" },
	/* 32-bit calls */
	{ "stat64", "stat", NULL },
	{ "lstat64", "lstat", NULL },
	{ "fstat64", "fstat", NULL },
	{ "fstatat64", "fstatat", NULL },
	{ "mmap_pgoff", "mmap2", NULL },
	{ "ia32_pread64", "pread", NULL },
	{ "ia32_pwrite64", "pwrite", NULL },
	{ "ia32_truncate64", "truncate", NULL },
	{ "ia32_ftruncate64", "ftruncate", NULL },
	{ "ia32_readahead", "readahead", NULL },
	{ "ia32_fadvise64", "fadvise64", NULL },
	{ "ia32_fadvise64_64", "fadvise64_64", NULL },
	{ "ia32_fallocate", "fallocate", NULL },
	{ "ia32_sync_file_range", "sync_file_range", NULL },
	{ "ia32_stat64", "stat", NULL },
	{ "ia32_lstat64", "lstat", NULL },
	{ "ia32_fstat64", "fstat", NULL },
	{ "ia32_fstatat64", "fstatat", NULL },
	{ "ia32_mmap", "mmap", NULL },
	{ "ia32_clone", "clone", NULL },
	{ "fcntl64", "fcntl", NULL },
};

/*
 * How a system call enters the kernel: the entry points' prefix, their bodies' (whose
 * parameters are the arguments), and the registers of the first six arguments with
 * their offsets in struct pt_regs (arch/x86/include/asm/ptrace.h).  A 32-bit (ia32)
 * call's arguments are 32 bits wide, zero-extended in the registers.
 */
struct abi {
	const char *entry, *body;
	bool bits32;
	struct { const char *reg; int offset; } regs[6];
};

static const struct abi x64_abi = {
	"__x64_sys_", "__do_sys_", false,
	{ { "di", 112 }, { "si", 104 }, { "dx", 96 }, { "r10", 56 }, { "r8", 72 }, { "r9", 64 } },
};
/* int $0x80 and the 32-bit vDSO: ebx, ecx, edx, esi, edi, ebp */
static const struct abi ia32_abi = {
	"__ia32_sys_", "__do_sys_", true,
	{ { "bx", 40 }, { "cx", 88 }, { "dx", 96 }, { "si", 104 }, { "di", 112 }, { "bp", 32 } },
};
/* a 32-bit call with a compat body of its own (compat_sys_NAME: 32-bit structures) */
static const struct abi ia32_compat_abi = {
	"__ia32_compat_sys_", "__do_compat_sys_", true,
	{ { "bx", 40 }, { "cx", 88 }, { "dx", 96 }, { "si", 104 }, { "di", 112 }, { "bp", 32 } },
};

/* One argument, as the generated handlers keep it. */
struct arg {
	const char *param;	/* the kernel's name */
	const char *var;
	enum arg_kind kind;
	int size;		/* numbers: 1, 2, 4 or 8 bytes */
	const char *decoder, *str, *count;
};

static const struct arg_rule *rule_for(const char *syscall, const char *param)
{
	const struct arg_rule *found = NULL;

	for (size_t i = 0; i < sizeof(arg_rules) / sizeof(arg_rules[0]); i++) {
		const struct arg_rule *r = &arg_rules[i];

		if (strcmp(r->param, param) != 0)
			continue;
		if (strcmp(r->syscall, syscall) == 0)
			return r;
		if (strcmp(r->syscall, "*") == 0)
			found = r;
	}
	return found;
}

static bool is_char(struct ctype *t)
{
	t = ctype_resolve(t);
	return t && t->kind == CT_BASE && t->size == 1 && t->name && strstr(t->name, "char");
}

/* How an argument of type T is kept by default. */
static enum arg_kind kind_of(struct ctype *t, int *size)
{
	struct ctype *r = ctype_resolve(t);

	*size = 8;
	if (!r)
		return ARG_SIGNED;
	if (r->kind == CT_POINTER) {
		struct ctype *to = r->target;

		/* const char *: a string; char *: a buffer the call fills */
		if (to && to->kind == CT_CONST && is_char(to->target))
			return ARG_STRING;
		return ARG_POINTER;
	}
	if ((r->kind == CT_BASE || r->kind == CT_ENUM) && r->size >= 1 && r->size <= 8)
		*size = (int)r->size;
	return r->is_signed ? ARG_SIGNED : ARG_UNSIGNED;
}

/* The argument variables' script expression from the raw register value RAW. */
static char *number_of(const struct arg *a, const char *raw)
{
	int bits = a->size * 8;

	if (a->kind == ARG_STRING || a->kind == ARG_POINTER || a->kind == ARG_BUFFER ||
	    a->kind == ARG_ARGV || bits >= 64)
		return xstrdup(raw);
	if (a->kind == ARG_SIGNED)	/* sign-extended from its size */
		return xasprintf("((%s << %d) >> %d)", raw, 64 - bits, 64 - bits);
	return xasprintf("(%s & %#llx)", raw, (1ULL << bits) - 1);
}

/* The handler's lines that set the variables from __argN, then argstr. */
static void put_variables(struct strbuf *sb, const char *syscall, const char *name,
			  const struct arg *args, int nargs)
{
	struct strbuf format = { 0 }, values = { 0 };

	sb_printf(sb, "\tname = \"%s\"\n", name);
	for (int i = 0; i < nargs; i++) {
		const struct arg *a = &args[i];
		char *raw = xasprintf("__arg%d", i + 1), *value = number_of(a, raw);
		const char *sep = i ? ", " : "";

		switch (a->kind) {
		case ARG_STRING:
			sb_printf(sb, "\t%s = user_string_quoted(%s)\n", a->var, raw);
			sb_printf(sb, "\t%s_unquoted = user_string(%s, \"\")\n", a->var, raw);
			sb_printf(&format, "%s%%s", sep);
			sb_printf(&values, ", %s", a->var);
			break;
		case ARG_POINTER:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			sb_printf(&format, "%s%%p", sep);
			sb_printf(&values, ", %s_uaddr", a->var);
			break;
		case ARG_BUFFER:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			sb_printf(sb, "\t%s_str = user_buffer_quoted(%s, __arg%s, "
				  "syscall_string_trunc)\n", a->var, raw, a->count);
			sb_printf(&format, "%s%%s", sep);
			sb_printf(&values, ", %s_str", a->var);
			break;
		case ARG_ARGV:
			sb_printf(sb, "\t%s = _user_string_array_quoted(%s)\n", a->var, raw);
			sb_printf(&format, "%s%%s", sep);
			sb_printf(&values, ", %s", a->var);
			break;
		default:
			sb_printf(sb, "\t%s = %s\n", a->var, value);
			if (a->decoder) {
				char *str = a->str ? xstrdup(a->str) : xasprintf("%s_str", a->var);

				sb_printf(sb, "\t%s = %s(%s)\n", str, a->decoder, a->var);
				sb_printf(&format, "%s%%s", sep);
				sb_printf(&values, ", %s", str);
				free(str);
			} else {
				sb_printf(&format, "%s%s", sep, a->kind == ARG_SIGNED ? "%d" :
						    a->kind == ARG_UNSIGNED ? "%u" :
						    a->kind == ARG_HEX ? "0x%x" : "%#o");
				sb_printf(&values, ", %s", a->var);
			}
		}
		free(raw);
		free(value);
	}
	for (size_t i = 0; i < sizeof(argstr_rules) / sizeof(argstr_rules[0]); i++)
		if (strcmp(argstr_rules[i].syscall, syscall) == 0) {
			sb_printf(sb, "\targstr = %s\n", argstr_rules[i].argstr);
			goto done;
		}
	sb_printf(sb, "\targstr = sprintf(\"%s\"%s)\n", format.data ? format.data : "",
		  values.data ? values.data : "");
done:
	sb_free(&format);
	sb_free(&values);
}

/*
 * The function NAME of the index, or NULL: not the weak one kernel/sys_ni.c defines for
 * a system call that is not built (a built one overrides it, yet both are in the DWARF).
 * *COPIES says how many functions of the name the DWARF has.
 */
static const struct dw_function *find_function(struct dw_index *index, const char *name,
					       int *copies)
{
	const struct dw_function *found = NULL;
	int lo = 0, hi = index->nfunctions, count = 0;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (strcmp(index->functions[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < index->nfunctions && strcmp(index->functions[lo].name, name) == 0; lo++) {
		const struct dw_function *f = &index->functions[lo];

		if (f->flags & DWF_NO_DWARF)	/* a symbol the DWARF does not describe */
			continue;
		count++;
		if (!found && !(f->file && strstr(f->file, "sys_ni.c")))
			found = f;
	}
	if (copies)
		*copies = count;
	return found;
}

/* The variables of the handlers themselves, and what an argument of their name becomes. */
static const struct { const char *name, *renamed; } reserved[] = {
	{ "name", "name_str" }, { "argstr", "argstr_arg" }, { "retval", "retval_arg" },
	{ "retstr", "retstr_arg" },
};

/* The arguments of SYSCALL: __do_sys_SYSCALL's parameters (none without it). */
static int syscall_args(struct dw_module *k, struct dw_index *index, const struct abi *abi,
			const char *syscall, struct arg *args)
{
	char *fname = xasprintf("%s%s", abi->body, syscall);
	const struct dw_function *f = find_function(index, fname, NULL);
	Dwarf_Die die, child;
	int n = 0;

	free(fname);
	if (!f || !dw_module_open(k) || !dwarf_offdie(k->dwarf, f->die, &die) ||
	    dwarf_child(&die, &child) != 0)
		return 0;
	do {
		const char *name = dwarf_diename(&child);
		const struct arg_rule *r;
		struct arg *a;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter || n == 6)
			continue;
		a = &args[n++];
		*a = (struct arg){ .param = name ? name : "arg", .var = name ? name : "arg" };
		a->kind = kind_of(ctype_of_variable(&child), &a->size);
		if (abi->bits32 && a->size > 4)
			a->size = 4;
		/* a parameter named like a variable every handler has keeps a suffix */
		for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (strcmp(a->var, reserved[i].name) == 0)
				a->var = reserved[i].renamed;
		if (!(r = rule_for(syscall, a->param)))
			continue;
		if (r->var)
			a->var = r->var;
		if (r->kind != ARG_DEFAULT)
			a->kind = r->kind;
		a->decoder = r->decoder;
		a->str = r->str;
		a->count = r->count;
	} while (dwarf_siblingof(&child, &child) == 0);
	/* a buffer's count: the argument's number */
	for (int i = 0; i < n; i++) {
		if (args[i].kind != ARG_BUFFER)
			continue;
		args[i].kind = ARG_POINTER;
		for (int j = 0; j < n; j++)
			if (strcmp(args[j].param, args[i].count) == 0) {
				static const char *const numbers[] = { "1", "2", "3", "4", "5", "6" };

				args[i].kind = ARG_BUFFER;
				args[i].count = numbers[j];
			}
	}
	return n;
}

static bool body_in_dwarf(struct dw_index *index, const struct abi *abi, const char *syscall)
{
	char *body = xasprintf("%s%s", abi->body, syscall);
	bool found = find_function(index, body, NULL) != NULL;

	free(body);
	return found;
}

/* The probe alias of SYSCALL (stap's name for it) and the value of `name` there. */
static void probe_name(const char *syscall, const char **probe, const char **name)
{
	*probe = *name = syscall;
	for (size_t i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++)
		if (strcmp(probe_names[i].syscall, syscall) == 0) {
			*probe = probe_names[i].probe;
			*name = probe_names[i].name ? probe_names[i].name : *probe;
		}
}

/*
 * The aliases of SYSCALL entering through ABI: syscall.PROBE (through the DWARF of the
 * entry point, or a kprobe where the DWARF lacks it), nd_syscall.PROBE (a kprobe), and
 * their .return.  Several definitions of one alias add up: a 32-bit call and its 64-bit
 * twin are one probe, as in stap.
 */
static bool put_syscall(struct strbuf *sb, struct dw_module *k, struct dw_index *index,
			const struct abi *abi, const char *syscall)
{
	struct arg args[6];
	int n = syscall_args(k, index, abi, syscall, args);
	const char *probe, *name;
	char *entry = xasprintf("%s%s", abi->entry, syscall), *point;
	int copies;
	const struct dw_function *f = find_function(index, entry, &copies);
	/* an entry the DWARF has (not an alias of its body's symbol): read through it */
	bool dwarf = f != NULL;
	const char *mask = abi->bits32 ? " & 0xffffffff" : "";

	/* only sys_ni.c's (not built: -ENOSYS), or neither the entry nor its body in the
	 * DWARF (a weak stub of sys_ni.c's that the DWARF does not name) */
	if ((!f && copies) || (!f && !n && !body_in_dwarf(index, abi, syscall))) {
		free(entry);
		return false;
	}
	probe_name(syscall, &probe, &name);
	point = copies > 1 && f->file ? xasprintf("%s@%s", entry, f->file) : xstrdup(entry);

	if (dwarf) {
		sb_printf(sb, "probe syscall.%s = kernel.function(\"%s\").call ?\n{\n", probe,
			  point);
		for (int i = 0; i < n; i++)
			sb_printf(sb, "\t__arg%d = $regs->%s%s\n", i + 1, abi->regs[i].reg, mask);
		put_variables(sb, syscall, name, args, n);
		sb_printf(sb, "}\nprobe syscall.%s.return = kernel.function(\"%s\").return ?\n"
			  "{\n\tname = \"%s\"\n\tretval = $return\n"
			  "\tretstr = return_str(1, $return)\n}\n", probe, point, name);
	}
	for (int nd = dwarf; nd < 2; nd++) {
		const char *family = nd ? "nd_syscall" : "syscall";

		sb_printf(sb, "probe %s.%s = kprobe.function(\"%s\") ?\n{\n", family, probe,
			  entry);
		if (n)
			sb_puts(sb, "\t__regs = pointer_arg(1)\n");
		for (int i = 0; i < n; i++)
			sb_printf(sb, "\t__arg%d = kernel_long(__regs + %d)%s\n", i + 1,
				  abi->regs[i].offset, mask);
		put_variables(sb, syscall, name, args, n);
		sb_printf(sb, "}\nprobe %s.%s.return = kprobe.function(\"%s\").return ?\n"
			  "{\n\tname = \"%s\"\n\tretval = returnval()\n"
			  "\tretstr = return_str(1, retval)\n}\n", family, probe, entry, name);
	}
	sb_putc(sb, '\n');
	free(point);
	free(entry);
	return true;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Adds to NAMES the system calls of x86-64's table, sys_call_table: its entries point at
 * __x64_sys_NAME (a call this kernel does not build, at __x64_sys_ni_syscall).  The
 * table's contents are in the vmlinux as linked.  False when K has no such table.
 */
static bool table_syscalls(struct dw_module *k, struct strlist *names)
{
	const struct dw_symbol *table = dw_symbol_named(k, "sys_call_table");
	Elf_Scn *scn = NULL;

	if (!table || !table->size || !dw_module_open(k) || !k->elf)
		return false;
	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
		    table->addr < shdr.sh_addr || table->addr + table->size > shdr.sh_addr +
		    shdr.sh_size)
			continue;
		if (!(data = elf_getdata(scn, NULL)) || !data->d_buf ||
		    table->addr - shdr.sh_addr + table->size > data->d_size)
			return false;
		for (uint64_t off = 0; off + 8 <= table->size; off += 8) {
			uint64_t entry;
			const struct dw_symbol *sym;

			memcpy(&entry, (char *)data->d_buf + (table->addr - shdr.sh_addr) + off,
			       sizeof(entry));
			if (!(sym = dw_symbol_at(k, entry)))
				continue;
			/* the symbols at the entry's address: one of them is __x64_sys_NAME */
			for (const struct dw_symbol *s = sym; s >= k->symbols && s->addr == entry; s--)
				if (starts_with(s->name, "__x64_sys_") &&
				    strcmp(s->name, "__x64_sys_ni_syscall") != 0)
					strlist_add(names, s->name + strlen("__x64_sys_"));
			for (const struct dw_symbol *s = sym + 1;
			     s < k->symbols + k->nsymbols && s->addr == entry; s++)
				if (starts_with(s->name, "__x64_sys_") &&
				    strcmp(s->name, "__x64_sys_ni_syscall") != 0)
					strlist_add(names, s->name + strlen("__x64_sys_"));
		}
		return names->count > 0;
	}
	return false;
}

/* The tapset's text for the kernel K. */
/* Adds to NAMES the NAME of each function symbol PREFIXNAME of K but PREFIXni_syscall. */
static void entry_symbols(struct dw_module *k, const char *prefix, struct strlist *names)
{
	for (int i = 0; i < k->nsymbols; i++) {
		const struct dw_symbol *s = &k->symbols[i];
		const char *name = s->name + strlen(prefix);

		if (s->function && starts_with(s->name, prefix) && *name &&
		    strcmp(name, "ni_syscall") != 0)
			strlist_add(names, name);
	}
}

static bool has_name(const struct strlist *sorted, const char *name)
{
	return sorted->count && bsearch(&name, sorted->items, sorted->count,
					sizeof(*sorted->items), compare_names);
}

static void sort_names(struct strlist *names)
{
	if (names->count)
		qsort(names->items, names->count, sizeof(*names->items), compare_names);
}

/* Whether NAME's 32-bit entry point is its 64-bit one (an alias: SYSCALL_DEFINE0). */
static bool same_entry(struct dw_module *k, const char *name)
{
	char *x64 = xasprintf("%s%s", x64_abi.entry, name);
	char *ia32 = xasprintf("%s%s", ia32_abi.entry, name);
	const struct dw_symbol *a = dw_symbol_named(k, x64), *b = dw_symbol_named(k, ia32);

	free(x64);
	free(ia32);
	return a && b && a->addr == b->addr;
}

/*
 * The tapset's text for the kernel K: the 64-bit calls, those of x86-64's table (or,
 * without it, every __x64_sys_ entry point), then the 32-bit ones where the kernel has
 * them (IA32_EMULATION), through the compat entry point when there is one.
 */
static char *generate(struct dw_module *k)
{
	struct dw_index *index = dw_module_index(k);
	struct strbuf sb = { 0 };
	struct strlist x64 = { 0 }, ia32 = { 0 }, compat = { 0 };

	sb_printf(&sb, "// syscalls.stp - the system calls of %s, generated by stapler's "
		  "src/syscall_tapset.c\n// from its DWARF: do not edit.\n\n", k->path);
	sb_puts(&sb, "// how many characters of a buffer argstr shows (stap -G to change it)\n"
		"global syscall_string_trunc = 50\n\n");
	if (!table_syscalls(k, &x64))
		entry_symbols(k, x64_abi.entry, &x64);
	sort_names(&x64);
	for (int i = 0; i < x64.count; i++)
		if (!i || strcmp(x64.items[i], x64.items[i - 1]) != 0)
			put_syscall(&sb, k, index, &x64_abi, x64.items[i]);

	entry_symbols(k, ia32_compat_abi.entry, &compat);
	sort_names(&compat);
	entry_symbols(k, ia32_abi.entry, &ia32);
	for (int i = 0; i < compat.count; i++)
		strlist_add(&ia32, compat.items[i]);
	sort_names(&ia32);
	if (ia32.count)
		sb_puts(&sb, "// 32-bit system calls (ia32)\n\n");
	for (int i = 0; i < ia32.count; i++) {
		const char *name = ia32.items[i];

		if ((i && strcmp(name, ia32.items[i - 1]) == 0) ||
		    (has_name(&x64, name) && same_entry(k, name)))
			continue;
		if (!(has_name(&compat, name) &&
		      put_syscall(&sb, k, index, &ia32_compat_abi, name)))
			put_syscall(&sb, k, index, &ia32_abi, name);
	}
	strlist_free(&x64);
	strlist_free(&ia32);
	strlist_free(&compat);
	return sb_steal(&sb);
}

char *syscall_tapset_dir(struct elaborator *el)
{
	struct dw_module *k = debuginfo_kernel(elaborator_debuginfo(el));
	struct hasher h;
	char *exe = realpath("/proc/self/exe", NULL), *key, *root, *dir, *path, *text;
	struct stat st;

	if (!k || !dw_module_index(k))
		return NULL;
	hasher_init(&h);
	hash_string(&h, GENERATOR);
	hash_file_stat(&h, k->path);
	hash_file_stat(&h, exe ? exe : "/proc/self/exe");
	free(exe);
	key = hasher_hex(&h);
	root = cache_dir();
	dir = xasprintf("%s/tapsets/%s", root, key);
	path = xasprintf("%s/syscalls.stp", dir);
	free(root);
	free(key);
	if (stat(path, &st) != 0) {
		text = generate(k);
		if (make_dirs(dir) != 0 || install_file(path, text, strlen(text)) != 0) {
			free(dir);
			dir = NULL;
		}
		free(text);
	}
	free(path);
	return dir;
}
