/*
 * callers.c - whether a .callees(N) probe was reached through the calls pass 2 found
 * between it and the function the script named (stapprobes(3stap): "A callee probe at
 * depth N is only triggered when the N callers in the callstack match those that were
 * statically determined").
 *
 * No unwinder runs: pass 2 read, from the call frame information, how the frame at the
 * probe's address finds its caller (its frame address, the CFA, is the stack or frame
 * pointer plus a constant; the return address sits just below the CFA; the caller's
 * frame pointer is kept, saved at CFA + N, or lost), and the same for the frame each
 * expected return address returns into.  So the check follows one frame per level: the
 * return address it finds must be one of that level's, whose rule then finds the next.
 * Addresses are kept as distances from the probe's address (the kernel's and a
 * program's code move as one).  -DSTAP_CALLEE_MATCHALL runs the probe always, as stap.
 */

enum { STP_BP_SAME, STP_BP_SAVED, STP_BP_LOST };

struct stp_frame_rule {
	int cfa_regno;		/* DWARF register: 7 the stack pointer, 6 the frame pointer */
	long cfa_offset;
	int bp;			/* STP_BP_*: where the frame keeps its caller's frame pointer */
	long bp_offset;		/* STP_BP_SAVED: at CFA + this */
};

struct stp_call_return {
	long offset;			/* the return address, from the probe's address */
	struct stp_frame_rule rule;	/* the frame it returns into finds its caller so */
};

struct stp_call_level {
	const struct stp_call_return *returns;
	int nreturns;
};

struct stp_call_chain {
	struct stp_frame_rule rule;	/* at the probe's address */
	const struct stp_call_level *levels;	/* innermost first */
	int nlevels;
};

/* Whether the stack at a hit of a probe put at AT (SP, BP its registers there; USER: a
 * program's stack) holds the chain's calls. */
static bool stp_call_chain_matches(const struct stp_call_chain *c, unsigned long at,
				   unsigned long sp, unsigned long bp, bool user)
{
#ifndef STAP_CALLEE_MATCHALL
	const struct stp_frame_rule *rule = &c->rule;
	bool bp_known = true;

	for (int l = 0; l < c->nlevels; l++) {
		const struct stp_call_level *level = &c->levels[l];
		const struct stp_call_return *found = NULL;
		unsigned long cfa, ret;

		if (rule->cfa_regno == 6 && !bp_known)
			return false;
		cfa = (rule->cfa_regno == 7 ? sp : bp) + rule->cfa_offset;
		if (stp_copy_nofault(&ret, cfa - sizeof(ret), sizeof(ret), user))
			return false;
		for (int i = 0; i < level->nreturns && !found; i++)
			if (ret == at + level->returns[i].offset)
				found = &level->returns[i];
		if (!found)
			return false;
		if (rule->bp == STP_BP_LOST)
			bp_known = false;
		else if (rule->bp == STP_BP_SAVED &&
			 stp_copy_nofault(&bp, cfa + rule->bp_offset, sizeof(bp), user))
			bp_known = false;
		sp = cfa;
		rule = &found->rule;
	}
#endif
	return true;
}
