/*
 * probe_family.c - the table of probe families pass 2 binds probe points to.
 *
 * A family is one file (its builder and emitter) plus its glue in runtime/.  To add one,
 * write family_NAME.c and list it here; nothing else in pass 2 or 3 needs to change.
 */
#include "stap.h"

#include <string.h>

/* In the order pass 3 registers them (and the reverse of unregistering). */
const struct probe_family *const probe_families[] = {
	&begin_end_family,
	NULL,
};

const char *probe_point_first_name(struct probe_point *pp)
{
	return pp->components->name;
}

const struct probe_family *find_probe_family(struct probe_point *pp)
{
	const char *name = probe_point_first_name(pp);

	for (int i = 0; probe_families[i]; i++)
		for (const char *const *n = probe_families[i]->point_names; *n; n++)
			if (strcmp(*n, name) == 0)
				return probe_families[i];
	return NULL;
}

/* " (similar: ...)" for a probe point no family answers to. */
char *similar_probe_points(const char *name)
{
	struct strlist names = { 0 };
	char *similar;

	for (int i = 0; probe_families[i]; i++)
		for (const char *const *n = probe_families[i]->point_names; *n; n++)
			strlist_add(&names, *n);
	similar = similar_names(name, (const char *const *)names.items, names.count);
	strlist_free(&names);
	return similar;
}
