# threads_test.rb — the GVL: other Ruby threads run while a call waits
# (SendEND_AND_WAIT, ProcessEvent), frames already read are served without
# releasing it, an interrupt ends a wait, and contexts in several threads.
require_relative 'taptest'
require 'mqlink'
include Mqlink

SERVER = ["@", RbConfig.ruby, File.expand_path("../../tests/interop/rbserver.rb", __dir__)]

test "another thread runs while ProcessEvent waits" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  ticks = 0
  t = Thread.new { 50.times { ticks += 1; sleep 0.002 } }
  c.ProcessEvent(MQ_WAIT_ONCE, 300) # nothing arrives: a 300 ms wait
  check ticks >= 10, "only #{ticks} ticks during the wait"
  t.join
  c.Delete
end

# Mqlink.gvl_releases counts the extension's GVL releases.
test "answers already read are served without releasing the GVL" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
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
  c.Delete
end

test "Thread#kill ends a wait at once and the context still works" do
  c = MqContextC.new
  c.LinkCreate(SERVER)
  t = Thread.new { c.ProcessEvent(MQ_WAIT_ONCE, 5000) }
  sleep 0.2
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  t.kill
  check !t.join(2).nil?, "the killed thread still waits"
  took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
  check took < 1, "kill took #{took.round(2)} s"
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
    c.ProcessEvent(MQ_WAIT_ONCE, 5000)
    q << :returned
  rescue RuntimeError => e
    q << e.message
  end
  sleep 0.2
  t.raise("stop waiting")
  check t.join(2) && q.pop == "stop waiting", "the exception did not end the wait"
  c.Delete
end

test "contexts in four threads call at the same time" do
  results = 4.times.map do |i|
    Thread.new do
      c = MqContextC.new
      c.LinkCreate(SERVER)
      sum = 0
      50.times do |j|
        c.SendSTART(); c.SendSTR("I32"); c.SendI32(i * 1000 + j)
        c.SendEND_AND_WAIT("ECHO")
        sum += c.ReadI32()
      end
      c.Delete
      sum
    end
  end.map(&:value)
  check results == 4.times.map { |i| 50 * i * 1000 + 1225 }, results.inspect
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
