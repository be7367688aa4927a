# wrappers/tcl/local.mk — the Tcl extension (package mqlink), its perfserver
# and perffloor-tcl, its tests; included from wrappers/local.mk.
#
# Installed as $(libdir)/tcl/mqlink/{libmqlinktcl.so,pkgIndex.tcl}: tclsh
# finds it with TCLLIBPATH=$(libdir)/tcl (perfserver.tcl sources that
# pkgIndex.tcl itself).  The build tree has the same pair in wrappers/tcl/.

EXTRA_DIST += wrappers/tcl/perfserver.tcl wrappers/tcl/pkgIndex.tcl.in \
	wrappers/tcl/buffer_test.tcl wrappers/tcl/instance_test.tcl wrappers/tcl/taptest.tcl \
	tests/interop/tclclient.tcl tests/interop/tclserver.tcl

if WITH_TCL
tclpkgdir = $(libdir)/tcl/mqlink
MQTCL_EXT = wrappers/tcl/libmqlinktcl.so

wrappers/tcl/gen/glue.c: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/tcl/gen && $(MQGEN) $(MQAPI) tcl-glue $@
wrappers/tcl/gen/glue.h: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/tcl/gen && $(MQGEN) $(MQAPI) tcl-h $@
BUILT_SOURCES += wrappers/tcl/gen/glue.c wrappers/tcl/gen/glue.h

# The extension's objects, always position independent (perf-aggressive
# links the static libmqlink and libmkkernel, built --with-pic, into it).
noinst_LTLIBRARIES += wrappers/tcl/libmqtcl.la
wrappers_tcl_libmqtcl_la_SOURCES = \
	wrappers/tcl/runtime.c \
	wrappers/tcl/convert.c \
	wrappers/tcl/buffer.c \
	wrappers/tcl/callback.c \
	wrappers/tcl/resolver.c \
	wrappers/tcl/overrides.c \
	wrappers/tcl/classcmd.c \
	wrappers/tcl/instance_delete.c \
	wrappers/tcl/instance_delete.h \
	wrappers/tcl/runtime.h \
	wrappers/tcl/module.h
nodist_wrappers_tcl_libmqtcl_la_SOURCES = wrappers/tcl/gen/glue.c wrappers/tcl/gen/glue.h
wrappers_tcl_libmqtcl_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/wrappers/tcl \
	-I$(top_builddir)/wrappers/tcl $(TCL_CPPFLAGS) $(TCL_PRIVATE_CPPFLAGS) -DUSE_TCL_STUBS -DUSE_TCLOO_STUBS \
	-DMQTCL_VERSION='"$(PACKAGE_VERSION)"'
wrappers_tcl_libmqtcl_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden

# A plain shared object loaded with `load` (libtool would add a version and
# refuse -shared in static-only builds), linked against the stub library.
# --exclude-libs: the static libmqlink/libmkkernel linked in (perf-aggressive)
# stay private to the extension, which then exports Mqlink_Init only (the
# whole C API would otherwise be exported again and bound at `load`).
# --no-undefined: a symbol nothing provides fails the link, not the `load`
# (Tcl's own come through the stub table, so none is left to the loader).
$(MQTCL_EXT): wrappers/tcl/libmqtcl.la link/libmqlink.la kernel/libmkkernel.la
	$(AM_V_CCLD)$(CC) -shared $(CFLAGS) $(BINDNOW_LDFLAGS) $(LDFLAGS) -Wl,--no-undefined \
	  -Wl,--exclude-libs,libmqlink.a:libmkkernel.a -o $@ \
	  -Wl,--whole-archive wrappers/tcl/.libs/libmqtcl.a -Wl,--no-whole-archive \
	  $(MQEXT_LIBS) $(TCL_STUB_LIBS) -Wl,-rpath,$(libdir)

wrappers/tcl/pkgIndex.tcl: $(top_srcdir)/wrappers/tcl/pkgIndex.tcl.in Makefile
	$(AM_V_GEN)$(MKDIR_P) wrappers/tcl && \
	  sed -e 's|%VERSION%|$(PACKAGE_VERSION)|' $< > $@

# The perfserver as installed: it registers the installed package itself
# (sources its pkgIndex.tcl), so `package require` skips Tcl's search of
# every directory on auto_path — most of what loading the binding costs a
# start (README.md, Tcl).
wrappers/tcl/inst/perfserver.tcl: $(top_srcdir)/wrappers/tcl/perfserver.tcl Makefile
	$(AM_V_GEN)$(MKDIR_P) wrappers/tcl/inst && \
	  sed -e 's|^# @MQLINK_TCLLIB@|apply {dir {source [file join $$dir pkgIndex.tcl]}} {$(tclpkgdir)}|' \
	  $< > $@

# C calling into Tcl as the runtime does: the floors of a Tcl server
# (perffloor.c).  perffloor_child.c reaches TclOO's C API through the stubs,
# and deletes its instances with the runtime's instance_delete.c.
bin_PROGRAMS += wrappers/tcl/perffloor-tcl
wrappers_tcl_perffloor_tcl_SOURCES = wrappers/tcl/perffloor.c wrappers/tcl/perffloor.h \
	wrappers/tcl/perffloor_services.c wrappers/tcl/perffloor_shapes.c \
	wrappers/tcl/perffloor_child.c wrappers/tcl/instance_delete.c wrappers/tcl/instance_delete.h
wrappers_tcl_perffloor_tcl_CPPFLAGS = $(AM_CPPFLAGS) $(TCL_CPPFLAGS) $(TCL_PRIVATE_CPPFLAGS) \
	-I$(top_srcdir)/perfclient \
	-DMQTCL_PERFSERVER='"$(pkgdatadir)/perfserver.tcl"' -DMQTCL_LIBDIR='"$(libdir)/tcl"'
wrappers_tcl_perffloor_tcl_LDADD = $(TCL_LIBS) $(TCL_STUB_LIBS)

tclpkg_DATA = wrappers/tcl/pkgIndex.tcl
nodist_tclpkg_DATA = $(MQTCL_EXT)
nodist_pkgdata_DATA = wrappers/tcl/inst/perfserver.tcl
CLEANFILES += $(MQTCL_EXT) wrappers/tcl/pkgIndex.tcl wrappers/tcl/inst/perfserver.tcl \
	wrappers/tcl/gen/glue.c wrappers/tcl/gen/glue.h $(WRAPPER_TCL_TESTS)

# Tests: each runs the build tree's package (TCLLIBPATH=wrappers/tcl).
MQTCL_TEST_ENV = $(INTEROP_ENV)
WRAPPER_TCL_TESTS = wrappers/tcl/tcl-buffer.sh wrappers/tcl/tcl-instance.sh
$(WRAPPER_TCL_TESTS): wrappers/tcl/tcl-%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) wrappers/tcl && { echo '$(MQTCL_TEST_ENV)'; \
	  echo 'exec $(TCLSH) $(abs_top_srcdir)/wrappers/tcl/$*_test.tcl'; } > $@ && chmod +x $@
check_DATA += $(MQTCL_EXT) wrappers/tcl/pkgIndex.tcl
TESTS += $(WRAPPER_TCL_TESTS) wrappers/tcl/perffloor_test.sh
dist_check_SCRIPTS += wrappers/tcl/perffloor_test.sh
nodist_check_SCRIPTS += $(WRAPPER_TCL_TESTS)
endif
