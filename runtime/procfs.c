/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procfs.c - (being written) */
