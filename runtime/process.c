/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process.c - process.begin/end, process.thread.begin/end and process.syscall[.return]
 * probes (stapprobes(3stap), USER-SPACE), with or without a PID or FULLPATH: the life
 * events of user tasks, hence the stp_utask_ names.  Pass 3's side is
 * src/families/family_process.c.
 *
 * What fires when:
 *   process.begin         a new process (a fork without CLONE_THREAD) in the new process;
 *                         once in each process that exists when the session starts; and,
 *                         for process("FULLPATH"), when a process execs FULLPATH.
 *   process.thread.begin  a new thread of an existing process, in the new thread.
 *   process.end           the last thread of a process exits (the thread group is dead), in
 *                         that thread; for process("FULLPATH"), also when a process that
 *                         ran FULLPATH execs (its image ends, as in stap), before the
 *                         new image's begin.
 *   process.thread.end    a thread other than the process's main one exits, in that thread.
 *   process.syscall       a thread enters a system call, and .syscall.return when it returns
 *                         (the raw_syscalls tracepoints sys_enter and sys_exit), in it.
 * A probe without PID or FULLPATH sees every user process; process(PID) the process whose
 * (global) pid is PID; with -c/-x, any of them only the target's hierarchy
 * (stp_task_in_target()), as stapprobes says of all process probes;
 * process("FULLPATH") the processes whose executable (mm->exe_file) is that file, compared
 * by inode (the path is resolved once, at registration; a path that is not there then is a
 * warning and its probe never fires).  Kernel threads (PF_KTHREAD) are never user processes;
 * io_uring workers (PF_IO_WORKER) are threads that never run user code: they have no
 * thread.begin/end of their own, but the last of them to exit ends its process.
 *
 * Where it hooks, all through the kernel's tracepoints (found with
 * for_each_kernel_tracepoint(): the sched_process_* ones are not exported):
 *   sched_process_fork  (in the parent, the child created but not yet woken): a begin
 *                       handler must run in the child, so a task_work (struct
 *                       stp_utask_work) is queued on it with TWA_RESUME; the child runs
 *                       it on its first way out to user space.
 *   sched_process_exec  (in the exec'ing task, its new mm in place): process("FULLPATH")
 *                       .begin runs right there; the record of what a process runs (below)
 *                       is updated.
 *   sched_process_exit  (in the exiting task, after exit_mm(), before exit_task_work()):
 *                       thread.end, and process.end once the group's `live` count is 0.
 *   sched_process_free  (an RCU callback: softirq) forgets a dead process's entry.
 * The preexisting processes get their process.begin the same way as new ones: at
 * registration one thread of each gets a task_work, TWA_SIGNAL, which wakes it from an
 * interruptible sleep (the system call restarts, as after a signal with no handler), so
 * that a process blocked in a system call throughout gets it too, as each does with stap.
 * One asleep uninterruptibly gets it when it wakes; one that exits first gets it from its
 * exit (below).  The -c target is such a preexisting process: stapio forks it
 * before the session starts and holds it before its exec, so its process.begin runs with
 * the name of stapio (process("FULLPATH").begin runs again at the exec).  A process created
 * while the scan runs may be seen by both the fork hook and the scan: whichever queues a
 * work on the task first wins, and a work that runs during the scan stays in the table
 * (done) until the scan is over, so that the scan still sees it.
 *
 * A begin and an end of the same task keep their order: the exit hook runs a begin still
 * pending on the exiting task first (and marks it fired), since exit_task_work() would
 * otherwise run it after the end.  A begin of the startup scan that runs while the session
 * is still starting waits (sleeping, up to STP_UTASK_START_WAIT_MS) for it to run, so that
 * the begins of processes that are quick to return to user space are not lost.
 *
 * The end of a process: with the mm gone at sched_process_exit, what a process runs is
 * known only from a record (struct stp_utask_proc, keyed by the signal_struct, which all
 * its threads share and which lives as long as any of them) made when it was seen to run
 * one of the FULLPATH files of an end probe: at the startup scan, at a fork, at an exec
 * (an exec of something else drops it).  Several threads of a dead group may pass the exit
 * hook at once, each seeing `live` at 0: the first to claim the group's entry (ended) runs
 * process.end; the entry stays, so that the others do not, until the group leader is freed
 * (no thread of the group can be in do_exit() any more by then, and the signal_struct
 * cannot have been reused).  Without a record a claim needs an entry allocated then
 * (GFP_ATOMIC); when that fails the hit is skipped and counted.
 *
 * Cleanup (stp_utasks_unregister): the tracepoints go first, then
 * tracepoint_synchronize_unregister() waits for their calls in flight; every pending work
 * is then taken out of the table and cancelled with task_work_cancel(), which is not
 * exported (its address comes from kallsyms; its two signatures are told apart by
 * runtime/autoconf); a work that cannot be cancelled is being run by its task and frees
 * itself.  stp_utask_outstanding counts the works queued or running: unregister waits for
 * it to drop to 0, then synchronize_rcu_tasks() waits until no task can still be executing
 * the tail of our callback (after the count it does not sleep, so a task still inside is
 * not quiescent for RCU Tasks even if preempted there).  Each work holds a reference on its
 * task; the path probes hold their path (from kern_path()) until the end.
 *
 * Locking: stp_utask_lock (raw, irqsave: the free hook runs in softirq) guards both tables;
 * nothing is allocated or freed under it.  The startup scan takes a task's alloc_lock
 * (task_lock) outside it, never inside.  Allocations in the tracepoint hooks are
 * GFP_ATOMIC; a failure skips the hit (stp_skipped_count).
 */
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

enum stp_utask_event {
	STP_UTASK_PROCESS_BEGIN,
	STP_UTASK_PROCESS_END,
	STP_UTASK_THREAD_BEGIN,
	STP_UTASK_THREAD_END,
	STP_UTASK_SYSCALL,		/* process.syscall: a system call is entered */
	STP_UTASK_SYSCALL_RETURN,	/* process.syscall.return: it returns */
};

/* What a process.syscall hit carries (the hit's data): the call and its result. */
struct stp_utask_syscall {
	long nr;
	long ret;
};

/* One process probe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_utask_probe {
	const struct stp_probe *probe;
	enum stp_utask_event event;
	const char *path;		/* process("FULLPATH"): the executable; NULL: any */
	pid_t pid;			/* process(PID): 0: any */
	/* run-time state, set by stp_utasks_register() */
	struct path exe_path;		/* path probes: the file, held until unregister */
	const struct inode *inode;	/* its inode; NULL for a path probe: never fires */
};

/* Defined later in the runtime (module.c, module_symbols.c); declared here. */
static pid_t stp_target_pid;
static unsigned long (*stp_kallsyms_lookup_name)(const char *name);
static int stp_find_kallsyms_lookup_name(void);

#ifndef STP_UTASK_START_WAIT_MS
#define STP_UTASK_START_WAIT_MS 5000	/* how long a begin work waits for the session to run */
#endif
#define STP_UTASK_MAX_ANCESTRY 4096	/* parents stp_task_in_target() climbs at most */

/* A begin handler to run in TASK's context, queued as a task_work on it. */
struct stp_utask_work {
	struct callback_head cb;
	struct hlist_node node;		/* in stp_utask_works while hashed */
	struct task_struct *task;	/* referenced */
	const struct inode *exe;	/* TASK's executable when queued (compared only) */
	enum stp_utask_event event;	/* PROCESS_BEGIN or THREAD_BEGIN */
	bool startup;			/* queued by the startup scan */
	bool hashed;			/* under stp_utask_lock */
	bool done;			/* ran during the startup scan; the scan frees it */
	bool fired;			/* the exit hook ran it already (only TASK touches this) */
};

/* What the exit hook knows of a process (see the top of the file). */
struct stp_utask_proc {
	struct hlist_node node;		/* in stp_utask_procs */
	const struct signal_struct *sig;	/* the key: the process's threads share it */
	const struct inode *exe;	/* one of our path inodes it runs, or NULL */
	const struct task_struct *leader;	/* once ended: its free drops the entry */
	bool ended;			/* process.end claimed */
};

static struct stp_utask_probe *stp_utasks;
static size_t stp_nutasks;
static bool stp_utask_active;
static bool stp_utask_stopping;		/* unregistering: works waiting to start give up */

/* What the probes present need; set at registration. */
static bool stp_utask_need_begin;	/* any begin probe: works, task_work_cancel */
static bool stp_utask_need_end;		/* any end probe: the exit hook */
static bool stp_utask_need_exec;	/* a path process.begin, or tracking */
static bool stp_utask_track;		/* an end probe with a path: records of exe */
static bool stp_utask_need_procs;	/* process.end or tracking: the procs table */
static bool stp_utask_need_enter;	/* process.syscall: the sys_enter hook */
static bool stp_utask_need_exit;	/* process.syscall.return: the sys_exit hook */

static DEFINE_RAW_SPINLOCK(stp_utask_lock);
static DEFINE_HASHTABLE(stp_utask_works, 10);	/* by task */
static DEFINE_HASHTABLE(stp_utask_procs, 10);	/* by signal_struct */
static size_t stp_utask_nprocs;			/* entries in stp_utask_procs */
static bool stp_utask_scanning;			/* works that run keep their entry */
static atomic_t stp_utask_outstanding = ATOMIC_INIT(0);	/* works queued or running */
static bool stp_utask_queued_any;		/* a work was queued this session */
static DECLARE_WAIT_QUEUE_HEAD(stp_utask_wq);

/* task_work_cancel(): bool (task, callback_head) since 6.11 and in 6.1.y; it took the
 * function before (the first work of that function: a task has at most one of ours). */
#ifdef STP_HAVE_TASK_WORK_CANCEL_CB
static bool (*stp_task_work_cancel)(struct task_struct *task, struct callback_head *cb);
#else
static struct callback_head *(*stp_task_work_cancel)(struct task_struct *task,
						    task_work_func_t func);
#endif

/* The tracepoints, found by name. */
struct stp_utask_tracepoint {
	const char *name;
	void *func;
	bool wanted;
	struct tracepoint *tp;		/* found */
	bool registered;
};

static void stp_utask_fork(void *data, struct task_struct *parent, struct task_struct *child);
static void stp_utask_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm);
static void stp_utask_exit(void *data, struct task_struct *p);
static void stp_utask_free(void *data, struct task_struct *p);
static void stp_utask_sys_enter(void *data, struct pt_regs *regs, long id);
static void stp_utask_sys_exit(void *data, struct pt_regs *regs, long ret);

/* In registration order: the free hook before anything makes entries, fork last. */
static struct stp_utask_tracepoint stp_utask_tps[] = {
	{ .name = "sched_process_free", .func = (void *)stp_utask_free },
	{ .name = "sched_process_exit", .func = (void *)stp_utask_exit },
	{ .name = "sched_process_exec", .func = (void *)stp_utask_exec },
	{ .name = "sched_process_fork", .func = (void *)stp_utask_fork },
	{ .name = "sys_enter", .func = (void *)stp_utask_sys_enter },
	{ .name = "sys_exit", .func = (void *)stp_utask_sys_exit },
};

/* A hit that could not be taken (no memory in atomic context): counted like a busy context. */
static void stp_utask_skip(void)
{
	stp_skip_hit();
}

/*
 * Whether TASK is the -c/-x target process or a descendant of it (true when there is no
 * target).  The hierarchy is that of real_parent, so orphans adopted elsewhere leave it.
 * Context: any; takes rcu_read_lock.
 */
static __maybe_unused bool stp_task_in_target(struct task_struct *task)
{
	pid_t target = READ_ONCE(stp_target_pid);
	struct task_struct *t = task;
	bool found = false;
	int depth;

	if (target <= 0)
		return true;
	rcu_read_lock();
	for (depth = 0; depth < STP_UTASK_MAX_ANCESTRY; depth++) {
		struct task_struct *parent;

		if (t->tgid == target) {
			found = true;
			break;
		}
		parent = rcu_dereference(t->real_parent);
		if (!parent || parent == t)	/* init_task is its own parent */
			break;
		t = parent;
	}
	rcu_read_unlock();
	return found;
}

/* The inode of MM's executable, or NULL; compared, never dereferenced by callers. */
static const struct inode *stp_utask_mm_exe(struct mm_struct *mm)
{
	const struct inode *inode = NULL;
	struct file *exe;

	if (!mm)
		return NULL;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe)
		inode = file_inode(exe);
	rcu_read_unlock();
	return inode;
}

static bool stp_utask_matches(const struct stp_utask_probe *p, struct task_struct *task,
			      const struct inode *exe)
{
	/* with -c or -x, every process probe is for the target's processes only */
	if (p->pid && task_tgid_nr(task) != p->pid)
		return false;
	if (p->path && (!p->inode || exe != p->inode))
		return false;
	return stp_task_in_target(task);
}

/* Whether a probe of EVENT would fire for TASK running EXE. */
static bool stp_utask_any(enum stp_utask_event event, struct task_struct *task,
			  const struct inode *exe)
{
	size_t i;

	for (i = 0; i < stp_nutasks; i++)
		if (stp_utasks[i].event == event && stp_utask_matches(&stp_utasks[i], task, exe))
			return true;
	return false;
}

/* Runs the probes of EVENT that match TASK (current) running EXE. */
static void stp_utask_run(enum stp_utask_event event, struct task_struct *task,
			  const struct inode *exe)
{
	size_t i;

	for (i = 0; i < stp_nutasks; i++) {
		const struct stp_utask_probe *p = &stp_utasks[i];

		if (p->event == event && stp_utask_matches(p, task, exe)) {
			struct stp_hit hit = { 0 };

			stp_probe_run_hit(p->probe, STP_SESSION_RUNNING, &hit);
		}
	}
}

/* Whether EXE is the file of an end probe with a path (a process to keep a record of). */
static bool stp_utask_tracked(const struct inode *exe)
{
	size_t i;

	if (!exe)
		return false;
	for (i = 0; i < stp_nutasks; i++) {
		const struct stp_utask_probe *p = &stp_utasks[i];

		if ((p->event == STP_UTASK_PROCESS_END || p->event == STP_UTASK_THREAD_END) &&
		    p->inode == exe)
			return true;
	}
	return false;
}

/* process.syscall, process.syscall.return: in the task that makes the call, with its
 * user registers (the arguments). */
static void stp_utask_syscall_run(enum stp_utask_event event, struct pt_regs *regs, long nr,
				  long ret)
{
	struct stp_utask_syscall call = { .nr = nr, .ret = ret };
	const struct inode *exe;
	size_t i;

	if (current->flags & PF_KTHREAD)
		return;
	exe = stp_utask_mm_exe(current->mm);
	for (i = 0; i < stp_nutasks; i++) {
		const struct stp_utask_probe *p = &stp_utasks[i];

		if (p->event == event && stp_utask_matches(p, current, exe)) {
			struct stp_hit hit = { .regs = regs, .data = &call,
					       .is_return = event == STP_UTASK_SYSCALL_RETURN };

			stp_probe_run_hit(p->probe, STP_SESSION_RUNNING, &hit);
		}
	}
}

static void stp_utask_sys_enter(void *data, struct pt_regs *regs, long id)
{
	stp_utask_syscall_run(STP_UTASK_SYSCALL, regs, id, 0);
}

static void stp_utask_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	stp_utask_syscall_run(STP_UTASK_SYSCALL_RETURN, regs, syscall_get_nr(current, regs),
			      ret);
}

/* $syscall, $argN (1 to 6), $return of a process.syscall probe; 0 elsewhere. */
static __maybe_unused long stp_utask_syscall_nr(struct context *c)
{
	const struct stp_utask_syscall *call = c->probe_data;

	return call ? call->nr : 0;
}

static __maybe_unused long stp_utask_syscall_arg(struct context *c, int n)
{
	unsigned long args[6];

	if (!c->probe_data || !c->regs || n < 1 || n > 6)
		return 0;
	syscall_get_arguments(current, c->regs, args);
	return (long)args[n - 1];
}

static __maybe_unused long stp_utask_syscall_return(struct context *c)
{
	const struct stp_utask_syscall *call = c->probe_data;

	return call ? call->ret : 0;
}

/* ---- the two tables; callers hold stp_utask_lock ---- */

static struct stp_utask_work *stp_utask_work_find(const struct task_struct *task)
{
	struct stp_utask_work *w;

	hash_for_each_possible(stp_utask_works, w, node, (unsigned long)task)
		if (w->task == task)
			return w;
	return NULL;
}

static void stp_utask_work_unhash(struct stp_utask_work *w)
{
	hash_del(&w->node);
	w->hashed = false;
}

static struct stp_utask_proc *stp_utask_proc_find(const struct signal_struct *sig)
{
	struct stp_utask_proc *e;

	hash_for_each_possible(stp_utask_procs, e, node, (unsigned long)sig)
		if (e->sig == sig)
			return e;
	return NULL;
}

static void stp_utask_proc_add(struct stp_utask_proc *e, const struct signal_struct *sig,
			       const struct inode *exe)
{
	e->sig = sig;
	e->exe = exe;
	e->leader = NULL;
	e->ended = false;
	hash_add(stp_utask_procs, &e->node, (unsigned long)sig);
	stp_utask_nprocs++;
}

static void stp_utask_proc_del(struct stp_utask_proc *e)
{
	hash_del(&e->node);
	stp_utask_nprocs--;
}

/* ---- begin works ---- */

/* A work is done with: the last use of module memory and text is the wake-up, which
 * stp_utasks_unregister() covers with synchronize_rcu_tasks(). */
static void stp_utask_work_put(void)
{
	if (atomic_dec_and_test(&stp_utask_outstanding))
		wake_up(&stp_utask_wq);
}

static void stp_utask_work_free(struct stp_utask_work *w)
{
	put_task_struct(w->task);
	kfree(w);
}

/* The task_work: runs in its task, on the way out to user space (or at its exit). */
static void stp_utask_work_run(struct callback_head *cb)
{
	struct stp_utask_work *w = container_of(cb, struct stp_utask_work, cb);
	unsigned long deadline = jiffies + msecs_to_jiffies(STP_UTASK_START_WAIT_MS);
	enum stp_utask_event event;
	const struct inode *exe;
	unsigned long flags;
	bool keep = false, run, startup;

	raw_spin_lock_irqsave(&stp_utask_lock, flags);
	if (w->hashed) {
		if (stp_utask_scanning) {	/* the scan must still see that TASK had one */
			w->done = true;
			keep = true;
		} else {
			stp_utask_work_unhash(w);
		}
	}
	event = w->event;
	exe = w->exe;
	run = !w->fired;
	startup = w->startup;
	raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
	/* unhashed: ours to free; kept: the scan's (W is not touched again) */

	if (run) {
		/* A startup begin run before the session is running (a process quick to return
		 * to user space while the session starts): wait for it, sleeping.  Only these:
		 * the start may wait for a new process (a user-mode helper), never for these.
		 * This is before our count drops, which stp_utasks_unregister() relies on. */
		while (startup && atomic_read(&stp_session_state) == STP_SESSION_STARTING &&
		       !READ_ONCE(stp_utask_stopping) && !fatal_signal_pending(current) &&
		       time_before(jiffies, deadline))
			schedule_timeout_killable(msecs_to_jiffies(5));
		stp_utask_run(event, current, exe);
	}
	if (!keep)
		stp_utask_work_free(w);
	stp_utask_work_put();
}

/*
 * Queues a begin of EVENT on TASK, unless it has one already (the startup scan and the fork
 * hook both see a process created while the scan runs).  W is preallocated, consumed on
 * success.  Returns whether W was used.  Context: any; takes stp_utask_lock.
 */
static bool stp_utask_queue(struct stp_utask_work *w, struct task_struct *task,
			    enum stp_utask_event event, const struct inode *exe, bool startup)
{
	unsigned long flags;

	init_task_work(&w->cb, stp_utask_work_run);
	w->task = get_task_struct(task);
	w->exe = exe;
	w->event = event;
	w->startup = startup;
	w->done = false;
	w->fired = false;
	raw_spin_lock_irqsave(&stp_utask_lock, flags);
	if (stp_utask_work_find(task)) {
		raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
		put_task_struct(task);	/* TASK holds its own references: never the last */
		return false;
	}
	hash_add(stp_utask_works, &w->node, (unsigned long)task);
	w->hashed = true;
	atomic_inc(&stp_utask_outstanding);
	stp_utask_queued_any = true;
	raw_spin_unlock_irqrestore(&stp_utask_lock, flags);

	/* the startup scan's kick tasks out of interruptible sleeps (their system calls restart)
	 * so that each process that exists gets its begin now, as with stap */
	if (task_work_add(task, &w->cb, startup ? TWA_SIGNAL : TWA_RESUME) == 0)
		return true;
	/* TASK is past exit_task_work(): no begin for it */
	raw_spin_lock_irqsave(&stp_utask_lock, flags);
	if (w->hashed)
		stp_utask_work_unhash(w);
	raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
	put_task_struct(task);
	stp_utask_work_put();
	return false;
}

/* Takes back the work CB queued on TASK: true when it was still queued (it will not run).
 * CB is only compared: it may have been run and freed already. */
static bool stp_utask_cancel(struct task_struct *task, struct callback_head *cb)
{
#ifdef STP_HAVE_TASK_WORK_CANCEL_CB
	return stp_task_work_cancel(task, cb);
#else
	return stp_task_work_cancel(task, stp_utask_work_run) == cb;
#endif
}

/* ---- the tracepoint hooks (preemption off; free in softirq) ---- */

static void stp_utask_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	bool thread = child->pid != child->tgid;
	enum stp_utask_event event = thread ? STP_UTASK_THREAD_BEGIN : STP_UTASK_PROCESS_BEGIN;
	const struct inode *exe;

	if (child->flags & PF_KTHREAD)
		return;
	/* not running yet: its mm (NULL for a user-mode helper before its exec) is stable */
	exe = stp_utask_mm_exe(child->mm);

	if (!thread && stp_utask_track && stp_utask_tracked(exe)) {
		struct stp_utask_proc *e = kmalloc(sizeof(*e), GFP_ATOMIC | __GFP_NOWARN);
		unsigned long flags;

		if (e) {
			raw_spin_lock_irqsave(&stp_utask_lock, flags);
			if (!stp_utask_proc_find(child->signal)) {
				stp_utask_proc_add(e, child->signal, exe);
				e = NULL;
			}
			raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
			kfree(e);
		} else {
			stp_utask_skip();	/* its end will be missed */
		}
	}

	if (!stp_utask_need_begin || (thread && (child->flags & PF_IO_WORKER)))
		return;
	if (stp_utask_any(event, child, exe)) {
		struct stp_utask_work *w = kmalloc(sizeof(*w), GFP_ATOMIC | __GFP_NOWARN);

		if (!w)
			stp_utask_skip();
		else if (!stp_utask_queue(w, child, event, exe, false))
			kfree(w);
	}
}

static void stp_utask_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	const struct inode *exe, *old_exe = NULL;
	size_t i;

	if (p != current || (p->flags & PF_KTHREAD))
		return;
	exe = stp_utask_mm_exe(p->mm);

	if (stp_utask_track) {
		bool tracked = stp_utask_tracked(exe);
		struct stp_utask_proc *e, *spare = NULL, *old = NULL;
		unsigned long flags;
		bool lost = false;

		if (tracked)
			spare = kmalloc(sizeof(*spare), GFP_ATOMIC | __GFP_NOWARN);
		raw_spin_lock_irqsave(&stp_utask_lock, flags);
		e = stp_utask_proc_find(p->signal);
		if (e && !e->ended)
			old_exe = e->exe;	/* its image ends, even for the same file */
		if (tracked) {
			if (e) {
				e->exe = exe;
			} else if (spare) {
				stp_utask_proc_add(spare, p->signal, exe);
				spare = NULL;
			} else {
				lost = true;
			}
		} else if (e && !e->ended) {	/* no longer runs a file we follow */
			stp_utask_proc_del(e);
			old = e;
		}
		raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
		if (lost)
			stp_utask_skip();	/* could not allocate: its end will be missed */
		kfree(spare);
		kfree(old);
	}

	/* process("OLD").end: the image it ran is gone (stap ends it at the exec, before
	 * the new image's begin, OLD the same file or not); a probe without a path sees the
	 * same process go on */
	for (i = 0; old_exe && i < stp_nutasks; i++) {
		const struct stp_utask_probe *pr = &stp_utasks[i];

		if (pr->event == STP_UTASK_PROCESS_END && pr->path &&
		    stp_utask_matches(pr, p, old_exe)) {
			struct stp_hit hit = { 0 };

			stp_probe_run_hit(pr->probe, STP_SESSION_RUNNING, &hit);
		}
	}

	/* process("FULLPATH").begin: the process is now described by FULLPATH */
	for (i = 0; i < stp_nutasks; i++) {
		const struct stp_utask_probe *pr = &stp_utasks[i];

		if (pr->event == STP_UTASK_PROCESS_BEGIN && pr->path && pr->inode &&
		    pr->inode == exe) {
			struct stp_hit hit = { 0 };

			stp_probe_run_hit(pr->probe, STP_SESSION_RUNNING, &hit);
		}
	}
}

static void stp_utask_exit(void *data, struct task_struct *p)
{
	bool thread = p->pid != p->tgid && !(p->flags & PF_IO_WORKER);
	bool group_dead, first = false, want_end;
	const struct inode *exe = NULL;
	struct stp_utask_proc *e;
	unsigned long flags;

	if (p != current || (p->flags & PF_KTHREAD))
		return;

	/* A begin still pending on this task runs before its end. */
	if (atomic_read(&stp_utask_outstanding) > 0) {
		struct stp_utask_work *w;
		enum stp_utask_event event = STP_UTASK_PROCESS_BEGIN;
		const struct inode *wexe = NULL;
		bool run = false;

		raw_spin_lock_irqsave(&stp_utask_lock, flags);
		w = stp_utask_work_find(p);
		if (w && !w->done && !w->fired) {
			w->fired = true;	/* its callback, later in this task, skips it */
			event = w->event;
			wexe = w->exe;
			run = true;
		}
		raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
		if (run)
			stp_utask_run(event, p, wexe);
	}

	if (!stp_utask_need_procs && !thread)
		return;
	group_dead = atomic_read(&p->signal->live) == 0;

	if (stp_utask_need_procs) {
		raw_spin_lock_irqsave(&stp_utask_lock, flags);
		e = stp_utask_proc_find(p->signal);
		exe = e ? e->exe : NULL;
		raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
	}

	if (thread)
		stp_utask_run(STP_UTASK_THREAD_END, p, exe);

	if (!group_dead || !stp_utask_need_procs)
		return;
	/* The group is dead: the first of its threads here claims its end; the entry stays
	 * (and keeps the others from claiming) until the group leader is freed. */
	want_end = stp_utask_any(STP_UTASK_PROCESS_END, p, exe);
	{
		struct stp_utask_proc *spare = NULL;

		if (want_end)
			spare = kmalloc(sizeof(*spare), GFP_ATOMIC | __GFP_NOWARN);
		raw_spin_lock_irqsave(&stp_utask_lock, flags);
		e = stp_utask_proc_find(p->signal);
		if (!e && spare) {
			stp_utask_proc_add(spare, p->signal, NULL);
			e = spare;
			spare = NULL;
		}
		if (e && !e->ended) {
			e->ended = true;
			e->leader = p->group_leader;
			exe = e->exe;
			first = true;
		}
		raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
		if (want_end && !e)
			stp_utask_skip();
		kfree(spare);
	}
	if (first && want_end)
		stp_utask_run(STP_UTASK_PROCESS_END, p, exe);
}

/* The group leader is freed: its process's entry goes (no thread of it is left). */
static void stp_utask_free(void *data, struct task_struct *p)
{
	struct stp_utask_proc *e = NULL;
	unsigned long flags;

	if (!thread_group_leader(p) || !READ_ONCE(stp_utask_nprocs))
		return;
	raw_spin_lock_irqsave(&stp_utask_lock, flags);
	e = stp_utask_proc_find(p->signal);
	if (e && e->ended && e->leader == p)
		stp_utask_proc_del(e);
	else
		e = NULL;
	raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
	kfree(e);
}

/* ---- registration ---- */

static void stp_utask_find_tracepoint(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stp_utask_tps); i++)
		if (!stp_utask_tps[i].tp && strcmp(tp->name, stp_utask_tps[i].name) == 0)
			stp_utask_tps[i].tp = tp;
}

/* One thread of P that still runs (the leader unless it is exiting), or NULL.
 * Context: rcu_read_lock held. */
static struct task_struct *stp_utask_live_thread(struct task_struct *p)
{
	struct task_struct *t;

	if (p->flags & PF_KTHREAD)
		return NULL;
	for_each_thread(p, t)
		if (!(t->flags & (PF_EXITING | PF_IO_WORKER)))
			return t;
	return NULL;
}

/* References to one live thread of each user process, in a kvmalloc'd array.
 * Context: process context, may sleep. */
static struct task_struct **stp_utask_snapshot(size_t *count)
{
	struct task_struct **tasks = NULL;
	struct task_struct *p, *t;
	size_t cap = 0, n, i;
	int attempt;

	for (attempt = 0; attempt < 4; attempt++) {
		bool full = false;

		rcu_read_lock();
		for_each_process(p)
			cap++;
		rcu_read_unlock();
		cap += cap / 4 + 64;
		tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
		if (!tasks)
			return NULL;
		n = 0;
		rcu_read_lock();
		for_each_process(p) {
			t = stp_utask_live_thread(p);
			if (!t)
				continue;
			if (n == cap) {
				full = true;
				break;
			}
			tasks[n++] = get_task_struct(t);
		}
		rcu_read_unlock();
		if (!full) {
			*count = n;
			return tasks;
		}
		for (i = 0; i < n; i++)	/* processes appeared faster than we counted */
			put_task_struct(tasks[i]);
		kvfree(tasks);
		tasks = NULL;
	}
	return NULL;
}

/*
 * The startup look at task T (one thread of a process that existed): its record, and its
 * process.begin queued.  *SPARE_W / *SPARE_E are preallocated and consumed when used.
 * Context: process context; takes T's task_lock, then stp_utask_lock.
 */
static void stp_utask_scan_task(struct task_struct *t, struct stp_utask_work **spare_w,
				struct stp_utask_proc **spare_e)
{
	const struct inode *exe;
	bool begin = false;
	unsigned long flags;

	task_lock(t);
	if (!t->mm) {		/* gone past exit_mm(), or no user memory yet */
		task_unlock(t);
		return;
	}
	exe = stp_utask_mm_exe(t->mm);
	/* With T's mm held by task_lock its exit hook comes after this entry is in. */
	if (stp_utask_track && !*spare_e && stp_utask_tracked(exe)) {
		stp_utask_skip();	/* no memory: its end will be missed */
	} else if (stp_utask_track && stp_utask_tracked(exe)) {
		raw_spin_lock_irqsave(&stp_utask_lock, flags);
		if (!stp_utask_proc_find(t->signal)) {
			stp_utask_proc_add(*spare_e, t->signal, exe);
			*spare_e = NULL;
		}
		raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
	}
	task_unlock(t);

	if (stp_utask_need_begin && *spare_w)
		begin = stp_utask_any(STP_UTASK_PROCESS_BEGIN, t, exe);
	if (begin && stp_utask_queue(*spare_w, t, STP_UTASK_PROCESS_BEGIN, exe, true))
		*spare_w = NULL;
}

/* Frees the works that ran during the scan and ends it. */
static void stp_utask_scan_end(void)
{
	struct stp_utask_work *w;
	struct hlist_node *tmp;
	unsigned long flags;
	HLIST_HEAD(done);
	int bkt;

	raw_spin_lock_irqsave(&stp_utask_lock, flags);
	stp_utask_scanning = false;
	hash_for_each_safe(stp_utask_works, bkt, tmp, w, node) {
		if (w->done) {
			stp_utask_work_unhash(w);
			hlist_add_head(&w->node, &done);
		}
	}
	raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
	hlist_for_each_entry_safe(w, tmp, &done, node)
		stp_utask_work_free(w);
}

static void stp_utask_scan(void)
{
	struct stp_utask_work *spare_w = NULL;
	struct stp_utask_proc *spare_e = NULL;
	struct task_struct **tasks;
	size_t n = 0, i;

	tasks = stp_utask_snapshot(&n);
	if (!tasks) {
		_stp_warn("process probes: cannot list the running processes: their "
			  "process.begin will not run");
		return;
	}
	for (i = 0; i < n; i++) {
		if (!spare_w && stp_utask_need_begin)
			spare_w = kmalloc(sizeof(*spare_w), GFP_KERNEL);
		if (!spare_e && stp_utask_track)
			spare_e = kmalloc(sizeof(*spare_e), GFP_KERNEL);
		stp_utask_scan_task(tasks[i], &spare_w, &spare_e);
		put_task_struct(tasks[i]);
		cond_resched();
	}
	kfree(spare_w);
	kfree(spare_e);
	kvfree(tasks);
}

/*
 * Takes back every pending work, then waits for the ones being run.  No work is added any
 * more (the fork hook is gone, the scan over).  Once a work is unhashed its callback, if
 * its task has dequeued it, frees it: W is not touched after the lock is dropped unless
 * the cancel proves it was still queued.
 */
static void stp_utask_works_drain(void)
{
	int bkt;

	for (bkt = 0; bkt < HASH_SIZE(stp_utask_works); bkt++) {
		for (;;) {
			struct stp_utask_work *w = NULL;
			struct task_struct *task = NULL;
			struct callback_head *cb = NULL;
			unsigned long flags;
			bool done = false;

			raw_spin_lock_irqsave(&stp_utask_lock, flags);
			if (!hlist_empty(&stp_utask_works[bkt])) {
				w = hlist_entry(stp_utask_works[bkt].first, struct stp_utask_work,
						node);
				stp_utask_work_unhash(w);
				done = w->done;
				task = get_task_struct(w->task);
				cb = &w->cb;
			}
			raw_spin_unlock_irqrestore(&stp_utask_lock, flags);
			if (!w)
				break;
			if (done) {		/* ran during the scan; its count is gone */
				stp_utask_work_free(w);
			} else if (stp_task_work_cancel && stp_utask_cancel(task, cb)) {
				stp_utask_work_free(w);	/* will not run: ours */
				stp_utask_work_put();
			}
			/* else its task is running it: it frees itself, finding it unhashed */
			put_task_struct(task);
			cond_resched();
		}
	}
	wait_event(stp_utask_wq, atomic_read(&stp_utask_outstanding) == 0);
	/* A callback past its count may still be in its last instructions (or preempted
	 * there); it sleeps no more before leaving our code: RCU Tasks waits for that. */
	if (stp_utask_queued_any)
		synchronize_rcu_tasks();
	stp_utask_queued_any = false;
}

static void stp_utask_procs_free(void)
{
	struct stp_utask_proc *e;
	struct hlist_node *tmp;
	int bkt;

	/* no hook runs any more: no lock needed, but it is cheap */
	hash_for_each_safe(stp_utask_procs, bkt, tmp, e, node) {
		stp_utask_proc_del(e);
		kfree(e);
	}
}

static void stp_utask_paths_put(struct stp_utask_probe *probes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (probes[i].inode) {
			path_put(&probes[i].exe_path);
			probes[i].inode = NULL;
		}
	}
}

/* Everything registration set up, whatever part of it was. */
static void stp_utask_teardown(void)
{
	size_t i;
	bool any = false;

	WRITE_ONCE(stp_utask_stopping, true);
	for (i = 0; i < ARRAY_SIZE(stp_utask_tps); i++) {
		struct stp_utask_tracepoint *t = &stp_utask_tps[i];

		if (t->registered) {
			tracepoint_probe_unregister(t->tp, t->func, NULL);
			t->registered = false;
			any = true;
		}
	}
	if (any)
		tracepoint_synchronize_unregister();
	if (stp_utask_scanning)
		stp_utask_scan_end();
	stp_utask_works_drain();
	stp_utask_procs_free();
	stp_utask_paths_put(stp_utasks, stp_nutasks);
	for (i = 0; i < ARRAY_SIZE(stp_utask_tps); i++) {
		stp_utask_tps[i].tp = NULL;
		stp_utask_tps[i].wanted = false;
	}
	stp_utasks = NULL;
	stp_nutasks = 0;
	stp_utask_active = false;
}

/*
 * Registers the process probes PROBES[0..N): resolves the paths, attaches to the scheduler's
 * tracepoints and queues process.begin on the processes already running.  0 or -errno
 * (reported with _stp_error).  Context: process context, may sleep.
 */
static __maybe_unused int stp_utasks_register(struct stp_utask_probe *probes, size_t n)
{
	bool path_begin = false, proc_begin = false;
	size_t i;
	int rc;

	if (n == 0)
		return 0;
	if (stp_utask_active) {
		_stp_error("process probes registered twice");
		return -EBUSY;
	}
	stp_utasks = probes;
	stp_nutasks = n;
	stp_utask_active = true;
	stp_utask_stopping = false;
	stp_utask_need_begin = stp_utask_need_end = stp_utask_need_exec = false;
	stp_utask_track = stp_utask_need_procs = false;

	stp_utask_need_enter = stp_utask_need_exit = false;
	for (i = 0; i < n; i++) {
		struct stp_utask_probe *p = &probes[i];
		bool end = p->event == STP_UTASK_PROCESS_END || p->event == STP_UTASK_THREAD_END;

		p->inode = NULL;
		if (p->path) {
			rc = kern_path(p->path, LOOKUP_FOLLOW, &p->exe_path);
			if (rc)
				_stp_warn("probe %s registration error (cannot find %s, rc %d): "
					  "it will not fire", p->probe->point, p->path, rc);
			else
				p->inode = d_inode(p->exe_path.dentry);
		}
		if (p->path && !p->inode)
			continue;		/* never fires: needs nothing */
		if (p->event == STP_UTASK_PROCESS_BEGIN || p->event == STP_UTASK_THREAD_BEGIN)
			stp_utask_need_begin = true;
		stp_utask_need_enter |= p->event == STP_UTASK_SYSCALL;
		stp_utask_need_exit |= p->event == STP_UTASK_SYSCALL_RETURN;
		if (end)
			stp_utask_need_end = true;
		if (end && p->path)
			stp_utask_track = true;
		if (p->event == STP_UTASK_PROCESS_END)
			stp_utask_need_procs = true;
		if (p->event == STP_UTASK_PROCESS_BEGIN) {
			proc_begin = true;
			path_begin |= p->path != NULL;
		}
	}
	stp_utask_need_procs |= stp_utask_track;
	stp_utask_need_exec = path_begin || stp_utask_track;

	/* Taking works back at the end needs task_work_cancel(), which is not exported. */
	if (stp_utask_need_begin && !stp_task_work_cancel) {
		rc = stp_find_kallsyms_lookup_name();
		if (!rc) {
			unsigned long addr = stp_kallsyms_lookup_name("task_work_cancel");

			if (addr)
				stp_task_work_cancel = (typeof(stp_task_work_cancel))addr;
			else
				rc = -ENOENT;
		}
		if (rc) {
			_stp_error("process probes: cannot find task_work_cancel (rc %d)", rc);
			goto fail;
		}
	}

	/* (without end probes the exit hook would only keep begins before ends) */
	stp_utask_tps[0].wanted = stp_utask_need_procs;			/* free */
	stp_utask_tps[1].wanted = stp_utask_need_end;				/* exit */
	stp_utask_tps[2].wanted = stp_utask_need_exec;				/* exec */
	stp_utask_tps[3].wanted = stp_utask_need_begin || stp_utask_track;	/* fork */
	stp_utask_tps[4].wanted = stp_utask_need_enter;			/* sys_enter */
	stp_utask_tps[5].wanted = stp_utask_need_exit;				/* sys_exit */
	for_each_kernel_tracepoint(stp_utask_find_tracepoint, NULL);

	/* From the fork hook on, a process may be both new and seen by the scan. */
	stp_utask_scanning = true;
	for (i = 0; i < ARRAY_SIZE(stp_utask_tps); i++) {
		struct stp_utask_tracepoint *t = &stp_utask_tps[i];

		if (!t->wanted)
			continue;
		if (!t->tp) {
			rc = -ENOENT;
			_stp_error("process probes: no tracepoint %s", t->name);
			goto fail;
		}
		rc = tracepoint_probe_register(t->tp, t->func, NULL);
		if (rc) {
			_stp_error("process probes: tracepoint %s registration error (rc %d)",
				   t->name, rc);
			goto fail;
		}
		t->registered = true;
	}
	if (proc_begin || stp_utask_track)
		stp_utask_scan();
	stp_utask_scan_end();
	return 0;

fail:
	stp_utask_teardown();
	return rc;
}

/*
 * Unregisters the process probes: after it no hook of ours runs, no work of ours is queued
 * or running, and nothing of ours is allocated or referenced.  Context: process context,
 * may sleep (waits for the works being run by their tasks, then an RCU Tasks grace period).
 */
static __maybe_unused void stp_utasks_unregister(struct stp_utask_probe *probes, size_t n)
{
	if (n == 0 || !stp_utask_active || probes != stp_utasks)
		return;
	stp_utask_teardown();
}
