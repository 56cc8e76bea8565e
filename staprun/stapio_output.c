/*
 * stapio_output.c - where the probes' output goes: standard output, or -o FILE with its
 * strftime(3) formats, one file per CPU in bulk mode, the next file on -S SIZE or SIGUSR2,
 * and at most N files kept with -S SIZE,N.
 *
 * Files are opened as the real user: staprun may be setuid root, and the user must not
 * be able to write where only root may.
 */
#include "stapio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* With -S, a line is held back until its end arrives, unless it grows past this. */
#define CARRY_MAX (1024 * 1024)

struct out_stream {
	const struct output_config *cfg;
	int cpu;			/* -1: the shared buffer */
	int fd;
	bool is_stdout;
	bool owns_stderr;		/* a daemon's messages follow the current file */
	unsigned long seq;		/* number of the current file */
	unsigned long long written;	/* bytes in the current file */
	char **kept;			/* names of the last max_files files, by seq % max */
	char *name;			/* the current file's name */
	char *carry;			/* the start of a line whose end has not come yet */
	size_t carry_len;
};

static void out_of_memory(void)
{
	fatal("out of memory");
}

/* Back to the effective ids after acting as the real user; stopping is all that is left. */
static void restore_fs_ids(void)
{
	if (!set_fs_ids(geteuid(), getegid()))
		fatal("cannot switch back from the file system ids of the real user");
}

/*
 * Acting as the real user for one file system call, in a setuid or setgid stapio (else
 * there is nothing to switch: *SWITCHED is false).  False, errno EPERM, when the ids could
 * not be switched.
 */
static bool enter_user_fs_ids(bool *switched)
{
	*switched = getuid() != geteuid() || getgid() != getegid();
	if (*switched && !set_fs_ids(getuid(), getgid())) {
		restore_fs_ids();
		errno = EPERM;
		return false;
	}
	return true;
}

/* Back from enter_user_fs_ids(), errno still that of the call made as the user. */
static void leave_user_fs_ids(bool switched)
{
	int err = errno;

	if (switched)
		restore_fs_ids();
	errno = err;
}

int open_as_user(const char *path, int flags, mode_t mode)
{
	bool switched;
	int fd;

	if (!enter_user_fs_ids(&switched))
		return -1;
	fd = open(path, flags, mode);
	leave_user_fs_ids(switched);
	return fd;
}

static int unlink_as_user(const char *path)
{
	bool switched;
	int rc;

	if (!enter_user_fs_ids(&switched))
		return -1;
	rc = unlink(path);
	leave_user_fs_ids(switched);
	return rc;
}

/* FILE with its strftime formats expanded now, then _N or _cpuN in bulk mode, then .SEQ. */
static char *file_name(const struct out_stream *st)
{
	const struct output_config *cfg = st->cfg;
	char base[4096] = "stpd";
	char *name;
	int rc;

	if (cfg->file && strchr(cfg->file, '%')) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		if (strftime(base, sizeof(base), cfg->file, &tm) == 0)
			fatal("the output file name '%s' is empty or too long once its time "
			      "formats are expanded", cfg->file);
	} else if (cfg->file) {
		snprintf(base, sizeof(base), "%s", cfg->file);
	}
	if (st->cpu >= 0)
		rc = asprintf(&name, "%s_%s%d", base, cfg->daemon || !cfg->file ? "cpu" : "",
			      st->cpu);
	else
		rc = asprintf(&name, "%s", base);
	if (rc < 0)
		out_of_memory();
	if (cfg->numbered || st->seq > 0) {
		char *numbered;

		if (asprintf(&numbered, "%s.%lu", name, st->seq) < 0)
			out_of_memory();
		free(name);
		name = numbered;
	}
	return name;
}

static bool open_current(struct out_stream *st)
{
	const struct output_config *cfg = st->cfg;
	char *name = file_name(st);

	st->fd = open_as_user(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (st->fd < 0) {
		fprintf(stderr, "ERROR: cannot open output file %s: %s\n", name, strerror(errno));
		free(name);
		return false;
	}
	say(1, "writing the output to %s", name);
	st->written = 0;
	if (cfg->max_files) {
		char **slot = &st->kept[st->seq % cfg->max_files];

		/* the file max_files before this one goes */
		if (*slot && strcmp(*slot, name) != 0 && unlink_as_user(*slot) != 0 &&
		    errno != ENOENT)
			fprintf(stderr, "WARNING: cannot remove old output file %s: %s\n", *slot,
				strerror(errno));
		free(*slot);
		*slot = strdup(name);
		if (!*slot)
			out_of_memory();
	}
	free(st->name);
	st->name = name;
	if (st->owns_stderr)
		dup2(st->fd, STDERR_FILENO);
	return true;
}

struct out_stream *output_open(const struct output_config *cfg, int cpu)
{
	struct out_stream *st = calloc(1, sizeof(*st));

	if (!st)
		out_of_memory();
	st->cfg = cfg;
	st->cpu = cpu;
	if (cfg->max_files) {
		st->kept = calloc(cfg->max_files, sizeof(*st->kept));
		if (!st->kept)
			out_of_memory();
	}
	if (!cfg->file && cpu < 0) {
		st->fd = STDOUT_FILENO;
		st->is_stdout = true;
		return st;
	}
	if (!open_current(st)) {
		free(st->kept);
		free(st);
		return NULL;
	}
	return st;
}

/* A full disk or a closed pipe ends the session, with an error status. */
static void write_fd(struct out_stream *st, const char *buf, size_t len)
{
	while (len > 0 && !output_failed) {
		ssize_t n = write(st->fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EPIPE)
				fprintf(stderr, "ERROR: writing the output%s%s: %s\n",
					st->name ? " to " : "", st->name ? st->name : "",
					strerror(errno));
			output_failed = true;
			stop_requested = 1;
			return;
		}
		buf += n;
		len -= n;
		st->written += n;
	}
}

static void next_file(struct out_stream *st)
{
	if (st->is_stdout)
		return;
	if (close(st->fd) != 0) {
		fprintf(stderr, "ERROR: writing %s: %s\n", st->name, strerror(errno));
		output_failed = true;
		stop_requested = 1;
	}
	st->seq++;
	if (!open_current(st)) {
		/* nowhere to write: end the session, what comes meanwhile is lost */
		st->fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		output_failed = true;
		stop_requested = 1;
	}
}

/* Writes whole lines, going to the next file before one would pass the size limit. */
static void put_limited(struct out_stream *st, const char *data, size_t len)
{
	unsigned long long limit = st->cfg->size_limit;

	while (len > 0 && !output_failed) {
		size_t room = st->written < limit ? limit - st->written : 0;
		size_t n = 0;

		if (len <= room) {
			write_fd(st, data, len);
			return;
		}
		if (room) {
			const char *nl = memrchr(data, '\n', room);

			if (nl)
				n = nl - data + 1;
		}
		if (n == 0 && st->written == 0)
			n = room;	/* one line longer than a whole file */
		write_fd(st, data, n);
		data += n;
		len -= n;
		next_file(st);
	}
}

static void carry_append(struct out_stream *st, const char *data, size_t len)
{
	if (!st->carry) {
		st->carry = malloc(CARRY_MAX);
		if (!st->carry)
			out_of_memory();
	}
	while (len > 0) {
		size_t n = CARRY_MAX - st->carry_len;

		if (n > len)
			n = len;
		memcpy(st->carry + st->carry_len, data, n);
		st->carry_len += n;
		data += n;
		len -= n;
		if (st->carry_len == CARRY_MAX) {
			put_limited(st, st->carry, st->carry_len);
			st->carry_len = 0;
		}
	}
}

void output_write(struct out_stream *st, const char *buf, size_t len)
{
	const char *nl;
	size_t head;

	if (!st->cfg->size_limit || st->is_stdout) {
		write_fd(st, buf, len);
		return;
	}
	nl = memrchr(buf, '\n', len);
	if (!nl) {
		carry_append(st, buf, len);
		return;
	}
	head = nl - buf + 1;
	if (st->carry_len) {
		carry_append(st, buf, head);
		put_limited(st, st->carry, st->carry_len);
		st->carry_len = 0;
	} else {
		put_limited(st, buf, head);
	}
	carry_append(st, buf + head, len - head);
}

void output_end_round(struct out_stream *st)
{
	if (st->carry_len) {
		put_limited(st, st->carry, st->carry_len);
		st->carry_len = 0;
	}
}

void output_switch(struct out_stream *st)
{
	if (st->is_stdout) {
		say(1, "output file switch ignored: the output is not a file");
		return;
	}
	output_end_round(st);
	next_file(st);
}

void output_own_stderr(struct out_stream *st)
{
	st->owns_stderr = true;
	dup2(st->fd, STDERR_FILENO);
}

bool output_close(struct out_stream *st)
{
	bool ok = true;

	output_end_round(st);
	if (!st->is_stdout && close(st->fd) != 0) {
		fprintf(stderr, "ERROR: writing %s: %s\n", st->name, strerror(errno));
		ok = false;
	}
	if (st->cfg->max_files)
		for (unsigned long i = 0; i < st->cfg->max_files; i++)
			free(st->kept[i]);
	free(st->kept);
	free(st->name);
	free(st->carry);
	free(st);
	return ok;
}
