# tests/local.mk — the shared test helpers (testlib) every C test links.
check_LTLIBRARIES += tests/libmqtest.la
tests_libmqtest_la_SOURCES = tests/testlib.c tests/testlib.h

# make install into a temporary root; every .pc through pkg-config and a
# program compiled against it (what a user does first)
dist_check_SCRIPTS += tests/install_test.sh
TESTS += tests/install_test.sh
