# wrappers/ruby/local.mk — the Ruby extension (module Mqlink): the generated
# glue (gen/glue.c, from the generator's "ruby" output) and the hand-written
# runtime, linked into mqlink.so and installed into $(libdir)/ruby, so that
# `require 'mqlink'` works with RUBYLIB=$(prefix)/lib/ruby; its perfserver,
# the floor program and the tests.  Included from wrappers/local.mk.

EXTRA_DIST += \
	wrappers/ruby/mqlink.gemspec \
	wrappers/ruby/extconf.rb \
	wrappers/ruby/perfserver.rb \
	wrappers/ruby/taptest.rb \
	wrappers/ruby/buffer_test.rb \
	wrappers/ruby/callback_test.rb \
	wrappers/ruby/threads_test.rb \
	wrappers/ruby/configfile_test.rb

if WITH_RUBY
rbextdir = $(libdir)/ruby
MQRB_EXT = wrappers/ruby/mqlink.so

wrappers/ruby/gen/glue.c: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/ruby/gen && $(MQGEN) $(MQAPI) ruby $@
BUILT_SOURCES += wrappers/ruby/gen/glue.c

# Position independent always: a static libmqlink (perf-aggressive) is
# linked into the extension.
noinst_LTLIBRARIES += wrappers/ruby/libmqrb.la
wrappers_ruby_libmqrb_la_SOURCES = \
	wrappers/ruby/runtime.c \
	wrappers/ruby/convert.c \
	wrappers/ruby/callback.c \
	wrappers/ruby/bufpool.c \
	wrappers/ruby/view.c \
	wrappers/ruby/runtime.h \
	wrappers/ruby/addr_cache.h
nodist_wrappers_ruby_libmqrb_la_SOURCES = wrappers/ruby/gen/glue.c
wrappers_ruby_libmqrb_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/wrappers/ruby $(RUBY_CPPFLAGS)
# NOPLT_CFLAGS (-fno-plt, configure.ac): each call into libmqlink,
# libmkkernel and libruby goes through its GOT entry, not a PLT stub's jump
# (the extension is linked with BINDNOW_LDFLAGS: its symbols are resolved
# when it is loaded either way): one instruction less per call, ~55 of a BUS
# message's server instructions (the glue's 48 calls, the runtime's).
wrappers_ruby_libmqrb_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden $(NOPLT_CFLAGS) \
	-Wno-missing-field-initializers -Wno-strict-prototypes -Wno-shadow

# A plain shared object named as Ruby expects; only Init_mqlink is exported.
# --no-undefined: a symbol nothing provides fails the link, not the
# `require` (with -z now every symbol is resolved when the extension is
# loaded); MQEXT_LIBS (wrappers/local.mk) names what libmqlink needs.
$(MQRB_EXT): wrappers/ruby/libmqrb.la link/libmqlink.la kernel/libmkkernel.la
	$(AM_V_CCLD)$(CC) -shared $(CFLAGS) $(BINDNOW_LDFLAGS) $(LDFLAGS) -Wl,--no-undefined -o $@ \
	  -Wl,--whole-archive wrappers/ruby/.libs/libmqrb.a -Wl,--no-whole-archive \
	  $(MQEXT_LIBS) -L$(RUBY_LIBDIR) $(RUBY_LIBS) -Wl,-rpath,$(libdir)

# The perfserver as installed: it finds the installed extension itself.
wrappers/ruby/inst/perfserver.rb: $(top_srcdir)/wrappers/ruby/perfserver.rb
	$(AM_V_GEN)$(MKDIR_P) wrappers/ruby/inst && \
	  sed -e 's|^# @MQLINK_RUBYLIB@|$$LOAD_PATH.unshift("$(rbextdir)")|' $< > $@

# The floor: C calling into Ruby through the runtime's own path, the empty
# service and perfserver.rb's (the installed one by default) over a no-op binding.
bin_PROGRAMS += wrappers/ruby/perffloor-ruby
wrappers_ruby_perffloor_ruby_SOURCES = wrappers/ruby/perffloor.c wrappers/ruby/perffloor_nop.c \
	wrappers/ruby/perffloor.h
wrappers_ruby_perffloor_ruby_CPPFLAGS = $(AM_CPPFLAGS) $(RUBY_CPPFLAGS) -I$(top_srcdir)/perfclient \
	-DMQRB_PERFSERVER='"$(mqlinkrbdir)/perfserver.rb"'
wrappers_ruby_perffloor_ruby_CFLAGS = $(AM_CFLAGS) -Wno-strict-prototypes -Wno-shadow
wrappers_ruby_perffloor_ruby_LDADD = -L$(RUBY_LIBDIR) $(RUBY_LIBS)

rbext_DATA =
nodist_rbext_DATA = $(MQRB_EXT)
mqlinkrbdir = $(datadir)/mqlink
nodist_mqlinkrb_DATA = wrappers/ruby/inst/perfserver.rb
CLEANFILES += $(MQRB_EXT) wrappers/ruby/gen/glue.c wrappers/ruby/inst/perfserver.rb

# Tests: rb-NAME.sh runs wrappers/ruby/NAME_test.rb against the build tree.
WRAPPER_RB_TESTS = wrappers/ruby/rb-buffer.sh wrappers/ruby/rb-callback.sh \
	wrappers/ruby/rb-threads.sh wrappers/ruby/rb-configfile.sh
WRAPPER_TESTS += $(WRAPPER_RB_TESTS)
TESTS += wrappers/ruby/perffloor_test.sh
dist_check_SCRIPTS += wrappers/ruby/perffloor_test.sh
$(WRAPPER_RB_TESTS): wrappers/ruby/rb-%.sh: Makefile $(MQRB_EXT)
	$(AM_V_GEN)$(MKDIR_P) wrappers/ruby && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(RUBY) $(abs_top_srcdir)/wrappers/ruby/$*_test.rb'; } > $@ && chmod +x $@
CLEANFILES += $(WRAPPER_RB_TESTS)
endif
