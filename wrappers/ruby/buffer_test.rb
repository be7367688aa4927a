# buffer_test.rb — MkBufferC, MkBufferStreamC and MkBufferListC from Ruby:
# every type at its boundaries, conversions, wrong-type reads, range checks,
# encodings, copies and views, deleted objects and the GC.
require_relative 'taptest'
require 'mqlink'
include Mqlink

INTS = { "I8" => [-128, 127], "I16" => [-32768, 32767], "I32" => [-2**31, 2**31 - 1],
         "I64" => [-2**63, 2**63 - 1] }

test "integers round-trip at their boundaries and one past them raises RangeError" do
  b = MkBufferC.new
  INTS.each do |t, (lo, hi)|
    [lo, -1, 0, hi].each do |v|
      b.__send__("Set" + t, v)
      check b.__send__("Get" + t) == v, "#{t} #{v}"
    end
    [lo - 1, hi + 1].each do |v|
      e = raises(RangeError) { b.__send__("Set" + t, v) }
      check e.message == "Set#{t}: #{v} out of range for #{t}", e.message
    end
  end
end

test "non-Integers for integers raise TypeError naming the call" do
  b = MkBufferC.new
  e = raises(TypeError) { b.SetI32(1.0) }
  check e.message.include?("SetI32"), e.message
  raises(TypeError) { b.SetI64("1") }
  raises(TypeError) { b.SetI8(nil) }
end

test "FLT, DBL and BOL keep their values; FLT out of range raises" do
  b = MkBufferC.new
  [0.0, -0.0, 1.5, Float::INFINITY, -Float::INFINITY].each do |v|
    b.SetDBL(v)
    check b.GetDBL.equal?(v) || (b.GetDBL == v && 1 / b.GetDBL == 1 / v), v.to_s
  end
  b.SetDBL(Float::NAN)
  check b.GetDBL.nan?
  b.SetDBL(7)
  check b.GetDBL == 7.0 && b.GetDBL.is_a?(Float)
  b.SetFLT(3.4028234663852886e+38)
  check b.GetFLT == 3.4028234663852886e+38
  raises(RangeError) { b.SetFLT(1e39) }
  b.SetBOL(true)
  check b.GetBOL.equal?(true)
  b.SetBOL(nil)
  check b.GetBOL.equal?(false)
end

test "STR is UTF-8 in and out, BIN is ASCII-8BIT; NUL in a STR raises" do
  b = MkBufferC.new
  b.SetSTR("äö\u{1F600}")
  s = b.GetSTR
  check s == "äö\u{1F600}" && s.encoding == Encoding::UTF_8
  b.SetSTR("caf\xe9".force_encoding("ISO-8859-1"))
  check b.GetSTR == "café", b.GetSTR.inspect
  b.SetBIN("\x00\xff".b)
  s = b.GetBIN
  check s == "\x00\xff".b && s.encoding == Encoding::ASCII_8BIT
  raises(ArgumentError, /NUL/) { b.SetSTR("a\0b") }
  raises(MkExceptionC) { b.GetSTR } # BIN is not text
end

test "checked conversions: I32 as STR works, 300 as I8 and 'abc' as I32 raise" do
  b = MkBufferC.new
  b.SetI32(300)
  check b.GetSTR == "300"
  e = raises(MkExceptionC) { b.GetI8 }
  check e.code == MK_ERR_RANGE, e.code.to_s
  check e.text == e.message && e.is_a?(StandardError)
  b.SetSTR("abc")
  raises(MkExceptionC) { b.GetI32 }
end

test "a stream writes and reads every type and nested lists, and raises past its end" do
  s = MkBufferStreamC.Create
  s.WriteI8(-128); s.WriteI64(2**63 - 1); s.WriteDBL(2.5); s.WriteBOL(true)
  s.WriteL_START; s.WriteSTR("in"); s.WriteBIN("\x01".b); s.WriteL_END
  s.PosToStart
  check s.ReadI8 == -128 && s.ReadI64 == 2**63 - 1 && s.ReadDBL == 2.5 && s.ReadBOL == true
  check s.ReadGetType == MK_TYPE_LST
  s.ReadL_START
  check s.ReadSTR == "in" && s.ReadBIN == "\x01".b
  check !s.ReadItemExists
  s.ReadL_END
  e = raises(MkExceptionC) { s.ReadI32 }
  check e.code == MK_ERR_END, e.code.to_s
  check s.Count >= 5, s.Count.to_s
end

test "ReadBUF and IndexGet return copies that are safe to keep" do
  s = MkBufferStreamC.Create
  s.WriteI32(1); s.WriteSTR("two")
  s.PosToStart
  a = s.ReadBUF
  b = s.ReadBUF
  check a.GetI32 == 1 && b.GetSTR == "two" && a.GetType == MK_TYPE_I32
  l = MkBufferListC.new
  l.AppendBUF(a); l.AppendSTR("x"); l.AppendI64(-2**63)
  first = l.IndexGet(0)
  l.Reset
  check first.GetI32 == 1 && l.Size == 0
  raises(MkExceptionC) { l.IndexGet(5) }
end

# allocated(&blk): the Ruby objects blk allocates.
def allocated
  n = GC.stat(:total_allocated_objects)
  yield
  GC.stat(:total_allocated_objects) - n
end

test "copies from ReadBUF and IndexGet that are kept stay as they were while views are used" do
  s = MkBufferStreamC.new
  s.WriteI32(1); s.WriteSTR("two")
  s.PosToStart
  kept = [s.ReadBUF, s.ReadBUF]
  l = MkBufferListC.new
  l.AppendI64(-2**63); l.AppendBIN("\x00\x01".b)
  kept += [l.IndexGet(0), l.IndexGet(1)]
  3.times do |i|
    s.Reset; s.WriteI32(100 + i); s.WriteSTR("new #{i}"); s.PosToStart
    check s.ReadBUFR.GetI32 == 100 + i && s.ReadBUFR.GetSTR == "new #{i}"
    l.Reset; l.AppendI32(200 + i); l.AppendSTR("x" * 100)
    check l.IndexGetR(0).GetI32 == 200 + i && l.IndexGetR(1).GetSTR == "x" * 100
    check kept.map(&:GetType) == [MK_TYPE_I32, MK_TYPE_STR, MK_TYPE_I64, MK_TYPE_BIN]
    check kept[0].GetI32 == 1 && kept[1].GetSTR == "two" && kept[2].GetI64 == -2**63 &&
          kept[3].GetBIN == "\x00\x01".b, "a kept copy changed"
  end
end

test "ReadBUFR and IndexGetR: one reused view per stream or list, no object per call" do
  s = MkBufferStreamC.new
  s.WriteI32(7); s.WriteDBL(2.5); s.WriteSTR("three")
  s.PosToStart
  v = s.ReadBUFR
  check v.is_a?(MkBufferC) && v.GetI32 == 7
  check s.ReadBUFR.equal?(v) && v.GetDBL == 2.5 && s.ReadBUFR.GetSTR == "three"
  l = MkBufferListC.new
  l.AppendI8(-1); l.AppendBOL(true)
  w = l.IndexGetR(1)
  check w.GetBOL == true && l.IndexGetR(0).equal?(w) && w.GetI8 == -1 && !w.equal?(v)
  raises(MkExceptionC) { l.IndexGetR(2) }
  e = raises(TypeError) { l.IndexGetR("0") }
  check e.message.include?("IndexGetR"), e.message
  out = MkBufferStreamC.new
  n = allocated do
    100.times do
      s.PosToStart
      out.WriteBUF(s.ReadBUFR) while s.ReadItemExists
      2.times { |i| out.WriteBUF(l.IndexGetR(i)) }
    end
  end
  check n < 10, "#{n} objects for 500 views"
  n = allocated { 100.times { s.PosToStart; s.ReadBUF } }
  check n >= 100, "#{n} objects for 100 copies: the copy is a new object"
  out.PosToStart
  check out.ReadI32 == 7 && out.ReadDBL == 2.5 && out.ReadSTR == "three" && out.ReadI8 == -1
end

# Views and CreateTLS wrappers are found by their C object's address in a
# table of fixed size (view.c, runtime.c); two objects used in turn must not
# take each other's place there, whatever their addresses.  33 objects, more
# than the table has sets, so two of them share one; every pair is used in turn.
test "any two streams or lists used in turn keep their views and CreateTLS wrappers" do
  srcs = (0...33).map do |i|
    if i.even?
      MkBufferStreamC.new.tap { |s| s.WriteI32(i) }
    else
      MkBufferListC.new.tap { |l| l.AppendI32(i) }
    end
  end
  read = ->(i) { s = srcs[i]; s.is_a?(MkBufferStreamC) ? (s.PosToStart; s.ReadBUFR) : s.IndexGetR(0) }
  worst = 0
  right = true
  2.times do |pass| # the first pass also fills Ruby's call caches, which are objects
    srcs.each_index do |a|
      (a + 1...srcs.size).each do |b|
        read[a]; read[b]
        n = allocated { 5.times { right &&= read[a].GetI32 == a && read[b].GetI32 == b } }
        worst = n if pass == 1 && n > worst
      end
    end
  end
  check right, "a view showed another source's value"
  check worst == 0, "#{worst} objects for 10 views of two sources in turn"
  names = (0...33).map { |i| "turn-#{i}" }
  names.each { |n| MkBufferStreamC.CreateTLS(n) }
  worst = 0
  2.times do |pass|
    names.each_index do |a|
      (a + 1...names.size).each do |b|
        MkBufferStreamC.CreateTLS(names[a]); MkBufferStreamC.CreateTLS(names[b])
        n = allocated { 5.times { MkBufferStreamC.CreateTLS(names[a]); MkBufferStreamC.CreateTLS(names[b]) } }
        worst = n if pass == 1 && n > worst
      end
    end
  end
  check worst == 0, "#{worst} objects for 10 CreateTLS of two names in turn"
end

test "a view ends at the next call on its stream or list, at its CreateTLS, Delete and collection" do
  ended = /ReadBUFR or IndexGetR is no longer valid/
  s = MkBufferStreamC.new
  s.WriteBIN("a".b); s.WriteI32(2)
  s.PosToStart
  v = s.ReadBUFR
  s.PosToStart
  e = raises(MkExceptionC, ended) { v.GetBIN }
  check e.message.start_with?("GetBIN: ") && e.code == MK_ERR_ARGUMENT, e.message
  s.PosToStart
  v = s.ReadBUFR
  s.WriteBIN("x" * 100_000) # moves the stream's data, which v's BIN pointed into
  raises(MkExceptionC, ended) { v.GetBIN }
  s.PosToStart
  raises(MkExceptionC, ended) { s.WriteBUF(s.ReadBUFR) } # ended before the write reads it
  l = MkBufferListC.new
  l.AppendI32(1)
  w = l.IndexGetR(0)
  l.AppendI32(2)
  raises(MkExceptionC, ended) { w.GetI32 }
  raises(MkExceptionC, ended) { l.AppendBUF(l.IndexGetR(1)) }
  check l.IndexGetR(0).GetI32 == 1, "the next view call repoints it"
  w = l.IndexGetR(0)
  l.Delete
  raises(MkExceptionC, ended) { w.GetI32 }
  t = MkBufferStreamC.CreateTLS("view")
  t.WriteI32(3); t.PosToStart
  v = t.ReadBUFR
  MkBufferStreamC.CreateTLS("view")
  raises(MkExceptionC, ended) { v.GetI32 }
  views = Array.new(20) do |i|
    x = MkBufferListC.new # garbage once this block returns
    x.AppendI32(i)
    x.IndexGetR(0)
  end
  GC.start
  check views.count { |x| x.GetI32 rescue nil } < 20, "collected lists left their views alive"
  views.each_with_index do |x, i|
    begin
      x.GetI32 == i or raise "view #{i} shows #{x.GetI32}"
    rescue MkExceptionC
      nil # ended
    end
  end
end

# A query only reads its stream or list (its C object is const), so the
# value a view shows stays where and what it was (ruby.py: ends_src_view).
test "a query on a stream or list leaves its view; the next other call ends it" do
  ended = /ReadBUFR or IndexGetR is no longer valid/
  s = MkBufferStreamC.new
  s.WriteBIN("ab".b); s.WriteI32(2)
  s.PosToStart
  v = s.ReadBUFR
  check s.ReadItemExists && s.ReadGetType == MK_TYPE_I32 && s.Count == 2 && s.Size > 0
  check v.GetBIN == "ab".b, "the view after ReadItemExists, ReadGetType, Count and Size"
  s.ReadI32
  raises(MkExceptionC, ended) { v.GetBIN }
  l = MkBufferListC.new
  l.AppendI32(7)
  w = l.IndexGetR(0)
  check l.Size == 1 && w.GetI32 == 7, "the view after Size"
  l.Reset
  raises(MkExceptionC, ended) { w.GetI32 }
end

test "views of more streams than the table holds: each shows its own value or has ended" do
  streams = Array.new(100) { |i| MkBufferStreamC.new.tap { |x| x.WriteI32(i); x.PosToStart } }
  views = streams.map(&:ReadBUFR)
  live = views.each_with_index.count do |v, i|
    begin
      v.GetI32 == i or raise "view #{i} shows #{v.GetI32}"
    rescue MkExceptionC
      false
    end
  end
  check live >= 1 && live <= 64, "#{live} live views"
  streams.each_with_index { |x, i| x.PosToStart; check x.ReadBUFR.GetI32 == i }
end

test "CreateTLS returns the thread's object, emptied; Delete on it is ignored" do
  s = MkBufferStreamC.CreateTLS("t")
  s.WriteI32(5)
  s.Delete
  t = MkBufferStreamC.CreateTLS("t")
  check t.Count == 0
end

test "CreateTLS gives a thread the same object on every call, allocating nothing" do
  s = MkBufferStreamC.CreateTLS("same")
  check MkBufferStreamC.CreateTLS("same").equal?(s)
  s.Delete
  t = MkBufferStreamC.CreateTLS("same")
  check t.equal?(s), "a new wrapper after Delete"
  t.WriteI32(1)
  GC.start
  check MkBufferStreamC.CreateTLS("same").equal?(s), "a new wrapper after GC"
  l = MkBufferListC.CreateTLS("same")
  check MkBufferListC.CreateTLS("same").equal?(l) && !l.equal?(s)
  other = Thread.new { MkBufferStreamC.CreateTLS("same").tap { |o| o.WriteI32(2) } }.value
  check !other.equal?(s), "another thread's stream is its own"
  name = "hot".freeze
  MkBufferStreamC.CreateTLS(name)
  n = GC.stat(:total_allocated_objects)
  100.times { MkBufferStreamC.CreateTLS(name) }
  n = GC.stat(:total_allocated_objects) - n
  check n < 10, "#{n} objects for 100 calls"
end

# The runtime remembers the objects of a thread's last few names (runtime.c:
# mqrb_plain_tls); which object a call empties shows which one it found.
test "CreateTLS finds each name's own object: more names than remembered, any encoding, per class" do
  names = (1..9).map { |i| "name-#{i}" } + ["n" * 40]
  streams = names.map { |n| MkBufferStreamC.CreateTLS(n).tap { |s| s.WriteI32(1) } }
  lists = names.map { |n| MkBufferListC.CreateTLS(n).tap { |l| l.AppendI32(1) } }
  emptied = lambda do
    e = [streams.each_index.select { |j| streams[j].Count == 0 },
         lists.each_index.select { |j| lists[j].Size == 0 }]
    streams.each { |s| s.WriteI32(1) if s.Count == 0 }
    lists.each { |l| l.AppendI32(1) if l.Size == 0 }
    e
  end
  [->(n) { n }, ->(n) { n.b }, ->(n) { n.encode("UTF-16LE") }].each do |form|
    names.each_with_index do |n, i|
      MkBufferStreamC.CreateTLS(form.(n))
      check emptied.() == [[i], []], "stream #{n} (#{form.(n).encoding})"
      MkBufferListC.CreateTLS(form.(n))
      check emptied.() == [[], [i]], "list #{n} (#{form.(n).encoding})"
    end
  end
  raises(ArgumentError, /NUL/) { MkBufferStreamC.CreateTLS("name-1\0") }
  raises(TypeError) { MkBufferStreamC.CreateTLS(:"name-1") }
end

# The runtime compares a remembered name in 8-byte words, the last one
# ending at the name's end (runtime.c: same_name); a name that differs in
# any one byte, at any length it remembers (up to 31 bytes), is another.
test "CreateTLS tells remembered names apart by each of their bytes, at every length" do
  bad = []
  (1..32).each do |len|
    base = (0...len).map { |i| (97 + i % 26).chr }.join.force_encoding(Encoding::UTF_8) # looked up
    a = MkBufferStreamC.CreateTLS(base).tap { |s| s.WriteI32(1) }
    len.times do |i|
      other = base.dup
      other.setbyte(i, other.getbyte(i) ^ 1)
      o = MkBufferStreamC.CreateTLS(other)
      bad << "#{len}:#{i}" if o.equal?(a) || a.Count != 1
      o.WriteI32(1)
      b = MkBufferStreamC.CreateTLS(base)
      bad << "#{len}:#{i} base" if !b.equal?(a) || a.Count != 0 || o.Count != 1
      a.WriteI32(1)
    end
  end
  check bad.empty?, "names taken for another: #{bad.first(5).join(' ')}"
end

# A name is found by its bytes: an unfrozen String can change between
# calls, a frozen one must keep finding its object through GC.
test "CreateTLS finds a changed unfrozen name's own object, and a frozen name's through GC" do
  n = String.new("tls-a")
  a = MkBufferStreamC.CreateTLS(n).tap { |s| s.WriteI32(1) }
  check MkBufferStreamC.CreateTLS(n).equal?(a) && a.Count == 0, "the same name, another object"
  a.WriteI32(1)
  n.replace("tls-b")
  b = MkBufferStreamC.CreateTLS(n)
  check !b.equal?(a) && a.Count == 1, "a changed name found the old name's object"
  f = "tls-c".dup.freeze
  c = MkBufferStreamC.CreateTLS(f).tap { |s| s.WriteI32(1) }
  GC.start
  check MkBufferStreamC.CreateTLS(f).equal?(c) && c.Count == 0, "a frozen name lost its object"
  c.WriteI32(1)
  check MkBufferStreamC.CreateTLS("tls-c".dup.freeze).equal?(c) && c.Count == 0,
        "an equal frozen String did not find the name's object"
  c.WriteI32(1)
  check !MkBufferListC.CreateTLS(f).equal?(c) && c.Count == 1,
        "a frozen name found the object of another class"
end

# In a new process with only unfrozen names seen, a name that is no String
# (false, whose VALUE is 0) is refused, not taken for a remembered one.
test "CreateTLS(false) raises TypeError in a process that used unfrozen names only" do
  code = 'require "mqlink"; Mqlink::MkBufferStreamC.CreateTLS(String.new("x")); ' \
         'begin; Mqlink::MkBufferStreamC.CreateTLS(false); print "no error"; ' \
         'rescue TypeError; print "TypeError"; end'
  out = IO.popen([RbConfig.ruby, "-e", code], err: %i[child out], &:read)
  check out == "TypeError", out
end

test "copies' C buffers are recycled, each with its own new value; large ones are freed" do
  pooled = -> { Mqlink.__send__(:buffers_pooled) }
  s = MkBufferStreamC.new
  s.WriteI32(7)
  s.WriteSTR("short")
  a = s.ReadBUF
  n = pooled.()
  a.Delete
  check pooled.() == n + 1, "Delete gives the C buffer back"
  b = s.ReadBUF
  check pooled.() == n && b.GetSTR == "short" && b.GetType == MK_TYPE_STR, "reused with its value"
  200.times { s.PosToStart; s.ReadBUF; s.ReadBUF }
  GC.start
  n = pooled.()
  check n >= 150, "#{n} buffers back from 400 collected copies"
  big = MkBufferStreamC.new
  big.WriteBIN("x" * 1000)
  copies = Array.new(100) { big.PosToStart; big.ReadBUF }
  check copies.all? { |c| c.GetBIN == "x" * 1000 } && pooled.() == n - 100
  copies = nil
  GC.start
  check pooled.() < n - 80, "#{pooled.()} pooled: a large value's buffer is freed, not kept"
end

test "a deleted object raises MkExceptionC instead of touching freed memory" do
  b = MkBufferC.Create
  b.Delete
  b.Delete
  e = raises(MkExceptionC) { b.SetI32(1) }
  check e.message == "SetI32: the object was deleted", e.message
  l = MkBufferListC.new
  raises(MkExceptionC) { l.AppendBUF(b) }
  raises(TypeError) { l.AppendBUF("not a buffer") }
end

test "a subclass's object, one with a singleton class and a deleted one take the checked path" do
  sub_buf = Class.new(MkBufferC)
  sub_stream = Class.new(MkBufferStreamC)
  b = sub_buf.new
  b.SetI32(5)
  s = sub_stream.new
  s.WriteBUF(b)
  odd = MkBufferC.new
  odd.SetSTR("odd")
  odd.extend(Module.new) # a singleton class: no longer exactly MkBufferC
  s.WriteBUF(odd)
  s.PosToStart
  check s.ReadI32 == 5 && s.ReadSTR == "odd"
  l = MkBufferListC.new
  l.AppendBUF(b)
  check l.IndexGet(0).GetI32 == 5
  e = raises(TypeError) { l.AppendBUF(MkBufferStreamC.new) }
  check e.message == "AppendBUF: expected MkBufferC, got Mqlink::MkBufferStreamC", e.message
  e = raises(TypeError) { MkBufferStreamC.instance_method(:WriteI32).bind_call(b, 1) }
  check e.message.include?("MkBufferStreamC"), e.message
  s.Delete
  e = raises(MkExceptionC) { s.WriteI32(1) }
  check e.message == "WriteI32: the object was deleted", e.message
end

test "module functions and constants" do
  check MkTypeName(MK_TYPE_STR) == "STR"
  check Mqlink::MQ_WAIT_FOREVER == 2 && Mqlink::MK_ERR_USER == 1000
  check MkExceptionC.ancestors.include?(StandardError)
  e = MkExceptionC.new("text", 42)
  check e.text == "text" && e.code == 42 && e.message == "text"
end

test "objects survive and are freed under GC.stress" do
  GC.stress = true
  begin
    keep = 20.times.map { |i| b = MkBufferC.new; b.SetI32(i); b }
    20.times { MkBufferStreamC.new.WriteSTR("garbage") }
    check keep.each_with_index.all? { |b, i| b.GetI32 == i }
    20.times do |i|
      s = MkBufferStreamC.new
      s.WriteI32(i); s.PosToStart
      l = MkBufferListC.new
      l.AppendBUF(s.ReadBUFR)
      check l.IndexGetR(0).GetI32 == i
    end
  ensure
    GC.stress = false
  end
  GC.start
end
