# link/local.mk — libmqlink and its tests.
lib_LTLIBRARIES += link/libmqlink.la
include_HEADERS += link/mqlink.h
noinst_HEADERS += link/link_int.h link/option.h link/transport/transport.h link/start/start.h
noinst_HEADERS += link/persist.h link/persist_int.h
noinst_HEADERS += link/transport/tls/tls.h link/transport/tls/tls_int.h
# TLS on OpenSSL (link/transport/tls/), when configure found it.  The core
# has only the loader (tls_load.c); the code naming OpenSSL is a module
# loaded by the first link that asks for TLS, so libmqlink does not link
# libssl/libcrypto and a plain link's process never maps them.  Without
# shared libraries (--disable-shared) the module's code is linked in.
TLS_MODULE_SOURCES = link/transport/tls/tls_ctx.c link/transport/tls/tls_io.c \
	link/transport/tls/tls_module.c
if HAVE_OPENSSL
TLS_SOURCES = link/transport/tls/tls_load.c
if SHARED_LIBS
pkglib_LTLIBRARIES += link/mqlink_tls.la
link_mqlink_tls_la_SOURCES = $(TLS_MODULE_SOURCES)
link_mqlink_tls_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
link_mqlink_tls_la_CPPFLAGS = $(AM_CPPFLAGS) -DMQI_IN_MODULE $(OPENSSL_CFLAGS)
# libmqlink named explicitly: a binding loads it RTLD_LOCAL, and the
# module's calls into it must resolve all the same
link_mqlink_tls_la_LIBADD = link/libmqlink.la kernel/libmkkernel.la $(OPENSSL_LIBS)
link_mqlink_tls_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -no-undefined
else
TLS_SOURCES += $(TLS_MODULE_SOURCES)
TLS_LIBS = $(OPENSSL_LIBS)
TLS_CPPFLAGS = -DMQI_TLS_BUILTIN $(OPENSSL_CFLAGS)
endif
endif
# Persistent delivery on sqlite3 (persist*.c on link/storage/) the same way:
# the core has the hooks and the public calls (persist_load.c), a module the
# rest, loaded on the first persistent need.
PERSIST_MODULE_SOURCES = link/persist.c link/persist_resume.c link/persist_recv.c
if SHARED_LIBS
pkglib_LTLIBRARIES += link/mqlink_persist.la
link_mqlink_persist_la_SOURCES = $(PERSIST_MODULE_SOURCES)
link_mqlink_persist_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
link_mqlink_persist_la_CPPFLAGS = $(AM_CPPFLAGS) -DMQI_IN_MODULE
link_mqlink_persist_la_LIBADD = link/storage/libmqstorage.la link/libmqlink.la \
	kernel/libmkkernel.la $(SQLITE3_LIBS)
link_mqlink_persist_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -no-undefined
else
PERSIST_SOURCES = $(PERSIST_MODULE_SOURCES)
PERSIST_LIBS = link/storage/libmqstorage.la
PERSIST_CPPFLAGS = -DMQI_PERSIST_BUILTIN
endif
# libtool relinks a module against the installed libmqlink: that one first.
# Only a prerequisite: named through a variable, so that automake does not
# take it for a rule replacing its own recipe.
PKGLIB_INSTALL = install-pkglibLTLIBRARIES
$(PKGLIB_INSTALL): install-libLTLIBRARIES
# As in kernel/local.mk: the objects are a convenience library built with
# -fvisibility=hidden, libmqlink.la exports mqlink.h only, and the tests and
# the fuzz targets, which call internals (link_int.h), link the objects.
noinst_LTLIBRARIES += link/libmqlink_objs.la
link_libmqlink_objs_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
link_libmqlink_objs_la_SOURCES = \
	link/block.c \
	link/context.c \
	link/options.c \
	link/version.c \
	link/link.c \
	link/listen.c \
	link/stop.c \
	link/trace.c \
	link/trace.h \
	link/conn.c \
	link/frame.c \
	link/pending.c \
	link/idmap.c \
	link/event.c \
	link/keeper.c \
	link/detached.c \
	link/hooks.c \
	link/module.c \
	link/service.c \
	link/send.c \
	link/read.c \
	link/persist_load.c \
	$(PERSIST_SOURCES) \
	link/transport/transport.c \
	link/transport/pipe/pipe.c \
	link/transport/uds/uds.c \
	link/transport/tcp/tcp.c \
	link/start/start.c \
	$(TLS_SOURCES) \
	link/start/fork.c \
	link/start/thread.c \
	link/start/spawn.c
link_libmqlink_objs_la_LIBADD = $(PERSIST_LIBS) link/config/libmqconfig.la \
	$(TLS_LIBS) $(DL_LIBS) $(THREAD_LIBS)
link_libmqlink_objs_la_CPPFLAGS = $(AM_CPPFLAGS) $(TLS_CPPFLAGS) $(PERSIST_CPPFLAGS)
link_libmqlink_la_SOURCES =
link_libmqlink_la_LIBADD = link/libmqlink_objs.la kernel/libmkkernel.la $(TLS_LIBS) $(DL_LIBS) \
	$(THREAD_LIBS)
link_libmqlink_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0

LINK_TEST_LIBS = link/libmqlink_objs.la kernel/libmkkernel_objs.la tests/libmqtest.la
# the helpers every link test shares and the conformance suite (tests/)
LINK_TEST_HELPERS = tests/liblinktest.la $(LINK_TEST_LIBS)
# the same for a test of the library as a program uses it (the public API only)
LINK_SHARED_HELPERS = tests/liblinktest.la link/libmqlink.la kernel/libmkkernel.la \
	tests/libmqtest.la

# A test beside the code it checks; the conformance suite's rows run in
# pipe_test (pipe) and start_test (every start mode over uds and tcp).
LINK_TESTS = link/fault_test link/persist_test link/block_test \
	link/transport/pipe/pipe_test link/transport/tcp/tcp_test \
	link/transport/uds/uds_test link/start/start_test link/start/fork_test \
	link/start/thread_test \
	link/limits_test link/option_test link/reconnect_test link/service_test link/stop_test \
	link/keeper_test
check_PROGRAMS += $(LINK_TESTS)
TESTS += $(LINK_TESTS) link/layers_test.py link/parent_syscalls_test.sh link/thread_pool_test.sh
EXTRA_DIST += link/layers_test.py
dist_check_SCRIPTS += link/parent_syscalls_test.sh link/thread_pool_test.sh
link_transport_pipe_pipe_test_LDADD = $(LINK_TEST_HELPERS)
link_transport_tcp_tcp_test_LDADD = $(LINK_TEST_HELPERS)
link_transport_uds_uds_test_LDADD = $(LINK_TEST_HELPERS)
link_start_start_test_LDADD = $(LINK_TEST_HELPERS)
link_start_fork_test_LDADD = $(LINK_TEST_HELPERS)
link_start_thread_test_LDADD = $(LINK_TEST_HELPERS)
link_block_test_LDADD = $(LINK_TEST_HELPERS)
# defines poll, recv and accept4 over the library's calls: linked statically
link_stop_test_LDADD = $(LINK_TEST_HELPERS)
# persistent calls (the module): through the shared library, as a program
link_fault_test_LDADD = $(LINK_SHARED_HELPERS)
link_limits_test_LDADD = $(LINK_TEST_HELPERS)
link_reconnect_test_LDADD = $(LINK_TEST_HELPERS)
link_keeper_test_LDADD = $(LINK_TEST_LIBS) $(THREAD_LIBS)
link_option_test_LDADD = $(LINK_TEST_LIBS)
link_service_test_LDADD = $(LINK_TEST_LIBS)
if HAVE_OPENSSL
check_PROGRAMS += link/transport/tls/tls_test
TESTS += link/transport/tls/tls_test
# the shared library, as a user's program: TLS through the module
link_transport_tls_tls_test_LDADD = $(LINK_SHARED_HELPERS)
endif
if SHARED_LIBS
# TLS and persistent delivery as modules: plain links map neither OpenSSL
# nor sqlite3, libmqlink needs neither
check_PROGRAMS += link/module_test
TESTS += link/module_test link/module_needed_test.sh
dist_check_SCRIPTS += link/module_needed_test.sh
link_module_test_LDADD = $(LINK_SHARED_HELPERS)
endif
link_persist_test_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
# every transport and start mode, TLS included: through the shared library
link_persist_test_LDADD = $(LINK_SHARED_HELPERS) $(SQLITE3_LIBS)
