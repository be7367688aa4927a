#!/usr/bin/env ruby
# rbclient.rb LABEL LINK-ARGS... — the interop client in Ruby: every type
# with boundary values, nested lists, errors both ways, wrong-type reads,
# callbacks (a raising one included) and server instances against the server
# LINK-ARGS reach.  Prints one TAP line per case ("ok - LABEL: case");
# run_matrix.sh numbers them.  MQRB_GC_STRESS=1 runs the cases under
# GC.stress (with smaller big values).
require 'mqlink'
include Mqlink

$stdout.sync = true
label, *link = ARGV
STRESS = ENV["MQRB_GC_STRESS"] == "1"
BIG = STRESS ? 1 << 12 : 1 << 20

def report(ok, name, why = nil)
  puts "#{ok ? 'ok' : 'not ok'} - #{LABEL}: #{name}"
  puts "#   #{why}" if !ok && why
end
LABEL = label

def kase(name)
  yield
  report(true, name)
rescue StandardError => e
  report(false, name, "#{e.class}: #{e.message}")
end

def echo(c, t, v)
  c.SendSTART()
  c.SendSTR(t)
  c.__send__("Send" + t, v)
  c.SendEND_AND_WAIT("ECHO", 20000)
  c.__send__("Read" + t)
end

def same(a, b)
  return b.is_a?(Float) && b.nan? if a.is_a?(Float) && a.nan?
  return b == 0.0 && (1.0 / a) == (1.0 / b) if a.is_a?(Float) && a == 0.0
  a == b && (!a.is_a?(String) || a.encoding == b.encoding)
end

def expect_raise(what, klass = MkExceptionC)
  yield
rescue klass => e
  e
else
  raise "#{what}: no #{klass}"
end

c = MqContextC.new
c.LinkCreate(link)
c.SendSTART()
c.SendEND_AND_WAIT("INST")
server = c.ReadSTR()
GC.stress = true if STRESS

flt_max = 3.4028234663852886e+38
VALUES = {
  "I8" => [-128, -1, 0, 127],
  "I16" => [-32768, 0, 32767],
  "I32" => [-2**31, 0, 2**31 - 1],
  "I64" => [-2**63, -1, 0, 2**63 - 1],
  "FLT" => [0.0, -0.0, 1.5, flt_max, -flt_max, Float::INFINITY, -Float::INFINITY, Float::NAN],
  "DBL" => [0.0, -0.0, Float::MAX, -5e-324, Float::INFINITY, Float::NAN],
  "BOL" => [true, false],
  "STR" => ["", "text", "\u00e4\u4e2d\u{1F600}", "x" * BIG],
  "BIN" => ["".b, "\x00\xff\x00".b, (0..255).map(&:chr).join.b * (BIG / 256)],
}
VALUES.each do |t, values|
  kase("ECHO #{t} with boundary values") do
    values.each do |v|
      r = echo(c, t, v)
      short = ->(x) { x.inspect.size < 40 ? x.inspect : "<big>" }
      raise "#{t} #{short[v]} came back as #{short[r]}" unless same(v, r)
    end
  end
end

kase("ELST echoes nested lists") do
  c.SendSTART()
  c.SendL_START()
  c.SendI32(1)
  c.SendL_START()
  c.SendSTR("deep")
  c.SendBIN("\x01".b)
  c.SendL_END()
  c.SendDBL(2.5)
  c.SendL_END()
  c.SendEND_AND_WAIT("ELST")
  c.ReadL_START()
  raise "I32" unless c.ReadI32() == 1
  c.ReadL_START()
  raise "STR/BIN" unless c.ReadSTR() == "deep" && c.ReadBIN() == "\x01".b
  c.ReadL_END()
  raise "DBL" unless c.ReadDBL() == 2.5
  c.ReadL_END()
  raise "items left" if c.ReadItemExists()
end

kase("a service's error arrives as MkExceptionC with its text") do
  c.SendSTART()
  c.SendSTR("broken on purpose")
  e = expect_raise("FAIL") { c.SendEND_AND_WAIT("FAIL") }
  raise e.message unless e.message.include?("broken on purpose")
  raise "code #{e.code}" unless e.code.is_a?(Integer)
end

if server.start_with?("RubyTestServer")
  kase("a plain Ruby exception in a service arrives with its class and text") do
    c.SendSTART()
    e = expect_raise("PYER") { c.SendEND_AND_WAIT("PYER") }
    raise e.message unless e.message.include?("ArgumentError: ruby says no")
  end
end

kase("reading the wrong type in a service is an error the service can catch") do
  c.SendSTART()
  c.SendSTR("abc")
  c.SendEND_AND_WAIT("WRNG")
  text = c.ReadSTR()
  raise text unless text.start_with?("caught: ")
end

kase("reading the wrong type raises MkExceptionC") do
  raise "300" unless echo(c, "I32", 300) == 300
  c.SendSTART()
  c.SendSTR("I32")
  c.SendI32(300)
  c.SendEND_AND_WAIT("ECHO")
  expect_raise("300 read as I8") { c.ReadI8() }
  c.SendSTART()
  c.SendSTR("STR")
  c.SendSTR("abc")
  c.SendEND_AND_WAIT("ECHO")
  expect_raise("'abc' read as I32") { c.ReadI32() }
end

kase("out-of-range Integers raise RangeError naming the call and the value") do
  c.SendSTART()
  e = expect_raise("I8", RangeError) { c.SendI8(300) }
  raise e.message unless e.message == "SendI8: 300 out of range for I8"
  e = expect_raise("I64", RangeError) { c.SendI64(2**63) }
  raise e.message unless e.message.include?("9223372036854775808 out of range for I64")
  expect_raise("Float for I32", TypeError) { c.SendI32(1.5) }
end

kase("SendEND_AND_CALLBACK runs a block from the event loop") do
  got = []
  c.SendSTART()
  c.SendSTR("I32")
  c.SendI32(42)
  c.SendEND_AND_CALLBACK("ECHO") { |ctx| got << ctx.ReadI32() }
  100.times { break unless got.empty?; c.ProcessEvent(MQ_WAIT_ONCE, 1000) }
  raise got.inspect unless got == [42]
  c.SendSTART()
  c.SendSTR("I16")
  c.SendI16(7)
  c.SendEND_AND_CALLBACK("ECHO", ->(ctx) { got << ctx.ReadI16() })
  100.times { break if got.size > 1; c.ProcessEvent(MQ_WAIT_ONCE, 1000) }
  raise got.inspect unless got == [42, 7]
end

kase("a callback that raises does not stop the event loop") do
  $stderr.reopen(File::NULL) unless STRESS # the report of the exception
  c.SendSTART()
  c.SendSTR("I8")
  c.SendI8(1)
  c.SendEND_AND_CALLBACK("ECHO") { |ctx| raise "callback failed on purpose" }
  c.ProcessEvent(MQ_WAIT_ONCE, 1000)
  raise "loop" unless echo(c, "I16", 7) == 7
end

kase("every child gets its own server instance of the server's class") do
  names = [server]
  kids = 3.times.map do
    k = MqContextC.new
    k.LinkCreateChild(c)
    k.SendSTART()
    k.SendEND_AND_WAIT("INST")
    names << k.ReadSTR()
    raise "child echo" unless echo(k, "I64", -5) == -5
    k
  end
  kids.each(&:Delete)
  raise names.inspect unless names.uniq.size == 4
  prefix = server.split(":")[0]
  raise names.inspect unless names.all? { |n| n.split(":")[0] == prefix }
end

kase("a deleted context raises instead of touching freed memory") do
  k = MqContextC.new
  k.LinkCreateChild(c)
  k.Delete()
  e = expect_raise("deleted") { k.SendSTART() }
  raise e.message unless e.message.include?("deleted")
  k.Delete() # idempotent
end

GC.stress = false
c.Delete()
