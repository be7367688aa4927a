// buffer_test.cc — TAP: the borrowed BUF of the C++ binding.  ReadBUF and
// IndexGet return the view mqlink::MkBufferR (the C object's own buffer, no
// copy), valid until the next ReadBUF on the same object; Dup(), or keeping
// it as an mqlink::MkBufferC, makes an owned copy that survives later reads.
#include <string>
#include <type_traits>
#include <vector>

#include "mqlink.hh"

extern "C" {
#include "testlib.h"
}

namespace mq = mqlink;

// The generated signatures: borrowed BUF outs and returns are views.
static_assert(std::is_same<decltype(std::declval<mq::MqContextC &>().ReadBUF()),
                           mq::MkBufferR>::value, "MqContextC::ReadBUF returns a view");
static_assert(std::is_same<decltype(std::declval<mq::MkBufferStreamC &>().ReadBUF()),
                           mq::MkBufferR>::value, "MkBufferStreamC::ReadBUF returns a view");
static_assert(std::is_same<decltype(std::declval<mq::MkBufferListC &>().IndexGet(0)),
                           mq::MkBufferR>::value, "MkBufferListC::IndexGet returns a view");
static_assert(std::is_same<decltype(std::declval<mq::MkBufferR &>().Dup()), mq::MkBufferC>::value,
              "Dup gives an owned MkBufferC");

// A client on the C perfserver: ECUL echoes I8 I16 I32 DBL and one item, so
// the answer is five items for the client's ReadBUF.
static void
test_context_readbuf(void)
{
    mq::MqContextC c;
    c.LinkCreate({"client", "@", mqt_build_path("perfserver/perfserver")});
    mq::MkBufferC item;
    item.SetSTR("the item");
    c.SendSTART();
    c.SendI8(-8);
    c.SendI16(1600);
    c.SendI32(320000);
    c.SendDBL(2.5);
    c.SendBUF(item);
    c.SendEND_AND_WAIT("ECUL");

    mq::MkBufferR b = c.ReadBUF();          // borrowed: usable until the next read
    MQT_CHECK(b.GetType() == MK_TYPE_I8 && b.GetI8() == -8);
    mq::MkBufferC dup = b.Dup();            // owned copies
    mq::MkBufferC kept = b;                 // a view kept as MkBufferC is copied
    mq::MkBufferC assigned;
    assigned = b;
    MQT_CHECK(kept.Ptr() != b.Ptr() && assigned.Ptr() != b.Ptr());

    b = c.ReadBUF();                        // the next read: b names the new item
    MQT_CHECK(b.GetType() == MK_TYPE_I16 && b.GetI16() == 1600);
    auto third = c.ReadBUF();
    MQT_CHECK(third.GetI32() == 320000);
    MQT_CHECK(c.ReadBUF().GetDBL() == 2.5);
    mq::MkBufferR last = c.ReadBUF();
    MQT_CHECK(last.GetSTR() == "the item");

    // the copies made before the later reads still hold the first item
    MQT_CHECK(dup.GetType() == MK_TYPE_I8 && dup.GetI8() == -8);
    MQT_CHECK(kept.GetI8() == -8 && assigned.GetI8() == -8);
    c.Delete();
    MQT_CHECK(dup.GetI8() == -8); // owned: outlives the context
}

// A view passes to WriteBUF / AppendBUF / SendBUF as a const MkBufferC &,
// without a copy; the stream's and the list's view follow the same rules.
static void
test_stream_and_list(void)
{
    mq::MkBufferStreamC bus;
    bus.WriteI32(7);
    bus.WriteSTR("seven");
    bus.PosToStart();

    mq::MkBufferListC bfl;
    mq::MkBufferR v = bus.ReadBUF();
    MQT_CHECK(v.GetI32() == 7);
    mq::MkBufferC first = v.Dup();
    bfl.AppendBUF(v);
    bfl.AppendBUF(bus.ReadBUF());           // a temporary view
    MQT_CHECK(first.GetI32() == 7);
    MQT_CHECK(bfl.Size() == 2);
    MQT_CHECK(bfl.IndexGet(0).GetI32() == 7 && bfl.IndexGet(1).GetSTR() == "seven");

    mq::MkBufferStreamC out;
    for (MK_I32 i = 0; i < bfl.Size(); i++)
        out.WriteBUF(bfl.IndexGet(i));
    out.PosToStart();
    MQT_CHECK(out.ReadI32() == 7 && out.ReadSTR() == "seven");

    mq::MkBufferC copy = bfl.IndexGet(1);
    bfl.Reset();                            // invalidates the list's views, not copies
    MQT_CHECK(copy.GetSTR() == "seven");
}

// A view never frees the C buffer: Delete only forgets it, and copying a
// view copies the name, not the value.
static void
test_view_ownership(void)
{
    mq::MkBufferStreamC bus;
    bus.WriteI8(1);
    bus.PosToStart();
    mq::MkBufferR v = bus.ReadBUF();
    mq::MkBufferR w = v;
    MQT_CHECK(w.Ptr() == v.Ptr());
    w.Delete();
    MQT_CHECK(v.GetI8() == 1); // still the stream's, still alive
    bool threw = false;
    try {
        w.GetI8();
    } catch (const mq::MkExceptionC &) {
        threw = true;
    }
    MQT_CHECK(threw);
}

static const mqt_case cases[] = {
    {"context ReadBUF is borrowed until the next read, Dup survives it",
     test_context_readbuf},
    {"stream and list views pass to WriteBUF/AppendBUF without a copy",
     test_stream_and_list},
    {"a view never frees; Delete forgets it", test_view_ownership},
    {nullptr, nullptr},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
