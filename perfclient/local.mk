# perfclient/local.mk — the client of the performance suite and perflimit,
# the machine-limit program behind the `L: limit` row (no mqlink inside).
bin_PROGRAMS += perfclient/perfclient perfclient/perflimit
noinst_HEADERS += perfclient/perfclient.h perfclient/perflimit.h perfclient/clock.h perfclient/runs.h
perfclient_perfclient_SOURCES = perfclient/perfclient.c perfclient/tests.c perfclient/create.c
perfclient_perfclient_LDADD = link/libmqlink.la kernel/libmkkernel.la $(THREAD_LIBS)
perfclient_perflimit_SOURCES = perfclient/perflimit.c perfclient/limit_io.c perfclient/limit_start.c \
	perfclient/limit_connect.c perfclient/limit_sqlite.c
perfclient_perflimit_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS)
perfclient_perflimit_LDADD = $(THREAD_LIBS) $(SQLITE3_LIBS)
