/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netfilter.c - netfilter.hook("...").pf("...") probes: a netfilter hook function per
 * probe, registered in the initial network namespace (the one the machine's own
 * interfaces live in; a container's namespace is not watched).
 *
 * The hook runs the handler with the packet (the context's probe_data is the hit's
 * struct stp_netfilter_hit) and returns its verdict: NF_ACCEPT unless the handler, in
 * guru mode, set $verdict.  Only NF_DROP, NF_ACCEPT and NF_QUEUE are passed on; any other
 * value (NF_STOLEN would leak the packet, NF_REPEAT could loop forever) is taken as
 * NF_ACCEPT.  Unregistering waits for the hooks in flight (nf_unregister_net_hook()
 * synchronizes), so none runs into this module once it is gone.
 */
#include <linux/netfilter.h>
#include <net/net_namespace.h>

/* One probe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_netfilter_probe {
	const struct stp_probe *probe;
	int pf;
	int hooknum;
	int priority;
	/* run-time state */
	struct nf_hook_ops ops;
	bool registered;
};

/* What a hit's handler reads through the context variables. */
struct stp_netfilter_hit {
	struct sk_buff *skb;
	const struct nf_hook_state *state;
	int verdict;
};

static unsigned int stp_netfilter_hook(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	struct stp_netfilter_probe *p = priv;
	struct stp_netfilter_hit h = { .skb = skb, .state = state, .verdict = NF_ACCEPT };
	struct stp_hit hit = { .data = &h };

	stp_probe_run_hit(p->probe, STP_SESSION_RUNNING, &hit);
	switch (h.verdict) {
	case NF_DROP:
	case NF_ACCEPT:
	case NF_QUEUE:
		return h.verdict;
	default:
		return NF_ACCEPT;
	}
}

static __maybe_unused struct stp_netfilter_hit *stp_netfilter_hit(struct context *c)
{
	return c->probe_data;
}

static __maybe_unused u64 stp_netfilter_hooknum(struct context *c)
{
	return stp_netfilter_hit(c) ? stp_netfilter_hit(c)->state->hook : 0;
}

static __maybe_unused u64 stp_netfilter_skb(struct context *c)
{
	return stp_netfilter_hit(c) ? (u64)(uintptr_t)stp_netfilter_hit(c)->skb : 0;
}

static __maybe_unused u64 stp_netfilter_in(struct context *c)
{
	return stp_netfilter_hit(c) ? (u64)(uintptr_t)stp_netfilter_hit(c)->state->in : 0;
}

static __maybe_unused u64 stp_netfilter_out(struct context *c)
{
	return stp_netfilter_hit(c) ? (u64)(uintptr_t)stp_netfilter_hit(c)->state->out : 0;
}

static __maybe_unused u64 stp_netfilter_okfn(struct context *c)
{
	return stp_netfilter_hit(c) ? (u64)(uintptr_t)stp_netfilter_hit(c)->state->okfn : 0;
}

/* $verdict is read and written in place: the hit's int on the hook's stack. */
static __maybe_unused u64 stp_netfilter_verdict_address(struct context *c)
{
	return stp_netfilter_hit(c) ? (u64)(uintptr_t)&stp_netfilter_hit(c)->verdict : 0;
}

static __maybe_unused void stp_netfilter_unregister(struct stp_netfilter_probe *probes,
						    size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (!probes[i].registered)
			continue;
		nf_unregister_net_hook(&init_net, &probes[i].ops);
		probes[i].registered = false;
	}
}

/* Registers every hook; a hook the kernel refuses (a family it was built without) is a
 * warning, and only when none registers does the session fail. */
static __maybe_unused int stp_netfilter_register(struct stp_netfilter_probe *probes,
						 size_t count)
{
	size_t i, registered = 0;
	int rc = 0;

	for (i = 0; i < count; i++) {
		struct stp_netfilter_probe *p = &probes[i];

		p->ops = (struct nf_hook_ops){
			.hook = stp_netfilter_hook,
			.priv = p,
			.pf = p->pf,
			.hooknum = p->hooknum,
			.priority = p->priority,
		};
		rc = nf_register_net_hook(&init_net, &p->ops);
		if (rc) {
			_stp_warn("probe %s registration error (rc %d)", p->probe->point, rc);
			continue;
		}
		p->registered = true;
		registered++;
	}
	return stp_registered_any(count, registered, rc, "netfilter hook");
}
