#!/usr/bin/env python3
# pyserver.py — the interop test server in Python (the same services as
# cserver.c and cxxserver.cc):
#   ECHO  read a type name, then one item of that type; answer it
#   ELST  answer the next item (a nested list) unchanged
#   FAIL  read a text and fail with it (MkExceptionC, code 1234)
#   PYER  fail with a plain Python exception
#   WRNG  read a STR as I32; answer "caught: <error text>"
#   INST  answer a text naming this server instance
import sys
from mqlink import *


class TestServer(MqContextC):
    def ServerSetup(self):
        for token in ("ECHO", "ELST", "FAIL", "PYER", "WRNG", "INST"):
            self.ServiceCreate(token, getattr(self, token))

    def ECHO(self):
        t = self.ReadSTR()
        v = getattr(self, "Read" + t)()
        self.SendSTART()
        getattr(self, "Send" + t)(v)
        self.SendRETURN()

    def ELST(self):
        self.SendSTART()
        self.ProxyItem(self)
        self.SendRETURN()

    def FAIL(self):
        raise MkExceptionC(self.ReadSTR(), 1234)

    def PYER(self):
        raise ValueError("python says no")

    def WRNG(self):
        try:
            self.ReadI32()
            text = "not caught"
        except MkExceptionC as e:
            text = "caught: " + str(e)
        self.SendSTART()
        self.SendSTR(text)
        self.SendRETURN()

    def INST(self):
        self.SendSTART()
        self.SendSTR("%s:%x" % (type(self).__name__, id(self)))
        self.SendRETURN()


if __name__ == "__main__":
    srv = TestServer()
    srv.ConfigSetServerSetup(srv.ServerSetup)
    srv.LinkCreate(sys.argv)
    srv.ProcessEvent(MQ_WAIT_FOREVER)
    srv.Delete()
