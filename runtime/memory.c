/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memory.c - fault-safe reads of kernel and user memory, and rendering bytes as text.
 *
 * Every read goes through the kernel's *_nofault accessors: a bad address comes back as
 * an error code (never an oops), and the caller's context gets the soft error with the
 * wording SystemTap users know ("... [man error::fault]").  A NULL context reads quietly,
 * for the tapset functions that return a default instead of failing.
 */

static int stp_copy_kernel_nofault(void *dst, unsigned long addr, size_t len)
{
	if (stp_copy_from_kernel_nofault(dst, (const void *)addr, len))
		return -EFAULT;
	return 0;
}

static int stp_read_kernel(struct context *c, void *dst, unsigned long addr, size_t len)
{
	if (likely(stp_copy_kernel_nofault(dst, addr, len) == 0))
		return 0;
	memset(dst, 0, len);
	if (c)
		stp_soft_error(c, "read fault [man error::fault] at 0x%lx", addr);
	return -EFAULT;
}

/*
 * As stp_read_kernel(), for kernel_long() and its kin: the error names what was read
 * (WHAT: "long", "int", "short", "char", "pointer") and the address in short hex, as
 * stap words it: "kernel long copy fault at 0x8 [man error::fault]".
 */
static __maybe_unused int stp_read_kernel_as(struct context *c, void *dst, unsigned long addr,
					     size_t len, const char *what)
{
	if (likely(stp_copy_kernel_nofault(dst, addr, len) == 0))
		return 0;
	memset(dst, 0, len);
	if (c)
		stp_soft_error(c, "kernel %s copy fault at 0x%lx [man error::fault]", what, addr);
	return -EFAULT;
}

/* LEN bytes at ADDR, in the current process's memory if USER, else the kernel's: 0, or
 * nonzero where they cannot be read. */
static int stp_copy_nofault(void *dst, unsigned long addr, size_t len, bool user)
{
	return user ? stp_copy_from_user_nofault(dst, (const void __user *)addr, len)
		    : stp_copy_from_kernel_nofault(dst, (const void *)addr, len);
}

static int stp_read_user(struct context *c, void *dst, unsigned long addr, size_t len)
{
	if (likely(stp_copy_from_user_nofault(dst, (const void __user *)addr, len) == 0))
		return 0;
	memset(dst, 0, len);
	if (c)
		stp_soft_error(c, "read fault [man error::fault] at 0x%lx", addr);
	return -EFAULT;
}

/*
 * A string of at most SIZE - 1 bytes, read a page at a time: the kernel does not export
 * its strncpy_*_nofault() helpers, and a page is mapped or not as a whole, so reading up
 * to the end of the page holding the next byte faults only where a bytewise copy would.
 * At most SIZE / PAGE_SIZE + 2 rounds.
 */
static long stp_read_string(char *dst, unsigned long addr, size_t size, bool user)
{
	size_t done = 0;

	while (done < size - 1) {
		unsigned long at = addr + done;
		size_t chunk = min_t(size_t, size - 1 - done, PAGE_SIZE - offset_in_page(at));
		int rc = stp_copy_nofault(dst + done, at, chunk, user);
		char *nul;

		if (rc) {
			dst[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + done, '\0', chunk);
		if (nul)
			return nul - dst;
		done += chunk;
	}
	dst[done] = '\0';
	return done;
}

/* SIZE includes the NUL. */
static long stp_read_kernel_string(struct context *c, char *dst, unsigned long addr,
				   size_t size)
{
	long rc;

	if (size == 0)
		return 0;
	rc = stp_read_string(dst, addr, size, false);
	if (unlikely(rc < 0) && c)
		stp_soft_error(c, "kernel string copy fault at 0x%lx [man error::fault]", addr);
	return rc;
}

static long stp_read_user_string(struct context *c, char *dst, unsigned long addr, size_t size)
{
	long rc;

	if (size == 0)
		return 0;
	rc = stp_read_string(dst, addr, size, true);
	if (unlikely(rc < 0) && c)
		stp_soft_error(c, "user string copy fault %ld at 0x%lx [man error::fault]", rc,
			       addr);
	return rc;
}

/*
 * The NUL-terminated UTF-16 (WIDTH 2, surrogate pairs joined) or UTF-32 (WIDTH 4) string
 * at ADDR, in the kernel or (USER) the current process, into DST (SIZE bytes) as UTF-8,
 * cut after the last whole character that fits.  Its length, or -EFAULT (a unit could
 * not be read) or -EILSEQ (a unit that is no character: a lone surrogate, past
 * U+10FFFF) after a soft error in C, as stap words them: "kernel string copy fault at
 * 0x... [man error::fault]", "invalid UTF-16 character U+D83D at 0x...".
 */
static long stp_read_utf_string(struct context *c, char *dst, unsigned long addr, size_t size,
				int width, bool user)
{
	unsigned long at = addr;
	size_t len = 0;
	u32 cp = 0, unit = 0, low = 0;
	int n;

	if (size == 0)
		return 0;
	for (;;) {
		char utf8[4];

		unit = 0;
		if (stp_copy_nofault(&unit, at, width, user))
			goto fault;
		if (unit == 0)
			break;
		cp = unit;
		if (width == 2 && cp >= 0xd800 && cp <= 0xdbff) {
			low = 0;
			if (stp_copy_nofault(&low, at + 2, 2, user))
				goto fault;
			if (low < 0xdc00 || low > 0xdfff)
				goto invalid;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
		} else if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
			goto invalid;
		}
		if (cp < 0x80) {
			utf8[0] = (char)cp;
			n = 1;
		} else if (cp < 0x800) {
			utf8[0] = (char)(0xc0 | (cp >> 6));
			utf8[1] = (char)(0x80 | (cp & 0x3f));
			n = 2;
		} else if (cp < 0x10000) {
			utf8[0] = (char)(0xe0 | (cp >> 12));
			utf8[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			utf8[2] = (char)(0x80 | (cp & 0x3f));
			n = 3;
		} else {
			utf8[0] = (char)(0xf0 | (cp >> 18));
			utf8[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
			utf8[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
			utf8[3] = (char)(0x80 | (cp & 0x3f));
			n = 4;
		}
		if (len + n > size - 1)
			break;
		memcpy(dst + len, utf8, n);
		len += n;
		at += cp > 0xffff && width == 2 ? 4 : width;
	}
	dst[len] = '\0';
	return len;
fault:
	dst[0] = '\0';
	if (c)
		stp_soft_error(c, "%s string copy fault at 0x%lx [man error::fault]",
			       user ? "user" : "kernel", addr);
	return -EFAULT;
invalid:
	dst[0] = '\0';
	if (c)
		stp_soft_error(c, "invalid UTF-%d character U+%04X at 0x%lx", width * 8, unit, at);
	return -EILSEQ;
}

/*
 * The length of the well-formed UTF-8 sequence of two to four bytes at S (N bytes
 * left), 0 if there is none there: no overlong form, no surrogate, nothing past U+10FFFF.
 */
static size_t stp_utf8_length(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/*
 * The escape of the character at S (N bytes left) as stap writes it, into OUT (NULL:
 * only measured); *USED is set to the bytes it takes.  Printable ASCII stays; the C
 * escapes (\n, \", \\ ...); a UTF-8 character is \uXXXX, or \UXXXXXXXX past U+FFFF; any
 * other byte is three octal digits.  Returns the escape's length, never less than *USED.
 */
static size_t stp_escape_char(const unsigned char *s, size_t n, char *out, size_t *used)
{
	static const char simple[] = "\aa\bb\ff\nn\rr\tt\vv\"\"\\\\";	/* not ' (as stap) */
	static const char hex[] = "0123456789ABCDEF";
	unsigned char ch = s[0];
	size_t len = stp_utf8_length(s, n), i, digits;
	u32 cp;

	*used = 1;
	if (len) {
		cp = ch & (0x7f >> len);
		for (i = 1; i < len; i++)
			cp = (cp << 6) | (s[i] & 0x3f);
		*used = len;
		digits = cp > 0xffff ? 8 : 4;
		if (out) {
			out[0] = '\\';
			out[1] = digits == 8 ? 'U' : 'u';
			for (i = 0; i < digits; i++)
				out[2 + i] = hex[(cp >> (4 * (digits - 1 - i))) & 0xf];
		}
		return 2 + digits;
	}
	for (i = 0; i + 1 < sizeof(simple); i += 2)
		if ((unsigned char)simple[i] == ch) {
			if (out) {
				out[0] = '\\';
				out[1] = simple[i + 1];
			}
			return 2;
		}
	if (ch >= 0x20 && ch < 0x7f) {
		if (out)
			out[0] = ch;
		return 1;
	}
	if (out) {
		out[0] = '\\';
		out[1] = '0' + ((ch >> 6) & 7);
		out[2] = '0' + ((ch >> 3) & 7);
		out[3] = '0' + (ch & 7);
	}
	return 4;
}

/*
 * Where the character that ends just before END (BUF's first END bytes, split into
 * characters from BUF on as stp_escape_char() does) begins: a UTF-8 sequence that ends
 * there if one does, else the byte alone.  A well-formed sequence holds no byte that
 * begins another, so this finds the split the forward walk made.
 */
static size_t stp_char_start(const unsigned char *buf, size_t end)
{
	size_t k = end - 1, back;

	for (back = 1; back < 4 && k > 0 && (buf[k] & 0xc0) == 0x80; back++)
		k--;
	if (k < end - 1 && stp_utf8_length(buf + k, end - k) == end - k)
		return k;
	return end - 1;
}

/*
 * Rewrites the N bytes at BUF (a buffer of SIZE) in place as escapes (stp_escape_char()),
 * at most MAXLEN characters (0: no limit but SIZE), in double quotes if FLAGS has
 * STP_ESCAPE_QUOTED.  Escapes are kept from the start as long as they fit, a whole one
 * at a time; quoted, as stap does, each one but the string's last must leave room for
 * the "..." that a cut string ends in after its closing quote (so `""...` even where
 * MAXLEN is less than 5).  With STP_ESCAPE_BYTEWISE (user_string_n_quoted()'s outlen, as
 * stap 4.8 cuts it, measured) that holds for each character of an escape too, the
 * string's very last one excepted, and a cut may fall inside an octal escape ("ab\001"
 * cut to 8 is `"ab\"...`).  With STP_ESCAPE_WHOLE a string that fits whole is kept whole
 * (text_strn("1234567890", 12, 1) is "1234567890" in stap 4.8, where the readers'
 * user_string_n_quoted(p, 3, 5) of "/tmp" is ""...).  Each escape is at least as long
 * as what it stands for, so filling from the end never overwrites input not yet read.
 * Returns the new length.
 */
static __maybe_unused size_t stp_text_escape(char *buf, size_t n, size_t size, size_t maxlen,
					     unsigned int flags)
{
	const unsigned char *in = (const unsigned char *)buf;
	size_t limit = size - 1, kept = 0, out = 0, pos, i, used, budget, partial = 0;
	bool quoted = flags & STP_ESCAPE_QUOTED, cut = false, whole = false;
	bool bytewise = quoted && (flags & STP_ESCAPE_BYTEWISE);
	char part[10];

	if (maxlen && maxlen < limit)
		limit = maxlen;
	budget = quoted ? (limit > 2 ? limit - 2 : 0) : limit;
	if (flags & STP_ESCAPE_WHOLE) {	/* the whole string, if it fits, needs no dots */
		for (i = 0; i < n; i += used)
			out += stp_escape_char(in + i, n - i, NULL, &used);
		whole = out <= budget;
		out = 0;
	}
	for (i = 0; i < n; i += used) {
		size_t w = stp_escape_char(in + i, n - i, NULL, &used);
		/* the dots' room after each character but the string's (very) last */
		size_t dots = !quoted || whole ? 0 : i + used < n ? 3 : bytewise && w > 1 ? 2 : 0;

		if (bytewise && !whole && out + w + dots > budget) {
			/* the escape's characters that fit, each leaving room for the dots */
			partial = budget > out + 3 ? budget - out - 3 : 0;
			if (partial >= w)
				partial = w - 1;
			if (partial) {
				stp_escape_char(in + i, n - i, part, &used);
				if (part[1] == 'u' || part[1] == 'U')	/* a character: whole */
					partial = 0;
			}
			cut = true;
			break;
		}
		if (out + w + dots > budget) {
			cut = true;
			break;
		}
		out += w;
		kept = i + used;
	}
	if (quoted && size < 6) {	/* no room for the quotes and dots */
		buf[0] = '\0';
		return 0;
	}
	pos = out + (quoted ? 1 : 0);
	while (kept) {
		char tmp[10];
		size_t w;

		i = stp_char_start(in, kept);
		w = stp_escape_char(in + i, kept - i, tmp, &used);
		pos -= w;
		memmove(buf + pos, tmp, w);
		kept = i;
	}
	if (quoted) {
		buf[0] = '"';
		memcpy(buf + out + 1, part, partial);
		out += partial;
		buf[out + 1] = '"';
		out += 2;
		if (cut) {
			memcpy(buf + out, "...", 3);
			out += 3;
		}
	}
	buf[out] = '\0';
	return out;
}
