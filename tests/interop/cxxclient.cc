// cxxclient.cc LABEL LINK-ARGS... — the interop client in C++ (mqlink.hh)
// against any interop server: the cases of cclient.c and pyclient.py, with
// errors as mqlink::MkExceptionC and callbacks as lambdas.  Prints one TAP
// line per case ("ok - LABEL: case"); run_matrix.sh numbers them.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "mqlink.hh"

namespace mq = mqlink;

// The client's class: a member function to register as a service.
class Client : public mq::MqContextC {
  public:
    void Nothing() {}
};

static const char *label;
static Client *c;
static std::string server; // INST of the parent: "Class:address"

static void
report(bool ok, const std::string &what, const std::string &why = "")
{
    std::printf("%s - %s: %s\n", ok ? "ok" : "not ok", label, what.c_str());
    if (!ok && !why.empty())
        std::printf("#   %s\n", why.c_str());
    std::fflush(stdout);
}

// A case passes when fn returns; any exception fails it, never the others.
static void
run_case(const std::string &what, const std::function<void()> &fn)
{
    try {
        fn();
        report(true, what);
    } catch (const mq::MkExceptionC &e) {
        report(false, what, "MkExceptionC: " + e.text());
    } catch (const std::exception &e) {
        report(false, what, e.what());
    }
}

static void
expect(bool ok, const std::string &why)
{
    if (!ok)
        throw std::runtime_error(why);
}

// Send and read one value by its C++ type.
template <class V> struct Io;
#define IO(T, V)                                                              \
    template <> struct Io<V> {                                                \
        static constexpr const char *name = #T;                               \
        static void send(mq::MqContextC &c, const V &v) { c.Send##T(v); }     \
        static V read(mq::MqContextC &c) { return c.Read##T(); }              \
    };
IO(I8, MK_I8)
IO(I16, MK_I16)
IO(I32, MK_I32)
IO(I64, MK_I64)
IO(FLT, MK_FLT)
IO(DBL, MK_DBL)
IO(BOL, bool)
IO(STR, std::string)
IO(BIN, std::vector<uint8_t>)

template <class V>
static V
echo(mq::MqContextC &ctx, const V &v)
{
    ctx.SendSTART();
    ctx.SendSTR(Io<V>::name);
    Io<V>::send(ctx, v);
    ctx.SendEND_AND_WAIT("ECHO", 20000);
    return Io<V>::read(ctx);
}

// NaN equals NaN, and -0.0 is not 0.0.
template <class V>
static bool
same(const V &a, const V &b)
{
    if constexpr (std::is_floating_point<V>::value)
        return std::isnan(a) ? std::isnan(b) : a == b && std::signbit(a) == std::signbit(b);
    return a == b;
}

template <class V>
static std::string
show(const V &v)
{
    char s[64];
    if constexpr (std::is_floating_point<V>::value)
        std::snprintf(s, sizeof s, "%g", static_cast<double>(v));
    else if constexpr (std::is_integral<V>::value)
        std::snprintf(s, sizeof s, "%lld", static_cast<long long>(v));
    else
        std::snprintf(s, sizeof s, "<%zu bytes>", v.size());
    return s;
}

template <class V>
static void
echo_case(const std::vector<V> &vals)
{
    run_case(std::string("ECHO ") + Io<V>::name + " with boundary values", [&] {
        for (const V &v : vals) {
            V r = echo(*c, v);
            expect(same(v, r), show(v) + " came back as " + show(r));
        }
    });
}

static void
echo_all()
{
    using L8 = std::numeric_limits<MK_I8>;
    using L16 = std::numeric_limits<MK_I16>;
    using L32 = std::numeric_limits<MK_I32>;
    using L64 = std::numeric_limits<MK_I64>;
    const float finf = std::numeric_limits<float>::infinity();
    const double inf = std::numeric_limits<double>::infinity();
    const size_t MiB = 1 << 20;
    std::vector<uint8_t> big(MiB);
    for (size_t i = 0; i < MiB; i++)
        big[i] = static_cast<uint8_t>(i);
    echo_case<MK_I8>({L8::min(), -1, 0, L8::max()});
    echo_case<MK_I16>({L16::min(), 0, L16::max()});
    echo_case<MK_I32>({L32::min(), 0, L32::max()});
    echo_case<MK_I64>({L64::min(), -1, 0, L64::max()});
    echo_case<MK_FLT>({0.0f, -0.0f, 1.5f, FLT_MAX, -FLT_MIN, finf, -finf, std::nanf("")});
    echo_case<MK_DBL>({0.0, -0.0, DBL_MAX, -DBL_MIN, -5e-324, inf, -inf, std::nan("")});
    echo_case<bool>({true, false});
    echo_case<std::string>({"", "text", "\xc3\xa4\xe4\xb8\xad\xf0\x9f\x98\x80", std::string(MiB, 'x')});
    echo_case<std::vector<uint8_t>>({{}, {0, 0xff, 0}, big});
}

static void
nested()
{
    c->SendSTART();
    c->SendL_START();
    c->SendI32(1);
    c->SendL_START();
    c->SendSTR("deep");
    c->SendBIN(std::string("\x01", 1));
    c->SendL_END();
    c->SendDBL(2.5);
    c->SendL_END();
    c->SendEND_AND_WAIT("ELST");
    c->ReadL_START();
    expect(c->ReadI32() == 1, "first item");
    c->ReadL_START();
    expect(c->ReadSTR() == "deep", "STR in the inner list");
    expect(c->ReadBIN() == std::vector<uint8_t>{1}, "BIN in the inner list");
    c->ReadL_END();
    expect(c->ReadDBL() == 2.5, "DBL after the inner list");
    c->ReadL_END();
    expect(!c->ReadItemExists(), "nothing after the list");
}

// token must fail with an MkExceptionC whose text contains want; its code.
static MK_I32
expect_failure(const char *token, const std::string &want)
{
    try {
        c->SendEND_AND_WAIT(token);
    } catch (const mq::MkExceptionC &e) {
        expect(e.text().find(want) != std::string::npos, "error text: " + e.text());
        return e.code();
    }
    throw std::runtime_error(std::string(token) + " did not fail");
}

// fn (a read) must throw MkExceptionC; the context stays usable.
static void
expect_throw(const std::string &what, const std::function<void()> &fn)
{
    try {
        fn();
    } catch (const mq::MkExceptionC &) {
        return;
    }
    throw std::runtime_error(what + " did not throw");
}

static void
wrong_client()
{
    expect(echo<MK_I32>(*c, 300) == 300, "300 as I32");
    expect_throw("300 read as I8", [] { echo<MK_I32>(*c, 300); c->ReadI8(); });
    expect_throw("'abc' read as I32", [] { echo<std::string>(*c, "abc"); c->ReadI32(); });
    expect_throw("reading past the end", [] { echo<MK_I8>(*c, 1); c->ReadI8(); });
    expect(echo<MK_I16>(*c, 7) == 7, "the context works after the errors");
}

// Run the loop until done() (bounded: a lost answer fails, never hangs).
static void
process_until(const std::function<bool()> &done)
{
    for (int i = 0; i < 100 && !done(); i++)
        c->ProcessEvent(MQ_WAIT_ONCE, 1000);
}

static void
callback()
{
    std::vector<MK_I32> got;
    mq::MqContextC *seen = nullptr;
    c->SendSTART();
    c->SendSTR("I32");
    c->SendI32(42);
    c->SendEND_AND_CALLBACK("ECHO", [&](mq::MqContextC &ctx) {
        seen = &ctx;
        got.push_back(ctx.ReadI32());
    });
    process_until([&] { return !got.empty(); });
    expect(got == std::vector<MK_I32>{42}, "callback ran " + std::to_string(got.size()) + " times");
    expect(seen == c, "the callback's context is the caller's object");
}

static void
callback_throws()
{
    int thrown = 0, after = 0;
    for (int i = 0; i < 2; i++) {
        c->SendSTART();
        c->SendSTR("I8");
        c->SendI8(1);
        c->SendEND_AND_CALLBACK("ECHO", [&, i](mq::MqContextC &) {
            thrown++;
            if (i == 0)
                throw std::runtime_error("callback failed on purpose");
            throw mq::MkExceptionC("callback failed on purpose, too");
        });
    }
    c->SendSTART();
    c->SendSTR("I8");
    c->SendI8(2);
    c->SendEND_AND_CALLBACK("ECHO", [&](mq::MqContextC &ctx) { after = ctx.ReadI8(); });
    process_until([&] { return after != 0; });
    expect(thrown == 2 && after == 2, "the callback after two throwing ones did not run");
    expect(echo<MK_I16>(*c, 7) == 7, "the context works after the callbacks");
}

static void
instances()
{
    std::set<std::string> names{server};
    std::vector<std::unique_ptr<mq::MqContextC>> kids;
    std::string prefix = server.substr(0, server.find(':'));
    for (int i = 0; i < 3; i++) {
        kids.emplace_back(new mq::MqContextC());
        mq::MqContextC &k = *kids.back();
        k.LinkCreateChild(*c);
        k.SendSTART();
        k.SendEND_AND_WAIT("INST");
        std::string name = k.ReadSTR();
        expect(name.substr(0, name.find(':')) == prefix, name + " is not a " + prefix);
        names.insert(name);
        expect(echo<MK_I64>(k, -5) == -5, "ECHO on the child");
    }
    kids.clear();
    expect(names.size() == 4, std::to_string(names.size()) + " distinct instances of 4");
}

int
main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    label = argv[1];
    std::vector<std::string> args{"cxxclient"};
    args.insert(args.end(), argv + 2, argv + argc);
    Client ctx;
    c = &ctx;
    try {
        c->LinkCreate(args);
        c->SendSTART();
        c->SendEND_AND_WAIT("INST");
        server = c->ReadSTR();
    } catch (const mq::MkExceptionC &e) {
        report(false, "link", e.text());
        return 1;
    }
    echo_all();
    run_case("ELST echoes nested lists", nested);
    run_case("a service's error arrives as MkExceptionC with its text and code", [] {
        c->SendSTART();
        c->SendSTR("broken on purpose");
        MK_I32 code = expect_failure("FAIL", "broken on purpose");
        expect(code == 1234, "code " + std::to_string(code) + ", not the service's 1234");
    });
    if (server.compare(0, 11, "TestServer:") == 0)
        run_case("a plain Python exception in a service arrives with its text", [] {
            c->SendSTART();
            expect_failure("PYER", "ValueError: python says no");
        });
    if (server.compare(0, 14, "CxxTestServer:") == 0)
        run_case("a lambda service answers", [] {
            c->SendSTART();
            c->SendEND_AND_WAIT("LAMB");
            expect(c->ReadSTR() == "lambda", "LAMB's answer");
        });
    run_case("reading the wrong type in a service is an error the service can catch", [] {
        c->SendSTART();
        c->SendSTR("abc");
        c->SendEND_AND_WAIT("WRNG");
        std::string text = c->ReadSTR();
        expect(text.compare(0, 8, "caught: ") == 0, text);
    });
    run_case("reading the wrong type throws MkExceptionC", wrong_client);
    run_case("SendEND_AND_CALLBACK runs the callback from the event loop", callback);
    run_case("a callback that throws does not stop the event loop", callback_throws);
    run_case("every child gets its own server instance of the server's class", instances);
    // The refused registration is freed (else a leak under LeakSanitizer).
    run_case("ServiceCreate of a member function with a bad token throws MkExceptionC", [] {
        expect_throw("token TOOLONG", [] { c->ServiceCreate("TOOLONG", &Client::Nothing); });
    });
    ctx.Delete();
    return 0;
}
