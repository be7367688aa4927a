# mqlink.gemspec — `gem build mqlink.gemspec` in this folder (its files are
# named from here) then `gem install mqlink-*.gem` builds the extension against an installed
# mqlink (MQLINK_PREFIX=... or pkg-config), as `pip install wrappers/python`
# does for Python.  The gem carries the generated glue, so building it needs
# no generator: gem build runs from a tree where `make` made gen/glue.c, or
# generates it (extconf.rb).
here = File.expand_path(__dir__)
glue = File.join(here, "gen", "glue.c")
unless File.exist?(glue)
  top = File.expand_path("../..", here)
  system("python3", File.join(top, "wrappers/gen/mqgen.py"), File.join(top, "wrappers/api/mqlink.api"),
         "ruby", glue) or raise "cannot generate #{glue}"
end

Gem::Specification.new do |s|
  s.name = "mqlink"
  s.version = "0.1.0"
  s.summary = "mqlink: typed message passing between processes and threads"
  s.description = "Ruby binding of libmqlink: contexts, services, send/read, buffers, config files."
  s.authors = ["mqlink"]
  s.license = "MIT"
  s.required_ruby_version = ">= 3.0"
  s.files = %w[extconf.rb runtime.h addr_cache.h runtime.c convert.c callback.c bufpool.c view.c gen/glue.c]
  s.extensions = ["extconf.rb"]
  s.require_paths = ["lib"]
end
