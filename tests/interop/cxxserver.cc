// cxxserver.cc — the interop test server in C++: the services of pyserver.py
// as member functions; every instance is a new TestServer.
#include <cstdio>
#include <string>

#include "mqlink.hh"

namespace mq = mqlink;

class TestServer : public mq::MqContextC {
  public:
    void ServerSetup()
    {
        ServiceCreate("ECHO", &TestServer::ECHO);
        ServiceCreate("ELST", &TestServer::ELST);
        ServiceCreate("FAIL", &TestServer::FAIL);
        ServiceCreate("WRNG", &TestServer::WRNG);
        ServiceCreate("INST", &TestServer::INST);
        // a lambda works as well as a member function
        ServiceCreate("LAMB", [](mq::MqContextC &ctx) {
            ctx.SendSTART();
            ctx.SendSTR("lambda");
            ctx.SendRETURN();
        });
    }

  private:
    void ECHO()
    {
        std::string t = ReadSTR();
        if (t == "I8") { auto v = ReadI8(); SendSTART(); SendI8(v); }
        else if (t == "I16") { auto v = ReadI16(); SendSTART(); SendI16(v); }
        else if (t == "I32") { auto v = ReadI32(); SendSTART(); SendI32(v); }
        else if (t == "I64") { auto v = ReadI64(); SendSTART(); SendI64(v); }
        else if (t == "FLT") { auto v = ReadFLT(); SendSTART(); SendFLT(v); }
        else if (t == "DBL") { auto v = ReadDBL(); SendSTART(); SendDBL(v); }
        else if (t == "BOL") { auto v = ReadBOL(); SendSTART(); SendBOL(v); }
        else if (t == "STR") { auto v = ReadSTR(); SendSTART(); SendSTR(v); }
        else if (t == "BIN") { auto v = ReadBIN(); SendSTART(); SendBIN(v); }
        else throw mq::MkExceptionC("ECHO: unknown type " + t, MK_ERR_ARGUMENT);
        SendRETURN();
    }
    void ELST()
    {
        SendSTART();
        ProxyItem(*this);
        SendRETURN();
    }
    void FAIL() { throw mq::MkExceptionC(ReadSTR(), 1234); }
    void WRNG()
    {
        std::string text = "not caught";
        try {
            ReadI32();
        } catch (const mq::MkExceptionC &e) {
            text = std::string("caught: ") + e.what();
        }
        SendSTART();
        SendSTR(text);
        SendRETURN();
    }
    void INST()
    {
        char text[64];
        std::snprintf(text, sizeof text, "CxxTestServer:%p", static_cast<void *>(this));
        SendSTART();
        SendSTR(text);
        SendRETURN();
    }
};

int
main(int argc, char **argv)
{
    TestServer srv;
    try {
        srv.ConfigSetServerSetup(&TestServer::ServerSetup);
        srv.LinkCreate(std::vector<std::string>(argv, argv + argc));
        srv.ProcessEvent(MQ_WAIT_FOREVER);
    } catch (const mq::MkExceptionC &e) {
        std::fprintf(stderr, "cxxserver: %s\n", e.what());
        return 1;
    }
    return 0;
}
