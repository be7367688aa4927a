# link/local.mk — libmqlink and its tests.
lib_LTLIBRARIES += link/libmqlink.la
include_HEADERS += link/mqlink.h
noinst_HEADERS += link/link_int.h link/option.h link/transport/transport.h link/start/start.h
noinst_HEADERS += link/persist_int.h link/transport/tls/tls.h
# TLS on OpenSSL (link/transport/tls/), when configure found it
if HAVE_OPENSSL
TLS_SOURCES = link/transport/tls/tls_ctx.c link/transport/tls/tls_io.c
endif
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
	link/hooks.c \
	link/service.c \
	link/send.c \
	link/read.c \
	link/persist.c \
	link/persist_resume.c \
	link/persist_recv.c \
	link/transport/transport.c \
	link/transport/pipe/pipe.c \
	link/transport/uds/uds.c \
	link/transport/tcp/tcp.c \
	link/start/start.c \
	$(TLS_SOURCES) \
	link/start/fork.c \
	link/start/thread.c \
	link/start/spawn.c
link_libmqlink_objs_la_LIBADD = link/storage/libmqstorage.la link/config/libmqconfig.la \
	$(OPENSSL_LIBS) $(THREAD_LIBS)
link_libmqlink_objs_la_CPPFLAGS = $(AM_CPPFLAGS) $(OPENSSL_CFLAGS)
link_libmqlink_la_SOURCES =
link_libmqlink_la_LIBADD = link/libmqlink_objs.la kernel/libmkkernel.la $(OPENSSL_LIBS) \
	$(THREAD_LIBS)
link_libmqlink_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0

LINK_TEST_LIBS = link/libmqlink_objs.la kernel/libmkkernel_objs.la tests/libmqtest.la
# the helpers every link test shares and the conformance suite (tests/)
LINK_TEST_HELPERS = tests/liblinktest.la $(LINK_TEST_LIBS)

# A test beside the code it checks; the conformance suite's rows run in
# pipe_test (pipe) and start_test (every start mode over uds and tcp).
LINK_TESTS = link/fault_test link/persist_test link/block_test \
	link/transport/pipe/pipe_test link/transport/tcp/tcp_test \
	link/transport/uds/uds_test link/start/start_test link/start/fork_test \
	link/limits_test link/option_test link/reconnect_test
check_PROGRAMS += $(LINK_TESTS)
TESTS += $(LINK_TESTS) link/layers_test.py link/parent_syscalls_test.sh
EXTRA_DIST += link/layers_test.py
dist_check_SCRIPTS += link/parent_syscalls_test.sh
link_transport_pipe_pipe_test_LDADD = $(LINK_TEST_HELPERS)
link_transport_tcp_tcp_test_LDADD = $(LINK_TEST_HELPERS)
link_transport_uds_uds_test_LDADD = $(LINK_TEST_HELPERS)
link_start_start_test_LDADD = $(LINK_TEST_HELPERS)
link_start_fork_test_LDADD = $(LINK_TEST_HELPERS)
link_block_test_LDADD = $(LINK_TEST_HELPERS)
link_fault_test_LDADD = $(LINK_TEST_HELPERS)
link_limits_test_LDADD = $(LINK_TEST_HELPERS)
link_reconnect_test_LDADD = $(LINK_TEST_HELPERS)
link_option_test_LDADD = $(LINK_TEST_LIBS)
if HAVE_OPENSSL
check_PROGRAMS += link/transport/tls/tls_test
TESTS += link/transport/tls/tls_test
link_transport_tls_tls_test_LDADD = $(LINK_TEST_HELPERS)
endif
link_persist_test_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
link_persist_test_LDADD = $(LINK_TEST_HELPERS) $(SQLITE3_LIBS)
