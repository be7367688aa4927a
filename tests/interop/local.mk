# tests/interop/local.mk — every language's client against every language's
# server over pipe, uds and tcp with the fork, spawn and thread start modes.
# Included from wrappers/local.mk.
INTEROP_MODES = pipe uds-fork uds-spawn uds-thread tcp-fork tcp-spawn tcp-thread
INTEROP_ENV = LD_LIBRARY_PATH='$(abs_top_builddir)/link/.libs:$(abs_top_builddir)/kernel/.libs' \
	PYTHONPATH='$(abs_top_builddir)/wrappers/python' RUBYLIB='$(abs_top_builddir)/wrappers/ruby' \
	TCLLIBPATH='$(abs_top_builddir)/wrappers/tcl'; \
	export LD_LIBRARY_PATH PYTHONPATH RUBYLIB TCLLIBPATH;
EXTRA_DIST += tests/interop/pyserver.py tests/interop/pyclient.py tests/interop/run_matrix.sh

check_PROGRAMS += tests/interop/cserver tests/interop/cclient
tests_interop_cserver_LDADD = link/libmqlink.la kernel/libmkkernel.la
tests_interop_cclient_LDADD = link/libmqlink.la kernel/libmkkernel.la -lm

INTEROP_TESTS =
if WITH_PYTHON
INTEROP_TESTS += tests/interop/py-py.sh tests/interop/py-c.sh tests/interop/c-py.sh
endif
if WITH_CXX
check_PROGRAMS += tests/interop/cxxserver
tests_interop_cxxserver_SOURCES = tests/interop/cxxserver.cc
tests_interop_cxxserver_CPPFLAGS = $(MQCXX_CPPFLAGS)
tests_interop_cxxserver_LDADD = link/libmqlink.la kernel/libmkkernel.la
check_PROGRAMS += tests/interop/cxxclient
tests_interop_cxxclient_SOURCES = tests/interop/cxxclient.cc
tests_interop_cxxclient_CPPFLAGS = $(MQCXX_CPPFLAGS)
tests_interop_cxxclient_LDADD = link/libmqlink.la kernel/libmkkernel.la
INTEROP_TESTS += tests/interop/c-cxx.sh tests/interop/cxx-c.sh tests/interop/cxx-cxx.sh
if WITH_PYTHON
INTEROP_TESTS += tests/interop/py-cxx.sh tests/interop/cxx-py.sh
endif
endif
# Tcl: a Tcl client against C, C++, Python and Tcl servers, C and Python
# clients against a Tcl server, every mode (wrappers/tcl/local.mk).
if WITH_TCL
INTEROP_TESTS += tests/interop/tcl-tcl.sh tests/interop/tcl-c.sh tests/interop/c-tcl.sh
if WITH_CXX
INTEROP_TESTS += tests/interop/tcl-cxx.sh
endif
if WITH_PYTHON
INTEROP_TESTS += tests/interop/tcl-py.sh tests/interop/py-tcl.sh
endif
endif
TESTS += $(INTEROP_TESTS)
nodist_check_SCRIPTS += $(INTEROP_TESTS)
CLEANFILES += $(INTEROP_TESTS)

# One generated driver per client-server pair, named CLIENT-SERVER.sh; it runs
# run_matrix.sh with the client's and the server's command and the modes.
# (The rule covers every pair; INTEROP_TESTS has those this build can run.)
INTEROP_RUN = $(SHELL) $(abs_top_srcdir)/tests/interop/run_matrix.sh
INTEROP_CLIENT_py = $(PYTHON) $(abs_top_srcdir)/tests/interop/pyclient.py
INTEROP_CLIENT_c = $(abs_top_builddir)/tests/interop/cclient
INTEROP_CLIENT_cxx = $(abs_top_builddir)/tests/interop/cxxclient
INTEROP_SERVER_py = $(PYTHON) $(abs_top_srcdir)/tests/interop/pyserver.py
INTEROP_SERVER_c = $(abs_top_builddir)/tests/interop/cserver
INTEROP_SERVER_cxx = $(abs_top_builddir)/tests/interop/cxxserver
# The number of cases each client runs per mode: run_matrix.sh's plan, so a
# client that stops early fails instead of dropping cases.  The clients in
# INTEROP_CASES_OWN pairs run one case more: a server-specific one against a
# server they know (the same language's; cxx also Python's).
INTEROP_CASES_OWN = py-py cxx-cxx cxx-py tcl-tcl rb-rb java-java
INTEROP_CASES = $$(($(INTEROP_CASES_$(firstword $(subst -, ,$*))) + $(words $(filter $*,$(INTEROP_CASES_OWN)))))
INTEROP_CASES_c = 13
INTEROP_CASES_cxx = 17
INTEROP_CASES_py = 17
INTEROP_CASES_tcl = 18
INTEROP_CASES_rb = 18
INTEROP_CASES_java = 16
INTEROP_CLIENT_tcl = $(TCLSH) $(abs_top_srcdir)/tests/interop/tclclient.tcl
INTEROP_SERVER_tcl = $(TCLSH) $(abs_top_srcdir)/tests/interop/tclserver.tcl
INTEROP_DRIVERS = $(foreach p,py-py py-c c-py c-cxx cxx-c cxx-cxx py-cxx cxx-py \
	tcl-tcl tcl-c c-tcl tcl-cxx tcl-py py-tcl,tests/interop/$(p).sh)
$(INTEROP_DRIVERS): tests/interop/%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(INTEROP_RUN) "$(INTEROP_CLIENT_$(firstword $(subst -, ,$*)))" "$(INTEROP_SERVER_$(lastword $(subst -, ,$*)))" "$(INTEROP_MODES)" "$(INTEROP_CASES)"'; } > $@ && chmod +x $@

# Java: no --fork (the JVM cannot fork); its pairs run over the other modes.
if WITH_JAVA
INTEROP_JAVA_MODES = pipe uds-spawn uds-thread tcp-spawn tcp-thread
INTEROP_CLIENT_java = $(MQJ_RUN) JavaClient
INTEROP_SERVER_java = $(MQJ_RUN) JavaServer
INTEROP_JAVA_TESTS = tests/interop/java-c.sh tests/interop/java-java.sh tests/interop/c-java.sh
if WITH_CXX
INTEROP_JAVA_TESTS += tests/interop/java-cxx.sh
endif
if WITH_PYTHON
INTEROP_JAVA_TESTS += tests/interop/java-py.sh tests/interop/py-java.sh
endif
TESTS += $(INTEROP_JAVA_TESTS)
nodist_check_SCRIPTS += $(INTEROP_JAVA_TESTS)
CLEANFILES += $(INTEROP_JAVA_TESTS)
if WITH_TCL
INTEROP_JAVA_TCL = tests/interop/java-tcl.sh
TESTS += $(INTEROP_JAVA_TCL)
nodist_check_SCRIPTS += $(INTEROP_JAVA_TCL)
CLEANFILES += $(INTEROP_JAVA_TCL)
endif
INTEROP_JAVA_DRIVERS = $(foreach p,java-c java-java c-java java-cxx java-py py-java java-tcl,tests/interop/$(p).sh)
$(INTEROP_JAVA_DRIVERS): tests/interop/%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(INTEROP_RUN) "$(INTEROP_CLIENT_$(firstword $(subst -, ,$*)))" "$(INTEROP_SERVER_$(lastword $(subst -, ,$*)))" "$(INTEROP_JAVA_MODES)" "$(INTEROP_CASES)"'; } > $@ && chmod +x $@
# A Java client against the Ruby server: the modes both have (no fork, no thread).
if WITH_RUBY
TESTS += tests/interop/java-rb.sh
nodist_check_SCRIPTS += tests/interop/java-rb.sh
CLEANFILES += tests/interop/java-rb.sh
tests/interop/java-rb.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(INTEROP_RUN) "$(INTEROP_CLIENT_java)" "$(INTEROP_SERVER_rb)" "pipe uds-spawn tcp-spawn" "$(INTEROP_CASES_java)"'; } > $@ && chmod +x $@
endif
endif

# Ruby: a Ruby client against C, C++, Python and Ruby servers, C and Python
# clients against the Ruby server.  A Ruby server runs pipe, fork and spawn
# (no --thread: the library's threads cannot run Ruby code); rb-rb-gc runs
# client and server under GC.stress (pipe).
if WITH_RUBY
INTEROP_MODES_RB = pipe uds-fork uds-spawn tcp-fork tcp-spawn
INTEROP_CLIENT_rb = $(RUBY) $(abs_top_srcdir)/tests/interop/rbclient.rb
INTEROP_SERVER_rb = $(RUBY) $(abs_top_srcdir)/tests/interop/rbserver.rb
INTEROP_RB_TESTS = tests/interop/rb-c.sh tests/interop/rb-rb.sh tests/interop/c-rb.sh \
	tests/interop/rb-rb-gc.sh
if WITH_PYTHON
INTEROP_RB_TESTS += tests/interop/rb-py.sh tests/interop/py-rb.sh
endif
if WITH_CXX
INTEROP_RB_TESTS += tests/interop/rb-cxx.sh
endif
INTEROP_TESTS += $(INTEROP_RB_TESTS)
EXTRA_DIST += tests/interop/rbclient.rb tests/interop/rbserver.rb
INTEROP_RB_DRIVERS = $(foreach p,rb-c rb-cxx rb-py c-rb py-rb rb-rb,tests/interop/$(p).sh)
# the modes: the Ruby server's when the server is Ruby, else all of them
$(INTEROP_RB_DRIVERS): tests/interop/%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(INTEROP_RUN) "$(INTEROP_CLIENT_$(firstword $(subst -, ,$*)))" "$(INTEROP_SERVER_$(lastword $(subst -, ,$*)))" "$(if $(filter rb,$(lastword $(subst -, ,$*))),$(INTEROP_MODES_RB),$(INTEROP_MODES))" "$(INTEROP_CASES)"'; } > $@ && chmod +x $@
tests/interop/rb-rb-gc.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV) MQRB_GC_STRESS=1; export MQRB_GC_STRESS;'; \
	  echo 'exec $(INTEROP_RUN) "$(INTEROP_CLIENT_rb)" "$(INTEROP_SERVER_rb)" "pipe" "$$(($(INTEROP_CASES_rb) + 1))"'; } > $@ && chmod +x $@
endif

# Stop signals: SIGINT, SIGTERM, SIGHUP to each language's interop server in
# each start mode it has, listening and serving (signal_test.sh; its client
# is Python).
if WITH_PYTHON
SIGNAL_RUN = $(SHELL) $(abs_top_srcdir)/tests/interop/signal_test.sh
SIGNAL_MODES_c = plain fork spawn thread
SIGNAL_MODES_cxx = $(SIGNAL_MODES_c)
SIGNAL_MODES_py = $(SIGNAL_MODES_c)
SIGNAL_MODES_tcl = $(SIGNAL_MODES_c)
SIGNAL_MODES_rb = plain fork spawn
SIGNAL_MODES_java = plain spawn thread
SIGNAL_TESTS = tests/interop/signal-c.sh tests/interop/signal-py.sh
FAILED_TESTS = tests/interop/failed-c.sh tests/interop/failed-py.sh
if WITH_CXX
SIGNAL_TESTS += tests/interop/signal-cxx.sh
FAILED_TESTS += tests/interop/failed-cxx.sh
endif
if WITH_TCL
SIGNAL_TESTS += tests/interop/signal-tcl.sh
FAILED_TESTS += tests/interop/failed-tcl.sh
endif
if WITH_RUBY
SIGNAL_TESTS += tests/interop/signal-rb.sh
FAILED_TESTS += tests/interop/failed-rb.sh
endif
if WITH_JAVA
SIGNAL_TESTS += tests/interop/signal-java.sh
FAILED_TESTS += tests/interop/failed-java.sh
endif
TESTS += $(SIGNAL_TESTS)
nodist_check_SCRIPTS += $(SIGNAL_TESTS)
CLEANFILES += $(SIGNAL_TESTS)
# What --debug N shows, level by level (trace_test.sh, a Python client and
# server).
TESTS += tests/interop/trace.sh
nodist_check_SCRIPTS += tests/interop/trace.sh
CLEANFILES += tests/interop/trace.sh
tests/interop/trace.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(SHELL) $(abs_top_srcdir)/tests/interop/trace_test.sh $(INTEROP_SERVER_py)'; } > $@ && chmod +x $@
# A service that raises is logged by its server with its stack, in every
# language (failed_service_test.sh; FAILED_STACK_LANG: what the stack shows).
TESTS += $(FAILED_TESTS)
nodist_check_SCRIPTS += $(FAILED_TESTS)
CLEANFILES += $(FAILED_TESTS)
FAILED_STACK_c =
FAILED_STACK_cxx =
FAILED_STACK_py = pyserver.py\", line [0-9]*, in FAIL
FAILED_STACK_tcl = while executing
FAILED_STACK_rb = rbserver.rb:[0-9]*:in .FAIL
FAILED_STACK_java = at JavaServer.FAIL(JavaServer.java:
$(FAILED_TESTS): tests/interop/failed-%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(SHELL) $(abs_top_srcdir)/tests/interop/failed_service_test.sh "$(FAILED_STACK_$*)" $(INTEROP_SERVER_$*)'; } > $@ && chmod +x $@
$(SIGNAL_TESTS): tests/interop/signal-%.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/interop && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(SIGNAL_RUN) "$(SIGNAL_MODES_$*)" $(INTEROP_SERVER_$*)'; } > $@ && chmod +x $@
endif
EXTRA_DIST += tests/interop/signal_test.sh tests/interop/trace_test.sh \
	tests/interop/failed_service_test.sh
