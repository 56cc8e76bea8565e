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
		int rc = user ? stp_copy_from_user_nofault(dst + done, (const void __user *)at,
							   chunk) :
				stp_copy_from_kernel_nofault(dst + done, (const void *)at, chunk);
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

/* The escape of one byte as C writes it: 1 (printable), 2 (\n) or 4 (\ooo) characters. */
static size_t stp_escape_one(unsigned char ch, char *out)
{
	static const char simple[] = "\aa\bb\ff\nn\rr\tt\vv\"\"\\\\";	/* not ' (as stap) */
	size_t i;

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
 * Rewrites the N bytes at BUF (a buffer of SIZE) in place as C escapes, at most MAXLEN
 * characters (0: no limit but SIZE), in double quotes if QUOTED.  What does not fit is
 * dropped whole, and a quoted string that lost some ends in "...".  Each byte's escape
 * is at least as long as the byte, so filling from the end never overwrites input not
 * yet read.  Returns the new length.
 */
static __maybe_unused size_t stp_text_escape(char *buf, size_t n, size_t size, size_t maxlen,
					     bool quoted)
{
	size_t limit = size - 1, extra = quoted ? 2 : 0, kept = 0, out = 0, pos, i;
	bool cut = false;

	if (maxlen && maxlen < limit)
		limit = maxlen;
	if (limit < extra) {
		buf[0] = '\0';
		return 0;
	}
	for (i = 0; i < n; i++) {
		size_t w = stp_escape_one(buf[i], NULL);

		if (out + w + extra > limit) {
			cut = true;
			break;
		}
		out += w;
		kept++;
	}
	if (cut && quoted) {
		/* room for the dots: drop whole escapes from the end */
		while (kept && out + extra + 3 > limit)
			out -= stp_escape_one(buf[--kept], NULL);
		if (out + extra + 3 > limit)
			cut = false;	/* not even the dots fit */
	}
	pos = out + (quoted ? 1 : 0);
	for (i = kept; i-- > 0;) {
		char tmp[4];
		size_t w = stp_escape_one(buf[i], tmp);

		pos -= w;
		memcpy(buf + pos, tmp, w);
	}
	if (quoted) {
		buf[0] = '"';
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
