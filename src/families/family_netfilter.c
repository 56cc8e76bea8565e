/*
 * family_netfilter.c - netfilter hooks: a handler for each packet at a point of a
 * protocol family's stack (stapprobes(3stap), NETFILTER HOOKS).
 *
 *   netfilter.hook("HOOK").pf("PF")                 PF: NFPROTO_IPV4, NFPROTO_IPV6,
 *   netfilter.pf("PF").hook("HOOK")                     NFPROTO_ARP, NFPROTO_BRIDGE
 *   ... .priority("PRIORITY")                       a number, or NF_IP_PRI_* / NF_IP6_PRI_*
 *
 * HOOK is one of the kernel's hook names for that family (NF_INET_LOCAL_IN, NF_IP6_*,
 * NF_ARP_IN, NF_BR_*); the default priority is 0.  In guru mode any identifier or number
 * is taken as it is, as the C code's constant.  The handler's context variables are
 * $hooknum, $skb, $in, $out, $okfn and, writable in guru mode, $verdict (NF_ACCEPT
 * unless the handler sets it).
 */
#include "debuginfo/ctype.h"
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const netfilter_templates[] = {
	"netfilter.hook(string).pf(string)",
	"netfilter.pf(string).hook(string)",
	"netfilter.hook(string).pf(string).priority(string)",
	"netfilter.pf(string).hook(string).priority(string)",
	NULL,
};

struct name_value {
	const char *name;
	const char *value;	/* the C constant */
};

/* The protocol families, the kernel's NFPROTO_* numbers. */
static const struct name_value families[] = {
	{ "NFPROTO_IPV4", "2" }, { "NFPROTO_IPV6", "10" }, { "NFPROTO_ARP", "3" },
	{ "NFPROTO_BRIDGE", "7" }, { NULL, NULL },
};

/* The hooks (their numbers in the kernel's uapi headers): IPv4 and IPv6 share the
 * NF_INET_* names, and each also has its older names. */
static const struct name_value inet_hooks[] = {
	{ "NF_INET_PRE_ROUTING", "0" }, { "NF_INET_LOCAL_IN", "1" }, { "NF_INET_FORWARD", "2" },
	{ "NF_INET_LOCAL_OUT", "3" }, { "NF_INET_POST_ROUTING", "4" }, { NULL, NULL },
};
static const struct name_value ipv4_hooks[] = {
	{ "NF_IP_PRE_ROUTING", "0" }, { "NF_IP_LOCAL_IN", "1" }, { "NF_IP_FORWARD", "2" },
	{ "NF_IP_LOCAL_OUT", "3" }, { "NF_IP_POST_ROUTING", "4" }, { NULL, NULL },
};
static const struct name_value ipv6_hooks[] = {
	{ "NF_IP6_PRE_ROUTING", "0" }, { "NF_IP6_LOCAL_IN", "1" }, { "NF_IP6_FORWARD", "2" },
	{ "NF_IP6_LOCAL_OUT", "3" }, { "NF_IP6_POST_ROUTING", "4" }, { NULL, NULL },
};
static const struct name_value arp_hooks[] = {
	{ "NF_ARP_IN", "0" }, { "NF_ARP_OUT", "1" }, { "NF_ARP_FORWARD", "2" }, { NULL, NULL },
};
static const struct name_value bridge_hooks[] = {
	{ "NF_BR_PRE_ROUTING", "0" }, { "NF_BR_LOCAL_IN", "1" }, { "NF_BR_FORWARD", "2" },
	{ "NF_BR_LOCAL_OUT", "3" }, { "NF_BR_POST_ROUTING", "4" }, { "NF_BR_BROUTING", "5" },
	{ NULL, NULL },
};

/* The named priorities of netfilter_ipv4.h (NF_IP_PRI_*) and netfilter_ipv6.h
 * (NF_IP6_PRI_*): the same names and values, but for IPv4's CONNTRACK_CONFIRM. */
static const struct name_value inet_priorities[] = {
	{ "FIRST", "INT_MIN" }, { "RAW_BEFORE_DEFRAG", "-450" }, { "CONNTRACK_DEFRAG", "-400" },
	{ "RAW", "-300" }, { "SELINUX_FIRST", "-225" }, { "CONNTRACK", "-200" },
	{ "MANGLE", "-150" }, { "NAT_DST", "-100" }, { "FILTER", "0" }, { "SECURITY", "50" },
	{ "NAT_SRC", "100" }, { "SELINUX_LAST", "225" }, { "CONNTRACK_HELPER", "300" },
	{ "CONNTRACK_CONFIRM", "INT_MAX" }, { "LAST", "INT_MAX" }, { NULL, NULL },
};

/* What pass 3 needs of a netfilter probe: C constants. */
struct netfilter_probe {
	const char *pf, *hook, *priority;
};

static const char *lookup(const struct name_value *table, const char *name)
{
	for (; table && table->name; table++)
		if (strcmp(table->name, name) == 0)
			return table->value;
	return NULL;
}

/* The value of priority NAME of IPv4 (PF "2") or IPv6, or NULL. */
static const char *inet_priority(const char *pf, const char *name)
{
	bool ipv4 = strcmp(pf, "2") == 0;
	const char *prefix = ipv4 ? "NF_IP_PRI_" : "NF_IP6_PRI_";

	if (!starts_with(name, prefix))
		return NULL;
	name += strlen(prefix);
	if (!ipv4 && strcmp(name, "CONNTRACK_CONFIRM") == 0)
		return NULL;
	return lookup(inet_priorities, name);
}

/* A decimal integer that fits an int. */
static bool is_int(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && !isspace((unsigned char)*s) && v >= -2147483647L - 1 &&
	       v <= 2147483647L;
}

/* What guru mode takes as it is: a C identifier or an integer. */
static bool is_c_token(const char *s)
{
	if (is_int(s))
		return true;
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/*
 * The C constant of the hook or priority (WHAT) named TEXT for protocol family PF: its
 * VALUE where the name is known, else in guru mode TEXT itself when it is a C token;
 * else NULL after saying it is unsupported.
 */
static const char *c_constant(struct elaborator *el, const char *what, const char *text,
			      const char *pf, const char *value)
{
	if (!value && el->session->guru && is_c_token(text))
		value = text;
	if (!value)
		semantic_error(el, NULL, "unsupported netfilter %s \"%s\" for protocol family "
			       "\"%s\"; need stap -g", what, text, pf);
	return value;
}

static bool netfilter_build(struct elaborator *el, struct probe_point *pp,
			    struct derived_probe *proto)
{
	struct netfilter_probe *p = xcalloc(1, sizeof(*p));
	const char *pf = NULL, *hook = NULL, *priority = "0";
	const struct name_value *hooks = NULL, *shared_hooks = NULL;
	bool guru = el->session->guru, inet = false, present;

	for (struct component *c = pp->components->next; c; c = c->next) {
		const char *s = component_string(c, &present);

		if (strcmp(c->name, "pf") == 0)
			pf = s;
		else if (strcmp(c->name, "hook") == 0)
			hook = s;
		else if (strcmp(c->name, "priority") == 0)
			priority = s;
	}
	p->pf = lookup(families, pf);
	if (p->pf && strcmp(p->pf, "2") == 0)
		hooks = ipv4_hooks, shared_hooks = inet_hooks, inet = true;
	else if (p->pf && strcmp(p->pf, "10") == 0)
		hooks = ipv6_hooks, shared_hooks = inet_hooks, inet = true;
	else if (p->pf && strcmp(p->pf, "3") == 0)
		hooks = arp_hooks;
	else if (p->pf)
		hooks = bridge_hooks;
	else if (guru && is_c_token(pf))
		p->pf = pf;
	else {
		semantic_error(el, NULL, "unsupported netfilter protocol family \"%s\"; need stap -g",
			       pf);
		return false;
	}
	p->hook = lookup(shared_hooks, hook);	/* NF_INET_*, else the family's own names */
	if (!p->hook)
		p->hook = lookup(hooks, hook);
	p->hook = c_constant(el, "hook", hook, p->pf, p->hook);
	if (!p->hook)
		return false;
	p->priority = c_constant(el, "priority", priority, p->pf, is_int(priority) ? priority :
				 inet ? inet_priority(p->pf, priority) : NULL);
	if (!p->priority)
		return false;
	add_derived_probe(el, proto, probe_point_text(pp, false), p);
	return true;
}

/* ---- context variables ---- */

struct context_variable {
	const char *name;
	const char *start;	/* C (u64): the value, or (in_memory) its address */
	const char *type;	/* the kernel's struct it points to, or NULL */
	bool in_memory;		/* $verdict: an int the handler may write (guru mode) */
};

static const struct context_variable variables[] = {
	{ "hooknum", "stp_netfilter_hooknum(c)", NULL, false },
	{ "skb", "stp_netfilter_skb(c)", "sk_buff", false },
	{ "in", "stp_netfilter_in(c)", "net_device", false },
	{ "out", "stp_netfilter_out(c)", "net_device", false },
	{ "okfn", "stp_netfilter_okfn(c)", NULL, false },
	{ "verdict", "stp_netfilter_verdict_address(c)", NULL, true },
	{ NULL, NULL, NULL, false },
};

static enum target_resolution netfilter_resolve_target(struct elaborator *el,
						       struct derived_probe *dp, struct node *n,
						       bool quiet)
{
	const char *name = n->string + 1;	/* past the '$' */
	const struct context_variable *v;
	struct target_access *a;
	struct ctype *type = NULL;

	(void)dp;
	for (v = variables; v->name && strcmp(v->name, name) != 0; v++)
		;
	if (!v->name) {
		if (!quiet)
			semantic_error(el, n->tok, "unable to find netfilter variable '$%s' "
				       "(alternatives: $hooknum, $skb, $in, $out, $okfn, $verdict)",
				       name);
		return TARGET_UNRESOLVED;
	}
	a = xcalloc(1, sizeof(*a));
	a->start = xstrdup(v->start);
	a->regno = -1;
	if (v->in_memory) {
		a->result = TRESULT_LONG;
		a->size = 4;
		a->is_signed = true;
	} else {
		a->start_is_value = true;
		/* a pointer keeps its type where the kernel's debuginfo has it: $skb->len */
		if (v->type && (type = kernel_type_named(el, v->type)))
			type = ctype_pointer_to(type);
	}
	if (type) {
		if (!target_components(el, n, a, type, quiet))
			return TARGET_UNRESOLVED;
	} else if (n->components || n->pretty || n->addressof) {
		if (!quiet)
			semantic_error(el, n->tok, "invalid use of $%s: it is a number here", name);
		return TARGET_UNRESOLVED;
	} else if (!v->in_memory) {
		a->result = TRESULT_LONG;	/* the whole u64 */
		a->size = 8;
	}
	return target_resolved(n, a) ? TARGET_RESOLVED : TARGET_UNRESOLVED;
}

/* ---- pass 3 ---- */

static void netfilter_entry(struct emitter *e, struct derived_probe *dp)
{
	struct netfilter_probe *p = dp->data;

	emit(e, "\t{ .probe = &stp_probes[%d], .pf = %s, .hooknum = %s, .priority = %s },\n",
	     dp->index, p->pf, p->hook, p->priority);
}

/* The table runtime/netfilter.c registers, one hook per probe. */
static const struct probe_table netfilter_table = {
	"struct stp_netfilter_probe", "stp_netfilter_probes",
	"stp_netfilter_register", "stp_netfilter_unregister", netfilter_entry,
};

const struct probe_family netfilter_family = {
	.name = "netfilter",
	.templates = netfilter_templates,
	.build = netfilter_build,
	.resolve_target = netfilter_resolve_target,
	.target_write_refusal = "write to netfilter verdict requires guru mode; need stap -g",
	.table = &netfilter_table,
};
