# tests/local.mk — the shared test helpers (testlib) every C test links.
check_LTLIBRARIES += tests/libmqtest.la
tests_libmqtest_la_SOURCES = tests/testlib.c tests/testlib.h
