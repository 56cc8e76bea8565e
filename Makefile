# Makefile - builds stap, staprun, stapio, stap-merge and stap-exporter; `make check` runs
# every test layer.
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

# src/build/kbuild_cc.c is a program of its own, the compiler pass 4 gives kbuild
STAP_SOURCES = $(filter-out src/build/kbuild_cc.c,$(sort $(wildcard src/*.c src/*/*.c)))
STAP_OBJECTS = $(STAP_SOURCES:.c=.o)
STAPRUN_COMMON = staprun/common.o

PROGRAMS = stap src/build/kbuild-cc staprun/staprun staprun/stapio staprun/stap-merge
# stap-exporter needs libmicrohttpd (./configure says when it is missing)
ifneq ($(strip $(MHD_LIBS)),)
PROGRAMS += staprun/stap-exporter
endif
# the exporter's scripts: /etc/stapler/exporter whatever the prefix (stap-exporter(8))
exporterdir = /etc/stapler/exporter

all: $(PROGRAMS)

config.mk: config.mk.in configure
	./configure

configure: configure.ac
	autoconf

stap: $(STAP_OBJECTS) staprun/modimage.o
	$(CC) $(LDFLAGS) -o $@ $(STAP_OBJECTS) staprun/modimage.o \
		$(if $(STAP_LIBS),$(STAP_LIBS),$(DW_LIBS) $(BTF_LIBS))

src/%.o: src/%.c $(wildcard src/*.h src/*/*.h) staprun/sdt_markers.h config.mk
	$(CC) $(ALL_CFLAGS) -iquote src $(DW_CFLAGS) $(BTF_CFLAGS) \
		-DPKGDATADIR='"$(pkgdatadir)"' -DBINDIR='"$(bindir)"' \
		-DPKGLIBEXECDIR='"$(pkglibexecdir)"' \
		-DDEFAULT_KERNEL_BUILD='"$(KERNEL_BUILD)"' -c -o $@ $<

src/build/kbuild-cc: src/build/kbuild_cc.o src/util.o src/hash.o
	$(CC) $(LDFLAGS) -o $@ $^

staprun/staprun: staprun/staprun.o staprun/modimage.o $(STAPRUN_COMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(ELF_LIBS)

# modimage: what staprun and stap (its module cache) know of a module image
staprun/modimage.o staprun/staprun.o src/build/cache.o: staprun/modimage.h

STAPIO_OBJECTS = staprun/stapio.o staprun/stapio_output.o staprun/stapio_child.o
staprun/stapio: $(STAPIO_OBJECTS) $(STAPRUN_COMMON)
	$(CC) $(LDFLAGS) -o $@ $^
$(STAPIO_OBJECTS): staprun/stapio.h

staprun/stap-merge: staprun/stap-merge.o
	$(CC) $(LDFLAGS) -o $@ $^

staprun/stap-exporter: staprun/stap-exporter.o staprun/modimage.o
	$(CC) $(LDFLAGS) -o $@ $^ $(MHD_LIBS) $(ELF_LIBS) -lpthread
staprun/stap-exporter.o: staprun/modimage.h

staprun/%.o: staprun/%.c staprun/common.h staprun/sdt_markers.h runtime/transport_msgs.h config.mk
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) $(MHD_CFLAGS) -Iruntime \
		-DSTAPIO_PATH='"$(pkglibexecdir)/stapio"' -DSTAPRUN_PATH='"$(bindir)/staprun"' \
		-DBINDIR='"$(bindir)"' -DEXPORTER_DIR='"$(exporterdir)"' -c -o $@ $<

# The test suite: every layer of doc/testing.md; ends with "N passed, N failed".
check: all
	testsuite/run-tests

# The stress layer: the tests once seen failing now and then, many times over (about 27 min;
# STAPLER_STRESS_RUNS=N for N times as many).  Not part of check.
check-stress: all
	testsuite/run-tests stress

# Debian's example scripts run in the guest with their workloads, on both kernels (about
# 30 min; those of testsuite/examples/runs*.list must run cleanly).  Not part of check.
check-examples-run: all
	testsuite/run-tests examples-run

# The demo: examples/opens.stp (a kprobe and a kretprobe counting and timing file opens)
# built for the reference kernel and run in its disposable virtual machine, with a workload.
DEMO_WORKLOAD = find /proc/sys -type f | xargs -n 50 cat >/dev/null 2>&1; \
	ls -lR /sys/devices/system >/dev/null
demo: all
	./stap --vm -c '$(DEMO_WORKLOAD)' examples/opens.stp

install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(pkglibexecdir) \
		$(DESTDIR)$(pkgdatadir)/runtime $(DESTDIR)$(pkgdatadir)/runtime/autoconf \
		$(DESTDIR)$(pkgdatadir)/tapset $(DESTDIR)$(pkgdatadir)/examples \
		$(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man3 \
		$(DESTDIR)$(mandir)/man7 $(DESTDIR)$(mandir)/man8
	install -m 755 stap staprun/staprun staprun/stap-merge tools/stap-prep tools/stap-report \
		$(DESTDIR)$(bindir)
	install -m 755 staprun/stapio src/build/kbuild-cc $(DESTDIR)$(pkglibexecdir)
	if [ -x staprun/stap-exporter ]; then \
		install -d $(DESTDIR)$(exporterdir) && \
		install -m 755 staprun/stap-exporter $(DESTDIR)$(bindir) && \
		install -m 644 examples/exporter/*.stp $(DESTDIR)$(exporterdir) && \
		install -d $(DESTDIR)$(prefix)/lib/systemd/system && \
		sed 's|@BINDIR@|$(bindir)|; s|@EXPORTERDIR@|$(exporterdir)|' staprun/stap-exporter.service \
			>$(DESTDIR)$(prefix)/lib/systemd/system/stap-exporter.service; \
	fi
	install -m 644 examples/*.stp $(DESTDIR)$(pkgdatadir)/examples
	sed -e 's|@STAPRUN_PATH@|$(bindir)/staprun|' -e 's|@STAPIO_PATH@|$(pkglibexecdir)/stapio|' \
		staprun/stap-vm >$(DESTDIR)$(pkglibexecdir)/stap-vm
	chmod 755 $(DESTDIR)$(pkglibexecdir)/stap-vm
	ln -sf $(pkglibexecdir)/stap-vm $(DESTDIR)$(bindir)/stap-vm
	install -m 644 staprun/vmlib.sh $(DESTDIR)$(pkglibexecdir)
	install -m 755 testsuite/vm/kernel-image testsuite/vm/reference-release \
		$(DESTDIR)$(pkglibexecdir)
	install -m 644 runtime/*.h runtime/*.c $(DESTDIR)$(pkgdatadir)/runtime
	install -m 644 runtime/autoconf/*.c $(DESTDIR)$(pkgdatadir)/runtime/autoconf
	cd tapset && find . -name '*.stp' -o -name '*.stpm' | while read -r f; do \
		install -D -m 644 "$$f" "$(DESTDIR)$(pkgdatadir)/tapset/$$f" || exit 1; done
	# the aliases of stapio's markers name it where it was installed
	sed -i 's|"/usr/local/libexec/stapler/stapio"|"$(pkglibexecdir)/stapio"|' \
		$(DESTDIR)$(pkgdatadir)/tapset/stap_markers.stp
	for f in man/*; do \
		case "$$f" in \
		*.1) d=man1 ;; *.3stap) d=man3 ;; *.7stap) d=man7 ;; *.8) d=man8 ;; *) continue ;; \
		esac; \
		install -m 644 "$$f" "$(DESTDIR)$(mandir)/$$d/" || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(bindir)/stap $(DESTDIR)$(bindir)/staprun $(DESTDIR)$(bindir)/stap-vm \
		$(DESTDIR)$(bindir)/stap-prep $(DESTDIR)$(bindir)/stap-report \
		$(DESTDIR)$(bindir)/stap-merge $(DESTDIR)$(bindir)/stap-exporter \
		$(DESTDIR)$(prefix)/lib/systemd/system/stap-exporter.service
	rm -rf $(DESTDIR)$(pkglibexecdir) $(DESTDIR)$(pkgdatadir)
	for f in man/*; do rm -f "$(DESTDIR)$(mandir)"/man*/"$${f#man/}"; done

clean:
	rm -f $(PROGRAMS) src/*.o src/*/*.o staprun/*.o
	rm -rf testsuite/work

distclean: clean
	rm -f config.mk config.log config.status configure
	rm -rf autom4te.cache

.PHONY: all check check-stress check-examples-run demo install uninstall clean distclean
