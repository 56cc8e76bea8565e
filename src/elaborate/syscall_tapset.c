/*
 * syscall_tapset.c - the syscall.*, nd_syscall.* and tp_syscall.* probe aliases,
 * generated for the target kernel from its own DWARF.
 *
 * Each system call NAME of x86-64 has an entry point __x64_sys_NAME(const struct
 * pt_regs *regs) in the kernel's symbol table, and (when it takes arguments) the
 * function SYSCALL_DEFINE made of its body, __do_sys_NAME, whose parameters are the
 * arguments with their names and C types.  From them this file writes, for each:
 *
 *   probe syscall.NAME = kprobe.function("__x64_sys_NAME") { ... }
 *   probe syscall.NAME.return = kprobe.function("__x64_sys_NAME").return { ... }
 *   probe nd_syscall.NAME (.return): the same
 *   probe tp_syscall.NAME = kernel.trace("raw_syscalls:sys_enter") { ... }
 *   probe tp_syscall.NAME.return = kernel.trace("raw_syscalls:sys_exit") { ... }
 *
 * The arguments are read from the saved user registers (di, si, dx, r10, r8, r9) of the
 * pt_regs the entry point gets or the tracepoint passes (its layout is the x86-64
 * ABI's, no DWARF needed to read it); the tracepoints' handlers let every call go but
 * NAME's numbers in the build tree's table of the task's ABI.  Each handler sets
 * `name`, `argstr` (as strace and stap show it) and one variable per
 * argument, named and shown by its type (a const char * is a string: NAME quoted and
 * NAME_unquoted; another pointer NAME_uaddr; numbers by their size and sign); the
 * return probes set `retstr` ("-2 (ENOENT)").  The table below, written by hand, says
 * where stap's tapset names an argument otherwise or decodes it (flags_str, dfd_str:
 * tapset/syscall_args.stp).
 *
 * The tapset is written once per kernel into the cache (CACHE/tapsets/KEY/, KEY a hash of
 * the kernel's debuginfo file and of this program), a file per system call and
 * syscalls.stp (install_split()), and that folder joins the tapset search path when a
 * script or -l/-L names a syscall probe.
 */
#include "elaborate.h"
#include "cache.h"
#include "debuginfo/ctype.h"
#include "debuginfo/dw.h"

#include <ctype.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GENERATOR "syscalls-41"
#define IA32_HEADING "// 32-bit system calls (ia32)"	/* what follows is theirs */

/* How an argument is kept and shown. */
enum arg_kind {
	ARG_DEFAULT,		/* by its type */
	ARG_STRING,		/* a user string: NAME (quoted), NAME_unquoted */
	ARG_POINTER,		/* NAME_uaddr, shown 0x... */
	ARG_SIGNED,		/* NAME, %d */
	ARG_UNSIGNED,		/* NAME, %u */
	ARG_HEX,		/* NAME, 0x%x */
	ARG_ADDRESS,		/* a pointer kept as NAME (not NAME_uaddr), %p */
	ARG_OCTAL,		/* NAME, %#o */
	ARG_BUFFER,		/* a user buffer of COUNT bytes: NAME_uaddr, NAME_str (quoted) */
	ARG_ARGV,		/* a user array of strings: NAME, ["a", "b"] */
	ARG_STRING_AT,		/* a user string as NAME (its address), NAME_str (quoted) and
				 * NAME_str_unquoted, as stap names some */
	ARG_OMITTED,		/* neither a variable nor in argstr (stap 4.8 has none) */
	ARG_SOCKADDR,		/* a user socket address of COUNT bytes: NAME_uaddr and the
				 * uaddr_af, uaddr_ip, ... of its parts; argstr shows it */
	ARG_INT,		/* a C int in a wider parameter: NAME, its low 32 bits
				 * sign-extended, %d */
	ARG_STRING_SHOWN,	/* a user string kept as NAME_uaddr, shown quoted in argstr */
	ARG_BUFFER_SHOWN,	/* a user buffer of COUNT bytes kept as NAME_uaddr, shown
				 * quoted in argstr */
};

/*
 * Where stap's tapset differs from the defaults: for SYSCALL ("*": any) and the kernel's
 * parameter PARAM, the variable's name VAR, its kind, and a decoder (a tapset function
 * of the value, VAR_str = DECODER(VAR), shown in argstr in its place; STR names VAR_str
 * otherwise, SHOWN is argstr's format for it).
 */
struct arg_rule {
	const char *syscall, *param;
	const char *var;		/* NULL: PARAM */
	enum arg_kind kind;
	const char *decoder;
	const char *str;		/* the decoded variable's name (NULL: VAR_str) */
	const char *count;		/* ARG_BUFFER, ARG_SOCKADDR: the parameter with its
					 * size; with a decoder, a parameter it takes too,
					 * or a number ("1") */
	const char *shown;		/* how argstr shows the decoded value (NULL: "%s") */
	bool count_first;		/* the decoder takes COUNT's value first */
};

#define KIND(syscall, param, kind) \
	{ syscall, param, NULL, kind, NULL, NULL, NULL, NULL, false }
#define RENAME(syscall, param, var, kind) \
	{ syscall, param, var, kind, NULL, NULL, NULL, NULL, false }
#define DECODE(syscall, param, kind, decoder) \
	{ syscall, param, NULL, kind, decoder, NULL, NULL, NULL, false }
#define DECODE_RENAMED(syscall, param, var, kind, decoder) \
	{ syscall, param, var, kind, decoder, NULL, NULL, NULL, false }
#define DECODE_AS(syscall, param, kind, decoder, str) \
	{ syscall, param, NULL, kind, decoder, str, NULL, NULL, false }
#define BUFFER(syscall, param, count) \
	{ syscall, param, NULL, ARG_BUFFER, NULL, NULL, count, NULL, false }
#define ARGV(syscall, param, var) \
	{ syscall, param, var, ARG_ARGV, NULL, NULL, NULL, NULL, false }
#define DECODE_SHOWN(syscall, param, kind, decoder, shown) \
	{ syscall, param, NULL, kind, decoder, NULL, NULL, shown, false }
/* VAR_str = DECODER(VAR, WITH), or DECODER(WITH, VAR): WITH another parameter's value */
#define DECODE_WITH(syscall, param, var, kind, decoder, with) \
	{ syscall, param, var, kind, decoder, NULL, with, NULL, false }
#define DECODE_AFTER(syscall, param, kind, decoder, with) \
	{ syscall, param, NULL, kind, decoder, NULL, with, NULL, true }
#define SOCKADDR(syscall, param, var, count) \
	{ syscall, param, var, ARG_SOCKADDR, NULL, NULL, count, NULL, false }
#define BUFFER_AS(syscall, param, var, count, str) \
	{ syscall, param, var, ARG_BUFFER, NULL, str, count, NULL, false }

/* Each call's and parameter's rule once, in groups by what it says, by call within each. */
static const struct arg_rule arg_rules[] = {
	/* shown otherwise than their type says */
	KIND("brk", "brk", ARG_HEX),
	KIND("chmod", "mode", ARG_OCTAL),
	KIND("clone", "tls", ARG_OMITTED),
	KIND("copy_file_range", "flags", ARG_HEX),
	KIND("creat", "mode", ARG_OCTAL),
	KIND("dup2", "oldfd", ARG_SIGNED),
	KIND("dup3", "oldfd", ARG_SIGNED),
	KIND("fchmod", "mode", ARG_OCTAL),
	KIND("fchmodat", "mode", ARG_OCTAL),
	KIND("fcntl", "arg", ARG_HEX),
	KIND("flock", "fd", ARG_INT),
	KIND("ia32_ftruncate64", "fd", ARG_INT),
	KIND("ia32_pwrite64", "fd", ARG_INT),
	KIND("lookup_dcookie", "len", ARG_HEX),
	KIND("membarrier", "cpu_id", ARG_OMITTED),
	KIND("mkdir", "mode", ARG_OCTAL),
	KIND("mkdirat", "mode", ARG_OCTAL),
	KIND("open", "mode", ARG_OCTAL),
	KIND("openat", "mode", ARG_OCTAL),
	KIND("pread64", "buf", ARG_POINTER),
	KIND("preadv", "fd", ARG_INT),
	KIND("preadv2", "fd", ARG_INT),
	KIND("pwritev", "fd", ARG_INT),
	KIND("pwritev2", "fd", ARG_INT),
	KIND("quotactl", "special", ARG_STRING_AT),
	KIND("read", "buf", ARG_POINTER),
	KIND("renameat", "newname", ARG_STRING_AT),
	KIND("renameat", "oldname", ARG_STRING_AT),
	KIND("renameat2", "newname", ARG_STRING_AT),
	KIND("renameat2", "oldname", ARG_STRING_AT),
	KIND("symlinkat", "newname", ARG_STRING_AT),
	KIND("symlinkat", "oldname", ARG_STRING_AT),
	KIND("tee", "flags", ARG_HEX),
	KIND("umask", "mask", ARG_OCTAL),
	KIND("unlinkat", "pathname", ARG_STRING_AT),
	KIND("utime", "filename", ARG_STRING),		/* char *, not const */
	KIND("utimes", "filename", ARG_STRING),
	/* named otherwise than the kernel names them */
	RENAME("_sysctl", "args", "args", ARG_HEX),
	RENAME("accept", "fd", "sockfd", ARG_SIGNED),
	RENAME("accept", "upeer_addrlen", "addrlen", ARG_POINTER),
	RENAME("accept", "upeer_sockaddr", "addr", ARG_POINTER),
	RENAME("accept4", "fd", "sockfd", ARG_SIGNED),
	RENAME("accept4", "upeer_addrlen", "addrlen", ARG_POINTER),
	RENAME("accept4", "upeer_sockaddr", "addr", ARG_POINTER),
	RENAME("add_key", "_description", "description", ARG_STRING_SHOWN),
	{ "add_key", "_payload", "payload", ARG_BUFFER_SHOWN, NULL, NULL, "plen", NULL, false },
	RENAME("add_key", "_type", "type", ARG_STRING_SHOWN),
	RENAME("access", "filename", "pathname", ARG_STRING),
	RENAME("acct", "name", "filename", ARG_STRING),
	RENAME("arch_prctl", "arg2", "addr", ARG_UNSIGNED),
	RENAME("bind", "fd", "sockfd", ARG_SIGNED),
	RENAME("bpf", "uattr", "attr", ARG_POINTER),
	RENAME("capget", "dataptr", "data", ARG_POINTER),
	RENAME("chdir", "filename", "path", ARG_STRING),
	RENAME("chmod", "filename", "path", ARG_STRING),
	RENAME("chown", "filename", "path", ARG_STRING),
	RENAME("chown", "user", "owner", ARG_UNSIGNED),
	RENAME("chroot", "filename", "path", ARG_STRING),
	RENAME("clock_getres", "tp", "res", ARG_POINTER),
	RENAME("copy_file_range", "off_in", "off_in", ARG_ADDRESS),
	RENAME("copy_file_range", "off_out", "off_out", ARG_ADDRESS),
	RENAME("clock_nanosleep", "rmtp", "rem", ARG_POINTER),
	RENAME("connect", "fd", "sockfd", ARG_SIGNED),
	RENAME("dup", "fildes", "oldfd", ARG_UNSIGNED),
	RENAME("exit", "error_code", "status", ARG_SIGNED),
	RENAME("exit_group", "error_code", "status", ARG_SIGNED),
	RENAME("faccessat", "filename", "pathname", ARG_STRING),
	RENAME("faccessat2", "filename", "pathname", ARG_STRING),
	RENAME("fchmod", "fd", "fildes", ARG_UNSIGNED),
	RENAME("fchown", "user", "owner", ARG_UNSIGNED),
	RENAME("fchown16", "user", "owner", ARG_UNSIGNED),
	RENAME("fgetxattr", "fd", "filedes", ARG_SIGNED),
	RENAME("flistxattr", "fd", "filedes", ARG_SIGNED),
	RENAME("futex", "uaddr", "futex", ARG_POINTER),
	RENAME("getdents", "dirent", "dirp", ARG_POINTER),
	RENAME("getdents64", "dirent", "dirp", ARG_POINTER),
	RENAME("getrusage", "ru", "usage", ARG_POINTER),
	RENAME("getxattr", "pathname", "path", ARG_STRING),
	/* the 32-bit calls of a 64-bit offset or length in two registers, shown whole
	 * (alias_variables), their variables named as the 64-bit call's */
	RENAME("ia32_fadvise64", "len", "len", ARG_SIGNED),
	RENAME("ia32_fadvise64_64", "len_high", "len_high", ARG_OMITTED),
	RENAME("ia32_fadvise64_64", "len_low", "len", ARG_SIGNED),
	RENAME("ia32_fadvise64_64", "offset_high", "offset_high", ARG_OMITTED),
	RENAME("ia32_fadvise64_64", "offset_low", "offset", ARG_SIGNED),
	RENAME("ia32_fallocate", "len_hi", "len_hi", ARG_OMITTED),
	RENAME("ia32_fallocate", "len_lo", "len", ARG_SIGNED),
	RENAME("ia32_fallocate", "offset_hi", "offset_hi", ARG_OMITTED),
	RENAME("ia32_fallocate", "offset_lo", "offset", ARG_HEX),
	RENAME("ia32_fadvise64", "offset_hi", "offset_hi", ARG_OMITTED),
	RENAME("ia32_fadvise64", "offset_lo", "offset", ARG_SIGNED),
	RENAME("ia32_readahead", "off_hi", "off_hi", ARG_OMITTED),
	RENAME("ia32_readahead", "off_lo", "offset", ARG_SIGNED),
	RENAME("ia32_ftruncate64", "offset_high", "offset_high", ARG_OMITTED),
	RENAME("ia32_ftruncate64", "offset_low", "length", ARG_SIGNED),
	RENAME("ia32_pread64", "poshi", "poshi", ARG_OMITTED),
	RENAME("ia32_pread64", "poslo", "offset", ARG_SIGNED),
	RENAME("ia32_pread64", "ubuf", "buf", ARG_POINTER),
	RENAME("ia32_pwrite64", "poshi", "poshi", ARG_OMITTED),
	RENAME("ia32_pwrite64", "poslo", "offset", ARG_SIGNED),
	RENAME("ia32_sync_file_range", "n_hi", "n_hi", ARG_OMITTED),
	RENAME("ia32_sync_file_range", "n_low", "nbytes", ARG_SIGNED),
	RENAME("ia32_sync_file_range", "off_hi", "off_hi", ARG_OMITTED),
	RENAME("ia32_sync_file_range", "off_low", "offset", ARG_SIGNED),
	RENAME("ia32_truncate64", "filename", "path", ARG_STRING),
	RENAME("ia32_truncate64", "offset_high", "offset_high", ARG_OMITTED),
	RENAME("ia32_truncate64", "offset_low", "length", ARG_SIGNED),
	RENAME("inotify_add_watch", "pathname", "path", ARG_STRING),
	RENAME("io_setup", "nr_events", "maxevents", ARG_UNSIGNED),
	RENAME("ioctl", "arg", "argp", ARG_UNSIGNED),
	RENAME("ioctl", "cmd", "request", ARG_UNSIGNED),
	RENAME("lchown", "filename", "path", ARG_STRING),
	RENAME("lchown", "user", "owner", ARG_UNSIGNED),
	RENAME("lgetxattr", "pathname", "path", ARG_STRING),
	RENAME("link", "newname", "newpath", ARG_STRING),
	RENAME("link", "oldname", "oldpath", ARG_STRING),
	RENAME("listen", "fd", "sockfd", ARG_SIGNED),
	RENAME("listxattr", "pathname", "path", ARG_STRING),
	RENAME("llistxattr", "pathname", "path", ARG_STRING),
	RENAME("lookup_dcookie", "cookie64", "cookie", ARG_HEX),
	RENAME("lookup_dcookie", "buf", "buffer", ARG_POINTER),
	RENAME("lremovexattr", "pathname", "path", ARG_STRING),
	RENAME("lseek", "fd", "fildes", ARG_UNSIGNED),
	RENAME("madvise", "len_in", "length", ARG_UNSIGNED),
	RENAME("migrate_pages", "new_nodes", "new_nodes", ARG_HEX),
	RENAME("migrate_pages", "old_nodes", "old_nodes", ARG_HEX),
	RENAME("mincore", "len", "length", ARG_UNSIGNED),
	RENAME("mlock", "start", "addr", ARG_HEX),
	RENAME("mmap", "addr", "start", ARG_POINTER),
	RENAME("mmap", "len", "length", ARG_UNSIGNED),
	RENAME("mmap", "off", "offset", ARG_UNSIGNED),
	RENAME("mmap_pgoff", "addr", "start", ARG_HEX),
	RENAME("mmap_pgoff", "len", "length", ARG_UNSIGNED),
	RENAME("mmap_pgoff", "pgoff", "pgoffset", ARG_UNSIGNED),
	RENAME("move_pages", "nodes", "nodes", ARG_HEX),
	RENAME("move_pages", "pages", "pages", ARG_HEX),
	RENAME("move_pages", "status", "status", ARG_HEX),
	RENAME("mount", "data", "data", ARG_STRING),
	RENAME("mount", "dev_name", "source", ARG_STRING),
	RENAME("mount", "dir_name", "target", ARG_STRING),
	RENAME("mount", "type", "filesystemtype", ARG_STRING),
	RENAME("mprotect", "start", "addr", ARG_HEX),
	RENAME("mq_notify", "u_notification", "notification", ARG_POINTER),
	RENAME("msync", "len", "length", ARG_UNSIGNED),
	RENAME("munlock", "start", "addr", ARG_HEX),
	RENAME("munmap", "addr", "start", ARG_HEX),
	RENAME("munmap", "len", "length", ARG_UNSIGNED),
	RENAME("name_to_handle_at", "name", "pathname", ARG_STRING),
	RENAME("nanosleep", "rmtp", "rem", ARG_POINTER),
	RENAME("newfstat", "fd", "filedes", ARG_UNSIGNED),
	RENAME("newfstat", "statbuf", "buf", ARG_POINTER),
	RENAME("newfstatat", "filename", "path", ARG_STRING),
	RENAME("newfstatat", "statbuf", "buf", ARG_POINTER),
	RENAME("newlstat", "filename", "path", ARG_STRING),
	RENAME("newlstat", "statbuf", "buf", ARG_POINTER),
	RENAME("newstat", "statbuf", "buf", ARG_POINTER),
	RENAME("newuname", "name", "name", ARG_POINTER),
	RENAME("nice", "increment", "inc", ARG_SIGNED),
	RENAME("old_readdir", "dirent", "dirent", ARG_UNSIGNED),
	RENAME("oldumount", "name", "target", ARG_STRING),
	RENAME("personality", "personality", "persona", ARG_UNSIGNED),
	RENAME("pivot_root", "new_root", "new_root_str", ARG_STRING),
	RENAME("pivot_root", "put_old", "old_root_str", ARG_STRING),
	RENAME("poll", "timeout_msecs", "timeout", ARG_SIGNED),
	RENAME("ppoll", "sigmask", "sigmask", ARG_ADDRESS),
	RENAME("pread64", "pos", "offset", ARG_SIGNED),
	/* the preadv family's offset: x86-64's pos_l (the kernel shifts pos_h out), a 32-bit
	 * call's pos_low and pos_high (alias_variables) */
	RENAME("preadv", "pos_h", "pos_h", ARG_OMITTED),
	RENAME("preadv", "pos_high", "pos_high", ARG_OMITTED),
	RENAME("preadv", "pos_l", "offset", ARG_HEX),
	RENAME("preadv", "pos_low", "offset", ARG_HEX),
	RENAME("preadv", "vec", "vector", ARG_POINTER),
	RENAME("preadv", "vlen", "count", ARG_SIGNED),
	RENAME("preadv2", "pos_h", "pos_h", ARG_OMITTED),
	RENAME("preadv2", "pos_high", "pos_high", ARG_OMITTED),
	RENAME("preadv2", "pos_l", "offset", ARG_HEX),
	RENAME("preadv2", "pos_low", "offset", ARG_HEX),
	RENAME("preadv2", "vec", "vector", ARG_POINTER),
	RENAME("preadv2", "vlen", "count", ARG_SIGNED),
	RENAME("pselect6", "exp", "exceptfds", ARG_ADDRESS),
	RENAME("pselect6", "inp", "readfds", ARG_ADDRESS),
	RENAME("pselect6", "n", "nfds", ARG_SIGNED),
	RENAME("pselect6", "outp", "writefds", ARG_ADDRESS),
	RENAME("pselect6", "sig", "sigmask", ARG_ADDRESS),
	RENAME("pwrite64", "pos", "offset", ARG_SIGNED),
	RENAME("pwritev", "pos_h", "pos_h", ARG_OMITTED),
	RENAME("pwritev", "pos_high", "pos_high", ARG_OMITTED),
	RENAME("pwritev", "pos_l", "offset", ARG_HEX),
	RENAME("pwritev", "pos_low", "offset", ARG_HEX),
	RENAME("pwritev", "vec", "vector", ARG_POINTER),
	RENAME("pwritev", "vlen", "count", ARG_SIGNED),
	RENAME("pwritev2", "pos_h", "pos_h", ARG_OMITTED),
	RENAME("pwritev2", "pos_high", "pos_high", ARG_OMITTED),
	RENAME("pwritev2", "pos_l", "offset", ARG_HEX),
	RENAME("pwritev2", "pos_low", "offset", ARG_HEX),
	RENAME("pwritev2", "vec", "vector", ARG_POINTER),
	RENAME("pwritev2", "vlen", "count", ARG_SIGNED),
	RENAME("readlinkat", "pathname", "path", ARG_STRING),
	RENAME("readv", "vec", "vector", ARG_POINTER),
	RENAME("readv", "vlen", "count", ARG_UNSIGNED),
	RENAME("recvfrom", "addr_len", "addrlen", ARG_POINTER),
	RENAME("recvfrom", "fd", "s", ARG_SIGNED),
	RENAME("recvfrom", "size", "len", ARG_UNSIGNED),
	RENAME("recvfrom", "ubuf", "buf", ARG_POINTER),
	RENAME("recvmsg", "fd", "s", ARG_SIGNED),
	RENAME("removexattr", "pathname", "path", ARG_STRING),
	RENAME("rename", "newname", "newpath", ARG_STRING),
	RENAME("rename", "oldname", "oldpath", ARG_STRING),
	RENAME("request_key", "_callout_info", "callout_info", ARG_POINTER),
	RENAME("request_key", "_description", "description_str", ARG_STRING),
	RENAME("request_key", "_type", "type_str", ARG_STRING),
	RENAME("rt_sigpending", "uset", "set", ARG_POINTER),
	RENAME("rt_sigprocmask", "oset", "oldset", ARG_POINTER),
	RENAME("sched_getaffinity", "user_mask_ptr", "mask", ARG_POINTER),
	RENAME("sched_getparam", "param", "p", ARG_POINTER),
	RENAME("sched_rr_get_interval", "interval", "tp", ARG_POINTER),
	RENAME("sched_setaffinity", "user_mask_ptr", "mask", ARG_POINTER),
	RENAME("sched_setparam", "param", "p", ARG_POINTER),
	RENAME("sched_setscheduler", "param", "p", ARG_POINTER),
	RENAME("select", "exp", "exceptfds", ARG_POINTER),
	RENAME("select", "inp", "readfds", ARG_POINTER),
	RENAME("select", "outp", "writefds", ARG_POINTER),
	RENAME("semop", "tsops", "sops", ARG_POINTER),
	RENAME("sendmsg", "fd", "s", ARG_SIGNED),
	RENAME("sendto", "addr_len", "tolen", ARG_SIGNED),
	RENAME("sendto", "fd", "s", ARG_SIGNED),
	RENAME("set_robust_list", "head", "list_head", ARG_POINTER),
	RENAME("shmctl", "uptr", "buf", ARG_POINTER),		/* a 32-bit call's */
	RENAME("msgctl", "uptr", "buf", ARG_POINTER),		/* a 32-bit call's */
	KIND("msgrcv", "msgp", ARG_POINTER),			/* a 32-bit call's: a number */
	KIND("msgsnd", "msgp", ARG_POINTER),
	KIND("shmat", "shmaddr", ARG_POINTER),
	RENAME("ustat", "u", "ubuf", ARG_POINTER),
	RENAME("sigpending", "set32", "set", ARG_ADDRESS),
	RENAME("sigsuspend", "unused1", "unused1", ARG_OMITTED),
	RENAME("sigsuspend", "unused2", "unused2", ARG_OMITTED),
	RENAME("setdomainname", "name", "domainname_str", ARG_STRING),
	RENAME("setfsgid", "gid", "fsgid", ARG_UNSIGNED),
	RENAME("setfsuid", "uid", "fsuid", ARG_UNSIGNED),
	RENAME("sethostname", "name", "name_str", ARG_STRING),
	RENAME("setpriority", "niceval", "prio", ARG_SIGNED),
	RENAME("shutdown", "fd", "s", ARG_SIGNED),
	RENAME("splice", "off_in", "off_in", ARG_ADDRESS),
	RENAME("splice", "off_out", "off_out", ARG_ADDRESS),
	RENAME("statfs", "pathname", "path", ARG_STRING),
	RENAME("statfs64", "pathname", "path", ARG_STRING),
	RENAME("stime", "tptr", "t", ARG_POINTER),
	RENAME("swapoff", "specialfile", "path", ARG_STRING),
	RENAME("symlink", "newname", "newpath", ARG_STRING),
	RENAME("symlink", "oldname", "oldpath", ARG_STRING),
	RENAME("syslog", "buf", "bufp", ARG_POINTER),
	RENAME("time", "tloc", "t", ARG_POINTER),
	RENAME("timer_delete", "timer_id", "timerid", ARG_SIGNED),
	RENAME("timer_getoverrun", "timer_id", "timerid", ARG_SIGNED),
	RENAME("umount", "name", "target", ARG_STRING),
	RENAME("utime", "times", "buf", ARG_POINTER),
	RENAME("utime32", "t", "buf", ARG_POINTER),
	RENAME("vmsplice", "uiov", "iov", ARG_HEX),
	RENAME("wait4", "ru", "rusage", ARG_POINTER),
	RENAME("wait4", "stat_addr", "status", ARG_POINTER),
	RENAME("wait4", "upid", "pid", ARG_SIGNED),
	RENAME("writev", "vec", "vector", ARG_POINTER),
	RENAME("writev", "vlen", "count", ARG_UNSIGNED),
	/* named as stap 4.8 names them (tapset::syscalls(3stap)) */
	DECODE_RENAMED("faccessat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("faccessat2", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("fanotify_mark", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("fchmodat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("fchownat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("futimesat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("linkat", "newdfd", "newdirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("linkat", "olddfd", "olddirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("mkdirat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("mknodat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	RENAME("chown16", "filename", "path", ARG_DEFAULT),
	RENAME("chown16", "user", "owner", ARG_DEFAULT),
	RENAME("clone", "child_tidptr", "child_tid", ARG_DEFAULT),
	RENAME("clone", "newsp", "stack_start", ARG_HEX),
	RENAME("clone", "parent_tidptr", "parent_tid", ARG_DEFAULT),
	RENAME("fchmodat", "filename", "pathname", ARG_DEFAULT),
	RENAME("fchownat", "filename", "pathname", ARG_DEFAULT),
	RENAME("fchownat", "user", "owner", ARG_DEFAULT),
	RENAME("fremovexattr", "fd", "filedes", ARG_DEFAULT),
	RENAME("fsetxattr", "fd", "filedes", ARG_DEFAULT),
	RENAME("get_robust_list", "head_ptr", "list_head", ARG_DEFAULT),
	RENAME("get_robust_list", "len_ptr", "len", ARG_DEFAULT),
	RENAME("getcpu", "cpup", "cpu", ARG_DEFAULT),
	RENAME("getcpu", "nodep", "node", ARG_DEFAULT),
	RENAME("getcpu", "unused", "tcache", ARG_DEFAULT),
	RENAME("getgroups", "gidsetsize", "size", ARG_DEFAULT),
	RENAME("getgroups", "grouplist", "list", ARG_DEFAULT),
	RENAME("getpeername", "fd", "s", ARG_DEFAULT),
	RENAME("getpeername", "usockaddr", "name", ARG_DEFAULT),
	RENAME("getpeername", "usockaddr_len", "namelen", ARG_DEFAULT),
	RENAME("getrandom", "len", "count", ARG_DEFAULT),
	RENAME("getrandom", "ubuf", "buf", ARG_STRING),
	RENAME("getresgid", "egidp", "egid", ARG_DEFAULT),
	RENAME("getresgid", "rgidp", "rgid", ARG_DEFAULT),
	RENAME("getresgid", "sgidp", "sgid", ARG_DEFAULT),
	RENAME("getresuid", "euidp", "euid", ARG_DEFAULT),
	RENAME("getresuid", "ruidp", "ruid", ARG_DEFAULT),
	RENAME("getresuid", "suidp", "suid", ARG_DEFAULT),
	RENAME("getsockname", "fd", "s", ARG_DEFAULT),
	RENAME("getsockname", "usockaddr", "name", ARG_DEFAULT),
	RENAME("getsockname", "usockaddr_len", "namelen", ARG_DEFAULT),
	RENAME("kexec_file_load", "cmdline_ptr", "cmdline", ARG_DEFAULT),
	RENAME("lchown16", "filename", "path", ARG_DEFAULT),
	RENAME("lchown16", "user", "owner", ARG_DEFAULT),
	RENAME("linkat", "newname", "newpath", ARG_DEFAULT),
	RENAME("linkat", "oldname", "oldpath", ARG_DEFAULT),
	RENAME("lsetxattr", "pathname", "path", ARG_DEFAULT),
	RENAME("mknod", "filename", "pathname", ARG_DEFAULT),
	RENAME("mknodat", "filename", "pathname", ARG_DEFAULT),
	RENAME("mlock2", "start", "addr", ARG_DEFAULT),
	RENAME("mq_open", "u_name", "filename", ARG_DEFAULT),
	RENAME("mq_timedreceive", "u_abs_timeout", "abs_timeout", ARG_DEFAULT),
	RENAME("mq_timedreceive", "u_msg_prio", "msg_prio", ARG_DEFAULT),
	RENAME("mq_timedreceive", "u_msg_ptr", "msg_ptr", ARG_DEFAULT),
	RENAME("mq_timedsend", "u_abs_timeout", "abs_timeout", ARG_DEFAULT),
	RENAME("mq_timedsend", "u_msg_ptr", "msg_ptr", ARG_POINTER),
	RENAME("mremap", "addr", "old_address", ARG_DEFAULT),
	RENAME("mremap", "new_addr", "new_address", ARG_DEFAULT),
	RENAME("mremap", "new_len", "new_size", ARG_DEFAULT),
	RENAME("mremap", "old_len", "old_size", ARG_DEFAULT),
	RENAME("perf_event_open", "attr_uptr", "attr", ARG_DEFAULT),
	RENAME("pkey_mprotect", "start", "addr", ARG_DEFAULT),
	RENAME("ppoll", "ufds", "fds", ARG_DEFAULT),
	RENAME("process_vm_readv", "lvec", "local_iov", ARG_DEFAULT),
	RENAME("process_vm_readv", "rvec", "remote_iov", ARG_DEFAULT),
	RENAME("process_vm_writev", "lvec", "local_iov", ARG_DEFAULT),
	RENAME("process_vm_writev", "rvec", "remote_iov", ARG_DEFAULT),
	RENAME("recv", "fd", "s", ARG_DEFAULT),
	RENAME("recvmmsg", "fd", "s", ARG_DEFAULT),
	RENAME("rt_tgsigqueueinfo", "pid", "tid", ARG_DEFAULT),
	RENAME("sched_getattr", "usize", "size", ARG_DEFAULT),
	RENAME("semtimedop", "tsops", "sops", ARG_DEFAULT),
	RENAME("send", "fd", "s", ARG_DEFAULT),
	RENAME("sendmmsg", "fd", "s", ARG_DEFAULT),
	RENAME("setgroups", "gidsetsize", "size", ARG_DEFAULT),
	RENAME("setgroups", "grouplist", "list", ARG_DEFAULT),
	RENAME("setxattr", "pathname", "path", ARG_DEFAULT),
	RENAME("sigprocmask", "nset", "set", ARG_DEFAULT),
	RENAME("sigprocmask", "oset", "oldset", ARG_DEFAULT),
	RENAME("socketpair", "usockvec", "sv", ARG_DEFAULT),
	RENAME("statx", "buffer", "buf", ARG_DEFAULT),
	RENAME("swapon", "specialfile", "path", ARG_DEFAULT),
	RENAME("timer_create", "created_timer_id", "timerid", ARG_DEFAULT),
	RENAME("timer_create", "timer_event_spec", "evp", ARG_DEFAULT),
	RENAME("timer_gettime", "setting", "value", ARG_DEFAULT),
	RENAME("timer_gettime", "timer_id", "timerid", ARG_DEFAULT),
	RENAME("timer_settime", "old_setting", "ovalue", ARG_DEFAULT),
	RENAME("timer_settime", "timer_id", "timerid", ARG_DEFAULT),
	RENAME("timerfd_gettime", "otmr", "value", ARG_DEFAULT),
	RENAME("timerfd_gettime", "ufd", "fd", ARG_DEFAULT),
	RENAME("timerfd_settime", "otmr", "ovalue", ARG_DEFAULT),
	RENAME("timerfd_settime", "ufd", "fd", ARG_DEFAULT),
	RENAME("waitid", "ru", "rusage", ARG_DEFAULT),
	RENAME("waitid", "upid", "pid", ARG_DEFAULT),
	RENAME("waitpid", "stat_addr", "status", ARG_DEFAULT),
	/* decoded: VAR_str = DECODER(VAR), shown in argstr in its place */
	DECODE("*", "dfd", ARG_SIGNED, "_dfd_str"),
	DECODE("*", "newdfd", ARG_SIGNED, "_dfd_str"),
	DECODE("*", "olddfd", ARG_SIGNED, "_dfd_str"),
	DECODE("accept4", "flags", ARG_SIGNED, "_sock_flags_str"),
	DECODE("access", "mode", ARG_SIGNED, "_access_mode_str"),
	DECODE("bpf", "cmd", ARG_SIGNED, "_bpf_cmd_str"),
	DECODE("clock_nanosleep", "flags", ARG_SIGNED, "_stp_clock_nanosleep_flags_str"),
	DECODE("clone", "clone_flags", ARG_UNSIGNED, "__fork_flags"),
	DECODE("delete_module", "flags", ARG_UNSIGNED, "_module_flags_str"),
	DECODE("dup3", "flags", ARG_SIGNED, "_dup3_flag_str"),
	DECODE("epoll_create1", "flags", ARG_SIGNED, "_epoll_create1_flag_str"),
	DECODE("epoll_ctl", "op", ARG_SIGNED, "_opoll_op_str"),
	DECODE("eventfd2", "flags", ARG_SIGNED, "_eventfd2_flag_str"),
	DECODE("execveat", "flags", ARG_UNSIGNED, "_at_flag_str"),
	DECODE("faccessat", "mode", ARG_SIGNED, "_access_mode_str"),
	DECODE("faccessat2", "flags", ARG_SIGNED, "_faccessat2_flags_str"),
	DECODE("faccessat2", "mode", ARG_SIGNED, "_access_mode_str"),
	DECODE("fallocate", "mode", ARG_SIGNED, "_stp_fallocate_mode_str"),
	DECODE("fanotify_init", "event_f_flags", ARG_UNSIGNED, "_sys_open_flag_str"),
	DECODE("fanotify_init", "flags", ARG_UNSIGNED, "_fanotify_init_flags_str"),
	DECODE("fanotify_mark", "flags", ARG_UNSIGNED, "_fanotify_mark_flags_str"),
	DECODE("fanotify_mark", "mask", ARG_UNSIGNED, "_fanotify_mark_mask_str"),
	DECODE_RENAMED("fchownat", "flag", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE("fcntl", "cmd", ARG_UNSIGNED, "_fcntl_cmd_str"),
	DECODE("finit_module", "flags", ARG_SIGNED, "_finit_module_flags_str"),
	DECODE_RENAMED("flock", "cmd", "operation", ARG_UNSIGNED, "_flock_cmd_str"),
	DECODE("fsetxattr", "flags", ARG_SIGNED, "_stp_xattr_flags_str"),
	DECODE("futex", "op", ARG_SIGNED, "_futex_op_str"),
	DECODE("get_mempolicy", "flags", ARG_UNSIGNED, "_mempolicy_flags_str"),
	DECODE("getitimer", "which", ARG_SIGNED, "_itimer_which_str"),
	DECODE("getpriority", "which", ARG_SIGNED, "_priority_which_str"),
	DECODE("getrandom", "flags", ARG_UNSIGNED, "_getrandom_flags_str"),
	DECODE("getrlimit", "resource", ARG_UNSIGNED, "_rlimit_resource_str"),
	DECODE("getrusage", "who", ARG_SIGNED, "_rusage_who_str"),
	DECODE("getsockopt", "level", ARG_SIGNED, "_sockopt_level_str"),
	DECODE("getsockopt", "optname", ARG_SIGNED, "_sockopt_optname_str"),
	DECODE("inotify_add_watch", "mask", ARG_UNSIGNED, "_inotify_watch_mask_str"),
	DECODE("inotify_init1", "flags", ARG_SIGNED, "_inotify_init1_flag_str"),
	DECODE("ioprio_get", "which", ARG_SIGNED, "_stp_ioprio_which_str"),
	DECODE("ioprio_set", "ioprio", ARG_SIGNED, "_stp_ioprio_value_str"),
	DECODE("ioprio_set", "which", ARG_SIGNED, "_stp_ioprio_which_str"),
	DECODE("kcmp", "type", ARG_SIGNED, "_kcmp_type_str"),
	DECODE("kexec_file_load", "flags", ARG_UNSIGNED, "_kexec_file_load_flags_str"),
	DECODE("kexec_load", "flags", ARG_UNSIGNED, "_kexec_flags_str"),
	DECODE("linkat", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE("llseek", "whence", ARG_SIGNED, "_seek_whence_str"),
	DECODE("lseek", "whence", ARG_UNSIGNED, "_seek_whence_str"),
	DECODE("lsetxattr", "flags", ARG_SIGNED, "_stp_xattr_flags_str"),
	DECODE("mbind", "flags", ARG_UNSIGNED, "_mempolicy_flags_str"),
	DECODE("mbind", "mode", ARG_SIGNED, "_mempolicy_mode_str"),
	DECODE("membarrier", "cmd", ARG_SIGNED, "_membarrier_cmd_str"),
	DECODE("memfd_create", "flags", ARG_UNSIGNED, "_mfd_flags_str"),
	DECODE("memfd_secret", "flags", ARG_UNSIGNED, "_mfd_flags_str"),
	DECODE("mlock2", "flags", ARG_UNSIGNED, "_stp_mlock2_str"),
	DECODE("mlockall", "flags", ARG_SIGNED, "_mlockall_flags_str"),
	DECODE("mknod", "mode", ARG_OCTAL, "_mknod_mode_str"),
	DECODE("mknodat", "mode", ARG_OCTAL, "_mknod_mode_str"),
	DECODE("mmap", "flags", ARG_UNSIGNED, "_mmap_flags"),
	DECODE("mmap", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE("mmap_pgoff", "flags", ARG_UNSIGNED, "_mmap_flags"),
	DECODE("mmap_pgoff", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE("mprotect", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE("mq_open", "oflag", ARG_UNSIGNED, "_sys_open_flag_str"),
	DECODE("move_pages", "flags", ARG_SIGNED, "_mempolicy_flags_str"),
	DECODE("mremap", "flags", ARG_UNSIGNED, "_mremap_flags"),
	DECODE("msgctl", "cmd", ARG_SIGNED, "_stp_msgctl_cmd_str"),
	DECODE("msgget", "key", ARG_SIGNED, "_stp_msgget_key_str"),
	DECODE("msgget", "msgflg", ARG_UNSIGNED, "_stp_msgflg_str"),
	DECODE("msgrcv", "msgflg", ARG_UNSIGNED, "_stp_msgflg_str"),
	DECODE("msgsnd", "msgflg", ARG_UNSIGNED, "_stp_msgflg_str"),
	DECODE("msync", "flags", ARG_SIGNED, "_msync_flag_str"),
	DECODE("open", "flags", ARG_HEX, "_sys_open_flag_str"),
	DECODE("open_by_handle_at", "flags", ARG_HEX, "_sys_open_flag_str"),
	DECODE("openat", "flags", ARG_HEX, "_sys_open_flag_str"),
	DECODE("perf_event_open", "flags", ARG_UNSIGNED, "_perf_event_open_flags_str"),
	DECODE("pkey_alloc", "init_val", ARG_SIGNED, "_pkey_alloc_init_val_str"),
	DECODE("pkey_mprotect", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE("preadv2", "flags", ARG_SIGNED, "_preadv2_flags_str"),
	DECODE("prlimit64", "new_rlim", ARG_POINTER, "_struct_rlimit_u"),
	DECODE("prlimit64", "resource", ARG_UNSIGNED, "_rlimit_resource_str"),
	DECODE("pwritev2", "flags", ARG_SIGNED, "_preadv2_flags_str"),
	DECODE("quotactl", "cmd", ARG_SIGNED, "_quotactl_cmd_str"),
	DECODE_RENAMED("reboot", "cmd", "flag", ARG_UNSIGNED, "_reboot_flag_str"),
	DECODE_RENAMED("reboot", "magic1", "magic", ARG_SIGNED, "_reboot_magic_str"),
	DECODE("reboot", "magic2", ARG_SIGNED, "_reboot_magic_str"),
	DECODE("recv", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("recvfrom", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("recvmmsg", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("recvmsg", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("remap_file_pages", "flags", ARG_UNSIGNED, "_mmap_flags"),
	DECODE("remap_file_pages", "prot", ARG_UNSIGNED, "_mprotect_prot_str"),
	DECODE("renameat2", "flags", ARG_UNSIGNED, "_renameat2_flags_str"),
	DECODE("rt_sigaction", "sig", ARG_SIGNED, "_signal_name"),
	DECODE("rt_sigprocmask", "how", ARG_SIGNED, "_sigprocmask_how_str"),
	DECODE("rt_tgsigqueueinfo", "sig", ARG_SIGNED, "_signal_name"),
	DECODE("sched_get_priority_max", "policy", ARG_SIGNED, "_sched_policy_str"),
	DECODE("sched_get_priority_min", "policy", ARG_SIGNED, "_sched_policy_str"),
	DECODE("sched_setscheduler", "policy", ARG_SIGNED, "_sched_policy_str"),
	DECODE("seccomp", "flags", ARG_UNSIGNED, "_seccomp_flags_str"),
	DECODE("seccomp", "op", ARG_UNSIGNED, "_seccomp_op_str"),
	DECODE("semget", "key", ARG_SIGNED, "_stp_msgget_key_str"),
	DECODE("semget", "semflg", ARG_UNSIGNED, "__sem_flags"),
	DECODE("send", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("sendmmsg", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("sendmsg", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("sendto", "flags", ARG_UNSIGNED, "_msg_flags_str"),
	DECODE("set_mempolicy", "mode", ARG_SIGNED, "_mempolicy_mode_str"),
	DECODE("setitimer", "value", ARG_POINTER, "_struct_itimerval_u"),
	DECODE("setitimer", "which", ARG_SIGNED, "_itimer_which_str"),
	DECODE("setpriority", "which", ARG_SIGNED, "_priority_which_str"),
	DECODE("setrlimit", "resource", ARG_UNSIGNED, "_rlimit_resource_str"),
	DECODE("setsockopt", "level", ARG_SIGNED, "_sockopt_level_str"),
	DECODE("setsockopt", "optname", ARG_SIGNED, "_sockopt_optname_str"),
	DECODE("setxattr", "flags", ARG_SIGNED, "_stp_xattr_flags_str"),
	DECODE("shmat", "shmflg", ARG_UNSIGNED, "_shmat_flags_str"),
	DECODE("shmctl", "cmd", ARG_SIGNED, "_semctl_cmd"),
	DECODE("shmget", "shmflg", ARG_UNSIGNED, "_stp_shmget_flags_str"),
	DECODE("shutdown", "how", ARG_SIGNED, "_shutdown_how_str"),
	DECODE("sigaction", "sig", ARG_SIGNED, "_signal_name"),
	DECODE("signal", "sig", ARG_SIGNED, "_signal_name"),
	DECODE("signalfd4", "flags", ARG_SIGNED, "_signalfd4_flags_str"),
	DECODE("sigprocmask", "how", ARG_SIGNED, "_sigprocmask_how_str"),
	DECODE("sigsuspend", "mask", ARG_UNSIGNED, "_stp_sigmask_str"),
	DECODE("socket", "family", ARG_SIGNED, "_sock_family_str"),
	DECODE_AFTER("socket", "protocol", ARG_SIGNED, "_sock_protocol_str", "family"),
	DECODE("socket", "type", ARG_SIGNED, "_sock_type_str"),
	DECODE("socketpair", "family", ARG_SIGNED, "_sock_family_str"),
	DECODE_AFTER("socketpair", "protocol", ARG_SIGNED, "_sock_protocol_str", "family"),
	DECODE("socketpair", "type", ARG_SIGNED, "_sock_type_str"),
	DECODE("splice", "flags", ARG_UNSIGNED, "_stp_splice_flags_str"),
	DECODE("ssetmask", "newmask", ARG_SIGNED, "_stp_sigmask_str"),
	DECODE("statx", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE("statx", "mask", ARG_UNSIGNED, "_statx_mask_str"),
	DECODE_RENAMED("swapon", "swap_flags", "swapflags", ARG_SIGNED, "_swapon_flags_str"),
	DECODE("sync_file_range", "flags", ARG_UNSIGNED, "_sync_file_range_flags_str"),
	DECODE("timerfd_create", "clockid", ARG_SIGNED, "_get_wc_str"),
	DECODE("timerfd_create", "flags", ARG_SIGNED, "_stp_timerfd_flags_str"),
	DECODE("timerfd_settime", "flags", ARG_SIGNED, "_stp_timerfd_flags_str"),
	DECODE("umount", "flags", ARG_SIGNED, "_umountflags_str"),
	DECODE("unlinkat", "flag", ARG_SIGNED, "_at_flag_str"),
	DECODE("unshare", "unshare_flags", ARG_UNSIGNED, "__fork_flags"),
	DECODE("userfaultfd", "flags", ARG_UNSIGNED, "_userfaultfd_flags_str"),
	DECODE("utimensat", "flags", ARG_UNSIGNED, "_at_flag_str"),
	DECODE("vmsplice", "flags", ARG_UNSIGNED, "_stp_splice_flags_str"),
	DECODE("wait4", "options", ARG_SIGNED, "_wait4_opt_str"),
	DECODE("waitid", "options", ARG_SIGNED, "_wait4_opt_str"),
	DECODE("waitid", "which", ARG_SIGNED, "_waitid_which_str"),
	DECODE("waitpid", "options", ARG_SIGNED, "_wait4_opt_str"),
	/* decoded, and named otherwise */
	DECODE_RENAMED("arch_prctl", "option", "code", ARG_SIGNED, "_stp_arch_prctl_func_str"),
	DECODE_RENAMED("clock_adjtime", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("clock_getres", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("clock_gettime", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_WITH("clock_nanosleep", "rqtp", "req", ARG_POINTER, "_struct_timespec_u", "1"),
	DECODE_RENAMED("clock_nanosleep", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("clock_settime", "which_clock", "clk_id", ARG_SIGNED, "_get_wc_str"),
	DECODE_RENAMED("execveat", "fd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("fadvise64", "advice", "advice", ARG_SIGNED, "_fadvice_advice_str"),
	DECODE_RENAMED("fadvise64_64", "advice", "advice", ARG_SIGNED, "_fadvice_advice_str"),
	DECODE_RENAMED("madvise", "behavior", "advice", ARG_SIGNED, "_madvice_advice_str"),
	DECODE_RENAMED("mount", "flags", "mountflags", ARG_UNSIGNED, "_mountflags_str"),
	DECODE_WITH("nanosleep", "rqtp", "req", ARG_POINTER, "_struct_timespec_u", "1"),
	DECODE_WITH("ppoll", "tsp", "tsp", ARG_ADDRESS, "_struct_timespec_u", "1"),
	DECODE_WITH("pselect6", "tsp", "timeout", ARG_ADDRESS, "_struct_timespec_u", "1"),
	DECODE_RENAMED("newfstatat", "dfd", "dirfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("newfstatat", "flag", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE_RENAMED("open_by_handle_at", "mountdirfd", "mount_dfd", ARG_SIGNED, "_dfd_str"),
	DECODE_RENAMED("name_to_handle_at", "flag", "flags", ARG_SIGNED, "_at_flag_str"),
	DECODE_RENAMED("setns", "flags", "nstype", ARG_SIGNED, "__fork_flags"),
	DECODE_RENAMED("signal", "handler", "handler", ARG_ADDRESS, "_sighandler_str"),
	DECODE_RENAMED("timer_create", "which_clock", "clockid", ARG_SIGNED, "_get_wc_str"),
	/* a user struct decoded (stap's functions of the same names) */
	DECODE("get_thread_area", "u_info", ARG_POINTER, "_struct_user_desc_u"),
	DECODE("set_thread_area", "u_info", ARG_POINTER, "_struct_user_desc_u"),
	DECODE_RENAMED("adjtimex", "txc_p", "buf", ARG_POINTER, "_struct_timex_u"),
	{ "clock_adjtime", "utx", "tx", ARG_POINTER, "_struct_timex_u", "tx_uaddr_str", NULL, NULL,
	  false },
	{ "clock_settime", "tp", NULL, ARG_POINTER, "_struct_timespec_u", "tp_uaddr_str", "1", NULL,
	  false },
	DECODE_WITH("fsetxattr", "value", "value", ARG_POINTER, "_stp_xattr_val_str", "size"),
	DECODE_WITH("futimesat", "utimes", "tvp", ARG_POINTER, "_struct_timeval_u", "2"),
	DECODE_WITH("futimesat_time32", "t", "tvp", ARG_POINTER, "_struct_timeval_u", "2"),
	{ "io_getevents", "timeout", NULL, ARG_POINTER, "_struct_timespec_u", "timestr", "1", NULL,
	  false },
	DECODE_WITH("lsetxattr", "value", "value", ARG_POINTER, "_stp_xattr_val_str", "size"),
	{ "quotactl", "addr", NULL, ARG_POINTER, "__quotactl_addr_str", "__addr_str", "cmd", NULL,
	  false },		/* by the command; no variable in stap's -L */
	DECODE_WITH("recvmmsg", "timeout", "timeout", ARG_POINTER, "_struct_timespec_u", "1"),
	DECODE_RENAMED("rt_sigprocmask", "nset", "set", ARG_POINTER, "_stp_sigset_u"),
	DECODE_AS("rt_sigqueueinfo", "uinfo", ARG_POINTER, "_stp_siginfo_u", "siginfo_str"),
	DECODE_RENAMED("rt_sigsuspend", "unewset", "set", ARG_POINTER, "_stp_sigset_u"),
	DECODE("rt_sigtimedwait", "uinfo", ARG_POINTER, "_stp_siginfo_u"),
	DECODE("rt_sigtimedwait", "uthese", ARG_POINTER, "_stp_sigset_u"),
	DECODE_WITH("rt_sigtimedwait", "uts", "uts", ARG_POINTER, "_struct_timespec_u", "1"),
	DECODE("rt_tgsigqueueinfo", "uinfo", ARG_POINTER, "_stp_siginfo_u"),
	DECODE_RENAMED("sched_getattr", "uattr", "sched_attr", ARG_POINTER, "_struct_sched_attr_u"),
	DECODE_RENAMED("sched_setattr", "uattr", "sched_attr", ARG_POINTER, "_struct_sched_attr_u"),
	DECODE_WITH("select", "tvp", "timeout", ARG_POINTER, "_struct_timeval_u", "1"),
	DECODE_WITH("semtimedop", "timeout", "timeout", ARG_POINTER, "_struct_timespec_u", "1"),
	DECODE("setrlimit", "rlim", ARG_POINTER, "_struct_rlimit_u"),
	DECODE_WITH("settimeofday", "tv", "tv", ARG_POINTER, "_struct_timeval_u", "1"),
	DECODE("settimeofday", "tz", ARG_POINTER, "_struct_timezone_u"),
	DECODE_WITH("setxattr", "value", "value", ARG_POINTER, "_stp_xattr_val_str", "size"),
	DECODE("sigaltstack", "uss", ARG_POINTER, "_stp_sigaltstack_u"),
	DECODE("sysinfo", "info", ARG_POINTER, "_struct_sysinfo_u"),
	DECODE_RENAMED("timer_settime", "new_setting", "value", ARG_POINTER, "_struct_itimerspec_u"),
	DECODE_RENAMED("timerfd_settime", "utmr", "value", ARG_POINTER, "_struct_itimerspec_u"),
	DECODE_RENAMED("times", "tbuf", "buf", ARG_POINTER, "_struct_tms_u"),
	DECODE_WITH("utimensat", "utimes", "tsp", ARG_POINTER, "_struct_timespec_u", "2"),
	DECODE_WITH("utimensat_time32", "t", "tsp", ARG_POINTER, "_struct_timespec_u", "2"),
	{ "utimes", "utimes", "tvp", ARG_POINTER, "_struct_timeval_u", "tvp_uaddr_str", "2", NULL,
	  false },
	{ "utimes_time32", "t", "tvp", ARG_POINTER, "_struct_timeval_u", "tvp_uaddr_str", "2",
	  NULL, false },
	/* decoded, and shown in argstr otherwise */
	DECODE_SHOWN("rt_sigaction", "act", ARG_POINTER, "_struct_sigaction_u", "{%s}"),
	DECODE_SHOWN("sigaction", "act", ARG_POINTER, "_struct_sigaction_u", "{%s}"),
	/* socket addresses: in argstr as {AF_INET, 127.0.0.1, 80} */
	SOCKADDR("bind", "umyaddr", "my_addr", "addrlen"),
	SOCKADDR("connect", "uservaddr", "serv_addr", "addrlen"),
	DECODE_WITH("sendto", "addr", "to", ARG_POINTER, "_struct_sockaddr_u", "addr_len"),
	/* decoded into a variable of another name */
	DECODE_AS("kill", "sig", ARG_SIGNED, "_signal_name", "sig_name"),
	DECODE_AS("pipe2", "flags", ARG_SIGNED, "_sys_pipe2_flag_str", "flag_str"),
	DECODE_AS("rt_sigqueueinfo", "sig", ARG_SIGNED, "_signal_name", "sig_name"),
	DECODE_AS("semctl", "cmd", ARG_SIGNED, "_semctl_cmd", "cmdstr"),
	DECODE_AS("tgkill", "sig", ARG_SIGNED, "_signal_name", "sig_str"),
	DECODE_AS("tkill", "sig", ARG_SIGNED, "_signal_name", "sig_str"),
	/* user buffers, with the parameter that has their size */
	BUFFER("pwrite64", "buf", "count"),
	BUFFER_AS("ia32_pwrite64", "ubuf", "buf", "count", NULL),
	BUFFER_AS("send", "buff", "buf", "len", "buf"),
	BUFFER_AS("sendto", "buff", "buf", "len", "buf"),
	BUFFER("write", "buf", "count"),
	/* user arrays of strings */
	ARGV("execve", "argv", "args"),
	ARGV("execve", "envp", "env_str"),
	ARGV("execveat", "argv", "args"),
	ARGV("execveat", "envp", "env_str"),
};

/* Where stap's argstr shows a system call otherwise than by its arguments in order. */
static const struct { const char *syscall, *argstr; } argstr_rules[] = {
	/* the mode only when the call may create the file (O_CREAT, O_TMPFILE) */
	{ "open", "flags & 0x400040 ? sprintf(\"%s, %s, %#o\", filename, flags_str, mode)"
		  " : sprintf(\"%s, %s\", filename, flags_str)" },
	{ "openat", "flags & 0x400040 ? sprintf(\"%s, %s, %s, %#o\", dfd_str, filename, "
		    "flags_str, mode) : sprintf(\"%s, %s, %s\", dfd_str, filename, flags_str)" },
	/* the arguments the operation uses; a time32 call's timeout is a 32-bit one */
	{ "futex", "_futex_argstr(futex_uaddr, op, val, utime_uaddr, uaddr2_uaddr, val3, 0)" },
	{ "futex_time32",
	  "_futex_argstr(futex_uaddr, op, val, utime_uaddr, uaddr2_uaddr, val3, 1)" },
	/* the arguments the operation takes */
	{ "keyctl", "_keyctl_argstr(option, arg2, arg3, arg4, arg5, __compat)" },
	/* the descriptors' array as it is at the call (what a pipe before left there) */
	{ "pipe", "sprintf(\"[%d, %d]\", pipe0, pipe1)" },
	{ "pipe2", "sprintf(\"[%d, %d], %s\", pipe0, pipe1, flag_str)" },
	{ "utime", "sprintf(\"%s, [%s, %s]\", filename, ctime(actime), ctime(modtime))" },
	{ "utime32", "sprintf(\"%s, [%s, %s]\", filename, ctime(actime), ctime(modtime))" },
};

/*
 * The variables stap's alias of a system call has that its arguments do not give: those
 * of the other calls the alias covers (syscall.dup2's flags, which dup3 has), and values
 * read through its pointers.  VAR = EXPR (EXPR32 for a 32-bit call, NULL: the same;
 * EXPR NULL: a 32-bit call's only), set after the arguments' variables.
 */
/* a 32-bit call's 64-bit VAR of two registers: its low word's, then __argHIGH's */
#define HIGH_WORD(syscall, var, high) \
	{ syscall, var, NULL, "(" var " & 0xffffffff) | (__arg" high " << 32)" }
static const struct { const char *syscall, *var, *expr, *expr32; } alias_variables[] = {
	{ "dup2", "flags", "0", NULL },
	{ "dup2", "flags_str", "_dup3_flag_str(flags)", NULL },
	{ "epoll_create", "flags", "0", NULL },
	{ "epoll_create1", "size", "0", NULL },
	{ "eventfd", "flags", "0", NULL },
	{ "eventfd", "flags_str", "_eventfd2_flag_str(flags)", NULL },
	HIGH_WORD("ia32_fadvise64", "offset", "3"),
	HIGH_WORD("ia32_fallocate", "offset", "4"),
	HIGH_WORD("ia32_fallocate", "len", "6"),
	HIGH_WORD("ia32_readahead", "offset", "3"),
	HIGH_WORD("ia32_fadvise64_64", "offset", "3"),
	HIGH_WORD("ia32_fadvise64_64", "len", "5"),
	HIGH_WORD("ia32_ftruncate64", "length", "3"),
	HIGH_WORD("ia32_pread64", "offset", "5"),
	HIGH_WORD("ia32_pwrite64", "offset", "5"),
	HIGH_WORD("ia32_sync_file_range", "offset", "3"),
	HIGH_WORD("ia32_sync_file_range", "nbytes", "5"),
	HIGH_WORD("ia32_truncate64", "length", "3"),
	{ "inotify_init", "flags", "0", NULL },
	{ "keyctl", "__compat", "0", "1" },
	{ "pipe", "flags", "0", NULL },
	{ "pipe", "flag_str", "\"\"", NULL },
	{ "pipe", "pipe0", "_fildes_index_u(fildes_uaddr, 0)", NULL },
	{ "pipe", "pipe1", "_fildes_index_u(fildes_uaddr, 1)", NULL },
	{ "pipe2", "pipe0", "_fildes_index_u(fildes_uaddr, 0)", NULL },
	{ "pipe2", "pipe1", "_fildes_index_u(fildes_uaddr, 1)", NULL },
	{ "preadv", "offset", NULL, "offset | (__arg5 << 32)" },
	{ "preadv2", "offset", NULL, "offset | (__arg5 << 32)" },
	{ "pwritev", "offset", NULL, "offset | (__arg5 << 32)" },
	{ "pwritev2", "offset", NULL, "offset | (__arg5 << 32)" },
	{ "signalfd", "flags", "0", NULL },
	{ "utime", "actime", "_struct_utimbuf_actime(buf_uaddr)",
	  "_struct_compat_utimbuf_actime(buf_uaddr)" },
	{ "utime", "modtime", "_struct_utimbuf_modtime(buf_uaddr)",
	  "_struct_compat_utimbuf_modtime(buf_uaddr)" },
	{ "utime32", "actime", NULL, "_struct_compat_utimbuf_actime(buf_uaddr)" },
	{ "utime32", "modtime", NULL, "_struct_compat_utimbuf_modtime(buf_uaddr)" },
};

/*
 * Variables an alias of ours would have that stap 4.8's has under another name or not at
 * all (its -L): in ALIAS's handlers VAR is named AS, or __VAR when AS is NULL (a local -L
 * leaves out, still there for argstr).  Its decoded values shown only in argstr, the
 * unquoted strings it does not keep, the parameters it does not name (signalfd's ufd);
 * mkdirat's pahtname_unquoted is stap 4.8's spelling.
 */
static const struct { const char *alias, *var, *as; } alias_renames[] = {
	{ "clone", "clone_flags_str", NULL },
	{ "compat_execve", "filename_unquoted", NULL },
	{ "compat_execveat", "filename_unquoted", NULL },
	{ "compat_futex", "op_str", NULL },
	{ "compat_getitimer", "which_str", NULL },
	{ "compat_signalfd", "sigsetsize", NULL },
	{ "compat_signalfd", "ufd", NULL },
	{ "compat_signalfd", "user_mask_uaddr", NULL },
	{ "compat_sys_utimes", "filename_uaddr", NULL },
	{ "compat_sys_utimes", "tvp_str", "tvp_uaddr_str" },
	{ "compat_sys_utimes", "tvp_uaddr", "timeval" },
	{ "execve", "filename_unquoted", NULL },
	{ "execveat", "filename_unquoted", NULL },
	{ "flock", "operation_str", NULL },
	{ "futex", "op_str", NULL },
	{ "getitimer", "which_str", NULL },
	{ "getpriority", "which_str", NULL },
	{ "getrlimit", "resource_str", NULL },
	{ "mkdirat", "pathname_unquoted", "pahtname_unquoted" },
	{ "signalfd", "sizemask", NULL },
	{ "signalfd", "ufd", NULL },
	{ "signalfd", "user_mask_uaddr", NULL },
	{ "symlink", "newpath_unquoted", NULL },
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
	{ "_sysctl", "sysctl", NULL },
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
	{ "ia32_fadvise64_64", "fadvise64_64", "fadvise64" },	/* stap's name */
	{ "ia32_fallocate", "fallocate", NULL },
	{ "ia32_sync_file_range", "sync_file_range", NULL },
	{ "ia32_stat64", "stat", NULL },
	{ "ia32_lstat64", "lstat", NULL },
	{ "ia32_fstat64", "fstat", NULL },
	{ "ia32_fstatat64", "fstatat", NULL },
	{ "ia32_mmap", "mmap", NULL },
	{ "ia32_clone", "clone", NULL },
	{ "fcntl64", "fcntl", NULL },
	/* 32-bit calls with a 32-bit time (or both): stap's compat_ aliases below */
	{ "adjtimex_time32", "adjtimex", NULL },
	{ "clock_nanosleep_time32", "clock_nanosleep", NULL },
	{ "futex_time32", "futex", NULL },
	{ "futimesat_time32", "futimesat", NULL },
	{ "nanosleep_time32", "nanosleep", NULL },
	{ "ppoll_time32", "ppoll", NULL },
	{ "ppoll_time64", "ppoll", NULL },
	{ "pselect6_time32", "pselect6", NULL },
	{ "pselect6_time64", "pselect6", NULL },
	{ "recvmmsg_time32", "recvmmsg", NULL },
	{ "recvmmsg_time64", "recvmmsg", NULL },
	{ "utime32", "utime", NULL },
	{ "utimes_time32", "utimes", NULL },
	{ "utimensat_time32", "utimensat", NULL },
};

/*
 * The calls whose 32-bit definitions stap 4.8 gives an alias of their own, syscall.COMPAT
 * (its tapset's compat_ aliases; `name` stays the call's): its syscall.PROBE then fires for
 * 64-bit programs only (`syscall.execve` does not see a 32-bit execve, `syscall.
 * compat_execve` does), where a call without such an alias (openat) is one probe for both.
 * By the alias a 32-bit call's probe_name() gives; every 32-bit flavour of the call goes
 * there (a time64 ppoll too, which stap's compat_ppoll does not see).  Where stap differs
 * (seen in the guest, stap 4.8 on 6.1): its compat_sys_msgctl, msgrcv, msgsnd, semctl,
 * shmat and shmctl fire only for the calls made through ipc(), which ours shows as
 * syscall.ipc, and ours fire for the direct calls (what glibc makes), which stap misses;
 * its compat_signalfd shows a signalfd4 as signalfd (ours: signalfd4 and its flags); its
 * compat_lookup_dcookie is a tracepoint alias of a call the kernel does not have (ours
 * has none), and it has no alias for a 32-bit pread64 (ours: syscall.pread).
 */
static const struct { const char *call, *compat; bool keeps_plain; } compat_aliases[] = {
	{ "adjtimex", "compat_adjtimex", false },
	{ "clock_nanosleep", "compat_clock_nanosleep", false },
	{ "execve", "compat_execve", false },
	{ "execveat", "compat_execveat", false },
	{ "fadvise64", "compat_fadvise64", false },
	{ "fallocate", "compat_fallocate", false },
	{ "futex", "compat_futex", false },
	{ "futimesat", "compat_futimesat", false },
	{ "getitimer", "compat_getitimer", false },
	{ "nanosleep", "compat_nanosleep", false },
	{ "ppoll", "compat_ppoll", false },
	{ "pselect6", "compat_pselect6", false },
	{ "readahead", "compat_readahead", false },
	{ "recvmmsg", "compat_recvmmsg", false },
	{ "select", "compat_select", false },
	{ "setitimer", "compat_setitimer", false },
	{ "utime", "compat_utime", false },
	{ "utimes", "compat_sys_utimes", false },
	{ "utimensat", "compat_utimensat", false },
	/* stap's syscall.vmsplice fires for a 32-bit vmsplice too (and so twice under
	 * syscall.*): its syscall and nd_syscall definitions are in both aliases */
	{ "vmsplice", "compat_vmsplice", true },
	/* by the call's own name: the direct calls of the ipc() and socketcall() multiplexers,
	 * the 32-bit signal and time structures, the 64-bit values in two registers */
	{ "msgctl", "compat_sys_msgctl", false },
	{ "msgrcv", "compat_sys_msgrcv", false },
	{ "msgsnd", "compat_sys_msgsnd", false },
	{ "semctl", "compat_sys_semctl", false },
	{ "shmat", "compat_sys_shmat", false },
	{ "shmctl", "compat_sys_shmctl", false },
	{ "recvmsg", "compat_sys_recvmsg", false },
	{ "sendmsg", "compat_sys_sendmsg", false },
	{ "sigaction", "sigaction32", false },
	{ "rt_sigaction", "rt_sigaction32", false },
	{ "settimeofday", "settimeofday32", false },
	{ "ustat", "ustat32", false },
	{ "signalfd", "compat_signalfd", false },
	{ "signalfd4", "compat_signalfd", false },
	{ "ia32_pwrite64", "pwrite32", false },
	{ "ia32_truncate64", "compat_truncate64", false },
	{ "ia32_ftruncate64", "compat_ftruncate64", false },
	{ "ia32_fadvise64_64", "compat_fadvise64_64", false },
	{ "lookup_dcookie", "compat_lookup_dcookie", false },
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
	int offsets[6];		/* of the arguments' registers in struct pt_regs */
};

/* di, si, dx, r10, r8, r9 */
static const struct abi x64_abi = {
	"__x64_sys_", "__do_sys_", false, { 112, 104, 96, 56, 72, 64 },
};
/* int $0x80 and the 32-bit vDSO: ebx, ecx, edx, esi, edi, ebp */
static const struct abi ia32_abi = {
	"__ia32_sys_", "__do_sys_", true, { 40, 88, 96, 104, 112, 32 },
};
/* a 32-bit call with a compat body of its own (compat_sys_NAME: 32-bit structures) */
static const struct abi ia32_compat_abi = {
	"__ia32_compat_sys_", "__do_compat_sys_", true, { 40, 88, 96, 104, 112, 32 },
};

/* One argument, as the generated handlers keep it. */
struct arg {
	const char *param;	/* the kernel's name */
	const char *var;
	enum arg_kind kind;
	int size;		/* numbers: 1, 2, 4 or 8 bytes */
	const char *decoder, *str, *count, *shown;
	bool count_first;
	bool address_str;	/* a 32-bit call's pointer not decoded: VAR_str its address */
	const char *pointee;	/* a pointer's type's name (struct tag, typedef), or NULL */
};

/* The strings whose address stap 4.8 keeps too (tapset::syscalls(3stap)): SYSCALL's
 * string parameter PARAM's address is the variable VAR. */
static const struct { const char *syscall, *param, *var; } string_addresses[] = {
	{ "fremovexattr", "name", "name_uaddr" }, { "fsetxattr", "name", "name_uaddr" },
	{ "futimesat", "filename", "filename_uaddr" },
	{ "inotify_add_watch", "pathname", "path_uaddr" },
	{ "listxattr", "pathname", "path_uaddr" }, { "llistxattr", "pathname", "path_uaddr" },
	{ "lremovexattr", "pathname", "path_uaddr" }, { "lremovexattr", "name", "name_uaddr" },
	{ "lsetxattr", "pathname", "path_uaddr" }, { "lsetxattr", "name", "name_uaddr" },
	{ "mkdir", "pathname", "pathname_uaddr" }, { "mq_open", "u_name", "name_uaddr" },
	{ "request_key", "_description", "description_uaddr" },
	{ "request_key", "_type", "type_uaddr" },
	{ "setdomainname", "name", "domainname_uaddr" }, { "sethostname", "name", "hostname_uaddr" },
	{ "mq_unlink", "u_name", "u_name_uaddr" }, { "newstat", "filename", "filename_uaddr" },
	{ "setxattr", "pathname", "path_uaddr" }, { "setxattr", "name", "name_uaddr" },
	{ "statx", "filename", "filename_uaddr" }, { "swapoff", "specialfile", "path_uaddr" },
	{ "swapon", "specialfile", "path_uaddr" }, { "truncate", "path", "path_uaddr" },
	{ "ia32_truncate64", "filename", "path_uaddr" },
	{ "unlink", "pathname", "pathname_uaddr" }, { "uselib", "library", "library_uaddr" },
	{ "utime", "filename", "filename_uaddr" },
	{ "utime32", "filename", "filename_uaddr" }, { "utimensat", "filename", "filename_uaddr" },
	{ "utimes", "filename", "filename_uaddr" },
};

static const char *string_address(const char *syscall, const char *param)
{
	for (size_t i = 0; i < sizeof(string_addresses) / sizeof(string_addresses[0]); i++)
		if (strcmp(string_addresses[i].syscall, syscall) == 0 &&
		    strcmp(string_addresses[i].param, param) == 0)
			return string_addresses[i].var;
	return NULL;
}

static void probe_name(const char *syscall, const char **probe, const char **name);

/* SYSCALL's rule for PARAM: its own, else that of another call of the same probe alias
 * (a 32-bit call's variables are named as the 64-bit one's: ia32_fstat64's fd is
 * fstat's filedes, as newfstat's), else one for any call. */
static const struct arg_rule *rule_for(const char *syscall, const char *param)
{
	const struct arg_rule *found = NULL, *same_alias = NULL;
	const char *alias, *unused, *other;

	probe_name(syscall, &alias, &unused);
	for (size_t i = 0; i < sizeof(arg_rules) / sizeof(arg_rules[0]); i++) {
		const struct arg_rule *r = &arg_rules[i];

		if (strcmp(r->param, param) != 0)
			continue;
		if (strcmp(r->syscall, syscall) == 0)
			return r;
		if (strcmp(r->syscall, "*") == 0) {
			found = r;
			continue;
		}
		probe_name(r->syscall, &other, &unused);
		if (!same_alias && strcmp(other, alias) == 0)
			same_alias = r;
	}
	return same_alias ? same_alias : found;
}

static bool is_char(struct ctype *t)
{
	t = ctype_resolve(t);
	return t && t->kind == CT_BASE && t->size == 1 && t->name && strstr(t->name, "char");
}

/* The name of what a pointer of type T points at (its struct tag, its typedef), else NULL. */
static const char *pointee_of(struct ctype *t)
{
	struct ctype *r = ctype_resolve(t), *to;

	if (!r || r->kind != CT_POINTER)
		return NULL;
	for (to = r->target; to && (to->kind == CT_CONST || to->kind == CT_VOLATILE);)
		to = to->target;
	return to ? to->name : NULL;
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
	    a->kind == ARG_ARGV || a->kind == ARG_STRING_AT || bits >= 64)
		return xstrdup(raw);
	if (a->kind == ARG_SIGNED)	/* sign-extended from its size */
		return xasprintf("((%s << %d) >> %d)", raw, 64 - bits, 64 - bits);
	return xasprintf("(%s & %#llx)", raw, (1ULL << bits) - 1);
}

/* The variables of a socket address's parts (ARG_SOCKADDR), as stap 4.8 names them. */
static const struct { const char *var, *part; } sockaddr_parts[] = {
	{ "af", "af" }, { "ip", "ip" }, { "ip_port", "port" }, { "ipv6_flowinfo", "flowinfo" },
	{ "ipv6_scope_id", "scope_id" },
};

/* The handler's lines that set the variables from __argN (of a 32-bit call: BITS32),
 * then argstr. */
static void put_variables(struct strbuf *sb, const char *syscall, const char *name,
			  bool bits32, const struct arg *args, int nargs)
{
	struct strbuf format = { 0 }, values = { 0 };

	sb_printf(sb, "\tname = \"%s\"\n", name);
	for (int i = 0; i < nargs; i++) {
		const struct arg *a = &args[i];
		char *raw, *value;
		const char *sep = format.len ? ", " : "";

		if (a->kind == ARG_OMITTED)
			continue;
		raw = xasprintf("__arg%d", i + 1);
		value = number_of(a, raw);
		const char *conversion = "%s";	/* how argstr shows it */
		const char *address;
		char *shown;			/* the variable argstr shows */

		switch (a->kind) {
		case ARG_STRING:
			sb_printf(sb, "\t%s = user_string_quoted(%s)\n", a->var, raw);
			sb_printf(sb, "\t%s_unquoted = user_string(%s, \"\")\n", a->var, raw);
			if ((address = string_address(syscall, a->param)))
				sb_printf(sb, "\t%s = %s\n", address, raw);
			shown = xstrdup(a->var);
			break;
		case ARG_POINTER:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			conversion = "%p";
			shown = xasprintf("%s_uaddr", a->var);
			if (a->address_str)
				sb_printf(sb, "\t%s_str = sprintf(\"%%p\", %s_uaddr)\n", a->var,
					  a->var);
			if (a->decoder) {	/* what it points at, shown in its place */
				free(shown);
				shown = a->str ? xstrdup(a->str) : xasprintf("%s_str", a->var);
				if (a->count)
					sb_printf(sb, "\t%s = %s(%s_uaddr, %s)\n", shown, a->decoder,
						  a->var, a->count);
				else
					sb_printf(sb, "\t%s = %s(%s_uaddr)\n", shown, a->decoder,
						  a->var);
				conversion = a->shown ? a->shown : "%s";
			}
			break;
		case ARG_SOCKADDR:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			for (size_t p = 0; p < sizeof(sockaddr_parts) / sizeof(*sockaddr_parts); p++)
				sb_printf(sb, "\tuaddr_%s = _sockaddr_part(%s_uaddr, %s, \"%s\")\n",
					  sockaddr_parts[p].var, a->var, a->count,
					  sockaddr_parts[p].part);
			shown = xasprintf("_struct_sockaddr_u(%s_uaddr, %s)", a->var, a->count);
			break;
		case ARG_BUFFER:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			shown = a->str ? xstrdup(a->str) : xasprintf("%s_str", a->var);
			sb_printf(sb, "\t%s = user_buffer_quoted(%s, __arg%s, "
				  "syscall_string_trunc)\n", shown, raw, a->count);
			break;
		case ARG_STRING_SHOWN:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			shown = xasprintf("user_string_quoted(%s_uaddr)", a->var);
			break;
		case ARG_BUFFER_SHOWN:
			sb_printf(sb, "\t%s_uaddr = %s\n", a->var, raw);
			shown = xasprintf("user_buffer_quoted(%s_uaddr, __arg%s, "
					  "syscall_string_trunc)", a->var, a->count);
			break;
		case ARG_STRING_AT:
			sb_printf(sb, "\t%s = %s\n", a->var, raw);
			sb_printf(sb, "\t%s_str = user_string_quoted(%s)\n", a->var, raw);
			sb_printf(sb, "\t%s_str_unquoted = user_string(%s, \"\")\n", a->var, raw);
			shown = xasprintf("%s_str", a->var);
			break;
		case ARG_ARGV:	/* a 32-bit program's pointers are 32 bits wide */
			sb_printf(sb, bits32 ? "\t%s = __get_compat_argv(%s, 0)\n" :
				  "\t%s = _user_string_array_quoted(%s)\n", a->var, raw);
			shown = xstrdup(a->var);
			break;
		default:
			sb_printf(sb, "\t%s = %s\n", a->var, value);
			if (a->address_str)	/* a 32-bit call's struct not decoded */
				sb_printf(sb, "\t%s_str = sprintf(\"%%p\", %s)\n", a->var, a->var);
			if (a->decoder) {
				shown = a->str ? xstrdup(a->str) : xasprintf("%s_str", a->var);
				if (a->count)	/* another argument too, before or after */
					sb_printf(sb, "\t%s = %s(%s, %s)\n", shown, a->decoder,
						  a->count_first ? a->count : a->var,
						  a->count_first ? a->var : a->count);
				else
					sb_printf(sb, "\t%s = %s(%s)\n", shown, a->decoder, a->var);
			} else {
				conversion = a->kind == ARG_SIGNED ? "%d" : a->kind == ARG_UNSIGNED ?
					     "%u" : a->kind == ARG_HEX ? "0x%x" :
					     a->kind == ARG_ADDRESS ? "%p" : "%#o";
				shown = xstrdup(a->var);
			}
		}
		sb_printf(&format, "%s%s", sep, conversion);
		sb_printf(&values, ", %s", shown);
		free(shown);
		free(raw);
		free(value);
	}
	for (size_t i = 0; i < sizeof(alias_variables) / sizeof(alias_variables[0]); i++) {
		const char *expr = bits32 && alias_variables[i].expr32 ?
				   alias_variables[i].expr32 : alias_variables[i].expr;

		if (expr && strcmp(alias_variables[i].syscall, syscall) == 0)
			sb_printf(sb, "\t%s = %s\n", alias_variables[i].var, expr);
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
	int lo, hi, count = 0;

	dw_name_range(index, name, &lo, &hi);
	for (; lo < hi; lo++) {
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

static const char *const keywords[] = {
	"break", "catch", "continue", "delete", "else", "for", "foreach", "function", "global",
	"if", "in", "limit", "long", "next", "private", "probe", "return", "string", "try",
	"while",
};

/* Whether DECODER reads what a pointer points at the same for 32- and 64-bit tasks: a
 * socket address, struct rlimit64 and struct user_desc have one layout, and a signal
 * handler is not read at all. */
/*
 * The decoder of a 32-bit call's pointer to POINTEE that DECODER reads in x86-64's layout:
 * the compat one for the 32-bit structures (old_timespec32, ...), DECODER itself for a
 * structure both have alike (a time64 call's __kernel_timespec), else NULL.
 */
static const char *decoder_for_32bit(const char *decoder, const char *pointee)
{
	static const struct { const char *decoder, *pointee, *decoder32; } decoders[] = {
		{ "_struct_timespec_u", "old_timespec32", "_struct_compat_timespec_u" },
		{ "_struct_timespec_u", "__kernel_timespec", "_struct_timespec_u" },
		{ "_struct_timeval_u", "old_timeval32", "_struct_compat_timeval_u" },
		{ "_struct_itimerval_u", "old_itimerval32", "_struct_compat_itimerval_u" },
		{ "_struct_itimerspec_u", "old_itimerspec32", "_struct_compat_itimerspec_u" },
		{ "_struct_itimerspec_u", "__kernel_itimerspec", "_struct_itimerspec_u" },
		{ "_struct_timex_u", "old_timex32", "_struct_compat_timex_u" },
		{ "_stp_sigset_u", "compat_sigset_t", "_stp_compat_sigset_u" },
		{ "_struct_sigaction_u", "compat_sigaction", "_struct_sigaction32_u" },
		{ "_struct_sigaction_u", "compat_old_sigaction", "_struct_old_sigaction32_u" },
	};

	for (size_t i = 0; pointee && i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (strcmp(decoders[i].decoder, decoder) == 0 &&
		    strcmp(decoders[i].pointee, pointee) == 0)
			return decoders[i].decoder32;
	return NULL;
}

static bool same_in_both_abis(const char *decoder)
{
	static const char *const decoders[] = {
		"_struct_sockaddr_u", "_struct_rlimit_u", "_struct_user_desc_u", "_sighandler_str",
		"_struct_timezone_u",
	};

	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (strcmp(decoders[i], decoder) == 0)
			return true;
	return false;
}

/* The arguments' variables once their parameters are known: names, kinds, decoders. */
static void finish_args(const struct abi *abi, const char *syscall, struct arg *args, int n)
{
	for (int k = 0; k < n; k++) {
		struct arg *a = &args[k];
		const struct arg_rule *r;

		if (abi->bits32 && a->size > 4)
			a->size = 4;
		/* a parameter named like a variable every handler has keeps a suffix */
		for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (strcmp(a->var, reserved[i].name) == 0)
				a->var = reserved[i].renamed;
		/* and one named like a keyword of the language: "next" as next_arg */
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
			if (strcmp(a->var, keywords[i]) == 0)
				a->var = xasprintf("%s_arg", a->var);	/* kept for the run */
		if (!(r = rule_for(syscall, a->param)))
			continue;
		if (r->var)
			a->var = r->var;
		if (r->kind == ARG_INT) {
			a->kind = ARG_SIGNED;
			a->size = 4;
		} else if (r->kind != ARG_DEFAULT) {
			a->kind = r->kind;
		}
		/* what a pointer points at is read in x86-64's layout: a 32-bit call's by a
		 * decoder that reads the same in both, or by the one of its 32-bit structure;
		 * else its VAR_str is the address, so that a script may use it with either */
		a->decoder = r->decoder;
		if (abi->bits32 && (a->kind == ARG_POINTER || a->kind == ARG_ADDRESS) &&
		    a->decoder && !same_in_both_abis(a->decoder)) {
			a->decoder = decoder_for_32bit(a->decoder, a->pointee);
			a->address_str = !a->decoder;
		}
		a->shown = r->shown;
		a->str = r->str;
		a->count = r->count;
		a->count_first = r->count_first;
	}
	/* a decoder's other argument, and a socket address's size: its value from its
	 * register (its variable may be set after this one's) */
	for (int i = 0; i < n; i++) {
		const char *other = args[i].count;

		if (!other || args[i].kind == ARG_BUFFER || args[i].kind == ARG_BUFFER_SHOWN)
			continue;
		if (isdigit((unsigned char)other[0]))
			continue;	/* a number, given to the decoder as it is */
		args[i].count = NULL;
		for (int j = 0; j < n; j++)
			if (strcmp(args[j].param, other) == 0) {
				char raw[16];

				snprintf(raw, sizeof(raw), "__arg%d", j + 1);
				args[i].count = number_of(&args[j], raw);	/* kept for the run */
			}
		if (!args[i].count && args[i].kind == ARG_SOCKADDR)
			args[i].kind = ARG_POINTER;
		if (!args[i].count && args[i].decoder && args[i].kind != ARG_POINTER)
			args[i].decoder = NULL;	/* none without it */
	}
	/* a buffer's count: the argument's number */
	for (int i = 0; i < n; i++) {
		enum arg_kind kind = args[i].kind;

		if (kind != ARG_BUFFER && kind != ARG_BUFFER_SHOWN)
			continue;
		args[i].kind = ARG_POINTER;
		for (int j = 0; args[i].count && j < n; j++)
			if (strcmp(args[j].param, args[i].count) == 0) {
				static const char *const numbers[] = { "1", "2", "3", "4", "5", "6" };

				args[i].kind = kind;
				args[i].count = numbers[j];
			}
	}
}

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
		struct arg *a;

		/* SYSCALL_DEFINE0's body takes the registers, unused: no argument */
		if (dwarf_tag(&child) != DW_TAG_formal_parameter || n == 6 ||
		    (name && strcmp(name, "__unused") == 0))
			continue;
		a = &args[n++];
		*a = (struct arg){ .param = name ? name : "arg", .var = name ? name : "arg" };
		a->kind = kind_of(ctype_of_variable(&child), &a->size);
		a->pointee = pointee_of(ctype_of_variable(&child));
	} while (dwarf_siblingof(&child, &child) == 0);
	finish_args(abi, syscall, args, n);
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

/* The alias of SYSCALL entering through ABI: probe_name()'s, or for a 32-bit call stap
 * has a compat_ alias of, that one; *PLAIN the other alias it is in too (else NULL). */
static void abi_probe_name(const struct abi *abi, const char *syscall, const char **probe,
			   const char **name, const char **plain)
{
	probe_name(syscall, probe, name);
	*plain = NULL;
	for (size_t i = 0; abi->bits32 && i < sizeof(compat_aliases) / sizeof(compat_aliases[0]);
	     i++)
		if (strcmp(compat_aliases[i].call, *probe) == 0 ||
		    strcmp(compat_aliases[i].call, syscall) == 0) {
			*plain = compat_aliases[i].keeps_plain ? *probe : NULL;
			*probe = compat_aliases[i].compat;
			return;
		}
}

/* Reads FILE under the kernel's source folders into TEXT (appended); false if none. */
static bool read_kernel_file(struct session *s, const char *file, struct strbuf *text)
{
	struct strlist dirs = kernel_source_folders(s);
	bool found = false;

	for (int i = 0; i < dirs.count && !found; i++) {
		char *path = xasprintf("%s/%s", dirs.items[i], file);
		char *content = read_file(path, NULL);

		if (content) {
			sb_puts(text, content);
			sb_putc(text, '\n');
			found = true;
		}
		free(content);
		free(path);
	}
	strlist_free(&dirs);
	return found;
}

/* One row of a syscall table of the build tree: its number and entry functions. */
struct table_entry {
	int nr;
	char native[64], compat[64];	/* "sys_open", "compat_sys_open" ("": none) */
};

/* The build tree's two tables (a count of -1: no such file). */
struct syscall_tables {
	struct table_entry *x64, *ia32;
	int nx64, nia32;
};

/*
 * The BITS-bit (64 or 32) syscall table the kernel's build wrote,
 * arch/x86/include/generated/asm/syscalls_BITS.h: "__SYSCALL(NR, sys_NAME)",
 * "__SYSCALL_WITH_COMPAT(NR, sys_NAME, compat_sys_NAME)" and (for exit and
 * exit_group in 6.12) "__SYSCALL_NORETURN(NR, sys_NAME)" rows.  Their number, or -1 when the
 * build tree has no such file.
 */
static int read_table(struct session *s, int bits, struct table_entry **out)
{
	struct strbuf text = { 0 };
	char *file = xasprintf("arch/x86/include/generated/asm/syscalls_%d.h", bits);
	int n = 0;

	*out = NULL;
	if (!read_kernel_file(s, file, &text)) {
		free(file);
		return -1;
	}
	free(file);
	for (char *line = text.data; line && *line; ) {
		char *end = strchr(line, '\n');
		struct table_entry e = { 0 };

		if (end)
			*end = '\0';
		if (sscanf(line, "__SYSCALL_WITH_COMPAT(%d, %63[a-z0-9_], %63[a-z0-9_])", &e.nr,
			   e.native, e.compat) == 3 ||
		    sscanf(line, "__SYSCALL(%d, %63[a-z0-9_])", &e.nr, e.native) == 2 ||
		    sscanf(line, "__SYSCALL_NORETURN(%d, %63[a-z0-9_])", &e.nr, e.native) == 2) {
			*out = xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = e;
		}
		line = end ? end + 1 : NULL;
	}
	sb_free(&text);
	return n;
}

static struct syscall_tables read_tables(struct session *s)
{
	struct syscall_tables t;

	t.nx64 = read_table(s, 64, &t.x64);
	t.nia32 = read_table(s, 32, &t.ia32);
	return t;
}

static void free_tables(struct syscall_tables *t)
{
	free(t->x64);
	free(t->ia32);
}

/* The offset of orig_ax in x86-64's struct pt_regs: the number of the call being made. */
#define PT_REGS_ORIG_AX 120

static void put_tp_aliases(struct strbuf *sb, const struct abi *abi, const char *syscall,
			   const struct arg *args, int n, const int *nrs, int nnr);

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* alias_renames' of the alias SYSCALL entering through ABI is, in SB's text from FROM on
 * (the handler's variables and argstr): each word VAR made AS. */
static void rename_variables(struct strbuf *sb, size_t from, const struct abi *abi,
			     const char *syscall)
{
	const char *probe, *name, *plain;

	abi_probe_name(abi, syscall, &probe, &name, &plain);
	for (size_t r = 0; r < sizeof(alias_renames) / sizeof(alias_renames[0]); r++) {
		const char *var = alias_renames[r].var;
		char *as = alias_renames[r].as ? xstrdup(alias_renames[r].as) :
			   xasprintf("__%s", var);
		size_t n = strlen(var);
		struct strbuf out = { 0 };

		if (strcmp(alias_renames[r].alias, probe) != 0) {
			free(as);
			continue;
		}
		sb_putn(&out, sb->data, from);
		for (size_t i = from; i < sb->len;) {
			bool word = strncmp(sb->data + i, var, n) == 0 &&
				    (i == 0 || !is_ident_char(sb->data[i - 1])) &&
				    !is_ident_char(sb->data[i + n]);

			if (word) {
				sb_puts(&out, as);
				i += n;
			} else {
				sb_putc(&out, sb->data[i++]);
			}
		}
		sb_free(sb);
		*sb = out;
		free(as);
	}
}

/* An entry handler's statements: the N arguments read from the saved user registers the
 * struct pt_regs * REGS (an expression of the handler) points at, and the variables. */
static void put_entry_body(struct strbuf *sb, const struct abi *abi, const char *syscall,
			   const char *name, const struct arg *args, int n, const char *regs)
{
	const char *mask = abi->bits32 ? " & 0xffffffff" : "";

	if (n)
		sb_printf(sb, "\t__regs = %s\n", regs);
	for (int i = 0; i < n; i++)
		sb_printf(sb, "\t__arg%d = kernel_long(__regs + %d)%s\n", i + 1,
			  abi->offsets[i], mask);
	size_t from = sb->len;

	put_variables(sb, syscall, name, abi->bits32, args, n);
	rename_variables(sb, from, abi, syscall);
}

/* The expression of retstr for SYSCALL's return value: return_str(1, retval), or the
 * decoder stap's tapset shows it with ("5 (TIME_ERROR)" for adjtimex). */
static const char *return_text(const char *syscall)
{
	static const struct { const char *syscall, *decoder; } decoders[] = {
		{ "adjtimex", "_adjtimex_return_str(retval)" },
	};
	const char *probe, *name;

	probe_name(syscall, &probe, &name);
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (strcmp(decoders[i].syscall, name) == 0)
			return decoders[i].decoder;
	return "return_str(1, retval)";
}

/*
 * The aliases' text for SYSCALL through ABI: syscall.PROBE and nd_syscall.PROBE, each a
 * kprobe on the entry point (as stap 4.8 makes them on these kernels: its dw_syscall
 * points name sys_NAME, which they lack), and tp_syscall.PROBE, the raw_syscalls
 * tracepoints kept for the call's numbers NRS[0..NNR) in ABI's table (none: no
 * tp_syscall alias), and their .return.
 */
static void put_aliases(struct strbuf *sb, const struct abi *abi, const char *syscall,
			const struct arg *args, int n, const int *nrs, int nnr)
{
	char *entry = xasprintf("%s%s", abi->entry, syscall);
	const char *probes[2], *name;

	abi_probe_name(abi, syscall, &probes[0], &name, &probes[1]);
	for (int nd = 0; nd < 4; nd++) {
		const char *family = nd % 2 ? "nd_syscall" : "syscall", *probe = probes[nd / 2];

		if (!probe)
			continue;

		sb_printf(sb, "probe %s.%s = kprobe.function(\"%s\") ?\n{\n", family, probe,
			  entry);
		put_entry_body(sb, abi, syscall, name, args, n, "pointer_arg(1)");
		sb_printf(sb, "}\nprobe %s.%s.return = kprobe.function(\"%s\").return ?\n"
			  "{\n\tname = \"%s\"\n\tretval = returnval()\n"
			  "\tretstr = %s\n}\n", family, probe, entry, name, return_text(syscall));
	}
	put_tp_aliases(sb, abi, syscall, args, n, nrs, nnr);
	sb_putc(sb, '\n');
	free(entry);
}

/*
 * tp_syscall.PROBE and its .return for SYSCALL entering through ABI: the raw_syscalls
 * tracepoints, kept for the call's numbers NRS[0..NNR) in ABI's table (none: nothing).
 */
static void put_tp_aliases(struct strbuf *sb, const struct abi *abi, const char *syscall,
			   const struct arg *args, int n, const int *nrs, int nnr)
{
	const char *probe, *name, *plain;
	struct strbuf other = { 0 };

	abi_probe_name(abi, syscall, &probe, &name, &plain);
	/* another task's ABI, or another call: not this one */
	for (int i = 0; i < nnr; i++)
		sb_printf(&other, "%s__nr != %d", i ? " && " : "", nrs[i]);
	if (nnr) {
		sb_printf(sb, "probe tp_syscall.%s = kernel.trace(\"raw_syscalls:sys_enter\")\n{\n"
			  "\t__nr = $id\n\tif (%s || __syscall_ia32() != %d)\n\t\tnext\n",
			  probe, other.data, abi->bits32);
		put_entry_body(sb, abi, syscall, name, args, n, "$regs");
		sb_printf(sb, "}\nprobe tp_syscall.%s.return = kernel.trace(\"raw_syscalls:sys_exit\")"
			  "\n{\n\t__nr = kernel_long($regs + %d)\n\tif (%s || __syscall_ia32() != %d)\n"
			  "\t\tnext\n\tname = \"%s\"\n\tretval = $ret\n"
			  "\tretstr = %s\n}\n", probe, PT_REGS_ORIG_AX,
			  other.data, abi->bits32, name, return_text(syscall));
	}
	sb_free(&other);
}

/*
 * The numbers of SYSCALL entering through ABI in the build tree's tables T, into NRS[8]
 * (the x86-64 table's sys_NAME rows; the ia32 table's compat_sys_NAME rows for the compat
 * entry, its sys_NAME rows without a compat function otherwise); how many.
 */
static int syscall_numbers(const struct syscall_tables *t, const struct abi *abi,
			   const char *syscall, int nrs[8])
{
	const struct table_entry *table = abi->bits32 ? t->ia32 : t->x64;
	int rows = abi->bits32 ? t->nia32 : t->nx64, n = 0;
	char *native = xasprintf("sys_%s", syscall), *compat = xasprintf("compat_sys_%s", syscall);

	for (int i = 0; i < rows && n < 8; i++) {
		if (abi == &ia32_compat_abi ? strcmp(table[i].compat, compat) == 0 :
		    strcmp(table[i].native, native) == 0 && !(abi->bits32 && table[i].compat[0]))
			nrs[n++] = table[i].nr;
	}
	free(native);
	free(compat);
	return n;
}

/*
 * The aliases of SYSCALL entering through ABI: syscall.PROBE and nd_syscall.PROBE
 * (kprobes), tp_syscall.PROBE (the tracepoints, for its numbers in the tables T), and
 * their .return.  Several definitions of one alias add up: a 32-bit call and its 64-bit
 * twin are one probe, as in stap.  False when the kernel does not build the call.
 */
static bool put_syscall(struct strbuf *sb, struct dw_module *k, struct dw_index *index,
			const struct abi *abi, const char *syscall, const struct syscall_tables *t)
{
	struct arg args[6];
	int n = syscall_args(k, index, abi, syscall, args), copies, nrs[8];
	char *entry = xasprintf("%s%s", abi->entry, syscall);
	const struct dw_function *f = find_function(index, entry, &copies);

	free(entry);
	/* only sys_ni.c's (not built: -ENOSYS), or neither the entry nor its body in the
	 * DWARF (a weak stub of sys_ni.c's that the DWARF does not name) */
	if ((!f && copies) || (!f && !n && !body_in_dwarf(index, abi, syscall)))
		return false;
	put_aliases(sb, abi, syscall, args, n, nrs, syscall_numbers(t, abi, syscall, nrs));
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


/*
 * syscall_any and syscall_any.return (stap's tapset::syscall_any(3stap)): every system
 * call through the raw_syscalls tracepoints, with syscall_nr and name (the name the
 * syscall.* probe of the call has), retval on return.  The names come from the build
 * tree's tables, the 32-bit one for a task in a 32-bit call.
 */
static void put_syscall_any(struct strbuf *sb, const struct syscall_tables *tables)
{
	sb_puts(sb, "%{\n#include <linux/compat.h>\n");
	for (int bits = 64; bits >= 32; bits -= 32) {
		const struct table_entry *table = bits == 64 ? tables->x64 : tables->ia32;
		int n = bits == 64 ? tables->nx64 : tables->nia32;

		sb_printf(sb, "static const char *const stp_syscall_names_%d[] = {\n", bits);
		for (int i = 0; i < n; i++) {
			const char *func = bits == 32 && table[i].compat[0] ? table[i].compat :
					   table[i].native;
			const char *name = strstr(func, "sys_"), *probe, *shown;

			if (!name || strcmp(name, "sys_ni_syscall") == 0)
				continue;
			probe_name(name + strlen("sys_"), &probe, &shown);
			sb_printf(sb, "\t[%d] = \"%s\",\n", table[i].nr, shown);
		}
		sb_puts(sb, "\tNULL\n};\n");
	}
	sb_puts(sb, "%}\n\n"
		"// 1 in a 32-bit system call (int $0x80, the 32-bit vDSO), else 0\n"
		"function __syscall_ia32:long () %{ /* pure */ /* unprivileged */\n"
		"\tSTAP_RETVALUE = in_ia32_syscall();\n"
		"%}\n\n"
		"// the name of system call NR in the current task's ABI (\"\" if none)\n"
		"function __syscall_name:string (nr:long) %{ /* pure */ /* unprivileged */\n"
		"\tconst char *const *names = stp_syscall_names_64;\n"
		"\tsize_t count = ARRAY_SIZE(stp_syscall_names_64);\n\n"
		"\tif (in_ia32_syscall()) {\n"
		"\t\tnames = stp_syscall_names_32;\n"
		"\t\tcount = ARRAY_SIZE(stp_syscall_names_32);\n"
		"\t}\n"
		"\tSTAP_RETVALUE[0] = '\\0';\n"
		"\tif (STAP_ARG_nr >= 0 && STAP_ARG_nr < (int64_t)count && names[STAP_ARG_nr])\n"
		"\t\tstrscpy(STAP_RETVALUE, names[STAP_ARG_nr], MAXSTRINGLEN);\n"
		"%}\n\n"
		"// syscall_name(nr): the name of system call NR (syscall_any's syscall_nr) in the\n"
		"// current task's ABI, as the syscall.* probes name it; \"\" if none\n"
		"function syscall_name:string (nr:long) {\n\treturn __syscall_name(nr)\n}\n\n"
		"// syscall_num(name): the number of the system call NAME (as syscall_name gives\n"
		"// it) in the current task's ABI; -1 if none\n"
		"function syscall_num:long (name:string) %{ /* pure */ /* unprivileged */\n"
		"\tconst char *const *names = stp_syscall_names_64;\n"
		"\tsize_t count = ARRAY_SIZE(stp_syscall_names_64), i;\n\n"
		"\tif (in_ia32_syscall()) {\n"
		"\t\tnames = stp_syscall_names_32;\n"
		"\t\tcount = ARRAY_SIZE(stp_syscall_names_32);\n"
		"\t}\n"
		"\tSTAP_RETVALUE = -1;\n"
		"\tfor (i = 0; i < count; i++)\n"
		"\t\tif (names[i] && strcmp(names[i], STAP_ARG_name) == 0) {\n"
		"\t\t\tSTAP_RETVALUE = i;\n"
		"\t\t\tbreak;\n"
		"\t\t}\n"
		"%}\n\n"
		"probe syscall_any = kernel.trace(\"raw_syscalls:sys_enter\")\n{\n"
		"\tsyscall_nr = $id\n\tname = __syscall_name(syscall_nr)\n}\n"
		"probe syscall_any.return = kernel.trace(\"raw_syscalls:sys_exit\")\n{\n"
		"\tsyscall_nr = $regs->orig_ax\n\tname = __syscall_name(syscall_nr)\n"
		"\tretval = $ret\n}\n\n");
}

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

static bool is_listed(const struct strlist *l, const char *name)
{
	for (int i = 0; i < l->count; i++)
		if (strcmp(l->items[i], name) == 0)
			return true;
	return false;
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

static void put_unbuilt(struct strbuf *sb, struct session *s, const struct strlist *built,
			const struct syscall_tables *t);

/*
 * The tapset's text for the kernel K: the 64-bit calls, those of x86-64's table (or,
 * without it, every __x64_sys_ entry point), then the 32-bit ones where the kernel has
 * them (IA32_EMULATION), through the compat entry point when there is one.
 */
static char *generate(struct dw_module *k)
{
	struct dw_index *index = dw_module_index(k);
	struct strbuf sb = { 0 };
	struct strlist x64 = { 0 }, ia32 = { 0 }, compat = { 0 }, built = { 0 };
	struct syscall_tables tables = read_tables(k->session);

	sb_printf(&sb, "// syscalls.stp - the system calls of %s, generated by stapler's "
		  "src/elaborate/syscall_tapset.c\n// from its DWARF: do not edit.\n\n", k->path);
	sb_puts(&sb, "// how many characters of a buffer argstr shows (stap -G to change it)\n"
		"global syscall_string_trunc = 50\n\n");
	if (!table_syscalls(k, &x64))
		entry_symbols(k, x64_abi.entry, &x64);
	sort_names(&x64);
	for (int i = 0; i < x64.count; i++)
		if ((!i || strcmp(x64.items[i], x64.items[i - 1]) != 0) &&
		    put_syscall(&sb, k, index, &x64_abi, x64.items[i], &tables))
			strlist_add(&built, x64.items[i]);
	put_unbuilt(&sb, k->session, &built, &tables);
	strlist_free(&built);

	entry_symbols(k, ia32_compat_abi.entry, &compat);
	sort_names(&compat);
	entry_symbols(k, ia32_abi.entry, &ia32);
	for (int i = 0; i < compat.count; i++)
		strlist_add(&ia32, compat.items[i]);
	sort_names(&ia32);
	if (ia32.count)
		sb_puts(&sb, IA32_HEADING "\n\n");
	for (int i = 0; i < ia32.count; i++) {
		const char *name = ia32.items[i];

		if (i && strcmp(name, ia32.items[i - 1]) == 0)
			continue;
		if (has_name(&x64, name) && same_entry(k, name)) {
			/* the kprobes are the 64-bit ones; the tracepoints need the number */
			int nrs[8];

			put_tp_aliases(&sb, &ia32_abi, name, NULL, 0, nrs,
				       syscall_numbers(&tables, &ia32_abi, name, nrs));
			continue;
		}
		if (!(has_name(&compat, name) &&
		      put_syscall(&sb, k, index, &ia32_compat_abi, name, &tables)))
			put_syscall(&sb, k, index, &ia32_abi, name, &tables);
	}
	put_syscall_any(&sb, &tables);
	free_tables(&tables);
	strlist_free(&x64);
	strlist_free(&ia32);
	strlist_free(&compat);
	return sb_steal(&sb);
}

/* ---- without DWARF: the build tree's syscall tables and the kernel's prototypes ---- */

/*
 * The integer types of system call parameters, by the words of their C type (x86-64):
 * size and sign.  A type not here is taken as a long.
 */
static const struct { const char *name; int size; bool is_signed; } c_types[] = {
	{ "char", 1, true }, { "short", 2, true }, { "int", 4, true }, { "long", 8, true },
	{ "unsigned char", 1, false }, { "unsigned short", 2, false },
	{ "unsigned", 4, false }, { "unsigned int", 4, false }, { "unsigned long", 8, false },
	{ "long long", 8, true }, { "unsigned long long", 8, false },
	{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false }, { "u64", 8, false },
	{ "s8", 1, true }, { "s16", 2, true }, { "s32", 4, true }, { "s64", 8, true },
	{ "__u32", 4, false }, { "__u64", 8, false }, { "__s32", 4, true }, { "__s64", 8, true },
	{ "size_t", 8, false }, { "ssize_t", 8, true }, { "loff_t", 8, true },
	{ "off_t", 8, true }, { "pid_t", 4, true }, { "uid_t", 4, false }, { "gid_t", 4, false },
	{ "old_uid_t", 2, false }, { "old_gid_t", 2, false }, { "umode_t", 2, false },
	{ "mode_t", 4, false }, { "key_serial_t", 4, true }, { "clockid_t", 4, true },
	{ "timer_t", 4, true }, { "mqd_t", 4, true }, { "qid_t", 4, false }, { "rwf_t", 4, true },
	{ "key_t", 4, true }, { "aio_context_t", 8, false }, { "old_sigset_t", 8, false },
	{ "__kernel_old_time_t", 8, true }, { "old_time32_t", 4, true },
	{ "compat_size_t", 4, false }, { "compat_ssize_t", 4, true },
	{ "compat_long_t", 4, true }, { "compat_ulong_t", 4, false },
	{ "compat_off_t", 4, true }, { "compat_loff_t", 8, true }, { "compat_pid_t", 4, true },
	{ "compat_uint_t", 4, false }, { "compat_int_t", 4, true }, { "compat_uid_t", 4, false },
	{ "compat_gid_t", 4, false }, { "compat_key_t", 4, true }, { "compat_timer_t", 4, true },
	{ "compat_clock_t", 4, true }, { "compat_aio_context_t", 4, false },
	{ "compat_old_sigset_t", 4, false }, { "compat_sigset_word", 4, false },
	{ "__compat_uid_t", 2, false }, { "__compat_gid_t", 2, false },
};

/* The words of TYPE that say what it is: no const, volatile, __user, signed. */
static char *plain_type(const char *type)
{
	static const char *const dropped[] = { "const", "volatile", "__user", "signed",
					       "struct", "union", "enum" };
	struct strbuf sb = { 0 };
	char *copy = xstrdup(type), *save = NULL;

	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		bool drop = false;

		for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
			drop |= strcmp(w, dropped[i]) == 0;
		if (!drop)
			sb_printf(&sb, "%s%s", sb.data ? " " : "", w);
	}
	free(copy);
	return sb.data ? sb_steal(&sb) : xstrdup("int");
}

/* How a parameter of C type TYPE (text) is kept, as kind_of() says for a DWARF type. */
static enum arg_kind kind_of_text(const char *type, int *size)
{
	char *plain;

	*size = 8;
	if (strchr(type, '*') || strchr(type, '(')) {
		/* const char *: a string (one star, a const char) */
		const char *star = strchr(type, '*');

		if (strstr(type, "const") && strstr(type, "char") && star &&
		    !strchr(star + 1, '*') && !strchr(type, '('))
			return ARG_STRING;
		return ARG_POINTER;
	}
	plain = plain_type(type);
	for (size_t i = 0; i < sizeof(c_types) / sizeof(c_types[0]); i++)
		if (strcmp(plain, c_types[i].name) == 0) {
			*size = c_types[i].size;
			free(plain);
			return c_types[i].is_signed ? ARG_SIGNED : ARG_UNSIGNED;
		}
	/* compat_uptr_t and the like (a 32-bit user address), typedefs of pointers */
	if (strstr(plain, "uptr") || strstr(plain, "caddr") || strstr(plain, "cap_user_") ||
	    strstr(plain, "sighandler_t")) {
		free(plain);
		return ARG_POINTER;
	}
	free(plain);
	return ARG_SIGNED;
}

/* The prototypes "asmlinkage long FUNC(PARAMS);" of the kernel's headers: FUNC, PARAMS. */
struct prototypes {
	struct strlist names, params;
};

static void read_prototypes(struct prototypes *p, const char *text)
{
	for (const char *at = text; (at = strstr(at, "asmlinkage long ")); ) {
		const char *name = at + strlen("asmlinkage long "), *open = name, *close;
		int depth = 0;

		while (*open == '_' || (*open >= 'a' && *open <= 'z') ||
		       (*open >= '0' && *open <= '9'))
			open++;
		at = open;
		if (*open != '(')
			continue;
		for (close = open; *close; close++) {
			if (*close == '(')
				depth++;
			else if (*close == ')' && --depth == 0)
				break;
		}
		if (!*close)
			break;
		strlist_add(&p->names, xstrndup(name, open - name));
		strlist_add(&p->params, xstrndup(open + 1, close - open - 1));
		at = close;
	}
}

/* Whether WORD (the last of a parameter) is part of a type, not the parameter's name. */
static bool is_type_word(const char *word)
{
	static const char *const words[] = { "char", "short", "int", "long", "unsigned",
					     "signed", "void" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(word, words[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(c_types) / sizeof(c_types[0]); i++)
		if (strcmp(word, c_types[i].name) == 0)
			return true;
	return false;
}

/* PARAMS (the text between a prototype's parentheses) as ARGS; their number. */
static int prototype_args(const struct abi *abi, const char *syscall, const char *params,
			  struct arg *args)
{
	int n = 0, depth = 0;
	const char *start = params;

	for (const char *p = params; n < 6; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if ((*p == ',' && depth == 0) || !*p) {
			char *param = xstrndup(start, p - start), *end = param + strlen(param);
			char *name;
			struct arg *a;

			while (end > param && strchr(" \t\n", end[-1]))
				*--end = '\0';
			name = end;
			while (name > param && (name[-1] == '_' || (name[-1] >= 'a' &&
				name[-1] <= 'z') || (name[-1] >= 'A' && name[-1] <= 'Z') ||
				(name[-1] >= '0' && name[-1] <= '9')))
				name--;
			if (is_type_word(name))	/* "unsigned long": no name */
				name = end;
			if (strspn(param, " \t\n") < strlen(param) && strcmp(param, "void") != 0) {
				char *type = xstrndup(param, name - param);	/* less the name */

				a = &args[n++];
				*a = (struct arg){ 0 };
				a->kind = kind_of_text(type, &a->size);
				free(type);
				/* a function pointer "void (*handler)(int)": its name inside */
				a->param = a->var = *name && name > param ? xstrdup(name) :
						    xasprintf("arg%d", n);
			}
			free(param);
			if (!*p)
				break;
			start = p + 1;
		}
	}
	finish_args(abi, syscall, args, n);
	return n;
}

/* The parameters' text of the prototype of FUNC in P, or NULL. */
static const char *prototype_params(const struct prototypes *p, const char *func)
{
	for (int i = 0; i < p->names.count; i++)
		if (strcmp(p->names.items[i], func) == 0)
			return p->params.items[i];
	return NULL;
}

/* The aliases of one call of the tables T, with its prototype's PARAMS (NULL: none). */
static void put_from_prototype(struct elaborator *el, struct strbuf *sb, const struct abi *abi,
			       const char *syscall, const char *params,
			       const struct syscall_tables *t)
{
	struct arg args[6];
	char *entry = xasprintf("%s%s", abi->entry, syscall);
	/* not built (sys_ni.c's weak stub is no text symbol), when the symbols say */
	bool absent = kernel_has_function(el, entry) == 0;
	int nrs[8];

	free(entry);
	if (!absent)
		put_aliases(sb, abi, syscall, args,
			    params ? prototype_args(abi, syscall, params, args) : 0, nrs,
			    syscall_numbers(t, abi, syscall, nrs));
}

/*
 * The calls of x86-64's table this kernel does not build (sys_ni.c answers them with
 * -ENOSYS), which stap 4.8 still offers (tapset::syscalls(3stap)): syscall.NAME and
 * nd_syscall.NAME are tp_syscall.NAME, the raw_syscalls tracepoints kept for the call's
 * number, with the arguments of its prototype in include/linux/syscalls.h.  Such a call
 * the table no longer names (sys_ni_syscall at its number) only where stap still has it:
 * _sysctl (syscall.sysctl), by its number in the build tree's unistd_64.h.  And
 * syscall.ni_syscall: sys_ni_syscall itself, which answers them.
 */
static const struct { const char *nr_name, *params; } retired_calls[] = {
	{ "_sysctl", "struct __sysctl_args __user *args" },
};

static void put_unbuilt_aliases(struct strbuf *sb, const char *syscall, const char *params,
				const int *nrs, int nnr)
{
	struct arg args[6];
	int n = params ? prototype_args(&x64_abi, syscall, params, args) : 0;
	const char *probe, *name;

	probe_name(syscall, &probe, &name);
	for (int nd = 0; nd < 2; nd++)
		sb_printf(sb, "probe %s.%s = tp_syscall.%s { }\n"
			  "probe %s.%s.return = tp_syscall.%s.return { }\n",
			  nd ? "nd_syscall" : "syscall", probe, probe,
			  nd ? "nd_syscall" : "syscall", probe, probe);
	put_tp_aliases(sb, &x64_abi, syscall, args, n, nrs, nnr);
	sb_putc(sb, '\n');
}

static void put_unbuilt(struct strbuf *sb, struct session *s, const struct strlist *built,
			const struct syscall_tables *t)
{
	struct strbuf headers = { 0 }, unistd = { 0 };
	struct prototypes protos = { 0 };

	read_kernel_file(s, "include/linux/syscalls.h", &headers);
	read_prototypes(&protos, headers.data ? headers.data : "");
	for (int i = 0; i < t->nx64; i++) {
		const char *func = t->x64[i].native, *name = func + strlen("sys_");
		int nrs[8];

		if (!starts_with(func, "sys_") || strcmp(func, "sys_ni_syscall") == 0 ||
		    has_name(built, name))
			continue;
		put_unbuilt_aliases(sb, name, prototype_params(&protos, func), nrs,
				    syscall_numbers(t, &x64_abi, name, nrs));
	}
	read_kernel_file(s, "arch/x86/include/generated/uapi/asm/unistd_64.h", &unistd);
	for (size_t i = 0; i < sizeof(retired_calls) / sizeof(retired_calls[0]); i++) {
		char *define = xasprintf("#define __NR_%s ", retired_calls[i].nr_name);
		const char *at = unistd.data ? strstr(unistd.data, define) : NULL;
		int nr;

		if (at && sscanf(at + strlen(define), "%d", &nr) == 1 &&
		    !has_name(built, retired_calls[i].nr_name))
			put_unbuilt_aliases(sb, retired_calls[i].nr_name, retired_calls[i].params,
					    &nr, 1);
		free(define);
	}
	/* syscall.* by its DWARF (stap's points: $return), nd_syscall.* by kprobes */
	for (int nd = 0; nd < 2; nd++) {
		const char *family = nd ? "nd_syscall" : "syscall";
		const char *point = nd ? "kprobe.function(\"sys_ni_syscall\")" :
				    "kernel.function(\"sys_ni_syscall\")";

		sb_printf(sb, "probe %s.ni_syscall = %s%s ?\n"
			  "{\n\tname = \"ni_syscall\"\n\targstr = \"\"\n}\n"
			  "probe %s.ni_syscall.return = %s.return ?\n"
			  "{\n\tname = \"ni_syscall\"\n\tretval = returnval()\n"
			  "\tretstr = return_str(1, retval)\n}\n", family, point, nd ? "" : ".call",
			  family, point);
	}
	sb_putc(sb, '\n');
	sb_free(&headers);
	sb_free(&unistd);
	strlist_free(&protos.names);
	strlist_free(&protos.params);
}

/*
 * The tapset's text from the build tree alone: the tables the kernel's build wrote
 * (arch/x86/include/generated/asm/syscalls_64.h and _32.h: "__SYSCALL(NR, sys_NAME)",
 * "__SYSCALL_WITH_COMPAT(NR, sys_NAME, compat_sys_NAME)") and the prototypes of
 * include/linux/syscalls.h and compat.h, less the calls the kernel's symbol table (when
 * there is one) has no entry point of.  Every alias is a kprobe; NULL without tables.
 */
static char *generate_from_headers(struct elaborator *el)
{
	struct session *s = el->session;
	struct strbuf headers = { 0 }, sb = { 0 };
	struct prototypes protos = { 0 };
	struct strlist done64 = { 0 }, done32 = { 0 };
	struct syscall_tables tables = read_tables(s);

	if (tables.nx64 < 0) {
		free_tables(&tables);
		return NULL;
	}
	read_kernel_file(s, "include/linux/syscalls.h", &headers);
	read_kernel_file(s, "include/linux/compat.h", &headers);
	read_kernel_file(s, "arch/x86/include/asm/syscalls.h", &headers);
	read_prototypes(&protos, headers.data ? headers.data : "");

	sb_printf(&sb, "// syscalls.stp - the system calls of %s, generated by stapler's "
		  "src/elaborate/syscall_tapset.c\n// from its build tree (no debuginfo): do not edit.\n\n",
		  s->kernel_release ? s->kernel_release : "the running kernel");
	sb_puts(&sb, "// how many characters of a buffer argstr shows (stap -G to change it)\n"
		"global syscall_string_trunc = 50\n\n");
	for (int bits = 64; bits >= 32; bits -= 32) {
		const struct table_entry *table = bits == 64 ? tables.x64 : tables.ia32;
		int n = bits == 64 ? tables.nx64 : tables.nia32;
		struct strlist *done = bits == 64 ? &done64 : &done32;

		if (bits == 32 && n > 0)
			sb_puts(&sb, IA32_HEADING "\n\n");
		for (int t = 0; t < n; t++) {
			bool compat = bits == 32 && starts_with(table[t].compat, "compat_sys_");
			const char *func = compat ? table[t].compat : table[t].native;
			const char *name = func + strlen(compat ? "compat_sys_" : "sys_");
			const char *params = prototype_params(&protos, func);

			if (!starts_with(func, compat ? "compat_sys_" : "sys_") ||
			    strcmp(func, "sys_ni_syscall") == 0 || is_listed(done, name))
				continue;
			/* SYSCALL_DEFINE0's 32-bit entry is its 64-bit one (its kprobes are
			 * those; the tracepoints need the 32-bit number) */
			if (bits == 32 && !compat && (!params || strcmp(params, "void") == 0) &&
			    is_listed(&done64, name)) {
				int nrs[8];

				put_tp_aliases(&sb, &ia32_abi, name, NULL, 0, nrs,
					       syscall_numbers(&tables, &ia32_abi, name, nrs));
				continue;
			}
			put_from_prototype(el, &sb, bits == 64 ? &x64_abi : compat ?
					   &ia32_compat_abi : &ia32_abi, name, params, &tables);
			strlist_add(done, name);
		}
	}
	put_syscall_any(&sb, &tables);
	free_tables(&tables);
	sb_free(&headers);
	strlist_free(&protos.names);
	strlist_free(&protos.params);
	strlist_free(&done64);
	strlist_free(&done32);
	return sb_steal(&sb);
}

/*
 * The tapset as files the index can take one at a time: the aliases of each system call
 * NAME (syscall.NAME, nd_syscall.NAME, tp_syscall.NAME and their .return) in
 * syscall-NAME.stp, its 32-bit ones in syscall32-NAME.stp, the rest (the global, the
 * functions, syscall_any) in syscalls.stp, written last: a folder with syscalls.stp is
 * whole.  A script or -L that names one system call parses a few kilobytes, not the
 * 1.5 MB of them all; and as the files come in name order, a wildcard's probes come in
 * the order of the text as generated (every 64-bit call, then the 32-bit ones).
 */
struct syscall_file {
	char *name;
	struct strbuf text;
};

/* The NAME of a line "probe syscall.NAME...", "probe nd_syscall.NAME..." or
 * "probe tp_syscall.NAME...", else NULL. */
static char *alias_syscall(const char *line)
{
	static const char *const families[] = { "syscall.", "nd_syscall.", "tp_syscall.", NULL };

	if (!starts_with(line, "probe "))
		return NULL;
	line += strlen("probe ");
	for (int i = 0; families[i]; i++)
		if (starts_with(line, families[i])) {
			const char *name = line + strlen(families[i]);

			return xstrndup(name, strcspn(name, ". =\n"));
		}
	return NULL;
}

static bool install_split(const char *dir, const char *text)
{
	struct syscall_file *files = NULL;
	struct strbuf rest = { 0 };
	struct strbuf *into = &rest;
	int nfiles = 0;
	bool ok = true, ia32 = false;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		char *name;

		if (line[len] == '\n')
			len++;
		/* a line at the left margin begins the next part (an alias, a comment, a
		 * definition, embedded C, and each line of that); an alias's body is indented
		 * but for its braces */
		if (*line != '\t' && *line != ' ' && *line != '\n' && *line != '{' && *line != '}') {
			into = &rest;
			if (starts_with(line, IA32_HEADING))
				ia32 = true;
			if ((name = alias_syscall(line))) {
				char *file = xasprintf("%s-%s", ia32 ? "syscall32" : "syscall", name);
				int i = 0;

				free(name);
				name = file;

				while (i < nfiles && strcmp(files[i].name, name) != 0)
					i++;
				if (i == nfiles) {
					files = xrealloc(files, (nfiles + 1) * sizeof(*files));
					files[nfiles++] = (struct syscall_file){ .name = xstrdup(name) };
				}
				into = &files[i].text;
				free(name);
			}
		}
		sb_putn(into, line, len);
		line += len;
	}
	for (int i = 0; i < nfiles; i++) {
		char *path = xasprintf("%s/%s.stp", dir, files[i].name);

		if (ok && install_file(path, files[i].text.data, files[i].text.len) != 0)
			ok = false;
		free(path);
		free(files[i].name);
		sb_free(&files[i].text);
	}
	free(files);
	if (ok) {
		char *path = xasprintf("%s/syscalls.stp", dir);

		ok = install_file(path, rest.data ? rest.data : "", rest.len) == 0;
		free(path);
	}
	sb_free(&rest);
	return ok;
}

char *syscall_tapset_dir(struct elaborator *el)
{
	struct session *s = el->session;
	struct dw_module *k = debuginfo_kernel(elaborator_debuginfo(el));
	char *table = s->kernel_build_dir ? xasprintf("%s/arch/x86/include/generated/asm/"
						      "syscalls_64.h", s->kernel_build_dir) : NULL;
	char *dir, *path, *text;
	struct stat st;

	if (k && !dw_module_index(k))
		k = NULL;
	if (!k && (!table || stat(table, &st) != 0)) {
		free(table);
		return NULL;
	}
	/* from the DWARF, or (without it) from the build tree */
	dir = cache_path_for_file("tapsets", "", k ? GENERATOR " dwarf" : GENERATOR " headers",
				  k ? k->path : table);
	free(table);
	path = xasprintf("%s/syscalls.stp", dir);
	if (stat(path, &st) != 0) {
		text = k ? generate(k) : generate_from_headers(el);
		if (!text || make_dirs(dir) != 0 || !install_split(dir, text)) {
			free(dir);
			dir = NULL;
		}
		free(text);
	}
	free(path);
	return dir;
}
