/* SPDX-License-Identifier: GPL-2.0-or-later */
/* format.c - (placeholder definitions; being written) */
static size_t stp_format(char *buf, size_t size, const char *fmt, const union stp_format_arg *args, int nargs) { buf[0] = 0; return 0; }
static void stp_printf_args(const char *fmt, const union stp_format_arg *args, int nargs) { }
