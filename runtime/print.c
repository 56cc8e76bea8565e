/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.c - the print buffer of the running handler.
 *
 * Output collects in the CPU's context while a handler runs and goes to that CPU's relay
 * buffer when the handler ends (or when the print buffer fills), so one hit's lines stay
 * together.  These functions must only be called from a handler (preemption off).
 */

static void _stp_print_flush(void)
{
	struct context *c = stp_current_context();

	if (!c || !c->print_len)
		return;
	stp_relay_write(c->print_buf, c->print_len);
	c->print_len = 0;
}

static void stp_print_bytes(const char *s, size_t len)
{
	struct context *c = stp_current_context();

	if (unlikely(!c))
		return;
	while (len > 0) {
		size_t room = sizeof(c->print_buf) - c->print_len;
		size_t n = min(len, room);

		memcpy(c->print_buf + c->print_len, s, n);
		c->print_len += n;
		s += n;
		len -= n;
		if (c->print_len == sizeof(c->print_buf))
			_stp_print_flush();
	}
}

static void _stp_print(const char *s)
{
	stp_print_bytes(s, strlen(s));
}

static void _stp_print_char(char ch)
{
	stp_print_bytes(&ch, 1);
}

static void _stp_print_long(s64 v)
{
	char buf[24];
	int n = scnprintf(buf, sizeof(buf), "%lld", (long long)v);

	stp_print_bytes(buf, n);
}

static void _stp_printf(const char *fmt, ...)
{
	char buf[MAXSTRINGLEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	stp_print_bytes(buf, n);
}
