# kernel/local.mk — libmkkernel and its tests.
# The objects are a convenience library: libmkkernel.la is it, exporting the
# public header only (-fvisibility=hidden); the tests, which call internals
# (mk_internal.h), link the objects themselves.
lib_LTLIBRARIES += kernel/libmkkernel.la
include_HEADERS += kernel/mkkernel.h
noinst_HEADERS += kernel/mk_internal.h
noinst_LTLIBRARIES += kernel/libmkkernel_objs.la
kernel_libmkkernel_objs_la_SOURCES = \
	kernel/buffer.c \
	kernel/convert.c \
	kernel/stream.c \
	kernel/stream_read.c \
	kernel/stream_wire.c \
	kernel/tls.c \
	kernel/list.c \
	kernel/error.c \
	kernel/log.c \
	kernel/version.c
kernel_libmkkernel_objs_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS)
kernel_libmkkernel_objs_la_LIBADD = $(THREAD_LIBS) -lm
kernel_libmkkernel_la_SOURCES =
kernel_libmkkernel_la_LIBADD = kernel/libmkkernel_objs.la
kernel_libmkkernel_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0

KERNEL_TEST_LIBS = kernel/libmkkernel_objs.la tests/libmqtest.la
KERNEL_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
check_PROGRAMS += kernel/buffer_test kernel/stream_test kernel/stream_wire_test kernel/list_test
TESTS += kernel/buffer_test kernel/stream_test kernel/stream_wire_test kernel/list_test
kernel_buffer_test_LDADD = $(KERNEL_TEST_LIBS)
kernel_buffer_test_CPPFLAGS = $(KERNEL_TEST_CPPFLAGS)
# tests/stream_sample.* are test helpers shared by the two stream tests.
kernel_stream_test_SOURCES = kernel/stream_test.c tests/stream_sample.c tests/stream_sample.h
kernel_stream_test_LDADD = $(KERNEL_TEST_LIBS)
kernel_stream_test_CPPFLAGS = $(KERNEL_TEST_CPPFLAGS)
kernel_stream_wire_test_SOURCES = kernel/stream_wire_test.c tests/stream_sample.c \
	tests/stream_sample.h
kernel_stream_wire_test_LDADD = $(KERNEL_TEST_LIBS)
kernel_stream_wire_test_CPPFLAGS = $(KERNEL_TEST_CPPFLAGS)
kernel_list_test_LDADD = $(KERNEL_TEST_LIBS)
kernel_list_test_CPPFLAGS = $(KERNEL_TEST_CPPFLAGS)
