# threads_test.rb — the GVL: other Ruby threads run while a call waits
# (SendEND_AND_WAIT, ProcessEvent), and contexts in several threads.
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
