# perfclient/local.mk — the client of the performance suite and perflimit,
# the machine-limit program behind the `L: limit` row (no mqlink inside).
bin_PROGRAMS += perfclient/perfclient perfclient/perflimit perfclient/perfstart
noinst_HEADERS += perfclient/perfclient.h perfclient/perflimit.h perfclient/clock.h perfclient/floor.h perfclient/runs.h
perfclient_perfclient_SOURCES = perfclient/perfclient.c perfclient/tests.c perfclient/create.c \
	perfclient/scaling.c perfclient/links.c
perfclient_perfclient_LDADD = link/libmqlink.la kernel/libmkkernel.la $(THREAD_LIBS)
perfclient_perflimit_SOURCES = perfclient/perflimit.c perfclient/limit_io.c perfclient/limit_start.c \
	perfclient/limit_connect.c perfclient/limit_sqlite.c
perfclient_perfstart_SOURCES = perfclient/perfstart.c
perfclient_perflimit_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
perfclient_perflimit_LDADD = $(THREAD_LIBS) $(SQLITE3_LIBS)
# perfpeer-zmq: ZeroMQ measured like perfclient measures the link (P: ZeroMQ)
if HAVE_ZMQ
bin_PROGRAMS += perfclient/perfpeer-zmq
perfclient_perfpeer_zmq_SOURCES = perfclient/peer_zmq.c perfclient/peer_zmq_serve.c perfclient/peer_zmq.h
perfclient_perfpeer_zmq_CFLAGS = $(AM_CFLAGS) $(ZMQ_CFLAGS)
perfclient_perfpeer_zmq_LDADD = $(ZMQ_LIBS)
endif
# the PARENT floor's clients are as many as PARENT's workers (issue 16)
TESTS += perfclient/perflimit_connect_test.sh
dist_check_SCRIPTS += perfclient/perflimit_connect_test.sh
