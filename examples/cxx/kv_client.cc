// kv_client.cc — uses kv_server (any language's): SET, GET and DEL on the
// parent context, then through a child context (a second server instance
// over the same connection).
//
//   ./kv_client @ ./kv_server           ./kv_client --uds --file /tmp/kv
#include <iostream>
#include <string>

#include <mqlink.hh>

namespace mq = mqlink;

static void
set(mq::MqContextC &c, const std::string &key, const std::string &value)
{
    c.SendSTART();
    c.SendSTR(key);
    c.SendSTR(value);
    c.SendEND_AND_WAIT("SET_");
    std::cout << "SET " << key << "=" << value << "\n";
}

static void
get(mq::MqContextC &c, const std::string &who, const std::string &key)
{
    c.SendSTART();
    c.SendSTR(key);
    try {
        c.SendEND_AND_WAIT("GET_");
        std::cout << who << "GET " << key << " -> " << c.ReadSTR() << "\n";
    } catch (const mq::MkExceptionC &e) {  // the server's error text
        std::cout << who << "GET " << key << " -> error: " << e.what() << "\n";
    }
}

static void
del(mq::MqContextC &c, const std::string &key)
{
    c.SendSTART();
    c.SendSTR(key);
    c.SendEND_AND_WAIT("DEL_");
    std::cout << "DEL " << key << " -> " << c.ReadI32() << "\n";
}

int
main(int argc, char **argv)
{
    try {
        mq::MqContextC c;
        c.LinkCreate(std::vector<std::string>(argv, argv + argc));
        set(c, "color", "blue");
        get(c, "", "color");
        {
            mq::MqContextC child;  // its own server instance, over c's link
            child.LinkCreateChild(c);
            get(child, "child ", "color");
            set(child, "size", "10");
        }  // deleting the child closes it
        del(c, "color");
        del(c, "color");
        get(c, "", "color");
        get(c, "", "size");
    } catch (const mq::MkExceptionC &e) {
        std::cerr << "kv_client: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
