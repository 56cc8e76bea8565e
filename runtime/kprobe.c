/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kprobe.c - (being written) */
