# callback_test.rb — callbacks from Ruby: every callable form, registrations
# kept exactly while the library holds them, errors both ways, a raising
# callback that does not stop the loop, a deleted context.
require_relative 'taptest'
require 'mqlink'
include Mqlink

SERVER = ["@", RbConfig.ruby, File.expand_path("../../tests/interop/rbserver.rb", __dir__)]

def registered(obj)
  ObjectSpace.each_object(obj.class).include?(obj)
end

c = MqContextC.new
c.LinkCreate(SERVER)

def echo_i32(c, v)
  c.SendSTART(); c.SendSTR("I32"); c.SendI32(v)
  c.SendEND_AND_WAIT("ECHO")
  c.ReadI32()
end

test "SendEND_AND_CALLBACK takes a block, a Proc, a lambda without argument, a Method, a method name and a #call object" do
  got = []
  holder = Object.new
  holder.define_singleton_method(:cb) { |ctx| got << [:method, ctx.ReadI32()] }
  caller_obj = Object.new
  caller_obj.define_singleton_method(:call) { |ctx| got << [:call, ctx.ReadI32()] }
  c.define_singleton_method(:named) { got << [:name, ReadI32()] }
  forms = [nil, proc { |ctx| got << [:proc, ctx.ReadI32()] }, -> { got << [:lambda0, c.ReadI32()] },
           holder.method(:cb), :named, caller_obj]
  forms.each_with_index do |f, i|
    c.SendSTART(); c.SendSTR("I32"); c.SendI32(i)
    if f.nil?
      c.SendEND_AND_CALLBACK("ECHO") { |ctx| got << [:block, ctx.ReadI32()] }
    else
      c.SendEND_AND_CALLBACK("ECHO", f)
    end
  end
  100.times { break if got.size == forms.size; c.ProcessEvent(MQ_WAIT_ONCE, 1000) }
  check got == [[:block, 0], [:proc, 1], [:lambda0, 2], [:method, 3], [:name, 4], [:call, 5]], got.inspect
end

test "ReadBUFR: one reused view, dead after its callback or a blocking call; ReadBUF's copy survives" do
  kept = copy = same = nil
  c.SendSTART(); c.SendSTR("I32"); c.SendI32(7)
  c.SendEND_AND_CALLBACK("ECHO") { |ctx| kept = ctx.ReadBUFR() }
  100.times { break if kept; c.ProcessEvent(MQ_WAIT_ONCE, 1000) }
  check kept.is_a?(MkBufferC), kept.inspect
  raises(MkExceptionC, /ReadBUFR is no longer valid/) { kept.GetI32() }
  c.SendSTART(); c.SendSTR("I32"); c.SendI32(8)
  c.SendEND_AND_CALLBACK("ECHO") { |ctx| copy = ctx.ReadBUF() }
  100.times { break if copy; c.ProcessEvent(MQ_WAIT_ONCE, 1000) }
  check copy.GetI32() == 8, "the copy outlives the callback"
  c.SendSTART(); c.SendSTR("I32"); c.SendI32(9)
  c.SendEND_AND_WAIT("ECHO")
  v = c.ReadBUFR()
  check v.GetI32() == 9 && v.equal?(kept), "the same object, pointed at the new read"
  c.SendSTART(); c.SendSTR("I32"); c.SendI32(10)
  c.SendEND_AND_WAIT("ECHO")
  raises(MkExceptionC, /no longer valid/) { v.GetI32() }
  raises(MkExceptionC, /no longer valid/) { c.SendBUF(v) }
  c.ReadI32()
end

test "a callable that is none raises TypeError; a bad token raises ArgumentError" do
  c.SendSTART()
  raises(TypeError) { c.SendEND_AND_CALLBACK("ECHO", 42) }
  raises(ArgumentError) { c.SendEND_AND_CALLBACK("TOOLONG") { } }
  raises(ArgumentError) { c.ServiceCreate("ECHO") }
  raises(ArgumentError) { c.ServiceCreate("ECHO", :x) { } }
  raises(ArgumentError, /not 4 characters/) { c.ServiceCreate("ÄBCD", :x) }
  raises(ArgumentError, /not 4 characters/) { c.ServiceCreate("ABC", :x) }
  raises(ArgumentError, /NUL/) { c.ServiceCreate("AB\0D", :x) }
  raises(TypeError) { c.ServiceCreate(:ECHO, :x) }
end

test "a token is 4 bytes of UTF-8 in any encoding that converts" do
  s = MqContextC.new
  ["TOKA", "TOKB".b, "TOKC".encode("US-ASCII"), "TOKD".encode("UTF-16LE")].each do |t|
    s.ServiceCreate(t, :x)
  end
  check %w[TOKA TOKB TOKC TOKD].all? { |t| s.ServiceDelete(t).nil? }
  raises(ArgumentError, /not 4 characters/) { s.ServiceCreate("TOK".encode("UTF-16LE"), :x) }
  s.Delete
end

test "a failed registration keeps nothing, a successful one keeps its callable until the call" do
  GC.start
  n0 = ObjectSpace.each_object(Proc).count
  c.SendSTART()
  c.SendSTR("I32"); c.SendI32(1)
  c.SendEND_AND_CALLBACK("ECHO", proc { |ctx| ctx.ReadI32 })
  c.ProcessEvent(MQ_WAIT_ONCE, 1000)
  c.ProcessEvent(MQ_WAIT_NO)
  other = MqContextC.new # not connected: the call fails, the callback is not taken
  other.SendSTART() rescue nil
  raises(MkExceptionC) { other.SendEND_AND_CALLBACK("ECHO", proc { |ctx| }) }
  other.Delete
  GC.start
  n1 = ObjectSpace.each_object(Proc).count
  check n1 <= n0 + 1, "#{n0} -> #{n1} Procs"
end

test "a callback that raises is reported and the loop goes on" do
  err = $stderr.dup
  $stderr.reopen(File::NULL)
  begin
    c.SendSTART(); c.SendSTR("I8"); c.SendI8(1)
    c.SendEND_AND_CALLBACK("ECHO") { raise "on purpose" }
    c.ProcessEvent(MQ_WAIT_ONCE, 1000)
  ensure
    $stderr.reopen(err)
  end
  check echo_i32(c, 9) == 9
end

test "a service's MkExceptionC and plain exceptions arrive with code and text" do
  c.SendSTART(); c.SendSTR("no")
  e = raises(MkExceptionC) { c.SendEND_AND_WAIT("FAIL") }
  check e.code == 1234 && e.message.include?("no"), [e.code, e.message].inspect
  c.SendSTART()
  e = raises(MkExceptionC) { c.SendEND_AND_WAIT("PYER") }
  check e.message.include?("ArgumentError: ruby says no"), e.message
end

test "a deleted context raises; a child whose parent went raises on its next call" do
  k = MqContextC.new
  k.LinkCreateChild(c)
  check echo_i32(k, 5) == 5
  k.LinkGetParent().equal?(c) or raise "parent"
  parent = MqContextC.new
  parent.LinkCreate(SERVER)
  kid = MqContextC.new
  kid.LinkCreateChild(parent)
  parent.Delete
  kid.SendSTART()
  raises(MkExceptionC) { kid.SendEND_AND_WAIT("INST") }
  e = raises(MkExceptionC) { parent.LinkIsConnected() }
  check e.message.include?("deleted"), e.message
  k.Delete
  e = raises(MkExceptionC) { k.SendSTART() }
  check e.message == "SendSTART: the object was deleted", e.message
end

# The glue reads a receiver's data unchecked (runtime.h: mqrb_ctx_self), so
# a context method must never reach another object: Ruby refuses to bind it,
# and every way to make a context's object gives one of the context's type.
test "a context method runs only on a context: bind_call raises, allocate makes contexts" do
  [MkBufferC.new, Object.new, MkBufferListC.new].each do |o|
    e = raises(TypeError) { MqContextC.instance_method(:ReadItemExists).bind_call(o) }
    check e.message.include?("MqContextC"), e.message
  end
  odd = Class.new(MqContextC) { def self.allocate = Object.new } # new does not call it
  [MqContextC.allocate, Class.new(MqContextC).allocate, odd.new].each do |k|
    check k.LinkIsConnected() == false, k.inspect
    k.Delete
    e = raises(MkExceptionC) { k.ReadItemExists() }
    check e.message == "ReadItemExists: the object was deleted", e.message
  end
  raises(TypeError) { Marshal.load(Marshal.dump(c)) }
end

# The parent, young, is reachable only through the old child's mark: made in
# a frame of its own that is gone, so no stale stack slot holds it either.
def adopt_new_parent(kid)
  parent = MqContextC.new
  parent.LinkCreate(SERVER)
  kid.LinkCreateChild(parent)
  nil
end

def clobber_stack(depth)
  depth.zero? ? 0 : clobber_stack(depth - 1) + 1
end

test "an old context made a child of a new parent keeps it through minor GCs (write barrier)" do
  require 'objspace'
  kid = MqContextC.new
  flags = -> { ObjectSpace.dump(kid)[/"flags":\{[^}]*\}/].to_s }
  4.times { GC.start }
  check flags.().include?('"old":true'), "the child is not old yet: #{flags.()}"
  adopt_new_parent(kid)
  clobber_stack(200)
  5.times { GC.start(full_mark: false) }
  check echo_i32(kid, 3) == 3, "the child's parent was collected"
  kid.LinkGetParent().Delete
  kid.Delete
end

test "a deleted context's wrapper is freed in the sweep and still raises as a deleted context" do
  swept = ->(x) { Mqlink.__send__(:freed_in_sweep, x) }
  x = MqContextC.new
  check !swept.(x), "a live context is deleted by a finalizer"
  x.Delete
  check swept.(x), "nothing is left to finalize"
  check x.is_a?(MqContextC)
  e = raises(MkExceptionC) { x.SendSTART() }
  check e.message == "SendSTART: the object was deleted", e.message
  e = raises(MkExceptionC) { c.ProxyItem(x) }
  check e.message == "ProxyItem: the object was deleted", e.message
  e = raises(TypeError) { c.ProxyItem(MkBufferC.new) }
  check e.message == "ProxyItem: expected MqContextC, got Mqlink::MkBufferC", e.message
  x.Delete
  GC.stress = true
  begin
    5.times { MqContextC.new.Delete }
  ensure
    GC.stress = false
  end
end

test "a method name given as a literal Symbol is registered once for every context" do
  made = -> { Mqlink.__send__(:registrations_made) }
  first = MqContextC.new
  first.ServiceCreate("SHRD", :shared_service)
  n = made.()
  20.times do
    x = MqContextC.new
    x.ServiceCreate("SHRD", :shared_service)
    x.ServiceCreate("SHR2", :shared_service)
    x.Delete
  end
  check made.() == n, "#{made.() - n} registrations made for 40 ServiceCreate calls"
  first.Delete # the shared registration stays for the next context
  y = MqContextC.new
  y.ServiceCreate("SHRD", :shared_service)
  check made.() == n, "a deleted context took its shared registration along"
  y.Delete
  5.times { z = MqContextC.new; z.ServiceCreate("PROC", proc { }); z.Delete }
  check made.() == n + 5, "a Proc is registered for each call (the registration keeps it)"
end

# A setup registers the same literal Symbols in every instance: each keeps
# its own shared registration, found in its first slot (runtime.h) or past
# it (callback.c: named).  The interop servers call through them.
test "a dozen literal Symbols each keep one shared registration" do
  made = -> { Mqlink.__send__(:registrations_made) }
  names = [:na, :nb, :nc, :nd, :ne, :nf, :ng, :nh, :ni, :nj, :nk, :nl] # static: %i[] makes dynamic ones
  setup = ->(x) { names.each_with_index { |m, i| x.ServiceCreate("N%03d" % i, m) } }
  first = MqContextC.new
  setup.(first)
  n = made.()
  20.times { x = MqContextC.new; setup.(x); x.Delete }
  check made.() == n, "#{made.() - n} registrations made for 240 ServiceCreate calls"
  first.Delete
end

# Delete gives the wrapper's struct back at once, and the next context takes
# it: the deleted wrapper must no longer reach it (it points at no struct).
test "a deleted context's struct serves the next context at once; the deleted one stays deleted" do
  spare = -> { Mqlink.__send__(:context_structs_spare) }
  GC.disable # no sweep or finalizer changes the count meanwhile
  begin
    x = MqContextC.new
    x.ConfigSetName("old")
    n = spare.()
    x.Delete
    check spare.() == n + 1, "Delete kept its struct: #{n} -> #{spare.()}"
    y = MqContextC.new
    check spare.() == n, "the next context took no spare struct: #{spare.()}"
    y.ConfigSetName("reused")
    e = raises(MkExceptionC) { x.ConfigGetName() }
    check e.message == "ConfigGetName: the object was deleted", e.message
    check y.ConfigGetName() == "reused"
    x.Delete
    check y.ConfigGetName() == "reused", "a second Delete of the old wrapper reached the new context"
    y.Delete
  ensure
    GC.enable
  end
end

# Contexts nobody deletes give their structs back when the GC frees them,
# thousands in one sweep.
test "every struct of the wrappers one sweep frees waits for the next, past 1024" do
  spare = -> { Mqlink.__send__(:context_structs_spare) }
  GC.start
  n = spare.()
  3000.times { MqContextC.new }
  GC.start
  # their finalizers run deferred; a few may stay alive, seen on the stack
  100.times { break if spare.() >= n + 2000; Thread.pass }
  check spare.() >= n + 2000, "#{spare.() - n} structs wait after 3000 wrappers were swept"
end

test "--thread is refused with MkExceptionC, nothing started" do
  s = MqContextC.new
  e = raises(MkExceptionC) { s.LinkCreate(["--uds", "--file", "/tmp/mqrb-no", "--thread"]) }
  check e.code == MQ_ERR_OPTION && e.message.include?("--fork or --spawn"), e.message
  s.Delete
end

test "contexts nobody deletes are freed by the GC" do
  GC.stress = true
  begin
    5.times { x = MqContextC.new; x.ConfigSetName("gc") }
  ensure
    GC.stress = false
  end
  GC.start
end

# A --fork instance ends in _exit: the runtime flushes what its Ruby code
# wrote to $stdout when the instance (its parent context) ends, once, and
# not at the end of each child it served.  The instance writes to a file,
# so $stdout buffers.
FORK_PRINTER = <<~'RB'
  require 'mqlink'
  include Mqlink
  class Printer < MqContextC
    def ServerSetup
      ServiceCreate("PRNT", :PRNT)
    end

    def PRNT
      $stdout.write(ReadSTR() + "\n")
      SendSTART(); SendRETURN()
    end
  end
  s = Printer.new
  s.ConfigSetServerSetup(:ServerSetup)
  s.LinkCreate(ARGV)
  s.ProcessEvent(MQ_WAIT_FOREVER)
RB

test "a --fork instance's $stdout leaves when the instance ends, once, not at each child's end" do
  require 'tmpdir'
  Dir.mktmpdir("mqrb-fork") do |dir|
    sock, out = "#{dir}/sock", "#{dir}/out"
    File.write("#{dir}/printer.rb", FORK_PRINTER)
    pid = Process.spawn(RbConfig.ruby, "#{dir}/printer.rb", "--uds", "--file", sock, "--fork",
                        out: out, err: "#{dir}/err")
    begin
      200.times { break if File.socket?(sock); sleep 0.05 }
      p = MqContextC.new
      p.LinkCreate(["--uds", "--file", sock])
      print = ->(ctx, text) { ctx.SendSTART(); ctx.SendSTR(text); ctx.SendEND_AND_WAIT("PRNT") }
      ch = MqContextC.new
      ch.LinkCreateChild(p)
      print.(ch, "from the child")
      ch.Delete
      print.(p, "from the parent") # answered after the instance deleted its child
      check File.read(out) == "", "flushed before the instance ended: #{File.read(out).inspect}"
      p.Delete
      400.times { break if File.read(out).include?("parent"); sleep 0.05 } # the instance ends
      check File.read(out) == "from the child\nfrom the parent\n", File.read(out).inspect
    ensure
      Process.kill(:TERM, pid)
      Process.wait(pid)
    end
  end
end

c.Delete
