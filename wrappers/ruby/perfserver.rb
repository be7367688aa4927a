#!/usr/bin/env ruby
# frozen_string_literal: true
# perfserver.rb — the performance suite's server in Ruby: the reference's
# five services (../shared/reference/README_PERFORMANCE.txt: NTHT RDUL ECUL
# BUST BFLT), as its Python services are, in Ruby.  Values passed on at once
# are read with the view forms (ReadBUFR, IndexGetR: no allocation, no copy),
# as the C++ server uses MkBufferR.
#
#   ruby perfserver.rb [link options]          (pipe: perfclient ... @ ruby perfserver.rb)
#   ruby perfserver.rb --uds --file PATH --fork|--spawn
#   ruby perfserver.rb --tcp --port N --fork|--spawn
# @MQLINK_RUBYLIB@
require 'mqlink'
include Mqlink

class PerfServer < MqContextC
  def ServerSetup
    ServiceCreate("NTHT", :NTHT)
    ServiceCreate("RDUL", :RDUL)
    ServiceCreate("ECUL", :ECUL)
    ServiceCreate("BUST", :BUST)
    ServiceCreate("BFLT", :BFLT)
  end

  def NTHT
  end

  def RDUL
    ReadI8()
    ReadI16()
    ReadI32()
    ReadDBL()
    ReadBUFR()
  end

  def ECUL
    SendSTART()
    SendI8(ReadI8())
    SendI16(ReadI16())
    SendI32(ReadI32())
    SendDBL(ReadDBL())
    ProxyItem(self)
    SendRETURN()
  end

  def BUST
    bus = MkBufferStreamC.CreateTLS("perfserver-BUST")
    bus.WriteBUF(ReadBUFR()) while ReadItemExists()
    bus.PosToStart()
    SendSTART()
    SendBUF(bus.ReadBUFR()) while bus.ReadItemExists()
    SendRETURN()
  end

  def BFLT
    bfl = MkBufferListC.CreateTLS("perfserver-BFLT")
    bfl.AppendBUF(ReadBUFR()) while ReadItemExists()
    SendSTART()
    bfl.Size().times { |i| SendBUF(bfl.IndexGetR(i)) }
    SendRETURN()
  end
end

srv = PerfServer.new
begin
  srv.ConfigSetServerSetup(:ServerSetup)
  srv.LinkCreate(ARGV)
  srv.ProcessEvent(MQ_WAIT_FOREVER)
rescue MkExceptionC => e
  warn "perfserver.rb: #{e.message}"
  exit 1
ensure
  srv.Delete()
end
