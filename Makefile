# Makefile - builds stap, staprun and stapio; `make check` runs every test layer.
#
# Settings come from config.mk, which ./configure writes (and this Makefile runs
# ./configure, and autoconf before it, when config.mk is missing or out of date).

-include config.mk

.DEFAULT_GOAL := all

WARNINGS = -Wall -Wextra
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARNINGS) $(CPPFLAGS) $(CFLAGS) \
	-DSTAPLER_VERSION='"$(PACKAGE_VERSION)"'
pkgdatadir = $(datadir)/stapler
pkglibexecdir = $(libexecdir)/stapler

STAP_SOURCES = $(sort $(wildcard src/*.c))
STAP_OBJECTS = $(STAP_SOURCES:.c=.o)
STAPRUN_COMMON = staprun/common.o

PROGRAMS = stap staprun/staprun staprun/stapio

all: $(PROGRAMS)

config.mk: config.mk.in configure
	./configure

configure: configure.ac
	autoconf

stap: $(STAP_OBJECTS)
	$(CC) $(LDFLAGS) -o $@ $(STAP_OBJECTS) $(DW_LIBS)

src/%.o: src/%.c src/stap.h config.mk
	$(CC) $(ALL_CFLAGS) $(DW_CFLAGS) \
		-DPKGDATADIR='"$(pkgdatadir)"' -DBINDIR='"$(bindir)"' \
		-DDEFAULT_KERNEL_BUILD='"$(KERNEL_BUILD)"' -c -o $@ $<

staprun/staprun: staprun/staprun.o $(STAPRUN_COMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(ELF_LIBS)

staprun/stapio: staprun/stapio.o $(STAPRUN_COMMON)
	$(CC) $(LDFLAGS) -o $@ $^

staprun/%.o: staprun/%.c staprun/staprun.h runtime/transport_msgs.h config.mk
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) -Iruntime \
		-DSTAPIO_PATH='"$(pkglibexecdir)/stapio"' -DSTAPRUN_PATH='"$(bindir)/staprun"' \
		-c -o $@ $<

# The test suite: every layer of DESIGN.md that exists; ends with "N passed, N failed".
check: all
	testsuite/run-tests

# The demo: hello world, built here and run in the reference virtual machine.
demo: all
	examples/run-in-vm examples/hello.stp

install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(pkglibexecdir) \
		$(DESTDIR)$(pkgdatadir)/runtime $(DESTDIR)$(pkgdatadir)/runtime/autoconf \
		$(DESTDIR)$(pkgdatadir)/tapset \
		$(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man3 \
		$(DESTDIR)$(mandir)/man7 $(DESTDIR)$(mandir)/man8
	install -m 755 stap staprun/staprun $(DESTDIR)$(bindir)
	install -m 755 staprun/stapio $(DESTDIR)$(pkglibexecdir)
	install -m 644 runtime/*.h runtime/*.c $(DESTDIR)$(pkgdatadir)/runtime
	install -m 644 runtime/autoconf/*.c $(DESTDIR)$(pkgdatadir)/runtime/autoconf
	cd tapset && find . -name '*.stp' -o -name '*.stpm' | while read -r f; do \
		install -D -m 644 "$$f" "$(DESTDIR)$(pkgdatadir)/tapset/$$f" || exit 1; done
	for f in man/*; do \
		case "$$f" in \
		*.1) d=man1 ;; *.3stap) d=man3 ;; *.7stap) d=man7 ;; *.8) d=man8 ;; *) continue ;; \
		esac; \
		install -m 644 "$$f" "$(DESTDIR)$(mandir)/$$d/" || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(bindir)/stap $(DESTDIR)$(bindir)/staprun
	rm -rf $(DESTDIR)$(pkglibexecdir) $(DESTDIR)$(pkgdatadir)
	for f in man/*; do rm -f "$(DESTDIR)$(mandir)"/man*/"$${f#man/}"; done

clean:
	rm -f $(PROGRAMS) src/*.o staprun/*.o
	rm -rf testsuite/work

distclean: clean
	rm -f config.mk config.log config.status configure
	rm -rf autom4te.cache

.PHONY: all check demo install uninstall clean distclean
