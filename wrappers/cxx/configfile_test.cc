// configfile_test.cc — TAP: mqlink::MqConfigFileC, a plain class that comes
// entirely from the API description: typed reads, defaults for absent paths,
// mqlink::MkExceptionC naming FILE:LINE, and RAII ownership.
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

#include "mqlink.hh"

extern "C" {
#include "testlib.h"
}

namespace mq = mqlink;

static const char cfg_text[] =
    "name = \"srv\";\n"
    "server: {\n"
    "  timeout = 45;\n"
    "  ratio = 2.5;\n"
    "  verbose = true;\n"
    "};\n"
    "port = \"8080\";\n";

static std::string
write_cfg(const char *text)
{
    std::string file = mqt_temp_path("cfg");
    FILE *f = std::fopen(file.c_str(), "w");
    MQT_CHECK(f != nullptr);
    std::fputs(text, f);
    std::fclose(f);
    return file;
}

// The exception fn throws; a failed check when it throws none.
template <class F>
static mq::MkExceptionC
thrown(F fn)
{
    try {
        fn();
    } catch (const mq::MkExceptionC &e) {
        return e;
    }
    mqt_fail(__FILE__, __LINE__, "no mqlink::MkExceptionC thrown");
    return mq::MkExceptionC("");
}

static bool
starts_with(const std::string &s, const std::string &prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

static void
test_typed_reads(void)
{
    mq::MqConfigFileC cfg;
    cfg.Read(write_cfg(cfg_text));
    MQT_CHECK(cfg.GetI64("server.timeout", 30) == 45);
    MQT_CHECK(cfg.GetSTR("name") == "srv");
    MQT_CHECK(cfg.GetBOL("server.verbose"));
    MQT_CHECK(cfg.GetDBL("server.ratio") == 2.5);
    MQT_CHECK(cfg.GetDBL("server.timeout") == 45.0); // an integer reads as a double
    MQT_CHECK(cfg.Exists("server.timeout") && !cfg.Exists("server.nope"));
}

static void
test_defaults(void)
{
    mq::MqConfigFileC cfg = mq::MqConfigFileC::Create();
    MQT_CHECK(cfg.GetI64("x", 30) == 30); // nothing read yet
    cfg.Read(write_cfg(cfg_text));
    MQT_CHECK(cfg.GetI64("server.missing", 30) == 30);
    MQT_CHECK(cfg.GetI64("server.missing") == 0);
    MQT_CHECK(cfg.GetSTR("missing").empty());
    MQT_CHECK(cfg.GetSTR("missing", "dflt") == "dflt");
    MQT_CHECK(cfg.GetBOL("missing", true));
    MQT_CHECK(cfg.GetDBL("missing", 1.5) == 1.5);
}

static void
test_wrong_type(void)
{
    std::string file = write_cfg(cfg_text);
    mq::MqConfigFileC cfg;
    cfg.Read(file);
    mq::MkExceptionC e = thrown([&] { cfg.GetI64("port", 1); });
    MQT_CHECK_MSG(starts_with(e.text(), file + ":7:"), "text: %s", e.what());
    MQT_CHECK_MSG(e.text().find("'port' is a string, not an integer") != std::string::npos,
                  "text: %s", e.what());
    MQT_CHECK(e.code() == MK_ERR_TYPE);
    MQT_CHECK(cfg.GetSTR("port") == "8080"); // the error was reset
}

static void
test_syntax_error(void)
{
    std::string bad = write_cfg("a = 1;\nb = ;\n");
    mq::MqConfigFileC cfg;
    cfg.Read(write_cfg(cfg_text));
    mq::MkExceptionC e = thrown([&] { cfg.Read(bad); });
    MQT_CHECK_MSG(starts_with(e.text(), bad + ":2:"), "text: %s", e.what());
    MQT_CHECK(e.code() == MK_ERR_FORMAT);
    MQT_CHECK(cfg.GetI64("server.timeout", 30) == 30); // a half-read file answers nothing
}

static void
test_ownership(void)
{
    static_assert(!std::is_copy_constructible<mq::MqConfigFileC>::value, "move-only");
    mq::MqConfigFileC a;
    a.Read(write_cfg(cfg_text));
    mq::MqConfigFileC b = std::move(a);
    MQT_CHECK(b.GetI64("server.timeout") == 45);
    mq::MkExceptionC e = thrown([&] { a.GetI64("server.timeout"); });
    MQT_CHECK(e.code() == MK_ERR_ARGUMENT);
    b.Delete();
    b.Delete(); // idempotent
    thrown([&] { b.GetSTR("name"); });
}

static const mqt_case cases[] = {
    {"typed reads", test_typed_reads},
    {"absent paths give the default", test_defaults},
    {"wrong type throws MkExceptionC with FILE:LINE", test_wrong_type},
    {"syntax error in Read throws MkExceptionC with FILE:LINE", test_syntax_error},
    {"move-only, Delete idempotent, use after move or Delete throws", test_ownership},
    {nullptr, nullptr},
};

int
main(int argc, char **argv)
{
    return mqt_main(argc, argv, cases);
}
