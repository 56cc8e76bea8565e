/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfs.c - procfs.* probes: files under /proc/systemtap/MODULE/.
 *
 * Reading a file runs its read probe, whose handler fills $value; what it leaves there
 * (up to the probe's maxsize) is what the reader gets.  Writing runs the write probe
 * once per MAXSTRINGLEN - 1 bytes written, with those bytes in $value.  Handlers run in
 * the reader's or writer's process, preemption off as usual; the user copies happen
 * outside them, on a buffer each open file gets.
 *
 * /proc/systemtap is created by the first module that needs it and removed by the one
 * that created it once no module folder is left in it.  Two modules starting or stopping
 * at the same moment may race on it (not handled).
 */
#include <linux/namei.h>
#include <linux/mutex.h>

#ifndef STP_PROCFS_BUFSIZE
#define STP_PROCFS_BUFSIZE MAXSTRINGLEN
#endif

/* $value in a procfs probe: this open file's buffer, MAXSTRINGLEN bytes or more. */
#define STP_PROCFS_VALUE(c) ((char *)(c)->probe_data)

/* One file; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_procfs_file {
	const char *path;		/* under /proc/systemtap/MODULE/, may hold '/' */
	const struct stp_probe *read_probe;
	const struct stp_probe *const *write_probes;	/* NULL-ended, or NULL */
	size_t maxsize;			/* what a read returns at most; 0: STP_PROCFS_BUFSIZE */
	int umask;			/* -1: none given */
	/* run-time state */
	struct proc_dir_entry *pde;
};

/* What one open file works on. */
struct stp_procfs_open {
	struct stp_procfs_file *file;
	struct mutex lock;		/* reads and writes on one open file, one at a time */
	size_t size;			/* of buf */
	size_t len;			/* what the last read handler produced */
	char buf[];
};

static size_t stp_procfs_limit(const struct stp_procfs_file *f)
{
	return f->maxsize ? f->maxsize : STP_PROCFS_BUFSIZE;
}

/*
 * $value .= src in a read probe: the value grows up to the file's maxsize, past
 * MAXSTRINGLEN ($value = src and the other string operations stay within MAXSTRINGLEN).
 * DST is STP_PROCFS_VALUE(c), the buffer of an open file.
 */
static __maybe_unused char *stp_procfs_append(char *dst, const char *src)
{
	struct stp_procfs_open *o = (struct stp_procfs_open *)(dst -
		offsetof(struct stp_procfs_open, buf));
	size_t room = min_t(size_t, stp_procfs_limit(o->file), o->size - 1);
	size_t used = strnlen(dst, room);
	size_t n = min(strnlen(src, MAXSTRINGLEN - 1), room - used);

	memmove(dst + used, src, n);
	dst[used + n] = '\0';
	return dst;
}

static int stp_procfs_open(struct inode *inode, struct file *file)
{
	struct stp_procfs_file *f = stp_pde_data(inode);
	struct stp_procfs_open *o;
	size_t size = max_t(size_t, stp_procfs_limit(f) + 1, MAXSTRINGLEN);

	if (((file->f_mode & FMODE_READ) && !f->read_probe) ||
	    ((file->f_mode & FMODE_WRITE) && !f->write_probes))
		return -EACCES;
	o = kvzalloc(sizeof(*o) + size, GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->file = f;
	o->size = size;
	mutex_init(&o->lock);
	file->private_data = o;
	return 0;
}

static int stp_procfs_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static ssize_t stp_procfs_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct stp_procfs_open *o = file->private_data;
	struct stp_hit hit = { .data = o->buf };
	ssize_t rc;

	mutex_lock(&o->lock);
	/* a read from the start asks the probe again; later ones continue its answer */
	if (*ppos == 0) {
		o->buf[0] = '\0';
		stp_probe_run_hit(o->file->read_probe, STP_SESSION_RUNNING, &hit);
		o->buf[o->size - 1] = '\0';
		o->len = strnlen(o->buf, stp_procfs_limit(o->file));
	}
	rc = simple_read_from_buffer(ubuf, count, ppos, o->buf, o->len);
	mutex_unlock(&o->lock);
	return rc;
}

static ssize_t stp_procfs_write(struct file *file, const char __user *ubuf, size_t count,
				loff_t *ppos)
{
	struct stp_procfs_open *o = file->private_data;
	struct stp_hit hit = { .data = o->buf };
	const struct stp_probe *const *p;
	size_t done = 0;

	mutex_lock(&o->lock);
	while (done < count) {
		size_t n = min_t(size_t, count - done, MAXSTRINGLEN - 1);

		if (copy_from_user(o->buf, ubuf + done, n)) {
			mutex_unlock(&o->lock);
			return done ? done : -EFAULT;
		}
		o->buf[n] = '\0';
		for (p = o->file->write_probes; *p; p++)	/* $value is read-only there */
			stp_probe_run_hit(*p, STP_SESSION_RUNNING, &hit);
		done += n;
		cond_resched();
	}
	o->len = 0;
	mutex_unlock(&o->lock);
	*ppos += done;
	return done;
}

STP_PROC_OPS(stp_procfs_ops, stp_procfs_open, stp_procfs_read, stp_procfs_write,
	     stp_procfs_release);

static bool stp_procfs_made_root;	/* this module created /proc/systemtap */

static bool stp_procfs_exists(const char *name)
{
	struct path path;

	if (kern_path(name, LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

/* Does /proc/systemtap still hold folders (other modules')?  Counted by its links. */
static bool stp_procfs_root_busy(void)
{
	struct kstat stat;
	struct path path;
	int rc;

	if (kern_path("/proc/systemtap", LOOKUP_FOLLOW, &path))
		return false;
	rc = vfs_getattr(&path, &stat, STATX_NLINK, AT_STATX_SYNC_AS_STAT);
	path_put(&path);
	return rc || stat.nlink > 2;
}

/* This module's folder under /proc, as proc_mkdir() and friends name it. */
#define STP_PROCFS_DIR_SIZE (sizeof("systemtap/") + MODULE_NAME_LEN)

static void stp_procfs_dir_name(char *dir, size_t size)
{
	snprintf(dir, size, "systemtap/%s", THIS_MODULE->name);
}

/* /proc/systemtap, if this module made it and no other module's folder is left in it. */
static void stp_procfs_remove_root(void)
{
	if (stp_procfs_made_root && !stp_procfs_root_busy())
		remove_proc_entry("systemtap", NULL);
	stp_procfs_made_root = false;
}

/* /proc/systemtap/MODULE and every file in it. */
static void stp_procfs_remove_dir(struct stp_procfs_file *files, size_t count)
{
	char dir[STP_PROCFS_DIR_SIZE];
	size_t i;

	stp_procfs_dir_name(dir, sizeof(dir));
	/* waits for the file operations in progress */
	remove_proc_subtree(dir, NULL);
	for (i = 0; i < count; i++)
		files[i].pde = NULL;
}

static __maybe_unused void stp_procfs_unregister(struct stp_procfs_file *files, size_t count)
{
	stp_procfs_remove_dir(files, count);
	stp_procfs_remove_root();
}

/* Is PREFIX (LEN bytes) a folder of a file before the I-th, so already created? */
static bool stp_procfs_dir_made(struct stp_procfs_file *files, size_t i, const char *prefix,
				size_t len)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (strncmp(files[j].path, prefix, len) == 0 && files[j].path[len] == '/')
			return true;
	return false;
}

static umode_t stp_procfs_mode(const struct stp_procfs_file *f)
{
	umode_t mode;

	if (f->umask < 0)
		return (f->read_probe ? 0400 : 0) | (f->write_probes ? 0200 : 0);
	mode = (f->read_probe ? 0444 : 0) | (f->write_probes ? 0222 : 0);
	return mode & ~(umode_t)f->umask;
}

static int stp_procfs_create(struct stp_procfs_file *files, size_t count, size_t i)
{
	struct stp_procfs_file *f = &files[i];
	const char *slash;
	char *name;
	size_t j;

	/* a file that is also another file's folder */
	for (j = 0; j < count; j++)
		if (j != i && strncmp(files[j].path, f->path, strlen(f->path)) == 0 &&
		    files[j].path[strlen(f->path)] == '/')
			return -EEXIST;
	for (slash = strchr(f->path, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t len = slash - f->path;

		if (stp_procfs_dir_made(files, i, f->path, len))
			continue;
		name = kasprintf(GFP_KERNEL, "systemtap/%s/%.*s", THIS_MODULE->name, (int)len,
				 f->path);
		if (!name)
			return -ENOMEM;
		if (!proc_mkdir(name, NULL)) {
			kfree(name);
			return -ENOMEM;
		}
		kfree(name);
	}
	name = kasprintf(GFP_KERNEL, "systemtap/%s/%s", THIS_MODULE->name, f->path);
	if (!name)
		return -ENOMEM;
	f->pde = proc_create_data(name, S_IFREG | stp_procfs_mode(f), NULL, &stp_procfs_ops, f);
	kfree(name);
	return f->pde ? 0 : -ENOMEM;
}

/* Makes /proc/systemtap/MODULE and every file, or nothing. */
static __maybe_unused int stp_procfs_register(struct stp_procfs_file *files, size_t count)
{
	char dir[STP_PROCFS_DIR_SIZE];
	size_t i;
	int rc;

	if (!stp_procfs_exists("/proc/systemtap")) {
		if (!proc_mkdir("systemtap", NULL)) {
			_stp_error("cannot create /proc/systemtap");
			return -ENOMEM;
		}
		stp_procfs_made_root = true;
	}
	stp_procfs_dir_name(dir, sizeof(dir));
	if (!proc_mkdir(dir, NULL)) {
		_stp_error("cannot create /proc/%s", dir);
		rc = -ENOMEM;
		goto err_remove_root;
	}
	for (i = 0; i < count; i++) {
		rc = stp_procfs_create(files, count, i);
		if (rc) {
			_stp_error("procfs file /proc/%s/%s registration error (rc %d)", dir,
				   files[i].path, rc);
			goto err_remove_dir;
		}
	}
	return 0;

err_remove_dir:
	stp_procfs_remove_dir(files, count);
err_remove_root:
	stp_procfs_remove_root();
	return rc;
}
