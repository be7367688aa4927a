# wrappers/local.mk — the API description, its generator and the language
# bindings it generates (C++ and Python), plus their perfservers.
#
# Generated files go to the build tree and are never checked in; the golden
# test (wrappers/gen/golden_test.sh) shows a generator change as a diff.

MQGEN_PY = $${PYTHON:-python3}
MQGEN = $(MQGEN_PY) $(top_srcdir)/wrappers/gen/mqgen.py
MQAPI = $(top_srcdir)/wrappers/api/mqlink.api
# The generator: its entry point and its package (wrappers/gen/README.md).
MQGEN_FILES = \
	wrappers/gen/mqgen.py \
	wrappers/gen/mqgen/__init__.py \
	wrappers/gen/mqgen/model.py \
	wrappers/gen/mqgen/types.py \
	wrappers/gen/mqgen/parse.py \
	wrappers/gen/mqgen/plan.py \
	wrappers/gen/mqgen/text.py \
	wrappers/gen/mqgen/cxx.py \
	wrappers/gen/mqgen/java.py \
	wrappers/gen/mqgen/python_glue.py \
	wrappers/gen/mqgen/python_plain.py \
	wrappers/gen/mqgen/python_stubs.py \
	wrappers/gen/mqgen/ruby.py \
	wrappers/gen/mqgen/tcl.py \
	wrappers/gen/mqgen/registry.py \
	wrappers/gen/mqgen/check.py \
	wrappers/gen/mqgen/cli.py
MQGEN_DEPS = $(MQAPI) $(addprefix $(top_srcdir)/,$(MQGEN_FILES))

# What a language extension (Python, Tcl, Ruby: a plain shared object each)
# links besides its own objects: libmqlink, libmkkernel and what a static
# libmqlink needs (perf-aggressive links the libraries into the extension,
# the TLS code with them: OpenSSL and dlopen, TLS_LIBS and DL_LIBS, empty
# in a shared build where TLS is a module).  One list, so that a library
# libmqlink comes to need is named once for all three (the perf-aggressive
# Python, Tcl and Ruby rows could not load, "undefined symbol:
# TLS_client_method", while each extension had a copy without it).
MQEXT_LIBS = -L$(top_builddir)/link/.libs -L$(top_builddir)/kernel/.libs -lmqlink -lmkkernel \
	$(SQLITE3_LIBS) $(LIBCONFIG_LIBS) $(TLS_LIBS) $(DL_LIBS) $(THREAD_LIBS) -lm

# The golden directory goes whole: its files are one per registered output
# (golden_test.sh checks that), so the list is not repeated here.
EXTRA_DIST += \
	wrappers/api/mqlink.api \
	wrappers/api/README.md \
	$(MQGEN_FILES) \
	wrappers/gen/README.md \
	wrappers/gen/golden \
	wrappers/python/pyproject.toml \
	wrappers/python/setup.py \
	wrappers/python/perfserver.py \
	wrappers/python/configfile_test.py \
	wrappers/python/buffer_test.py \
	wrappers/python/threads_test.py \
	wrappers/python/callback_test.py \
	wrappers/python/reconnect_test.py \
	wrappers/python/tls_test.py \
	wrappers/python/taptest.py \
	wrappers/python/typecheck/good.py \
	wrappers/python/typecheck/bad_argv_str.py \
	wrappers/python/typecheck/bad_callback_arity.py \
	wrappers/python/typecheck/bad_enum.py \
	wrappers/cxx/mqlinkcxx.pc.in

# The description covers every public C function; the generator's output
# for a small sample matches the checked-in expected files; a bad description
# line fails with FILE:LINE; a gap in the type table stops the generator; so
# does a list method whose effect on the count Java keeps is unknown.
MQGEN_TESTS = wrappers/gen/api_test.sh wrappers/gen/golden_test.sh \
	wrappers/gen/parse_test.sh wrappers/gen/table_test.sh wrappers/gen/java_count_test.sh
dist_check_SCRIPTS += $(MQGEN_TESTS)
TESTS += $(MQGEN_TESTS)

# ------------------------------------------------------------------ Python
if WITH_PYTHON
pyextdir = $(libdir)/$(PYTHON_SITEDIR)/site-packages
MQPY_EXT = wrappers/python/mqlink$(PYTHON_EXT_SUFFIX)

wrappers/python/gen/glue.c: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/python/gen && $(MQGEN) $(MQAPI) python-glue $@
wrappers/python/gen/glue.h: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/python/gen && $(MQGEN) $(MQAPI) python-h $@
# The stubs as a stub-only package (PEP 561): type checkers skip a lone
# mqlink.pyi beside an extension module in site-packages.
MQPY_STUBS = wrappers/python/mqlink-stubs/__init__.pyi
$(MQPY_STUBS): $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/python/mqlink-stubs && $(MQGEN) $(MQAPI) python-pyi $@
BUILT_SOURCES += wrappers/python/gen/glue.c wrappers/python/gen/glue.h

# The module's objects, always position independent (a static libmqlink in
# perf-aggressive builds is linked into the module; it needs --with-pic).
noinst_LTLIBRARIES += wrappers/python/libmqpy.la
wrappers_python_libmqpy_la_SOURCES = \
	wrappers/python/runtime.c \
	wrappers/python/convert.c \
	wrappers/python/callback.c \
	wrappers/python/runtime.h \
	wrappers/python/module.h
nodist_wrappers_python_libmqpy_la_SOURCES = wrappers/python/gen/glue.c wrappers/python/gen/glue.h
wrappers_python_libmqpy_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/wrappers/python \
	-I$(top_builddir)/wrappers/python $(PYTHON_CPPFLAGS)
wrappers_python_libmqpy_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden -Wno-missing-field-initializers

# A plain shared object named as CPython expects (libtool would add a
# version and refuse -shared in static-only builds).  Not --no-undefined:
# CPython's own symbols are the interpreter's, resolved at import.
$(MQPY_EXT): wrappers/python/libmqpy.la link/libmqlink.la kernel/libmkkernel.la
	$(AM_V_CCLD)$(CC) -shared $(CFLAGS) $(BINDNOW_LDFLAGS) $(LDFLAGS) -o $@ \
	  -Wl,--whole-archive wrappers/python/.libs/libmqpy.a -Wl,--no-whole-archive \
	  $(MQEXT_LIBS) -Wl,-rpath,$(libdir)

# The perfserver as installed: the configured interpreter, the installed module.
# The #! line names the interpreter itself (sys.executable), not a launcher
# (a version manager's shim is a shell script costing two more starts).
wrappers/python/perfserver-python: $(top_srcdir)/wrappers/python/perfserver.py
	$(AM_V_GEN)sed -e "1s|.*|#!`$(PYTHON) -c 'import sys; print(sys.executable)'`|" \
	  -e 's|^# @MQLINK_SITE@|sys.path.insert(0, "$(pyextdir)")|' $< > $@ && chmod +x $@

nodist_pyext_DATA = $(MQPY_EXT)
pystubsdir = $(pyextdir)/mqlink-stubs
nodist_pystubs_DATA = $(MQPY_STUBS)
nodist_bin_SCRIPTS = wrappers/python/perfserver-python
CLEANFILES += $(MQPY_EXT) $(MQPY_STUBS) wrappers/python/gen/glue.c \
	wrappers/python/gen/glue.h \
	wrappers/python/perfserver-python
endif

# --------------------------------------------------------------------- C++
if WITH_CXX
wrappers/cxx/mqlink.hh: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/cxx && $(MQGEN) $(MQAPI) cxx $@
BUILT_SOURCES += wrappers/cxx/mqlink.hh
nodist_include_HEADERS = wrappers/cxx/mqlink.hh
include_HEADERS += wrappers/cxx/mqlink_runtime.hh wrappers/cxx/mqlink_context.hh
MQCXX_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/wrappers/cxx -I$(top_srcdir)/wrappers/cxx

# configure makes the .pc, like the others (a sed rule here had its own
# @prefix@ patterns substituted by configure, and installed them literally)
nodist_pkgconfig_DATA = wrappers/cxx/mqlinkcxx.pc
CLEANFILES += wrappers/cxx/mqlink.hh

bin_PROGRAMS += wrappers/cxx/perfserver-cxx
wrappers_cxx_perfserver_cxx_SOURCES = wrappers/cxx/perfserver.cc
wrappers_cxx_perfserver_cxx_CPPFLAGS = $(MQCXX_CPPFLAGS)
wrappers_cxx_perfserver_cxx_LDADD = link/libmqlink.la kernel/libmkkernel.la
endif

# ------------------------------------------------------------------ tests
# Each binding's own tests, beside what they test; the Python one runs from a
# driver that points it at the build tree (as the interop drivers do), named
# apart from the .py so that the .py.log rule does not pick the source.
WRAPPER_TESTS =
if WITH_PYTHON
WRAPPER_PY_TESTS = wrappers/python/py-configfile.sh wrappers/python/py-buffer.sh \
	wrappers/python/py-threads.sh wrappers/python/py-callback.sh wrappers/python/py-reconnect.sh
if HAVE_OPENSSL
WRAPPER_PY_TESTS += wrappers/python/py-tls.sh
endif
WRAPPER_TESTS += $(WRAPPER_PY_TESTS)
# py-NAME.sh runs wrappers/python/NAME_test.py
$(WRAPPER_PY_TESTS): wrappers/python/py-%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) wrappers/python && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(PYTHON) $(abs_top_srcdir)/wrappers/python/$*_test.py'; } > $@ && chmod +x $@
endif
if WITH_CXX
check_PROGRAMS += wrappers/cxx/configfile_test
wrappers_cxx_configfile_test_SOURCES = wrappers/cxx/configfile_test.cc
wrappers_cxx_configfile_test_CPPFLAGS = $(MQCXX_CPPFLAGS)
wrappers_cxx_configfile_test_LDADD = tests/libmqtest.la link/libmqlink.la kernel/libmkkernel.la
TESTS += wrappers/cxx/configfile_test
check_PROGRAMS += wrappers/cxx/buffer_test
wrappers_cxx_buffer_test_SOURCES = wrappers/cxx/buffer_test.cc
wrappers_cxx_buffer_test_CPPFLAGS = $(MQCXX_CPPFLAGS)
wrappers_cxx_buffer_test_LDADD = tests/libmqtest.la link/libmqlink.la kernel/libmkkernel.la
TESTS += wrappers/cxx/buffer_test
check_PROGRAMS += wrappers/cxx/callback_test
wrappers_cxx_callback_test_SOURCES = wrappers/cxx/callback_test.cc
wrappers_cxx_callback_test_CPPFLAGS = $(MQCXX_CPPFLAGS)
wrappers_cxx_callback_test_LDADD = tests/libmqtest.la link/libmqlink.la kernel/libmkkernel.la
TESTS += wrappers/cxx/callback_test
endif
include wrappers/java/local.mk
include wrappers/ruby/local.mk
TESTS += $(WRAPPER_TESTS)
nodist_check_SCRIPTS = $(WRAPPER_TESTS)
CLEANFILES += wrappers/python/py-configfile.sh wrappers/python/py-buffer.sh \
	wrappers/python/py-threads.sh wrappers/python/py-callback.sh wrappers/python/py-reconnect.sh \
	wrappers/python/py-tls.sh

include wrappers/tcl/local.mk
include tests/interop/local.mk
