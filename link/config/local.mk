# link/config/local.mk — libconfig files (issue 5): link options from
# --config FILE and the proposed public config-file API; a convenience
# library that link/local.mk links into libmqlink, and its tests.
if HAVE_LIBCONFIG
noinst_LTLIBRARIES += link/config/libmqconfig.la
noinst_HEADERS += link/config/config_int.h link/config/config_load.h
link_config_libmqconfig_la_SOURCES = \
	link/config/config.c \
	link/config/config_load.c
link_config_libmqconfig_la_CFLAGS = $(AM_CFLAGS) $(VISIBILITY_CFLAGS) $(LIBCONFIG_CFLAGS)
link_config_libmqconfig_la_LIBADD = $(LIBCONFIG_LIBS)

check_PROGRAMS += link/config/config_test
TESTS += link/config/config_test
# The keys come from the link's option rows (link/option.h), so the test
# links the whole link, which holds libmqconfig.
link_config_config_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests -I$(top_srcdir)/link \
	-I$(top_srcdir)/link/config
link_config_config_test_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
link_config_config_test_LDADD = link/libmqlink_objs.la kernel/libmkkernel_objs.la tests/libmqtest.la \
	$(LIBCONFIG_LIBS)
endif
