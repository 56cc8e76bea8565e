/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - kernel APIs that differ between kernel versions, behind one name each.
 *
 * The runtime calls the stp_ names below, never the kernel's varying ones.  Which form the
 * target kernel has is decided by testing its headers (pass 4 compiles the probes in
 * runtime/autoconf/ once per kernel release and writes stp_autoconf.h), not by version
 * numbers.  (Until those tests exist, the definitions here are the 6.1 kernel's.)
 */
#ifndef STP_COMPAT_H
#define STP_COMPAT_H

#endif
