# examples/local.mk — the programs a user copies (examples/README.md); make
# check builds them against the build tree and examples_test.sh runs each
# client against its server and compares the output with *.expected.
EXAMPLES_C = examples/c/kv_server examples/c/kv_client examples/c/callback_client
check_PROGRAMS += $(EXAMPLES_C)
examples_c_kv_server_LDADD = link/libmqlink.la kernel/libmkkernel.la
examples_c_kv_client_LDADD = link/libmqlink.la kernel/libmkkernel.la
examples_c_callback_client_LDADD = link/libmqlink.la kernel/libmkkernel.la
if WITH_CXX
check_PROGRAMS += examples/cxx/kv_server examples/cxx/kv_client
examples_cxx_kv_server_SOURCES = examples/cxx/kv_server.cc
examples_cxx_kv_server_CPPFLAGS = $(MQCXX_CPPFLAGS)
examples_cxx_kv_server_LDADD = link/libmqlink.la kernel/libmkkernel.la
examples_cxx_kv_client_SOURCES = examples/cxx/kv_client.cc
examples_cxx_kv_client_CPPFLAGS = $(MQCXX_CPPFLAGS)
examples_cxx_kv_client_LDADD = link/libmqlink.la kernel/libmkkernel.la
endif
EXTRA_DIST += examples/README.md examples/kv.expected examples/callback.expected \
	examples/python/kv_server.py examples/python/kv_client.py \
	examples/python/callback_client.py examples/tcl/kv_server.tcl \
	examples/tcl/kv_client.tcl examples/ruby/kv_server.rb examples/ruby/kv_client.rb
dist_check_SCRIPTS += examples/examples_test.sh
TESTS += examples/examples_test.sh
