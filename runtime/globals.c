/* SPDX-License-Identifier: GPL-2.0-or-later */
/* globals.c - (being written) */
