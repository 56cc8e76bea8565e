/*
 * sign.c - signed modules, for kernels that load only those (stap(1) SECUREBOOT).
 *
 * A module is signed when --sign-module asks, when $SYSTEMTAP_SIGN is set (stap's way to
 * say so where it cannot tell), or when it is to run here and this kernel enforces
 * signatures (module.sig_enforce, or a lockdown that implies it).
 *
 * The key is a Machine Owner Key kept where stap keeps its own, so one already enrolled
 * for stap serves: ~/.systemtap/ssl/server/moks/FINGERPRINT/signing_key.{priv,x509},
 * FINGERPRINT the certificate's SHA-1 as mokutil --list-enrolled writes it.  The first
 * signed build makes one with openssl: an X.509 code-signing certificate, as the
 * kernel's module-signing guide describes (Documentation/admin-guide/module-signing.rst),
 * in folders that are private and checked as the cache's are (cache.c).  The module is
 * signed by the target kernel's kbuild sign-file, with the hash its configuration names
 * (CONFIG_MODULE_SIG_HASH).  The cache keeps the module unsigned; each run signs its own
 * copy.  A module to run here, with a key mokutil does not list as enrolled, gets the
 * command that enrolls it.
 */
#include "cache.h"
#include "stap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MOK_SUBDIR ".systemtap/ssl/server/moks"
#define MOK_KEY "signing_key.priv"
#define MOK_CERT "signing_key.x509"

/* What openssl req makes: the kernel guide's key for module signing. */
static const char genkey_config[] =
	"[ req ]\n"
	"default_bits = 2048\n"
	"distinguished_name = req_distinguished_name\n"
	"prompt = no\n"
	"string_mask = utf8only\n"
	"x509_extensions = myexts\n"
	"\n"
	"[ req_distinguished_name ]\n"
	"O = Stapler\n"
	"CN = Stapler module signing key\n"
	"\n"
	"[ myexts ]\n"
	"basicConstraints = critical,CA:FALSE\n"
	"keyUsage = digitalSignature\n"
	"extendedKeyUsage = codeSigning\n"
	"subjectKeyIdentifier = hash\n"
	"authorityKeyIdentifier = keyid\n";

/*
 * Runs ARGV (a NULL-terminated list) with stdin from /dev/null and its stdout and stderr
 * in *OUTPUT (when OUTPUT is not NULL; else stderr).  Its exit status, -1 when it could
 * not run or was killed.
 */
static int run_tool(char *const argv[], char **output)
{
	struct strbuf sb = { 0 };
	int pipefd[2] = { -1, -1 }, status, fd;
	pid_t pid;
	char buf[4096];
	ssize_t n;

	fflush(NULL);
	if (output && pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		if (output) {
			dup2(pipefd[1], STDOUT_FILENO);
			dup2(pipefd[1], STDERR_FILENO);
			close(pipefd[0]);
			close(pipefd[1]);
		} else {
			dup2(STDERR_FILENO, STDOUT_FILENO);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (output) {
		close(pipefd[1]);
		while ((n = read(pipefd[0], buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			sb_putn(&sb, buf, (size_t)n);
		}
		close(pipefd[0]);
		*output = sb.data ? sb_steal(&sb) : xstrdup("");
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* TEXT without its trailing newlines, for a message. */
static char *chomp(char *text)
{
	size_t n = strlen(text);

	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	return text;
}

/* Whether this kernel loads only signed modules (/sys says so). */
static bool kernel_enforces_signatures(void)
{
	char *enforce = read_file("/sys/module/module/parameters/sig_enforce", NULL);
	char *lockdown = read_file("/sys/kernel/security/lockdown", NULL);
	bool yes = (enforce && enforce[0] == 'Y') ||
		   (lockdown && (strstr(lockdown, "[integrity]") ||
				 strstr(lockdown, "[confidentiality]")));

	free(enforce);
	free(lockdown);
	return yes;
}

/* Whether the module is for the kernel running here, to be loaded by pass 5. */
static bool runs_here(struct session *s)
{
	struct utsname u;

	return s->last_pass >= 5 && !s->vm && uname(&u) == 0 &&
	       strcmp(u.release, s->kernel_release) == 0;
}

bool module_signing_wanted(struct session *s)
{
	const char *env = getenv("SYSTEMTAP_SIGN");

	return s->sign_module || (env && *env) || (runs_here(s) && kernel_enforces_signatures());
}

/* The folder of the keys in $HOME (unset: the user's home), private and checked; NULL
 * (said why) when it is not safe. */
static char *mok_folder(void)
{
	const char *home = getenv("HOME");
	char *base = home && *home ? xstrdup(home) : user_home(), *wanted, *checked = NULL;
	char *why;

	if (!base) {
		diag_error("no folder for the module signing key: no HOME, and the user has no "
			   "home folder");
		return NULL;
	}
	wanted = xasprintf("%s/" MOK_SUBDIR, base);
	why = private_folder(wanted, &checked);
	if (why)
		diag_error("no safe folder for the module signing key in %s: %s", wanted, why);
	free(why);
	free(wanted);
	free(base);
	return checked;
}

/* The SHA-1 fingerprint of the DER certificate CERT, "ab:cd:..." in lower case, or NULL. */
static char *cert_fingerprint(const char *cert)
{
	char *argv[] = { "openssl", "x509", "-inform", "DER", "-in", (char *)cert, "-noout",
			 "-fingerprint", "-sha1", NULL };
	char *out = NULL, *eq, *fp = NULL;

	if (run_tool(argv, &out) == 0 && (eq = strchr(out, '='))) {
		fp = xstrdup(chomp(eq + 1));
		for (char *p = fp; *p; p++)
			if (*p >= 'A' && *p <= 'F')
				*p = (char)(*p - 'A' + 'a');
	}
	free(out);
	return fp;
}

/* The fingerprints mokutil lists as enrolled (its output), or NULL when it cannot say. */
static char *enrolled_keys(void)
{
	char *argv[] = { "mokutil", "--list-enrolled", NULL };
	char *out = NULL;

	if (run_tool(argv, &out) != 0) {
		free(out);
		return NULL;
	}
	for (char *p = out; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	return out;
}

/* A new key pair in MOKS; its folder (MOKS/FINGERPRINT), or NULL (said why). */
static char *make_key(const char *moks, bool verbose)
{
	char *tmp = xasprintf("%s/new-XXXXXX", moks), *config, *key, *cert, *fp = NULL;
	char *out = NULL, *dir = NULL;

	if (!mkdtemp(tmp)) {
		diag_error("cannot make a folder in %s: %s", moks, strerror(errno));
		free(tmp);
		return NULL;
	}
	config = xasprintf("%s/x509.genkey", tmp);
	key = xasprintf("%s/" MOK_KEY, tmp);
	cert = xasprintf("%s/" MOK_CERT, tmp);
	if (write_file(config, genkey_config, strlen(genkey_config))) {
		diag_error("cannot write %s: %s", config, strerror(errno));
		goto out;
	}
	{
		char *argv[] = { "openssl", "req", "-new", "-nodes", "-utf8", "-sha256",
				 "-days", "36500", "-batch", "-x509", "-config", config,
				 "-outform", "DER", "-out", cert, "-keyout", key, NULL };
		mode_t old = umask(077);
		int rc = run_tool(argv, &out);

		umask(old);
		if (rc != 0) {
			diag_error("cannot make a module signing key with openssl (status %d): %s",
				   rc, rc == 127 ? "openssl is not installed (apt-get install "
				   "openssl)" : chomp(out));
			goto out;
		}
	}
	fp = cert_fingerprint(cert);
	if (!fp) {
		diag_error("cannot read the fingerprint of %s", cert);
		goto out;
	}
	unlink(config);
	dir = xasprintf("%s/%s", moks, fp);
	if (rename(tmp, dir)) {
		diag_error("cannot rename %s to %s: %s", tmp, dir, strerror(errno));
		free(dir);
		dir = NULL;
		goto out;
	}
	if (verbose)
		fprintf(stderr, "Pass 4: made the module signing key %s\n", dir);
out:
	if (!dir) {
		struct strlist failures = { 0 };

		remove_tree(tmp, &failures);
		strlist_free(&failures);
	}
	free(out);
	free(fp);
	free(config);
	free(key);
	free(cert);
	free(tmp);
	return dir;
}

/*
 * The key pair to sign with: in MOKS, the first (by name) that mokutil lists as enrolled,
 * else the first; a new one when there is none.  *FP: its fingerprint.
 */
static char *choose_key(const char *moks, const char *enrolled, char **fp, bool verbose)
{
	struct strlist names = { 0 };
	DIR *d = opendir(moks);
	struct dirent *e;
	char *chosen = NULL;

	while (d && (e = readdir(d))) {
		char *key, *cert;

		if (e->d_name[0] == '.' || starts_with(e->d_name, "new-"))
			continue;
		key = xasprintf("%s/%s/" MOK_KEY, moks, e->d_name);
		cert = xasprintf("%s/%s/" MOK_CERT, moks, e->d_name);
		if (is_file(key) && is_file(cert))
			strlist_add(&names, e->d_name);
		free(key);
		free(cert);
	}
	if (d)
		closedir(d);
	if (names.count)
		qsort(names.items, (size_t)names.count, sizeof(char *), compare_strings);
	for (int i = 0; i < names.count && !chosen; i++)
		if (enrolled && strstr(enrolled, names.items[i]))
			chosen = xstrdup(names.items[i]);
	if (!chosen && names.count)
		chosen = xstrdup(names.items[0]);
	strlist_free(&names);
	if (chosen) {
		char *dir = xasprintf("%s/%s", moks, chosen);

		*fp = chosen;
		return dir;
	}
	{
		char *dir = make_key(moks, verbose);

		if (dir)
			*fp = xstrdup(strrchr(dir, '/') + 1);
		return dir;
	}
}

/* The hash the kernel's configuration signs with (CONFIG_MODULE_SIG_HASH), sha256 if none. */
static char *signing_hash(struct session *s)
{
	char *path = xasprintf("%s/include/config/auto.conf", s->kernel_build_dir);
	char *conf = read_file(path, NULL), *hash = NULL, *p;

	if (conf && (p = strstr(conf, "\nCONFIG_MODULE_SIG_HASH=\""))) {
		p += strlen("\nCONFIG_MODULE_SIG_HASH=\"");
		hash = xstrndup(p, strcspn(p, "\"\n"));
	}
	free(conf);
	free(path);
	return hash && *hash ? hash : (free(hash), xstrdup("sha256"));
}

int sign_module(struct session *s)
{
	bool verbose = verbose_at(s, 4, 1);
	char *moks, *keydir = NULL, *fp = NULL, *enrolled = NULL, *hash = NULL, *tool = NULL;
	char *key = NULL, *cert = NULL, *out = NULL;
	int rc = -1;

	moks = mok_folder();
	if (!moks)
		return -1;
	if (runs_here(s))
		enrolled = enrolled_keys();
	keydir = choose_key(moks, enrolled, &fp, verbose);
	if (!keydir)
		goto out;
	key = xasprintf("%s/" MOK_KEY, keydir);
	cert = xasprintf("%s/" MOK_CERT, keydir);
	tool = xasprintf("%s/scripts/sign-file", s->kernel_build_dir);
	if (!is_file(tool)) {
		diag_error("cannot sign the module: the kernel's build tree has no sign-file (%s)",
			   tool);
		goto out;
	}
	hash = signing_hash(s);
	{
		char *argv[] = { tool, hash, key, cert, s->module_path, NULL };
		int status = run_tool(argv, &out);

		if (status != 0) {
			diag_error("cannot sign %s with %s (sign-file status %d): %s",
				   s->module_path, key, status, chomp(out));
			goto out;
		}
	}
	if (verbose)
		fprintf(stderr, "Pass 4: signed \"%s.ko\" with the key %s (%s)\n", s->module_name,
			fp, hash);
	/* a key this machine does not trust yet: how to enroll it (mokutil, then a reboot) */
	if (enrolled && !strstr(enrolled, fp))
		diag_system_warning("the module signing key is not enrolled, so this kernel may "
				    "refuse the module; enroll it with 'sudo mokutil --import %s', "
				    "reboot, and confirm the enrollment", cert);
	rc = 0;
out:
	free(moks);
	free(keydir);
	free(fp);
	free(enrolled);
	free(hash);
	free(tool);
	free(key);
	free(cert);
	free(out);
	return rc;
}
