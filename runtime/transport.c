/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport.c - the module side of the transport (protocol in transport_msgs.h).
 *
 * Control messages to stapio wait in a fixed ring that any context may append to; the
 * reader is woken through irq_work, so a probe never calls into the scheduler (from a
 * kprobe's handler, by a timer: stp_wakeup_ctl_or_relay()).  Probe
 * output goes to relay buffers that never overwrite unread data: when stapio falls behind,
 * new output is dropped and counted.  Normally one buffer takes every CPU's output, under a
 * lock, so stapio reads it in the order handlers finished; in bulk mode (-DSTP_BULKMODE,
 * stap -b) each CPU writes its own buffer without a lock and stapio keeps them apart,
 * each write after a header that stap-merge orders the files by.
 */

/* Megabytes of output buffer (per CPU in bulk mode); 0: STP_BUFSIZE_MB.  staprun -b N. */
static unsigned int _stp_bufsize;
module_param(_stp_bufsize, uint, 0400);
MODULE_PARM_DESC(_stp_bufsize, "output buffer size in megabytes (1-4095)");

#define STP_CTL_SLOTS 64
#define STP_CTL_RESERVED 4	/* slots that warnings, errors, system() and switch_file()
				 * may not take: kept for the session's own messages */

struct stp_ctl_slot {
	struct stp_msg_header hdr;
	char payload[STP_CTL_PAYLOAD_MAX];
};

static struct stp_ctl_slot stp_ctl_ring[STP_CTL_SLOTS];
static unsigned int stp_ctl_head, stp_ctl_count;
static DEFINE_RAW_SPINLOCK(stp_ctl_lock);
static DECLARE_WAIT_QUEUE_HEAD(stp_ctl_wait);
static struct irq_work stp_ctl_wakeup;
static atomic64_t stp_ctl_dropped = ATOMIC64_INIT(0);

static struct stp_ctl_slot stp_ctl_read_buf;	/* one reader: the file is exclusive */
static DEFINE_MUTEX(stp_ctl_read_mutex);
static DEFINE_MUTEX(stp_ctl_command_mutex);
static atomic_t stp_ctl_opened = ATOMIC_INIT(0);

static struct dentry *stp_debugfs_dir;
static struct rchan *stp_relay_chan;
static atomic64_t stp_relay_dropped = ATOMIC64_INIT(0);

/*
 * What bulk mode changes, each a helper defined once per mode: whether relay makes one
 * buffer or one per CPU, the lock of a buffer (its writers and its reader take it), the
 * bulkmode file that tells stapio, and the header before each write.
 */
#ifdef STP_BULKMODE
/*
 * Each write's header in bulk mode, as stap-merge(1) reads it: the session's sequence
 * number of the write (from 1, across the CPUs) and the data's length, both in the
 * machine's order; the files of the CPUs are merged in that order.
 */
struct stp_bulk_header {
	u32 sequence;
	u32 len;
};
static atomic_t stp_bulk_sequence = ATOMIC_INIT(0);

#define STP_RELAY_HEADER_SIZE sizeof(struct stp_bulk_header)

static inline void stp_relay_put_header(void *slot, size_t len)
{
	struct stp_bulk_header h = { atomic_inc_return(&stp_bulk_sequence), len };

	memcpy(slot, &h, sizeof(h));
}

/* Each CPU's buffer has its lock: its CPU writes to it, stapio reads it from any CPU. */
static DEFINE_PER_CPU(raw_spinlock_t, stp_relay_cpu_lock);

static inline bool stp_relay_is_global(void)
{
	return false;
}

static void stp_relay_locks_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		raw_spin_lock_init(per_cpu_ptr(&stp_relay_cpu_lock, cpu));
}

static inline raw_spinlock_t *stp_relay_lock_of(struct rchan_buf *buf)
{
	return per_cpu_ptr(&stp_relay_cpu_lock, buf->cpu);
}

/* The writer's: its own CPU's buffer (preemption is off). */
static inline raw_spinlock_t *stp_relay_write_lock(void)
{
	return this_cpu_ptr(&stp_relay_cpu_lock);
}

/* The bulkmode file says so by being there; it has nothing to read. */
static const struct file_operations stp_empty_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.llseek = stp_no_llseek,
};

static int stp_bulkmode_file_create(struct dentry *dir)
{
	struct dentry *d = debugfs_create_file(STP_BULKMODE_FILE, 0400, dir, NULL,
					       &stp_empty_fops);

	return IS_ERR(d) ? -ENOMEM : 0;
}
#else
static DEFINE_RAW_SPINLOCK(stp_relay_buf_lock);	/* the one buffer all CPUs share */

static inline bool stp_relay_is_global(void)
{
	return true;
}

static void stp_relay_locks_init(void)
{
}

static inline raw_spinlock_t *stp_relay_lock_of(struct rchan_buf *buf)
{
	return &stp_relay_buf_lock;
}

static inline raw_spinlock_t *stp_relay_write_lock(void)
{
	return &stp_relay_buf_lock;
}

static int stp_bulkmode_file_create(struct dentry *dir)
{
	return 0;
}

#define STP_RELAY_HEADER_SIZE 0

static inline void stp_relay_put_header(void *slot, size_t len)
{
}
#endif

static void stp_ctl_wakeup_fn(struct irq_work *work)
{
	wake_up_interruptible(&stp_ctl_wait);
}

/*
 * Within a kprobe's handler the reader is not woken through irq_work: the kernel runs no
 * kprobe while one runs, so a script's probe on irq_work_queue(), on the interrupt that
 * runs the work (irq_enter_rcu, irq_work_run, ...) or on the wakeup it does
 * (try_to_wake_up) would count a missed hit each time a handler printed, hits that stap
 * never has.  There the wakeup waits for a timer (at most a jiffy), which runs while the
 * session has kprobes (stp_wake_poll_start(), from the kprobes' registration).
 */
enum { STP_WAKE_CTL, STP_WAKE_RELAY };
static DEFINE_PER_CPU(int, stp_in_kprobe);	/* a kprobe's handler runs on this CPU */
static unsigned long stp_wake_deferred;		/* STP_WAKE_* bits */
static struct timer_list stp_wake_poll_timer;
static bool stp_wake_polling;

static void stp_wakeup_ctl_or_relay(struct irq_work *work, int bit)
{
	if (this_cpu_read(stp_in_kprobe))
		set_bit(bit, &stp_wake_deferred);
	else
		irq_work_queue(work);
}

/* Safe from any context but NMI. */
static void stp_ctl_send(u32 type, const void *payload, u32 len)
{
	bool from_script = type == STP_MSG_WARNING || type == STP_MSG_ERROR ||
			   type == STP_MSG_SYSTEM || type == STP_MSG_SWITCH_FILE;
	unsigned int limit = from_script ? STP_CTL_SLOTS - STP_CTL_RESERVED : STP_CTL_SLOTS;
	struct stp_ctl_slot *slot;
	unsigned long flags;

	len = min_t(u32, len, STP_CTL_PAYLOAD_MAX);
	raw_spin_lock_irqsave(&stp_ctl_lock, flags);
	if (stp_ctl_count >= limit) {
		raw_spin_unlock_irqrestore(&stp_ctl_lock, flags);
		atomic64_inc(&stp_ctl_dropped);
		return;
	}
	slot = &stp_ctl_ring[(stp_ctl_head + stp_ctl_count) % STP_CTL_SLOTS];
	slot->hdr.type = type;
	slot->hdr.len = len;
	if (len)
		memcpy(slot->payload, payload, len);
	stp_ctl_count++;
	raw_spin_unlock_irqrestore(&stp_ctl_lock, flags);
	stp_wakeup_ctl_or_relay(&stp_ctl_wakeup, STP_WAKE_CTL);
}

static bool stp_ctl_take(struct stp_ctl_slot *out)
{
	unsigned long flags;
	bool found = false;

	raw_spin_lock_irqsave(&stp_ctl_lock, flags);
	if (stp_ctl_count) {
		struct stp_ctl_slot *slot = &stp_ctl_ring[stp_ctl_head];

		memcpy(out, slot, sizeof(slot->hdr) + slot->hdr.len);
		stp_ctl_head = (stp_ctl_head + 1) % STP_CTL_SLOTS;
		stp_ctl_count--;
		found = true;
	}
	raw_spin_unlock_irqrestore(&stp_ctl_lock, flags);
	return found;
}

static ssize_t stp_ctl_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct stp_ctl_slot *msg = &stp_ctl_read_buf;
	ssize_t rc;
	size_t n;

	if (count < sizeof(msg->hdr))
		return -EINVAL;
	if (mutex_lock_interruptible(&stp_ctl_read_mutex))
		return -ERESTARTSYS;
	while (!stp_ctl_take(msg)) {
		if (file->f_flags & O_NONBLOCK) {
			rc = -EAGAIN;
			goto out;
		}
		rc = wait_event_interruptible(stp_ctl_wait, READ_ONCE(stp_ctl_count) > 0);
		if (rc)
			goto out;
	}
	n = min(count, sizeof(msg->hdr) + msg->hdr.len);
	rc = copy_to_user(buf, msg, n) ? -EFAULT : (ssize_t)n;
out:
	mutex_unlock(&stp_ctl_read_mutex);
	return rc;
}

static ssize_t stp_ctl_write(struct file *file, const char __user *buf, size_t count,
			     loff_t *ppos)
{
	struct stp_msg_header hdr;
	union {
		struct stp_msg_start start;
	} payload = { };

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.len > sizeof(payload) || sizeof(hdr) + hdr.len > count)
		return -EINVAL;
	if (copy_from_user(&payload, buf + sizeof(hdr), hdr.len))
		return -EFAULT;

	mutex_lock(&stp_ctl_command_mutex);
	switch (hdr.type) {
	case STP_MSG_START:
		stp_handle_start(&payload.start);
		break;
	case STP_MSG_EXIT:
		stp_handle_exit();
		break;
	default:
		count = -EINVAL;
	}
	mutex_unlock(&stp_ctl_command_mutex);
	return count;
}

static __poll_t stp_ctl_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &stp_ctl_wait, wait);
	if (READ_ONCE(stp_ctl_count))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static int stp_ctl_open(struct inode *inode, struct file *file)
{
	if (atomic_cmpxchg(&stp_ctl_opened, 0, 1) != 0)
		return -EBUSY;
	return nonseekable_open(inode, file);
}

static int stp_ctl_release(struct inode *inode, struct file *file)
{
	atomic_set(&stp_ctl_opened, 0);
	return 0;
}

static const struct file_operations stp_ctl_fops = {
	.owner = THIS_MODULE,
	.open = stp_ctl_open,
	.release = stp_ctl_release,
	.read = stp_ctl_read,
	.write = stp_ctl_write,
	.poll = stp_ctl_poll,
	.llseek = stp_no_llseek,
};

/* ---- relay ---- */

/* Never overwrite what stapio has not read: refuse the switch, the write is dropped. */
/* A full buffer takes nothing more (relay_reserve() fails) until stapio has read some. */
static int stp_relay_subbuf_start(struct rchan_buf *buf, void *subbuf, void *prev_subbuf,
				  size_t prev_padding)
{
	return !relay_buf_full(buf);
}

/*
 * The reader's side of a buffer.  relay's own read() looks at the writer's state (the
 * sub-buffer being written, its offset, the padding of the one just finished) without a
 * lock, so a reader that comes between two of the writer's stores can read a sub-buffer
 * twice, skip one, or take its padding for data: a line lost, doubled or blanked, and
 * not counted as dropped.  Here the reader takes the writer's lock to see that state and
 * to give a sub-buffer back, and copies outside it.  What it copies is a finished
 * sub-buffer, which the writer does not touch until it is given back, or the written
 * part of the current one, past which the writer only appends.  So each write arrives
 * whole, or (the buffer full) is counted in the dropped total.
 */

/* Where the unread bytes of BUF start (offset in the buffer) and how many; its lock held. */
static size_t stp_relay_unread(struct rchan_buf *buf, size_t *pos)
{
	size_t size = buf->chan->subbuf_size, n_subbufs = buf->chan->n_subbufs;

	for (;;) {
		size_t sub = buf->subbufs_consumed % n_subbufs, end;

		if (buf->subbufs_produced != buf->subbufs_consumed)
			end = size - buf->padding[sub];	/* finished: data, then padding */
		else if (buf->offset <= size)
			end = buf->offset;		/* the one being written */
		else
			return 0;	/* all read, and the writer waits for a free one */
		if (buf->bytes_consumed < end) {
			*pos = sub * size + buf->bytes_consumed;
			return end - buf->bytes_consumed;
		}
		if (buf->subbufs_produced == buf->subbufs_consumed)
			return 0;
		buf->subbufs_consumed++;	/* finished and read: the writer's again */
		buf->bytes_consumed = 0;
	}
}

/* stp_relay_unread(), taking BUF's lock for it. */
static size_t stp_relay_unread_locked(struct rchan_buf *buf, size_t *pos)
{
	raw_spinlock_t *lock = stp_relay_lock_of(buf);
	unsigned long flags;
	size_t n;

	raw_spin_lock_irqsave(lock, flags);
	n = stp_relay_unread(buf, pos);
	raw_spin_unlock_irqrestore(lock, flags);
	return n;
}

static ssize_t stp_relay_read(struct file *file, char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct rchan_buf *buf = file->private_data;
	raw_spinlock_t *lock = stp_relay_lock_of(buf);
	static DEFINE_MUTEX(read_mutex);	/* one reader at a time */
	ssize_t done = 0;

	if (mutex_lock_interruptible(&read_mutex))
		return -ERESTARTSYS;
	while ((size_t)done < count) {
		unsigned long flags;
		size_t pos, n = stp_relay_unread_locked(buf, &pos);

		if (!n)
			break;
		n = min(n, count - done);
		if (copy_to_user(ubuf + done, buf->start + pos, n)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		raw_spin_lock_irqsave(lock, flags);
		buf->bytes_consumed += n;
		raw_spin_unlock_irqrestore(lock, flags);
		done += n;
	}
	mutex_unlock(&read_mutex);
	return done;
}

/* Readable when there is something to read; relay wakes the reader as a sub-buffer ends. */
static __poll_t stp_relay_poll(struct file *file, poll_table *wait)
{
	struct rchan_buf *buf = file->private_data;
	size_t pos;

	poll_wait(file, &buf->read_wait, wait);
	return stp_relay_unread_locked(buf, &pos) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* The buffer lives until relay_close(), which the module's exit calls: an open file holds
 * the module. */
static const struct file_operations stp_relay_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = stp_relay_read,
	.poll = stp_relay_poll,
	.llseek = stp_no_llseek,
};

static struct dentry *stp_relay_create_buf_file(const char *filename, struct dentry *parent,
						umode_t mode, struct rchan_buf *buf,
						int *is_global)
{
	struct dentry *d = debugfs_create_file(filename, 0400, parent, buf, &stp_relay_fops);

	*is_global = stp_relay_is_global();
	return IS_ERR(d) ? NULL : d;
}

static int stp_relay_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks stp_relay_callbacks = {
	.subbuf_start = stp_relay_subbuf_start,
	.create_buf_file = stp_relay_create_buf_file,
	.remove_buf_file = stp_relay_remove_buf_file,
};

/*
 * Relay wakes a reader only as a sub-buffer fills, and stapio's own timeout (staprun -T,
 * 200 ms) would leave a few lines waiting that long: behind the output of a -c command
 * that printed after the probes did.  So the first write after a quiet spell wakes the
 * reader at once, through an irq_work (safe in any probe's context), and the writes of the
 * next STP_RELAY_WAKE_MS share one wakeup at its end, from a timer: at most two wakeups
 * per period however much is printed.  A write sees the flag set without a locked
 * instruction while a period runs.
 */
#define STP_RELAY_WAKE_MS 4	/* one jiffy at HZ=250 */
static unsigned long stp_relay_wake_armed;	/* bit 0: a period runs */
static struct irq_work stp_relay_wake_work;
static struct timer_list stp_relay_wake_timer;

static void stp_relay_wake_readers(void)
{
	struct rchan *chan = READ_ONCE(stp_relay_chan);
	int cpu;

	if (!chan)
		return;
	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(chan->buf, cpu);

		if (buf)
			wake_up_interruptible(&buf->read_wait);
	}
}

/* The period's end: what was written during it, and the next write starts a new one. */
static void stp_relay_wake_timer_fn(struct timer_list *timer)
{
	clear_bit(0, &stp_relay_wake_armed);
	smp_mb__after_atomic();
	stp_relay_wake_readers();
}

static void stp_relay_wake_work_fn(struct irq_work *work)
{
	stp_relay_wake_readers();
	mod_timer(&stp_relay_wake_timer, jiffies + msecs_to_jiffies(STP_RELAY_WAKE_MS));
}

static inline void stp_relay_arm_wakeup(void)
{
	if (!READ_ONCE(stp_relay_wake_armed) && !test_and_set_bit(0, &stp_relay_wake_armed))
		stp_wakeup_ctl_or_relay(&stp_relay_wake_work, STP_WAKE_RELAY);
}

/* The wakeups kprobes' handlers left; each jiffy while polling. */
static void stp_wake_deferred_run(void)
{
	if (test_and_clear_bit(STP_WAKE_RELAY, &stp_wake_deferred))
		stp_relay_wake_work_fn(NULL);
	if (test_and_clear_bit(STP_WAKE_CTL, &stp_wake_deferred))
		stp_ctl_wakeup_fn(NULL);
}

static void stp_wake_poll_fn(struct timer_list *timer)
{
	stp_wake_deferred_run();
	if (READ_ONCE(stp_wake_polling))
		mod_timer(&stp_wake_poll_timer, jiffies + 1);
}

/* Before kprobes are registered (again for each table: once is enough).  Context:
 * process.  It polls until the transport closes. */
static __maybe_unused void stp_wake_poll_start(void)
{
	if (!xchg(&stp_wake_polling, true))
		mod_timer(&stp_wake_poll_timer, jiffies + 1);
}

/* The poll's end, when no probe runs any more: what kprobes left, woken now. */
static void stp_wake_poll_stop(void)
{
	if (!xchg(&stp_wake_polling, false))
		return;
	stp_timer_delete_sync(&stp_wake_poll_timer);
	stp_wake_deferred_run();
}

/* Called with preemption off; the write lands whole or is dropped whole (and counted). */
static void stp_relay_write(const void *data, size_t len)
{
	raw_spinlock_t *lock = stp_relay_write_lock();
	size_t total = STP_RELAY_HEADER_SIZE + len;
	unsigned long flags;
	char *slot;

	if (unlikely(!stp_relay_chan))
		return;
	if (unlikely(total > stp_relay_chan->subbuf_size)) {
		/* relay would drop it without a word */
		atomic64_add(len, &stp_relay_dropped);
		return;
	}
	raw_spin_lock_irqsave(lock, flags);
	slot = relay_reserve(stp_relay_chan, total);	/* NULL: the buffer is full */
	if (likely(slot)) {
		stp_relay_put_header(slot, len);
		memcpy(slot + STP_RELAY_HEADER_SIZE, data, len);
	} else {
		atomic64_add(len, &stp_relay_dropped);
	}
	raw_spin_unlock_irqrestore(lock, flags);
	if (likely(slot))
		stp_relay_arm_wakeup();
}

/* ---- setup ---- */

/* /sys/kernel/debug/systemtap, shared by all modules and never removed. */
static struct dentry *stp_debugfs_parent(void)
{
	struct dentry *d = debugfs_lookup(STP_DEBUGFS_DIR, NULL);

	if (d) {
		dput(d);	/* debugfs keeps the folder alive */
		return d;
	}
	d = debugfs_create_dir(STP_DEBUGFS_DIR, NULL);
	if (IS_ERR(d)) {
		d = debugfs_lookup(STP_DEBUGFS_DIR, NULL);	/* another module won a race */
		if (!d)
			return ERR_PTR(-ENOENT);
		dput(d);
	}
	return d;
}

static int stp_transport_init(void)
{
	struct dentry *parent = stp_debugfs_parent();
	struct dentry *ctl;
	unsigned int megabytes;
	int rc;

	init_irq_work(&stp_ctl_wakeup, stp_ctl_wakeup_fn);
	init_irq_work(&stp_relay_wake_work, stp_relay_wake_work_fn);
	timer_setup(&stp_relay_wake_timer, stp_relay_wake_timer_fn, 0);
	timer_setup(&stp_wake_poll_timer, stp_wake_poll_fn, 0);
	stp_relay_locks_init();
	if (IS_ERR(parent))
		return PTR_ERR(parent);
	if (_stp_bufsize > 4095) {
		pr_err("%s: %s=%u is out of range (1-4095 megabytes)\n", THIS_MODULE->name,
		       STP_BUFSIZE_PARAM, _stp_bufsize);
		return -EINVAL;
	}
	stp_debugfs_dir = debugfs_create_dir(THIS_MODULE->name, parent);
	if (IS_ERR(stp_debugfs_dir)) {
		rc = PTR_ERR(stp_debugfs_dir);
		goto err_forget_dir;
	}
	rc = -ENOMEM;
	ctl = debugfs_create_file(STP_CTL_FILE, 0600, stp_debugfs_dir, NULL, &stp_ctl_fops);
	if (IS_ERR(ctl))
		goto err_remove_dir;
	if (stp_bulkmode_file_create(stp_debugfs_dir))
		goto err_remove_dir;
	megabytes = _stp_bufsize ? _stp_bufsize : STP_BUFSIZE_MB;
	stp_relay_chan = relay_open(STP_RELAY_BASENAME, stp_debugfs_dir,
				    ((size_t)megabytes << 20) / STP_RELAY_N_SUBBUFS,
				    STP_RELAY_N_SUBBUFS, &stp_relay_callbacks, NULL);
	if (!stp_relay_chan)
		goto err_remove_dir;
	return 0;

err_remove_dir:
	debugfs_remove(stp_debugfs_dir);
err_forget_dir:
	stp_debugfs_dir = NULL;
	return rc;
}

static void stp_transport_close(void)
{
	/* no probe writes now: the last wakeup's work, then its timer */
	stp_wake_poll_stop();
	irq_work_sync(&stp_relay_wake_work);
	stp_timer_delete_sync(&stp_relay_wake_timer);
	if (stp_relay_chan) {
		relay_close(stp_relay_chan);
		stp_relay_chan = NULL;
	}
	debugfs_remove(stp_debugfs_dir);
	stp_debugfs_dir = NULL;
	irq_work_sync(&stp_ctl_wakeup);
}
