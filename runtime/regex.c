/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regex.c - str =~ "re": matching a string with the automata pass 3 compiled from the
 * regular expression (src/elaborate/regex.c says how they are made and what a match is).
 *
 * Bounded time, no allocation, no recursion: a DFA of the reversed expression read
 * backwards finds where the leftmost match starts (an expression anchored by ^ has none:
 * its match can only start at 0), the expression's DFA read forwards
 * from there where the longest one ends; an expression with groups then runs its program
 * as a Pike VM over that span (every thread at most once per instruction and position,
 * in order of preference) in the scratch space the caller gives, STP_REGEX_SCRATCH ints
 * of the probe's context.  The last match of a probe hit is its context's regex member;
 * the tapset functions matched(), matched_str() and ngroups() read it.
 *
 * Uses nothing of the kernel but its integer types and string functions, so runtime.h
 * includes it before struct context and testsuite/unit/regex_test.c tests it.
 */
#ifndef STP_REGEX_C
#define STP_REGEX_C

/* The most groups (with group 0) and scratch ints of the script's expressions. */
#ifndef STP_REGEX_GROUPS
#define STP_REGEX_GROUPS 1
#endif
#ifndef STP_REGEX_SCRATCH
#define STP_REGEX_SCRATCH 1
#endif

#define STP_REGEX_ACCEPT 1		/* the state accepts here */
#define STP_REGEX_ACCEPT_AT_END 2	/* the state accepts at the end of the string */

struct stp_regex_dfa {
	const u16 *next;	/* [state * nclasses + class]; state 0 is dead */
	const u8 *accept;	/* per state, STP_REGEX_ACCEPT* */
	u16 start[2];		/* the first state away from the string's start, and at it */
};

enum stp_regex_op {
	STP_REGEX_SET,		/* a byte of sets[x] */
	STP_REGEX_SPLIT,	/* go on at x, and (less preferred) at y */
	STP_REGEX_JMP,		/* go on at x */
	STP_REGEX_SAVE,		/* the position is group x / 2's start (x even) or end */
	STP_REGEX_BOL,		/* only at the string's start */
	STP_REGEX_EOL,		/* only at the string's end */
	STP_REGEX_MATCH,
};

struct stp_regex_inst {
	u16 op, x, y;
};

struct stp_regex {
	const u8 *classes;		/* byte -> the DFAs' column */
	int nclasses;
	struct stp_regex_dfa fwd;	/* the expression, anchored */
	struct stp_regex_dfa rev;	/* the reversed expression, unanchored; no next
					 * when a match can only start at 0 (^...) */
	int ngroups;			/* with group 0 */
	/* with groups: the forward program and its sets of bytes */
	const struct stp_regex_inst *prog;
	int ninsts;
	int nthreads;			/* its SET and MATCH instructions */
	const u32 (*sets)[8];
};

/* The last =~ of a probe hit. */
struct stp_regex_match {
	bool ok;			/* it matched */
	int ngroups;			/* of its expression (0: none yet in this hit) */
	int pos[2 * STP_REGEX_GROUPS];	/* group N's start and end in subject; -1: unused */
	char subject[MAXSTRINGLEN];	/* the string matched */
};

/* Ints of scratch space stp_regex_exec() needs for RE (pass 3 computes the same). */
static __maybe_unused int stp_regex_scratch_words(const struct stp_regex *re)
{
	int ncap = 2 * (re->ngroups - 1);

	if (re->ngroups <= 1)
		return 0;
	return 2 * re->nthreads * (1 + ncap) + re->ninsts + 2 * (2 * re->ninsts + 2) + ncap;
}

/* The Pike VM's state: thread lists of an instruction and NCAP positions each. */
struct stp_regex_vm {
	const struct stp_regex *re;
	const char *s;
	int n;			/* the string's length */
	int ncap;		/* positions of groups 1.. (group 0 is known) */
	int *mark;		/* per instruction: the position it was last added at */
	int *stack;		/* pairs: an instruction (>= 0), or a position to restore */
	int *caps;		/* the positions of the thread being added */
};

/* Adds the thread at PC with positions FROM, and what it reaches without reading a byte
 * at position P, to LIST (COUNT threads), in order of preference. */
static void stp_regex_add(struct stp_regex_vm *vm, int *list, int *count, int pc,
			  const int *from, int p)
{
	const struct stp_regex_inst *prog = vm->re->prog;
	int sp = 0, width = 1 + vm->ncap;

	memcpy(vm->caps, from, vm->ncap * sizeof(int));
	vm->stack[sp++] = pc;
	vm->stack[sp++] = 0;
	while (sp > 0) {
		int value;

		sp -= 2;
		pc = vm->stack[sp];
		value = vm->stack[sp + 1];
		if (pc < 0) {		/* back from a SAVE: position -pc - 1 was VALUE */
			vm->caps[-pc - 1] = value;
			continue;
		}
		if (vm->mark[pc] == p)
			continue;
		vm->mark[pc] = p;
		switch (prog[pc].op) {
		case STP_REGEX_JMP:
			vm->stack[sp++] = prog[pc].x;
			vm->stack[sp++] = 0;
			break;
		case STP_REGEX_SPLIT:
			vm->stack[sp++] = prog[pc].y;
			vm->stack[sp++] = 0;
			vm->stack[sp++] = prog[pc].x;
			vm->stack[sp++] = 0;
			break;
		case STP_REGEX_SAVE: {
			int slot = prog[pc].x - 2;

			vm->stack[sp++] = -slot - 1;
			vm->stack[sp++] = vm->caps[slot];
			vm->caps[slot] = p;
			vm->stack[sp++] = pc + 1;
			vm->stack[sp++] = 0;
			break;
		}
		case STP_REGEX_BOL:
		case STP_REGEX_EOL:
			if (p == (prog[pc].op == STP_REGEX_BOL ? 0 : vm->n)) {
				vm->stack[sp++] = pc + 1;
				vm->stack[sp++] = 0;
			}
			break;
		default:		/* SET, MATCH: a thread */
			list[*count * width] = pc;
			memcpy(&list[*count * width + 1], vm->caps, vm->ncap * sizeof(int));
			(*count)++;
			break;
		}
	}
}

/* Groups 1.. of the match S[START, END) into POS[2..]: the most preferred way of matching
 * exactly that span. */
static void stp_regex_groups(const struct stp_regex *re, const char *s, int n, int start,
			     int end, int *pos, int *scratch)
{
	struct stp_regex_vm vm = { .re = re, .s = s, .n = n, .ncap = 2 * (re->ngroups - 1) };
	int width = 1 + vm.ncap, counts[2] = { 0, 0 }, cur = 0;
	int *lists[2];

	lists[0] = scratch;
	lists[1] = lists[0] + re->nthreads * width;
	vm.mark = lists[1] + re->nthreads * width;
	vm.stack = vm.mark + re->ninsts;
	vm.caps = vm.stack + 2 * (2 * re->ninsts + 2);
	for (int k = 0; k < re->ninsts; k++)
		vm.mark[k] = -1;
	for (int k = 0; k < vm.ncap; k++)
		pos[2 + k] = -1;
	stp_regex_add(&vm, lists[0], &counts[0], 0, pos + 2, start);
	for (int p = start; p < end; p++) {
		unsigned char c = (unsigned char)s[p];
		int *list = lists[cur], *next = lists[!cur];

		counts[!cur] = 0;
		for (int t = 0; t < counts[cur]; t++) {
			const struct stp_regex_inst *in = &re->prog[list[t * width]];

			if (in->op == STP_REGEX_SET && (re->sets[in->x][c >> 5] >> (c & 31) & 1))
				stp_regex_add(&vm, next, &counts[!cur], list[t * width] + 1,
					      &list[t * width + 1], p + 1);
		}
		cur = !cur;
	}
	for (int t = 0; t < counts[cur]; t++) {
		if (re->prog[lists[cur][t * width]].op == STP_REGEX_MATCH) {
			memcpy(pos + 2, &lists[cur][t * width + 1], vm.ncap * sizeof(int));
			return;
		}
	}
}

/*
 * Whether RE matches somewhere in S (N bytes); then POS[2 * k] and POS[2 * k + 1] are
 * where group k starts and ends (-1 when it took no part), group 0 being the match.
 * SCRATCH has stp_regex_scratch_words(RE) ints.
 */
static __maybe_unused bool stp_regex_exec(const struct stp_regex *re, const char *s,
					  int n, int *pos, int *scratch)
{
	const struct stp_regex_dfa *d = &re->rev;
	int nc = re->nclasses, start = -1, end = -1;
	unsigned int st = d->next ? d->start[1] : 0;

	/* leftmost start: the reversed expression, from the end */
	if (!d->next) {
		start = 0;
	} else {
		if (d->accept[st] & (n == 0 ? STP_REGEX_ACCEPT_AT_END : STP_REGEX_ACCEPT))
			start = n;
		for (int p = n; p > 0 && st; p--) {
			st = d->next[st * nc + re->classes[(unsigned char)s[p - 1]]];
			if (d->accept[st] & (p == 1 ? STP_REGEX_ACCEPT_AT_END : STP_REGEX_ACCEPT))
				start = p - 1;
		}
		if (start < 0)
			return false;
	}
	/* longest end: the expression, from there */
	d = &re->fwd;
	st = d->start[start == 0];
	if (d->accept[st] & (start == n ? STP_REGEX_ACCEPT_AT_END : STP_REGEX_ACCEPT))
		end = start;
	for (int p = start; p < n && st; p++) {
		st = d->next[st * nc + re->classes[(unsigned char)s[p]]];
		if (d->accept[st] & (p + 1 == n ? STP_REGEX_ACCEPT_AT_END : STP_REGEX_ACCEPT))
			end = p + 1;
	}
	if (end < 0)		/* only when anchored: the two automata agree */
		return false;
	pos[0] = start;
	pos[1] = end;
	if (re->ngroups > 1)
		stp_regex_groups(re, s, n, start, end, pos, scratch);
	return true;
}

/* STR =~ RE, remembered in M for matched() (M->pos must hold RE's groups). */
static __maybe_unused bool stp_regex_match(struct stp_regex_match *m,
					   const struct stp_regex *re, const char *str,
					   int *scratch)
{
	int n = strnlen(str, MAXSTRINGLEN - 1);

	m->ngroups = re->ngroups;
	m->ok = stp_regex_exec(re, str, n, m->pos, scratch);
	if (m->ok) {
		memmove(m->subject, str, n);
		m->subject[n] = '\0';
	}
	return m->ok;
}

/* Group N (0 <= N < M->ngroups) of M's successful match into DST (MAXSTRINGLEN bytes):
 * "" when it took no part. */
static __maybe_unused char *stp_regex_group(const struct stp_regex_match *m, int n,
					    char *dst)
{
	int start = m->pos[2 * n], end = m->pos[2 * n + 1];

	if (start < 0 || end < start) {
		dst[0] = '\0';
		return dst;
	}
	memmove(dst, m->subject + start, end - start);
	dst[end - start] = '\0';
	return dst;
}

#endif
