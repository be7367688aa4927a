#!/usr/bin/env python3
# perfserver.py — the performance suite's server in Python.  The services are
# the reference's Python services (../shared/reference/README_PERFORMANCE.txt),
# unchanged; perfclient calls them over every transport and start mode.
#
#   python3 perfserver.py [link options]          (pipe: perfclient ... @ python3 perfserver.py)
#   python3 perfserver.py --uds --file PATH --fork|--spawn|--thread
#   python3 perfserver.py --tcp --port N --fork|--spawn|--thread
import sys
# @MQLINK_SITE@
from mqlink import *


class PerfServer(MqContextC):

    def ServerSetup(self):
        self.ServiceCreate("NTHT", self.NTHT)
        self.ServiceCreate("RDUL", self.RDUL)
        self.ServiceCreate("ECUL", self.ECUL)
        self.ServiceCreate("BUST", self.BUST)
        self.ServiceCreate("BFLT", self.BFLT)

    def NTHT (self):
        pass

    def RDUL(self):
        self.ReadI8()
        self.ReadI16()
        self.ReadI32()
        self.ReadDBL()
        self.ReadBUF()

    def ECUL(self):
        self.SendSTART()
        self.SendI8(self.ReadI8())
        self.SendI16(self.ReadI16())
        self.SendI32(self.ReadI32())
        self.SendDBL(self.ReadDBL())
        self.ProxyItem(self)
        self.SendRETURN()

    def BUST (self):
        bus = MkBufferStreamC.CreateTLS( "perfserver-BUST" )
        while self.ReadItemExists():
            bus.WriteBUF(self.ReadBUF())
        bus.PosToStart()
        self.SendSTART()
        while bus.ReadItemExists():
            self.SendBUF(bus.ReadBUF())
        self.SendRETURN()

    def BFLT (self):
        bfl = MkBufferListC.CreateTLS( "perfserver-BFLT" )
        while self.ReadItemExists():
            bfl.AppendBUF(self.ReadBUF())
        self.SendSTART()
        for i in range(bfl.Size()):
            self.SendBUF(bfl.IndexGet(i))
        self.SendRETURN()


if __name__ == "__main__":
    srv = PerfServer()
    try:
        srv.ConfigSetServerSetup(srv.ServerSetup)
        srv.LinkCreate(sys.argv)
        srv.ProcessEvent(MQ_WAIT_FOREVER)
    except MkExceptionC as e:
        sys.stderr.write("perfserver.py: %s\n" % e)
        sys.exit(1)
    finally:
        srv.Delete()
