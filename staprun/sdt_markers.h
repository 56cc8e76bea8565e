/*
 * sdt_markers.h - the SDT markers (stapprobes(3stap): process("PATH").mark("NAME")) our
 * own programs carry, so that a script can watch stap's passes, its cache and the commands
 * it runs, staprun loading and removing modules and stapio's control messages, with the
 * aliases of tapset/stap_markers.stp (stap.pass2, staprun.insert_module, ...), as
 * SystemTap's programs let it.
 *
 * STP_MARK(provider, name, args...) is DTRACE_PROBEn of <sys/sdt.h> (Debian's
 * systemtap-sdt-dev, which ./setup installs): a nop and an ELF note naming the marker and
 * where its arguments are; a build without the header has no markers.
 */
#ifndef SDT_MARKERS_H
#define SDT_MARKERS_H

#if defined(__has_include)
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define STP_HAVE_SDT 1
#endif
#endif

#ifdef STP_HAVE_SDT
#define STP_MARK1(provider, name, a) DTRACE_PROBE1(provider, name, a)
#define STP_MARK2(provider, name, a, b) DTRACE_PROBE2(provider, name, a, b)
#define STP_MARK3(provider, name, a, b, c) DTRACE_PROBE3(provider, name, a, b, c)
#else
#define STP_MARK1(provider, name, a) ((void)(a))
#define STP_MARK2(provider, name, a, b) ((void)(a), (void)(b))
#define STP_MARK3(provider, name, a, b, c) ((void)(a), (void)(b), (void)(c))
#endif

#endif
