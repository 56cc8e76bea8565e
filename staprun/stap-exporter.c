/*
 * stap-exporter - serve the metrics of stapler scripts to Prometheus over HTTP.
 *
 * Each script of the folder (-s DIR, default /etc/stapler/exporter) is a page: /NAME for
 * NAME.stp (run with stap -m NAME) or NAME.ko (a module stap -p4 built for this kernel,
 * run with staprun).  The first request for /NAME starts the script and waits for it
 * (-t SECONDS); every request reads the file its `probe prometheus` handlers fill,
 * /proc/systemtap/MODULE/__prometheus, and answers with it in Prometheus's text format.
 * -k SECONDS stops a script nobody has asked for that long; / lists the scripts.  HTTP is
 * libmicrohttpd's; errors are HTTP errors with a line of text.  man stap-exporter(8).
 */
#include "modimage.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef EXPORTER_DIR
#define EXPORTER_DIR "/etc/stapler/exporter"
#endif
#ifndef BINDIR
#define BINDIR "/usr/local/bin"
#endif

#define PROMETHEUS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_MAX (1 << 20)	/* the procfs file holds at most 64 KiB */
#define STDERR_TAIL 2000	/* bytes of a failed script's messages in the answer */

static const char usage_text[] =
"Usage: stap-exporter [-p PORT] [-a ADDRESS] [-s DIR] [-k SECONDS] [-t SECONDS] [-v]\n"
"\n"
"Serves /NAME for each script NAME.stp (or module NAME.ko) in DIR: the first request\n"
"starts it, each one answers with what its `probe prometheus` handlers write, in\n"
"Prometheus's text format.  / lists the scripts.\n"
"\n"
"   -p PORT      the port to listen on (default 9900)\n"
"   -a ADDRESS   the IPv4 address to listen on (default: every address)\n"
"   -s DIR       the scripts' folder (default " EXPORTER_DIR ")\n"
"   -k SECONDS   stop a script nobody has asked for in SECONDS (default: never)\n"
"   -t SECONDS   how long a first request waits for its script to start (default 120)\n"
"   -v           say what happens on standard error\n"
"   -h           show this help\n";

enum script_state { STOPPED, STARTING, RUNNING };

struct script {
	char name[256];			/* the page: the file's name less .stp or .ko */
	char path[PATH_MAX];
	char module[64];		/* the module's name: /proc/systemtap/MODULE */
	bool is_module;			/* NAME.ko */
	enum script_state state;
	pid_t pid;
	char log[PATH_MAX + 300];	/* its standard error */
	time_t last_read;
	int exit_status;		/* when it ended by itself: its wait status, */
	bool ended_unseen;		/* not yet told to a request */
	struct script *next;
};

static struct {
	const char *dir;
	long keepalive, start_wait;
	int verbose;
	const char *stap, *staprun;
	char workdir[PATH_MAX];
} cfg = { EXPORTER_DIR, 0, 120, 0, NULL, NULL, "" };

static pthread_mutex_t scripts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct script *scripts;
static volatile sig_atomic_t stopping;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	if (!cfg.verbose)
		return;
	va_start(ap, fmt);
	fputs("stap-exporter: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void on_stop_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* ---- the scripts ---- */

/* A page name: letters, digits, '_', '-' and '.', as a file name of DIR. */
static bool page_name_ok(const char *name, size_t len)
{
	if (!len || len >= sizeof(((struct script *)0)->name) || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_-.", name[i]))
			return false;
	return true;
}

/* NAME as a module name: letters, digits and '_', at most 55 characters. */
static void module_name_of(const char *name, char *out, size_t size)
{
	size_t n = 0;

	for (const char *c = name; *c && n + 1 < size && n < 55; c++)
		out[n++] = isalnum((unsigned char)*c) ? *c : '_';
	out[n] = '\0';
}

/* The name a module file gives itself (.modinfo name=), into OUT. */
static bool module_file_name(const char *path, char *out, size_t size)
{
	struct modimage_info info;
	FILE *f = fopen(path, "rb");
	char *image = NULL;
	long len;
	bool ok = false;

	if (!f)
		return false;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len < (256L << 20) &&
	    fseek(f, 0, SEEK_SET) == 0 && (image = malloc(len)) &&
	    fread(image, 1, len, f) == (size_t)len &&
	    modimage_read(image, len, &info) == MODIMAGE_OK) {
		if (info.name && strlen(info.name) < size) {
			snprintf(out, size, "%s", info.name);
			ok = true;
		}
		modimage_free(&info);
	}
	free(image);
	fclose(f);
	return ok;
}

/*
 * The script of page NAME: found in the table, or (when DIR has NAME.stp or NAME.ko)
 * added to it.  NULL when DIR has neither.  Called with scripts_lock held.
 */
static struct script *find_script(const char *name)
{
	struct script *s;
	char path[PATH_MAX];
	struct stat st;
	bool module = false;

	for (s = scripts; s; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	snprintf(path, sizeof(path), "%s/%s.stp", cfg.dir, name);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/%s.ko", cfg.dir, name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			return NULL;
		module = true;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->is_module = module;
	snprintf(s->log, sizeof(s->log), "%s/%s.log", cfg.workdir, name);
	s->next = scripts;
	scripts = s;
	return s;
}

/* Whether the script's process has ended; its status then (reaped) in *STATUS. */
static bool script_ended(struct script *s, int *status)
{
	pid_t r;

	if (s->pid <= 0)
		return true;
	r = waitpid(s->pid, status, WNOHANG);
	if (r == 0)
		return false;
	s->pid = 0;
	s->state = STOPPED;
	s->exit_status = *status;
	s->ended_unseen = true;
	return true;
}

static void stop_script(struct script *s)
{
	int status;

	if (s->pid <= 0) {
		s->state = STOPPED;
		return;
	}
	say("stopping %s (pid %d)", s->name, (int)s->pid);
	kill(s->pid, SIGTERM);	/* stap and staprun end the session: end probes run */
	for (int i = 0; i < 300 && !script_ended(s, &status); i++)
		usleep(100000);
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &status, 0);
		s->pid = 0;
	}
	s->state = STOPPED;
	s->ended_unseen = false;	/* stopped on purpose */
}

static bool start_script(struct script *s, char *why, size_t why_size)
{
	int log;
	pid_t pid;

	if (s->is_module) {
		if (!module_file_name(s->path, s->module, sizeof(s->module))) {
			snprintf(why, why_size, "%s is not a kernel module stap -p4 made", s->path);
			return false;
		}
	} else {
		module_name_of(s->name, s->module, sizeof(s->module));
	}
	log = open(s->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log < 0) {
		snprintf(why, why_size, "cannot write %s: %s", s->log, strerror(errno));
		return false;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, why_size, "fork: %s", strerror(errno));
		close(log);
		return false;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);	/* not the exporter's terminal's: it stops when told */
		dup2(null, 0);
		dup2(null, 1);	/* what the script prints is not the metrics */
		dup2(log, 2);
		if (s->is_module)
			execlp(cfg.staprun, cfg.staprun, s->path, (char *)NULL);
		else
			execlp(cfg.stap, cfg.stap, "-m", s->module, s->path, (char *)NULL);
		fprintf(stderr, "stap-exporter: cannot run %s: %s\n",
			s->is_module ? cfg.staprun : cfg.stap, strerror(errno));
		_exit(127);
	}
	close(log);
	s->pid = pid;
	s->state = STARTING;
	say("started %s: %s %s (pid %d)", s->name, s->is_module ? cfg.staprun : cfg.stap,
	    s->path, (int)pid);
	return true;
}

/* The last bytes of the script's messages, for an answer. */
static void log_tail(const struct script *s, char *out, size_t size)
{
	FILE *f = fopen(s->log, "r");
	long len;
	size_t got = 0;

	out[0] = '\0';
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0) {
		long from = len > (long)size - 1 ? len - (long)size + 1 : 0;

		if (fseek(f, from, SEEK_SET) == 0)
			got = fread(out, 1, size - 1, f);
	}
	out[got] = '\0';
	fclose(f);
}

/* The metrics file of the running script S, read whole; NULL when it is not there. */
static char *read_metrics(const struct script *s, size_t *len)
{
	char path[PATH_MAX], *buf;
	int fd;
	ssize_t got;

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__prometheus", s->module);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(METRICS_MAX + 1);
	*len = 0;
	while (buf && *len < METRICS_MAX &&
	       ((got = read(fd, buf + *len, METRICS_MAX - *len)) > 0 || (got < 0 && errno == EINTR)))
		if (got > 0)
			*len += got;
	close(fd);
	return buf;
}

/* ---- HTTP ---- */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code, const char *type,
			      const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned code, const char *fmt, ...)
{
	char body[STDERR_TAIL + 1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(body))
		n = sizeof(body) - 1;
	return answer(c, code, "text/plain; charset=utf-8", body, n);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* /: the pages, one a line: NAME, its file, and whether it runs. */
static enum MHD_Result list_scripts(struct MHD_Connection *c)
{
	DIR *d = opendir(cfg.dir);
	struct dirent *e;
	char **names = NULL, *body = NULL;
	size_t n = 0, cap = 0, size = 0;
	FILE *out;
	enum MHD_Result ret;

	if (!d)
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read %s: %s\n",
				   cfg.dir, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 4 || (strcmp(e->d_name + len - 4, ".stp") && strcmp(e->d_name + len - 3, ".ko")))
			continue;
		if (n == cap) {
			char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));

			if (!more)
				break;
			names = more;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	out = open_memstream(&body, &size);
	pthread_mutex_lock(&scripts_lock);
	for (size_t i = 0; i < n && out; i++) {
		char *dot = strrchr(names[i], '.');
		struct script *s;
		int status;

		if (!names[i] || !page_name_ok(names[i], dot - names[i]))
			continue;
		*dot = '\0';
		s = find_script(names[i]);
		if (s && s->state != STOPPED && script_ended(s, &status))
			s->state = STOPPED;
		fprintf(out, "/%s\t%s.%s\t%s\n", names[i], names[i], dot + 1,
			!s || s->state == STOPPED ? "stopped" : s->state == STARTING ? "starting" : "running");
	}
	pthread_mutex_unlock(&scripts_lock);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!out)
		return MHD_NO;
	fclose(out);
	ret = answer(c, MHD_HTTP_OK, "text/plain; charset=utf-8", body, size);
	free(body);
	return ret;
}

static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * /NAME: start the script if it does not run, then its metrics.  The table's lock is
 * never held while waiting: the first request of one script does not hold up the others.
 */
static enum MHD_Result serve_script(struct MHD_Connection *c, const char *name)
{
	struct script *s;
	char why[2 * PATH_MAX + 600], tail[STDERR_TAIL];
	char *metrics = NULL;
	size_t len = 0;
	int status = 0;
	enum MHD_Result ret;

	pthread_mutex_lock(&scripts_lock);
	s = find_script(name);
	if (!s) {
		pthread_mutex_unlock(&scripts_lock);
		return answer_text(c, MHD_HTTP_NOT_FOUND, "no script %s: %s has no %s.stp or %s.ko\n",
				   name, cfg.dir, name, name);
	}
	s->last_read = time(NULL);
	if (s->state != STOPPED)
		script_ended(s, &status);
	if (s->state == STOPPED && s->ended_unseen) {	/* it ended by itself: say how, once */
		s->ended_unseen = false;
		log_tail(s, tail, sizeof(tail));
		pthread_mutex_unlock(&scripts_lock);
		say("%s ended (status %d)", name, exit_code(s->exit_status));
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "%s ended (status %d); the next request starts it again:\n%s",
				   name, exit_code(s->exit_status), tail);
	}
	if (s->state == STOPPED && !start_script(s, why, sizeof(why))) {
		pthread_mutex_unlock(&scripts_lock);
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s cannot start: %s\n", name,
				   why);
	}
	for (long waited = 0;; waited += 50) {
		if (s->state == STARTING && (metrics = read_metrics(s, &len))) {
			s->state = RUNNING;
			say("%s runs", name);
		}
		if (s->state == RUNNING)
			break;
		if (s->state == STARTING)
			script_ended(s, &status);
		if (s->state == STOPPED) {
			s->ended_unseen = false;
			log_tail(s, tail, sizeof(tail));
			pthread_mutex_unlock(&scripts_lock);
			return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					   "%s did not start (status %d):\n%s", name,
					   exit_code(s->exit_status), tail);
		}
		pthread_mutex_unlock(&scripts_lock);
		if (waited >= cfg.start_wait * 1000 || stopping)
			return answer_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
					   "%s is starting; try again\n", name);
		usleep(50000);
		pthread_mutex_lock(&scripts_lock);
	}
	if (!metrics)
		metrics = read_metrics(s, &len);
	pthread_mutex_unlock(&scripts_lock);
	if (!metrics)	/* its file is gone: the script is ending (exit()) */
		return answer_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "%s has no metrics now (its session is ending)\n", name);
	ret = answer(c, MHD_HTTP_OK, PROMETHEUS_TYPE, metrics, len);
	free(metrics);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **state)
{
	(void)cls;
	(void)version;
	(void)upload_data;
	if (!*state) {		/* the headers: answer once the request is whole */
		*state = c;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;	/* a body is not for us */
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (strcmp(url, "/") == 0)
		return list_scripts(c);
	if (url[0] != '/' || !page_name_ok(url + 1, strlen(url + 1)))
		return answer_text(c, MHD_HTTP_NOT_FOUND, "no such page: %.200s\n", url);
	return serve_script(c, url + 1);
}

/* Every KEEPALIVE seconds' idle script stopped; those that ended noticed. */
static void check_scripts(void)
{
	time_t now = time(NULL);
	int status;

	pthread_mutex_lock(&scripts_lock);
	for (struct script *s = scripts; s; s = s->next) {
		if (s->state == STOPPED)
			continue;
		if (script_ended(s, &status)) {
			say("%s ended", s->name);
			continue;
		}
		if (cfg.keepalive && now - s->last_read >= cfg.keepalive) {
			say("%s unread for %lds", s->name, (long)(now - s->last_read));
			stop_script(s);
		}
	}
	pthread_mutex_unlock(&scripts_lock);
}

/* ---- main ---- */

static long number(const char *arg, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < min || v > max) {
		fprintf(stderr, "stap-exporter: %s must be a number from %ld to %ld, not '%s'\n",
			what, min, max, arg);
		exit(1);
	}
	return v;
}

/* PROGRAM: $ENV, else beside this program (the build tree), else INSTALLED, else its
 * name, looked up on PATH when it runs. */
static const char *find_program(const char *env, const char *beside, const char *installed)
{
	static char self[PATH_MAX];
	char path[PATH_MAX + 64], *slash;
	ssize_t n;

	if (getenv(env) && *getenv(env))
		return getenv(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/%s", self, beside);
			if (access(path, X_OK) == 0)
				return strdup(path);
		}
	}
	if (access(installed, X_OK) == 0)
		return installed;
	slash = strrchr(installed, '/');
	return slash ? slash + 1 : installed;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "address", required_argument, NULL, 'a' },
		{ "scripts", required_argument, NULL, 's' },
		{ "keepalive", required_argument, NULL, 'k' },
		{ "start-timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct sigaction stop = { .sa_handler = on_stop_signal };
	struct MHD_Daemon *d;
	long port = 9900;
	int opt;
	char *tmp;

	while ((opt = getopt_long(argc, argv, "p:a:s:k:t:vh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'p': port = number(optarg, 1, 65535, "-p PORT"); break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &addr.sin_addr) != 1) {
				fprintf(stderr, "stap-exporter: -a %s is not an IPv4 address\n", optarg);
				return 1;
			}
			break;
		case 's': cfg.dir = optarg; break;
		case 'k': cfg.keepalive = number(optarg, 1, 1L << 30, "-k SECONDS"); break;
		case 't': cfg.start_wait = number(optarg, 1, 86400, "-t SECONDS"); break;
		case 'v': cfg.verbose++; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "stap-exporter: unexpected argument '%s'\n%s", argv[optind], usage_text);
		return 1;
	}
	if (access(cfg.dir, R_OK | X_OK) != 0) {
		fprintf(stderr, "stap-exporter: cannot read the scripts' folder %s: %s\n", cfg.dir,
			strerror(errno));
		return 1;
	}
	cfg.stap = find_program("STAP", "../stap", BINDIR "/stap");
	cfg.staprun = find_program("STAPRUN", "staprun", BINDIR "/staprun");
	tmp = getenv("TMPDIR");
	snprintf(cfg.workdir, sizeof(cfg.workdir), "%s/stap-exporter.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(cfg.workdir)) {
		fprintf(stderr, "stap-exporter: cannot make a folder in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	addr.sin_port = htons((uint16_t)port);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, on_request, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "stap-exporter: cannot listen on %s:%ld (in use, or not ours)\n",
			inet_ntoa(addr.sin_addr), port);
		rmdir(cfg.workdir);
		return 1;
	}
	fprintf(stderr, "stap-exporter: serving %s on http://%s:%ld/\n", cfg.dir,
		inet_ntoa(addr.sin_addr), port);
	while (!stopping) {
		sleep(1);
		check_scripts();
	}
	MHD_stop_daemon(d);	/* no request runs after this */
	for (struct script *s = scripts; s; s = s->next) {
		stop_script(s);
		unlink(s->log);
	}
	rmdir(cfg.workdir);
	say("stopped");
	return 0;
}
