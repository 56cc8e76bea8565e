/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timer.c - (being written) */
