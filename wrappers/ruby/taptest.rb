# taptest.rb — the smallest TAP runner for the Ruby binding's tests: each
# `test "name" do ... end` prints one "ok N - name" or "not ok N - name".
$stdout.sync = true
$tap_n = 0
$tap_failed = 0

def test(name)
  $tap_n += 1
  begin
    yield
    puts "ok #{$tap_n} - #{name}"
  rescue Exception => e
    raise if e.is_a?(SystemExit) || e.is_a?(Interrupt)
    $tap_failed += 1
    puts "not ok #{$tap_n} - #{name}"
    puts "#   #{e.class}: #{e.message}".gsub("\n", "\n#   ")
    e.backtrace.first(3).each { |l| puts "#   #{l}" }
  end
end

def check(cond, why = "check failed")
  raise why unless cond
end

def raises(klass, pattern = nil)
  yield
rescue klass => e
  raise "#{klass} without #{pattern.inspect}: #{e.message}" if pattern && e.message !~ pattern
  e
else
  raise "no #{klass}"
end

at_exit { puts "1..#{$tap_n}" }
