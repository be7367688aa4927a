// perfserver.cc — the performance suite's server in C++: the reference's
// services NTHT RDUL ECUL BUST BFLT as member functions; every new server
// instance (parent or child) is a new PerfServer.
//
//   perfserver-cxx [link options]   (pipe: perfclient ... @ perfserver-cxx)
//   perfserver-cxx --uds --file PATH --fork|--thread|--spawn
//   perfserver-cxx --tcp --port N --fork|--thread|--spawn
#include <cstdio>

#include "mqlink.hh"

// The C API's names live in the global namespace, so the classes are
// named through the namespace (a using-directive would make them ambiguous).
namespace mq = mqlink;

class PerfServer : public mq::MqContextC {
  public:
    void ServerSetup()
    {
        ServiceCreate("NTHT", &PerfServer::NTHT);
        ServiceCreate("RDUL", &PerfServer::RDUL);
        ServiceCreate("ECUL", &PerfServer::ECUL);
        ServiceCreate("BUST", &PerfServer::BUST);
        ServiceCreate("BFLT", &PerfServer::BFLT);
    }

  private:
    void NTHT() {}

    void RDUL()
    {
        ReadI8();
        ReadI16();
        ReadI32();
        ReadDBL();
        ReadBUF();
    }

    void ECUL()
    {
        SendSTART();
        SendI8(ReadI8());
        SendI16(ReadI16());
        SendI32(ReadI32());
        SendDBL(ReadDBL());
        ProxyItem(*this);
        SendRETURN();
    }

    void BUST()
    {
        mq::MkBufferStreamC bus = mq::MkBufferStreamC::CreateTLS("perfserver-BUST");
        while (ReadItemExists())
            bus.WriteBUF(ReadBUF());
        bus.PosToStart();
        SendSTART();
        while (bus.ReadItemExists())
            SendBUF(bus.ReadBUF());
        SendRETURN();
    }

    void BFLT()
    {
        mq::MkBufferListC bfl = mq::MkBufferListC::CreateTLS("perfserver-BFLT");
        while (ReadItemExists())
            bfl.AppendBUF(ReadBUF());
        SendSTART();
        for (MK_I32 i = 0, n = bfl.Size(); i < n; i++)
            SendBUF(bfl.IndexGet(i));
        SendRETURN();
    }
};

int
main(int argc, char **argv)
{
    PerfServer srv;
    try {
        srv.ConfigSetServerSetup(&PerfServer::ServerSetup);
        srv.LinkCreate(std::vector<std::string>(argv, argv + argc));
        srv.ProcessEvent(MQ_WAIT_FOREVER);
    } catch (const mq::MkExceptionC &e) {
        std::fprintf(stderr, "perfserver-cxx: %s\n", e.what());
        return 1;
    }
    return 0;
}
