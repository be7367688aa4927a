#!/usr/bin/env python3
"""kv_server.py — the key-value service in Python: SET key value, GET key,
DEL key.  Every instance (the parent's and each child's) is a new KvServer;
the store belongs to the process, so they share it.

    python3 kv_client.py @ python3 kv_server.py
    python3 kv_server.py --uds --file /tmp/kv --fork
"""
import sys

from mqlink import MQ_WAIT_FOREVER, MkExceptionC, MqContextC

store = {}


class KvServer(MqContextC):
    def ServerSetup(self):
        self.ServiceCreate("SET_", self.Set)
        self.ServiceCreate("GET_", self.Get)
        self.ServiceCreate("DEL_", self.Del)

    def Set(self):
        key = self.ReadSTR()
        store[key] = self.ReadSTR()
        self.SendSTART()
        self.SendRETURN()

    def Get(self):
        key = self.ReadSTR()
        if key not in store:  # an exception reaches the caller as its error
            raise MkExceptionC(f"no key '{key}'")
        self.SendSTART()
        self.SendSTR(store[key])
        self.SendRETURN()

    def Del(self):
        found = store.pop(self.ReadSTR(), None) is not None
        self.SendSTART()
        self.SendI32(int(found))
        self.SendRETURN()


if __name__ == "__main__":
    srv = KvServer()
    try:
        srv.ConfigSetServerSetup(srv.ServerSetup)
        srv.LinkCreate(sys.argv)
        srv.ProcessEvent(MQ_WAIT_FOREVER)
    except MkExceptionC as e:
        sys.exit(f"kv_server.py: {e}")
    finally:
        srv.Delete()
