/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.c - stap's printf language, for printf(), sprintf() and the runtime.
 *
 * One engine writes into a sink: either the caller's buffer, truncated at its size
 * (stp_format), or a small staging buffer emptied into the handler's print buffer each time
 * it fills (stp_printf_args), so a printf line is not limited to MAXSTRINGLEN.  Numbers are
 * formatted here, not by the kernel's vsnprintf, so that the unit tests in user space see
 * exactly what a module prints.
 *
 * Conversions: %d %i (signed), %u %o %x %X (the 64-bit unsigned value), %p ("0x" and 16
 * zero-padded hex digits by default), %c (one byte; %#c escapes it like a C character
 * literal), %s (precision truncates), %b (the raw value in native byte order, 1, 2, 4 or 8
 * bytes by the width; any other width writes 8), %m / %M (PRECISION bytes, default 1, read
 * from kernel memory, or user memory with '#', written raw / as lowercase hex), %%.
 * A conversion has at most one flag of "-+ #0" (pass 1 refuses more, as stap's does), then
 * the width's digits: in %+05d the 0 is the width's, not a flag ("   +1", as stap prints
 * it).  Numbers are formatted as stap 4.8's runtime formats them, which is not quite C:
 * a value always has a digit (%.0d of 0 is "0"), the '0' flag pads to the width even
 * with a precision (%05.2d of 1 is "00001"), and '#' puts its 0 before an octal
 * number's precision zeros (%#.3o of 1 is "0001", %#o of 0 "00").  A negative '*'
 * width counts as none and a negative '*' precision as 0 (a string prints nothing).
 * Length modifiers are skipped (every value is 64-bit).  Unknown conversions are
 * written as they stand, and a lone '%' at the end is written as '%'.  One printf
 * writes at most STP_PRINT_BUF_SIZE bytes (8192), the rest of its output is dropped, as
 * stap's printf does; a width or precision larger than the room left (in those bytes,
 * or in sprintf's MAXSTRINGLEN with its NUL) is the room: "%s%600d" of "abc" and
 * 1234567 ends in "123456" at 511 bytes.
 *
 * Bounds, since probe context must not loop without limit: widths, precisions and %m byte
 * counts are clamped to STP_FORMAT_MAX_FIELD.  A %m/%M whose memory cannot be read raises
 * the soft error of a target read, "read fault [man error::fault] at 0x10" as stap words it
 * ("user read fault ..." with '#'), in the running handler; if
 * its first bytes are unreadable the conversion writes nothing, otherwise its output stops
 * where the reading failed.  The rest of the format is still written by sprintf (whose
 * result the error makes moot); printf, as stap's, prints nothing of itself (unless more
 * than STP_FMT_PRINT_STAGE bytes came before the fault: those went out already).
 */

#ifndef STP_FORMAT_MAX_FIELD
#define STP_FORMAT_MAX_FIELD 16384
#endif

#ifndef STP_PRINT_BUF_SIZE
#define STP_PRINT_BUF_SIZE 8192	/* runtime.h's; the unit tests have no print buffer */
#endif

#define STP_FMT_LEFT	0x01	/* '-' */
#define STP_FMT_PLUS	0x02	/* '+' */
#define STP_FMT_SPACE	0x04	/* ' ' */
#define STP_FMT_ALT	0x08	/* '#' */
#define STP_FMT_ZERO	0x10	/* '0' */

#define STP_FMT_MEM_CHUNK 32	/* bytes of %m/%M read at a time */
#define STP_FMT_PRINT_STAGE 128	/* bytes collected before going to the print buffer */

struct stp_fmt_sink {
	char *buf;
	size_t size;		/* bytes buf can take (a NUL is not counted) */
	size_t len;
	bool to_print;		/* full: empty buf into the print buffer; else truncate */
	size_t print_left;	/* to_print: bytes the printf may still write */
	bool faulted;		/* a %m read failed: a printf prints no more of itself */
};

struct stp_fmt_spec {
	unsigned int flags;
	int width;		/* -1: none */
	int prec;		/* -1: none */
};

static inline bool stp_fmt_full(const struct stp_fmt_sink *k)
{
	return k->to_print ? k->print_left == 0 : k->len >= k->size;
}

static void stp_fmt_put(struct stp_fmt_sink *k, const char *s, size_t n)
{
	if (k->to_print) {
		if (k->faulted)
			return;
		if (n > k->print_left)
			n = k->print_left;
		k->print_left -= n;
	}
	while (n > 0) {
		size_t room = k->size - k->len;

		if (room == 0) {
			if (!k->to_print)
				return;
			stp_print_bytes(k->buf, k->len);
			k->len = 0;
			room = k->size;
		}
		if (room > n)
			room = n;
		memcpy(k->buf + k->len, s, room);
		k->len += room;
		s += room;
		n -= room;
	}
}

static void stp_fmt_fill(struct stp_fmt_sink *k, char ch, size_t n)
{
	char pad[16];

	memset(pad, ch, sizeof(pad));
	while (n > 0 && !stp_fmt_full(k)) {
		size_t c = n < sizeof(pad) ? n : sizeof(pad);

		stp_fmt_put(k, pad, c);
		n -= c;
	}
}

/* Spaces before a field of LEN bytes (right-justified) or after it (left-justified). */
static void stp_fmt_pad(struct stp_fmt_sink *k, const struct stp_fmt_spec *sp, size_t len,
			bool after)
{
	if (sp->width > 0 && (size_t)sp->width > len &&
	    after == !!(sp->flags & STP_FMT_LEFT))
		stp_fmt_fill(k, ' ', sp->width - len);
}

static void stp_fmt_field(struct stp_fmt_sink *k, const struct stp_fmt_spec *sp,
			  const char *s, size_t len)
{
	stp_fmt_pad(k, sp, len, false);
	stp_fmt_put(k, s, len);
	stp_fmt_pad(k, sp, len, true);
}

/*
 * An integer: [spaces][sign][0x or 0][zeros to the width][precision's zeros]digits
 * [spaces].  NEG says the value is the magnitude of a negative number; POINTER forces
 * the "0x".
 */
static void stp_fmt_number(struct stp_fmt_sink *k, struct stp_fmt_spec sp, u64 v, bool neg,
			   bool is_signed, unsigned int base, bool upper, bool pointer)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];		/* 22 octal digits hold 64 bits */
	int n = 0, zeros, total;
	char sign = 0;
	const char *prefix = "";
	u64 x = v;

	do {
		tmp[sizeof(tmp) - 1 - n++] = digits[x % base];
		x /= base;
	} while (x && n < (int)sizeof(tmp));
	if (is_signed) {
		if (neg)
			sign = '-';
		else if (sp.flags & STP_FMT_PLUS)
			sign = '+';
		else if (sp.flags & STP_FMT_SPACE)
			sign = ' ';
	}
	if (pointer || ((sp.flags & STP_FMT_ALT) && base == 16))	/* 0x0 too, as stap */
		prefix = upper ? "0X" : "0x";
	else if ((sp.flags & STP_FMT_ALT) && base == 8)
		prefix = "0";
	zeros = sp.prec > n ? sp.prec - n : 0;
	total = !!sign + (int)strlen(prefix) + zeros + n;
	if ((sp.flags & STP_FMT_ZERO) && !(sp.flags & STP_FMT_LEFT) && sp.width > total) {
		zeros += sp.width - total;
		total = sp.width;
	}
	stp_fmt_pad(k, &sp, total, false);
	if (sign)
		stp_fmt_put(k, &sign, 1);
	stp_fmt_put(k, prefix, strlen(prefix));
	stp_fmt_fill(k, '0', zeros);
	stp_fmt_put(k, tmp + sizeof(tmp) - n, n);
	stp_fmt_pad(k, &sp, total, true);
}

#ifdef STP_FMT_POINTER_PADDED
/*
 * %p as SystemTap before 1.3 printed it (--compatible=1.2 and older): "0x" and the digits
 * zero-padded to fill the width, 18 characters without one ("0x0000000000000001"); a
 * right-justified field wider than 18 gets spaces before those 18; the precision and the
 * other flags change nothing.  What stap 4.8 prints with --compatible=1.2.
 */
static void stp_fmt_pointer_padded(struct stp_fmt_sink *k, struct stp_fmt_spec sp, u64 v)
{
	int width = sp.width >= 0 ? sp.width : 18;
	struct stp_fmt_spec digits = { .flags = STP_FMT_ZERO, .width = 0, .prec = -1 };

	if (!(sp.flags & STP_FMT_LEFT) && width > 18) {
		stp_fmt_fill(k, ' ', width - 18);
		width = 18;
	}
	stp_fmt_put(k, "0x", 2);
	digits.width = width > 2 ? width - 2 : 0;
	stp_fmt_number(k, digits, v, false, false, 16, false, false);
}
#endif

/* %c; with '#', a non-printing byte as a C escape ("\t") or three octal digits ("\000"). */
static void stp_fmt_char(struct stp_fmt_sink *k, const struct stp_fmt_spec *sp, s64 v)
{
	static const char esc_from[] = "\a\b\f\n\r\t\v\\'";	/* not " (as stap) */
	static const char esc_to[] = "abfnrtv\\'";
	unsigned char ch = (unsigned char)v;
	char out[4];
	size_t len = 0;
	const char *e;

	if (!(sp->flags & STP_FMT_ALT) || (ch >= ' ' && ch <= '~' && ch != '\\' &&
					    ch != '\'')) {
		out[len++] = ch;
	} else if (ch && (e = memchr(esc_from, ch, sizeof(esc_from) - 1))) {
		out[len++] = '\\';
		out[len++] = esc_to[e - esc_from];
	} else {
		out[len++] = '\\';
		out[len++] = '0' + (ch >> 6);
		out[len++] = '0' + ((ch >> 3) & 7);
		out[len++] = '0' + (ch & 7);
	}
	stp_fmt_field(k, sp, out, len);
}

static bool stp_fmt_binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* %b: the value's low bytes as they lie in memory, as stap writes them: the precision
 * says how many (1, 2, 4 or 8), else a width of 1, 2, 4 or 8 does, else 8; a wider field
 * is padded with NUL bytes, on the left unless '-'. */
static void stp_fmt_binary(struct stp_fmt_sink *k, const struct stp_fmt_spec *sp, s64 v)
{
	union { u8 b1; u16 b2; u32 b4; u64 b8; } out;
	int n = 8;

	if (sp->prec >= 0)
		n = stp_fmt_binary_size(sp->prec) ? sp->prec : 8;
	else if (stp_fmt_binary_size(sp->width))
		n = sp->width;
	switch (n) {
	case 1:
		out.b1 = (u8)v;
		break;
	case 2:
		out.b2 = (u16)v;
		break;
	case 4:
		out.b4 = (u32)v;
		break;
	default:
		out.b8 = (u64)v;
		break;
	}
	if (!(sp->flags & STP_FMT_LEFT) && sp->width > n)
		stp_fmt_fill(k, '\0', sp->width - n);
	stp_fmt_put(k, (const char *)&out, n);
	if ((sp->flags & STP_FMT_LEFT) && sp->width > n)
		stp_fmt_fill(k, '\0', sp->width - n);
}

static int stp_fmt_read(void *dst, unsigned long addr, size_t len, bool user)
{
	if (!user)
		return stp_copy_kernel_nofault(dst, addr, len);
	if (stp_copy_from_user_nofault(dst, (const void __user *)addr, len))
		return -EFAULT;
	return 0;
}

static void stp_fmt_fault(unsigned long addr, bool user)
{
	struct context *c = stp_current_context();

	if (c)
		stp_soft_error(c, "%sread fault [man error::fault] at 0x%lx",
			       user ? "user " : "", addr);	/* as a target read */
}

/* N bytes at the start of BUF become 2N hex digits, in place (from the end backwards). */
static void stp_fmt_hex(char *buf, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	while (n-- > 0) {
		u8 b = buf[n];

		buf[2 * n] = hex[b >> 4];
		buf[2 * n + 1] = hex[b & 15];
	}
}

/*
 * %m / %M: PRECISION bytes at ADDR (default 1), raw or as hex, read a chunk at a time.
 * Not inlined, so its buffer is on the stack only while it runs.
 */
static noinline void stp_fmt_memory(struct stp_fmt_sink *k, const struct stp_fmt_spec *sp,
				    s64 v, bool hex)
{
	unsigned long addr = (unsigned long)v;
	bool user = sp->flags & STP_FMT_ALT;
	size_t left = sp->prec < 0 ? 1 : sp->prec;
	size_t total = hex ? 2 * left : left;
	char chunk[2 * STP_FMT_MEM_CHUNK];	/* room for the hex of a chunk */
	size_t n = left < STP_FMT_MEM_CHUNK ? left : STP_FMT_MEM_CHUNK;

	if (n && stp_fmt_read(chunk, addr, n, user)) {
		stp_fmt_fault(addr, user);
		k->faulted = true;
		return;
	}
	stp_fmt_pad(k, sp, total, false);
	while (n) {
		if (hex) {
			stp_fmt_hex(chunk, n);
			stp_fmt_put(k, chunk, 2 * n);
		} else {
			stp_fmt_put(k, chunk, n);
		}
		left -= n;
		addr += n;
		n = left < STP_FMT_MEM_CHUNK ? left : STP_FMT_MEM_CHUNK;
		if (!n || stp_fmt_full(k))
			break;
		if (stp_fmt_read(chunk, addr, n, user)) {
			stp_fmt_fault(addr, user);
			k->faulted = true;
			return;
		}
	}
	stp_fmt_pad(k, sp, total, true);
}

/* The next argument; a format that asks for more than were given gets 0 / "". */
static s64 stp_fmt_arg_long(const union stp_format_arg *args, int nargs, int *i)
{
	return *i < nargs ? args[(*i)++].l : 0;
}

static const char *stp_fmt_arg_str(const union stp_format_arg *args, int nargs, int *i)
{
	const char *s = *i < nargs ? args[(*i)++].s : NULL;

	return s ? s : "";
}

/* Width or precision: digits (clamped), or '*' for the next argument. */
static int stp_fmt_count(const char **p, const union stp_format_arg *args, int nargs, int *i)
{
	int v = 0;

	if (**p == '*') {
		s64 star = stp_fmt_arg_long(args, nargs, i);

		(*p)++;
		if (star > STP_FORMAT_MAX_FIELD)
			return STP_FORMAT_MAX_FIELD;
		if (star < -STP_FORMAT_MAX_FIELD)
			return -STP_FORMAT_MAX_FIELD;
		return (int)star;
	}
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > STP_FORMAT_MAX_FIELD)
			v = STP_FORMAT_MAX_FIELD;
		(*p)++;
	}
	return v;
}

/* The flag, width, precision and length modifiers after a '%': where the conversion is. */
static const char *stp_fmt_parse_spec(const char *p, struct stp_fmt_spec *sp,
				      const union stp_format_arg *args, int nargs, int *ai)
{
	switch (*p) {
	case '-': sp->flags = STP_FMT_LEFT; p++; break;
	case '+': sp->flags = STP_FMT_PLUS; p++; break;
	case ' ': sp->flags = STP_FMT_SPACE; p++; break;
	case '#': sp->flags = STP_FMT_ALT; p++; break;
	case '0': sp->flags = STP_FMT_ZERO; p++; break;
	}
	if ((*p >= '0' && *p <= '9') || *p == '*') {
		sp->width = stp_fmt_count(&p, args, nargs, ai);
		if (sp->width < 0)
			sp->width = -1;
	}
	if (*p == '.') {
		p++;
		sp->prec = stp_fmt_count(&p, args, nargs, ai);
		if (sp->prec < 0)
			sp->prec = 0;
	}
	while (*p == 'l' || *p == 'h' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' ||
	       *p == 't')
		p++;
	return p;
}

/* One conversion, taking its argument; false for a character that is not one. */
static bool stp_fmt_convert(struct stp_fmt_sink *k, char conv, struct stp_fmt_spec sp,
			    const union stp_format_arg *args, int nargs, int *ai)
{
	const char *s;
	s64 v;

	switch (conv) {
	case 'd':
	case 'i':
		v = stp_fmt_arg_long(args, nargs, ai);
		stp_fmt_number(k, sp, v < 0 ? 0 - (u64)v : (u64)v, v < 0, true, 10, false, false);
		break;
	case 'u':
		v = stp_fmt_arg_long(args, nargs, ai);
		stp_fmt_number(k, sp, (u64)v, false, false, 10, false, false);
		break;
	case 'o':
		v = stp_fmt_arg_long(args, nargs, ai);
		stp_fmt_number(k, sp, (u64)v, false, false, 8, false, false);
		break;
	case 'x':
	case 'X':
		v = stp_fmt_arg_long(args, nargs, ai);
		stp_fmt_number(k, sp, (u64)v, false, false, 16, conv == 'X', false);
		break;
	case 'p':	/* stap: "0x1234abcd", "0x0", spaces to a width */
		v = stp_fmt_arg_long(args, nargs, ai);
#ifdef STP_FMT_POINTER_PADDED
		stp_fmt_pointer_padded(k, sp, (u64)v);
#else
		stp_fmt_number(k, sp, (u64)v, false, false, 16, false, true);
#endif
		break;
	case 'c':
		stp_fmt_char(k, &sp, stp_fmt_arg_long(args, nargs, ai));
		break;
	case 's':
		s = stp_fmt_arg_str(args, nargs, ai);
		stp_fmt_field(k, &sp, s, sp.prec >= 0 ? strnlen(s, sp.prec) : strlen(s));
		break;
	case 'b':
		stp_fmt_binary(k, &sp, stp_fmt_arg_long(args, nargs, ai));
		break;
	case 'm':
	case 'M':
		stp_fmt_memory(k, &sp, stp_fmt_arg_long(args, nargs, ai), conv == 'M');
		break;
	case '%':
		stp_fmt_put(k, "%", 1);
		break;
	default:
		return false;
	}
	return true;
}

static void stp_fmt_run(struct stp_fmt_sink *k, const char *fmt,
			const union stp_format_arg *args, int nargs)
{
	const char *p = fmt, *start, *lit;
	int ai = 0;
	size_t room;

	while (*p && !stp_fmt_full(k)) {
		struct stp_fmt_spec sp = { 0, -1, -1 };

		lit = p;
		while (*p && *p != '%')
			p++;
		stp_fmt_put(k, lit, p - lit);
		if (!*p)
			break;
		start = p;
		p = stp_fmt_parse_spec(p + 1, &sp, args, nargs, &ai);
		/* a width or precision past the room left is the room (stap's: a number at
		 * the end keeps its digits where the padding would have cut them) */
		room = k->to_print ? k->print_left : k->size + 1 - k->len;
		if (sp.width > 0 && (size_t)sp.width > room)
			sp.width = room;
		if (sp.prec > 0 && (size_t)sp.prec > room)
			sp.prec = room;
		if (!*p) {
			/* a lone '%' (with its flags) at the end: written as it stands */
			stp_fmt_put(k, start, p - start);
			return;
		}
		if (!stp_fmt_convert(k, *p, sp, args, nargs, &ai))
			stp_fmt_put(k, start, p + 1 - start);	/* not a conversion: as it stands */
		p++;
	}
}

static size_t stp_format(char *buf, size_t size, const char *fmt,
			 const union stp_format_arg *args, int nargs)
{
	struct stp_fmt_sink k = { .buf = buf, .size = size ? size - 1 : 0 };

	if (!size)
		return 0;
	stp_fmt_run(&k, fmt, args, nargs);
	buf[k.len] = '\0';
	return k.len;
}

static void stp_printf_args(const char *fmt, const union stp_format_arg *args, int nargs)
{
	char stage[STP_FMT_PRINT_STAGE];
	struct stp_fmt_sink k = { .buf = stage, .size = sizeof(stage), .to_print = true,
				  .print_left = STP_PRINT_BUF_SIZE };

	stp_fmt_run(&k, fmt, args, nargs);
	if (k.len && !k.faulted)
		stp_print_bytes(stage, k.len);
}
