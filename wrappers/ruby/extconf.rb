# extconf.rb — builds the mqlink extension against an installed mqlink
# (gem install, or `ruby extconf.rb && make`): the runtime sources of this
# directory plus gen/glue.c, which the generator writes from the API
# description (wrappers/gen/mqgen.py ... ruby gen/glue.c) before the build.
#
#   MQLINK_PREFIX=/usr/local   where mqlink is installed (default: pkg-config mqlink)
require 'mkmf'

here = File.expand_path(__dir__)
top = File.expand_path("../..", here)
glue = File.join(here, "gen", "glue.c")
unless File.exist?(glue)
  # from a source tree: generate the glue now (python3, standard library only)
  system("python3", File.join(top, "wrappers/gen/mqgen.py"),
         File.join(top, "wrappers/api/mqlink.api"), "ruby", glue) or
    abort "extconf.rb: cannot generate #{glue} (python3 and wrappers/gen needed)"
end

if (prefix = ENV["MQLINK_PREFIX"])
  $CPPFLAGS << " -I#{prefix}/include"
  $LDFLAGS << " -L#{prefix}/lib -Wl,-rpath,#{prefix}/lib"
else
  pkg_config("mqlink") or abort "extconf.rb: mqlink not found (set MQLINK_PREFIX or PKG_CONFIG_PATH)"
end
abort "extconf.rb: mqlink.h not found" unless have_header("mqlink.h")
abort "extconf.rb: libmqlink not found" unless have_library("mqlink", "MqContextCreate")
have_library("mkkernel", "MkBufferCreate")

$srcs = %w[runtime.c convert.c callback.c bufpool.c view.c gen/glue.c].map { |f| File.join(here, f) }
$VPATH << here << File.join(here, "gen")
$INCFLAGS << " -I#{here}"
$CFLAGS << " -std=gnu11 -fvisibility=hidden"
append_cflags("-fno-plt") # calls through the GOT, as local.mk builds it
create_makefile("mqlink")
