// kv_server.cc — the key-value service in C++: SET key value, GET key,
// DEL key.  Every instance (the parent's and each child's) is a new
// KvServer; the store belongs to the process, so they share it.
//
//   ./kv_client @ ./kv_server           ./kv_server --uds --file /tmp/kv --fork
#include <cstdio>
#include <map>
#include <string>

#include <mqlink.hh>

namespace mq = mqlink;  // a using-directive would clash with the C names

static std::map<std::string, std::string> store;

class KvServer : public mq::MqContextC {
  public:
    void ServerSetup()
    {
        ServiceCreate("SET_", &KvServer::Set);
        ServiceCreate("GET_", &KvServer::Get);
        ServiceCreate("DEL_", &KvServer::Del);
    }

  private:
    void Set()
    {
        std::string key = ReadSTR();
        store[key] = ReadSTR();
        SendSTART();
        SendRETURN();
    }

    void Get()  // a thrown MkExceptionC reaches the caller as its error
    {
        std::string key = ReadSTR();
        auto it = store.find(key);
        if (it == store.end())
            throw mq::MkExceptionC("no key '" + key + "'");
        SendSTART();
        SendSTR(it->second);
        SendRETURN();
    }

    void Del()
    {
        MK_I32 found = static_cast<MK_I32>(store.erase(ReadSTR()));
        SendSTART();
        SendI32(found);
        SendRETURN();
    }
};

int
main(int argc, char **argv)
{
    KvServer srv;
    try {
        srv.ConfigSetServerSetup(&KvServer::ServerSetup);
        srv.LinkCreate(std::vector<std::string>(argv, argv + argc));
        srv.ProcessEvent(MQ_WAIT_FOREVER);
    } catch (const mq::MkExceptionC &e) {
        std::fprintf(stderr, "kv_server: %s\n", e.what());
        return 1;
    }
    return 0;
}
