# tests/local.mk — the shared test helpers (testlib) every C test links.
check_LTLIBRARIES += tests/libmqtest.la
tests_libmqtest_la_SOURCES = tests/testlib.c tests/testlib.h

# The link's test support: the server the link tests talk to, the helpers
# they share (modes, raw peers, server logs) and the conformance suite whose
# rows the tests beside each transport and start mode run.
check_PROGRAMS += tests/testserver
tests_testserver_LDADD = link/libmqlink.la kernel/libmkkernel.la
check_LTLIBRARIES += tests/liblinktest.la
tests_liblinktest_la_SOURCES = tests/linktest.c tests/linktest.h \
	tests/conformance.c tests/conformance.h

# the libraries export their public headers and nothing else (shared builds)
dist_check_SCRIPTS += tests/abi_test.sh
TESTS += tests/abi_test.sh

# make install into a temporary root; every .pc through pkg-config and a
# program compiled against it (what a user does first)
dist_check_SCRIPTS += tests/install_test.sh
TESTS += tests/install_test.sh
# `make install` relinks the libraries libtool-style while it runs, and the
# other tests run programs from the build tree: this one runs last.
tests/install_test.log: $(filter-out tests/install_test.log tests/leftovers_test.log,$(TEST_LOGS))

# no test leaves files in its TMPDIR (each test's own, Makefile.am): after
# every other test, install_test too
dist_check_SCRIPTS += tests/leftovers_test.sh
TESTS += tests/leftovers_test.sh
tests/leftovers_test.log: $(filter-out tests/leftovers_test.log,$(TEST_LOGS))
CLEANFILES += $(TEST_LOGS:=.tmpdir)

# one version everywhere: --version of C and each language's perfserver,
# MqVersion/MkVersion in every binding
dist_check_SCRIPTS += tests/version_test.sh
TESTS += tests/version_test.sh

# messages that fit a user's first mistakes (no transport, a string for argv)
dist_check_SCRIPTS += tests/usage_test.sh
TESTS += tests/usage_test.sh

# the README's C example, taken from README.md: no warning, and it serves
dist_check_SCRIPTS += tests/readme_test.sh
TESTS += tests/readme_test.sh

# two hosts: a server in one network namespace, clients in another, joined
# by a veth pair (run as root; skipped with the reason otherwise)
check_PROGRAMS += tests/persist_stream
tests_persist_stream_LDADD = link/libmqlink.la kernel/libmkkernel.la
dist_check_SCRIPTS += tests/hosts_test.sh
TESTS += tests/hosts_test.sh
# test certificates, made at test time (TLS tests, the suite's tcp_tls rows)
dist_check_SCRIPTS += tests/tls_certs.sh
