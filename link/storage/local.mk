# link/storage/local.mk — sqlite3 storage for persistent delivery (issue 5):
# a convenience library that link/local.mk links into libmqlink, and its tests.
if HAVE_SQLITE3
noinst_LTLIBRARIES += link/storage/libmqstorage.la
noinst_HEADERS += link/storage/storage.h link/storage/storage_int.h
link_storage_libmqstorage_la_SOURCES = \
	link/storage/storage.c \
	link/storage/storage_txn.c \
	link/storage/storage_calls.c \
	link/storage/storage_dir.c
link_storage_libmqstorage_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS) $(SQLITE3_CFLAGS)
link_storage_libmqstorage_la_LIBADD = $(SQLITE3_LIBS)

STORAGE_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/link/storage
STORAGE_TEST_LIBS = link/storage/libmqstorage.la kernel/libmkkernel.la tests/libmqtest.la \
	$(SQLITE3_LIBS)
check_PROGRAMS += link/storage/storage_test link/storage/storage_fault_test \
	link/storage/storage_dir_test
TESTS += link/storage/storage_test link/storage/storage_fault_test \
	link/storage/storage_dir_test
link_storage_storage_test_CPPFLAGS = $(STORAGE_TEST_CPPFLAGS)
link_storage_storage_test_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
link_storage_storage_test_LDADD = $(STORAGE_TEST_LIBS)
link_storage_storage_fault_test_CPPFLAGS = $(STORAGE_TEST_CPPFLAGS)
link_storage_storage_fault_test_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
link_storage_storage_fault_test_LDADD = $(STORAGE_TEST_LIBS)
link_storage_storage_dir_test_CPPFLAGS = $(STORAGE_TEST_CPPFLAGS)
link_storage_storage_dir_test_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
link_storage_storage_dir_test_LDADD = $(STORAGE_TEST_LIBS)
endif
