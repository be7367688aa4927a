# perfserver/local.mk — the C server of the performance suite (installed:
# performance.bash runs the installed tree).
bin_PROGRAMS += perfserver/perfserver
perfserver_perfserver_SOURCES = perfserver/perfserver.c
perfserver_perfserver_LDADD = link/libmqlink.la kernel/libmkkernel.la $(THREAD_LIBS)
