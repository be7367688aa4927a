// callback_test.cc — TAP: who owns a callback registered from C++.  A C call
// taking fn, data and free keeps data on MK_OK and leaves it with the caller
// on MK_ERROR (mqlink.h); the generated overloads free the std::function they
// made when the call fails, or when the call is never made (a deleted
// context), and leave it to the library when it succeeds.  A Probe counts its
// live copies: every one is destroyed exactly once when the count is back to
// zero (a leak leaves it above, a second destruction takes it below; the ASan
// build reports either too).
#include <string>

#include "mqlink.hh"

extern "C" {
#include "testlib.h"
}

namespace mq = mqlink;

static int live;   // Probe objects alive
static int called; // calls of any Probe

struct Probe {
    Probe() { live++; }
    Probe(const Probe &) { live++; }
    Probe(Probe &&) noexcept { live++; }
    ~Probe() { live--; }
    void operator()(mq::MqContextC &) const { called++; }
};

// Run call, which must throw MkExceptionC; true when it did.
template <class F>
static bool
fails(F call)
{
    try {
        call();
    } catch (const mq::MkExceptionC &) {
        return true;
    }
    return false;
}

static void
test_callback_unlinked(void)
{
    live = called = 0;
    {
        mq::MqContextC c; // never linked: the send fails
        c.SendSTART();
        MQT_CHECK(fails([&] { c.SendEND_AND_CALLBACK("ECUL", Probe()); }));
        MQT_CHECK_MSG(live == 0, "%d Probe(s) alive after the failed call", live);
    }
    MQT_CHECK(live == 0 && called == 0);
}

static void
test_transaction_callback_unlinked(void)
{
    live = called = 0;
    {
        mq::MqContextC c;
        c.SendSTART();
        MQT_CHECK(fails([&] { c.SendEND_AND_TRANSACTION_CALLBACK("ECUL", Probe()); }));
        MQT_CHECK_MSG(live == 0, "%d Probe(s) alive after the failed call", live);
    }
    MQT_CHECK(live == 0 && called == 0);
}

static void
test_service_bad_token(void)
{
    live = called = 0;
    mq::MqContextC c;
    MQT_CHECK(fails([&] { c.ServiceCreate("AB\tC", Probe()); })); // not printable
    MQT_CHECK_MSG(live == 0, "%d Probe(s) alive after the failed call", live);
}

// The call is never made: the context is gone before it (Ptr() throws).
static void
test_callback_deleted_context(void)
{
    live = called = 0;
    mq::MqContextC c;
    c.Delete();
    MQT_CHECK(fails([&] { c.SendEND_AND_CALLBACK("ECUL", Probe()); }));
    MQT_CHECK_MSG(live == 0, "%d Probe(s) alive after the failed call", live);
}

// MK_OK: the library keeps the one copy until it is done with it.
static void
test_service_registered(void)
{
    live = called = 0;
    {
        mq::MqContextC c;
        c.ServiceCreate("PROB", Probe());
        MQT_CHECK_MSG(live == 1, "%d Probe(s) alive while registered", live);
        c.ServiceCreate("PROB", Probe()); // replaced: the first one is freed
        MQT_CHECK_MSG(live == 1, "%d Probe(s) alive after the replacement", live);
    }
    MQT_CHECK_MSG(live == 0, "%d Probe(s) alive after the context", live);
}

static const mqt_case cases[] = {
    {"SendEND_AND_CALLBACK failing frees the callback once", test_callback_unlinked},
    {"SendEND_AND_TRANSACTION_CALLBACK failing frees the callback once",
     test_transaction_callback_unlinked},
    {"ServiceCreate failing frees the callback once", test_service_bad_token},
    {"a call on a deleted context frees the callback once", test_callback_deleted_context},
    {"a registered callback lives until the library drops it", test_service_registered},
    {nullptr, nullptr},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
