# threads_test.rb — the GVL: other Ruby threads run while a call waits
# (SendEND_AND_WAIT, ProcessEvent), frames already read are served without
# releasing it, an interrupt ends a wait, and contexts in several threads.
require_relative 'taptest'
require 'mqlink'
include Mqlink

SERVER = ["@", RbConfig.ruby, File.expand_path("../../tests/interop/rbserver.rb", __dir__)]
# Links of the tests with several threads: a wait that never ends fails in
# seconds (the library's timeout), not at the harness's limit.
BOUNDED = ["--timeout", "10"] + SERVER

# Join every thread within secs, or fail naming the ones still running.
def join_all(threads, secs)
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + secs
  late = threads.each_index.reject do |i|
    threads[i].join([deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC), 0].max)
  end
  threads.each { |t| t.kill if t.alive? }
  raise "threads #{late.inspect} still running after #{secs} s" unless late.empty?
  threads.map(&:value)
end

# Whether another Ruby thread ran during a wait: a ticker counts without
# end, and each wait (the block) is one try; a wait that kept the GVL lets
# it count at most once (a switch just before the wait began), one that
# released it lets it count on.  Tried again until a wait shows it (30 s
# at most), so a loaded machine makes the test slower, never wrong.
def ran_during_wait
  ticks = 0
  ticker = Thread.new { loop { ticks += 1; sleep 0.001 } }
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 30
  most = 0
  while most < 3 && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
    before = ticks
    yield
    most = [most, ticks - before].max
  end
  ticker.kill.join
  [most >= 3, most]
end

test "another thread runs while ProcessEvent waits" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  ran, most = ran_during_wait { c.ProcessEvent(MQ_WAIT_ONCE, 300) } # nothing arrives: 300 ms
  check ran, "at most #{most} ticks during a wait"
  c.Delete
end

# Mqlink.gvl_releases counts the extension's GVL releases.  A wait releases
# it only when another Ruby thread exists: idle is that thread here.
test "answers already read are served without releasing the GVL" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  idle = Thread.new { sleep }
  got = 0
  50.times do |i|
    c.SendSTART(); c.SendSTR("I32"); c.SendI32(i)
    c.SendEND_AND_CALLBACK("ECHO") { |ctx| got += 1; ctx.ReadI32 }
  end
  c.ProcessEvent(MQ_WAIT_NO) # flushes the calls
  sleep 0.3                  # every answer arrives in the socket
  before = Mqlink.gvl_releases
  c.ProcessEvent(MQ_WAIT_NO) while got < 50 # nothing to wait for
  10.times { c.ProcessEvent(MQ_WAIT_NO) }
  releases = Mqlink.gvl_releases - before
  check got == 50, "#{got} answers"
  check releases == 0, "the GVL was released #{releases} times by calls that never wait"
  before = Mqlink.gvl_releases
  c.ProcessEvent(MQ_WAIT_ONCE, 100) # nothing comes: a real wait
  check Mqlink.gvl_releases > before, "a wait did not release the GVL"
  idle.kill.join
  c.Delete
end

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

# With no other Ruby thread, releasing the GVL for a wait would serve nobody.
test "a wait keeps the GVL when no other Ruby thread exists" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  check Thread.list.size == 1, "threads left by an earlier test: #{Thread.list.inspect}"
  before = Mqlink.gvl_releases
  kept = Mqlink.__send__(:gvl_kept)
  t0 = now
  c.ProcessEvent(MQ_WAIT_ONCE, 100) # nothing comes: a real wait
  check now - t0 >= 0.09, "the wait lasted #{now - t0} s"
  check Mqlink.gvl_releases == before, "the GVL was released with no other thread"
  check Mqlink.__send__(:gvl_kept) > kept, "the wait was not made holding the GVL"
  c.Delete
end

# A signal still ends such a wait: Ruby's handler interrupts the system
# call (its handlers have no SA_RESTART) and the trap runs at once.  The
# server never answers the handshake, whose read retries after EINTR until
# the runtime says the thread has an interrupt to handle.
test "a trap that raises ends a wait made holding the GVL" do
  c = MqContextC.new
  old = trap("USR1") { raise IOError, "usr1" }
  kept = Mqlink.__send__(:gvl_kept)
  # the KILL bounds a failure: an unhandled signal would leave the read
  # retrying for ever
  pid = Process.spawn("sleep 0.5; kill -USR1 #{Process.pid}; sleep 8; kill -KILL #{Process.pid}")
  t0 = now
  raises(IOError, /usr1/) { c.LinkCreate(["--timeout", "10", "@", "sh", "-c", "read x <&$1"]) }
  Process.kill(:KILL, pid)
  Process.wait(pid)
  check now - t0 < 5, "the signal ended the 10 s handshake wait only after #{now - t0} s"
  check Mqlink.__send__(:gvl_kept) > kept, "the wait was not made holding the GVL"
  trap("USR1", old)
  c.Delete
end

# A signal that came before such a wait (here between the kill and the
# call, where no Ruby code runs its trap) is served first: the wait is not
# made, so nothing sleeps until a timer's signal interrupts it.
test "a trap already waiting when a wait starts is served before the wait" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  check Thread.list.size == 1, "threads left by an earlier test: #{Thread.list.inspect}"
  old = trap("USR1") { raise IOError, "usr1" }
  kept = Mqlink.__send__(:gvl_kept)
  raises(IOError, /usr1/) do
    Mqlink.__send__(:signal_then, Signal.list["USR1"], c, :ProcessEvent, MQ_WAIT_ONCE, 5000)
  end
  check Mqlink.__send__(:gvl_kept) == kept, "the wait was made with the trap waiting"
  trap("USR1", old)
  c.Delete
end

test "Thread#kill ends a wait at once and the context still works" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  # "at once": long before the wait's own 60 s, however loaded the machine
  t = Thread.new { c.ProcessEvent(MQ_WAIT_ONCE, 60_000) }
  sleep 0.2
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  t.kill
  check !t.join(30).nil?, "the killed thread still waits"
  took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
  check took < 20, "kill took #{took.round(2)} s"
  c.SendSTART(); c.SendSTR("I8"); c.SendI8(7)
  c.SendEND_AND_WAIT("ECHO")
  check c.ReadI8 == 7
  c.Delete
end

test "Thread#raise reaches a thread waiting in ProcessEvent" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  q = Queue.new
  t = Thread.new do
    c.ProcessEvent(MQ_WAIT_ONCE, 60_000)
    q << :returned
  rescue RuntimeError => e
    q << e.message
  end
  sleep 0.2
  t.raise("stop waiting")
  check t.join(30) && q.pop == "stop waiting", "the exception did not end the wait"
  c.Delete
end

# The server never answers the handshake (it ends when the link closes).
# The interrupted read used to be retried while the runtime refused every
# new wait until the call returned: a spin with the GVL held for half the
# timeout (60 s here) before the next wait failed.
test "Thread#raise ends a LinkCreate that waits for the handshake" do
  c = MqContextC.new
  q = Queue.new
  t = Thread.new do
    c.LinkCreate(["--timeout", "120", "@", "sh", "-c", "read x <&$1"])
    q << :linked
  rescue RuntimeError => e
    q << e.message
  end
  sleep 0.3
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  t.raise("stop waiting")
  check t.join(50) && q.pop == "stop waiting", "the exception did not end LinkCreate"
  took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
  check took < 40, "LinkCreate ended #{took.round(2)} s after the exception"
  c.Delete
end

test "contexts in four threads call at the same time" do
  threads = 4.times.map do |i|
    Thread.new do
      c = MqContextC.new
      c.LinkCreate(BOUNDED)
      sum = 0
      50.times do |j|
        c.SendSTART(); c.SendSTR("I32"); c.SendI32(i * 1000 + j)
        c.SendEND_AND_WAIT("ECHO")
        sum += c.ReadI32()
      end
      c.Delete
      sum
    end
  end
  results = join_all(threads, 30)
  check results == 4.times.map { |i| 50 * i * 1000 + 1225 }, results.inspect
end

# rb_thread_call_without_gvl2 does not run the wait when any interrupt is
# set, also one rb_thread_interrupted does not report: the timer's (another
# thread waits for the GVL; the four threads above hung on it in about one
# run in six) or a postponed job's (a GC finalizer, a profiler).  The runtime
# must serve it and wait; it used to return at once, and the library retried
# with the GVL held: until the deadline, or for ever in the handshake.
# Mqlink.postponed_job_then registers a postponed job and makes the call.
test "a wait that starts with a postponed job pending releases the GVL" do
  c = MqContextC.new
  c.LinkCreate(BOUNDED)
  ran, most = ran_during_wait do
    Mqlink.__send__(:postponed_job_then, c, :ProcessEvent, MQ_WAIT_ONCE, 300)
  end
  check ran, "at most #{most} ticks during a wait: it held the GVL"
  c.Delete
end

test "LinkCreate that starts with a postponed job pending links" do
  c = MqContextC.new
  Mqlink.__send__(:postponed_job_then, c, :LinkCreate, BOUNDED)
  c.SendSTART(); c.SendSTR("I8"); c.SendI8(5)
  c.SendEND_AND_WAIT("ECHO") # the link's --timeout 10 (s) bounds it
  check c.ReadI8 == 5
  c.Delete
end

test "a callback runs in the thread that waits, with the GVL" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  where = nil
  Thread.new do
    c.SendSTART(); c.SendSTR("I8"); c.SendI8(1)
    c.SendEND_AND_CALLBACK("ECHO") { |ctx| where = Thread.current; ctx.ReadI8 }
    c.ProcessEvent(MQ_WAIT_ONCE, 2000)
    check where.equal?(Thread.current), "callback ran elsewhere"
  end.join
  c.Delete
end

test "Ruby's own fork still works after the extension is loaded" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  pid = fork do
    t = Thread.new { 1 }
    exit!(t.value == 1 ? 0 : 1)
  end
  Process.wait(pid)
  check $?.exitstatus == 0
  c.Delete
end

# The instance methods are defined without the VM's per-call Ractor check
# (runtime.h: mqrb_ractor_safe), which holds because no other Ractor can
# get a live object: each way in is refused.
test "another Ractor gets no live object: copies raise, a context is not made there" do
  Warning[:experimental] = false
  b = MkBufferC.new
  b.SetI32(5)
  [b, MkBufferStreamC.new, MkBufferListC.new, MqContextC.new].each do |o|
    e = raises(TypeError) { Ractor.new(o) { |x| x } }
    check e.message.include?("cannot be copied"), e.message
  end
  e = raises(TypeError) { b.dup }
  check e.message.include?("Dup()"), e.message
  check b.Dup.GetI32 == 5
  made = Ractor.new do
    [-> { MqContextC.new }, -> { Class.new(MqContextC).allocate }, -> { MkBufferC.new },
     -> { MkBufferStreamC.CreateTLS("r") }, -> { MkBufferC.allocate.GetI32 }].map do |f|
      f.call
      "made"
    rescue Ractor::UnsafeError, MkExceptionC => err
      err.class.name
    end
  end.take
  check made.none?("made"), made.inspect
end
