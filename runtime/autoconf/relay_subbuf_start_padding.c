/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The relay subbuf_start callback with its prev_padding argument. */
#include <linux/relay.h>

_Static_assert(__builtin_types_compatible_p(typeof(((struct rchan_callbacks *)0)->subbuf_start),
	int (*)(struct rchan_buf *, void *, void *, size_t)),
	"subbuf_start has another form");
