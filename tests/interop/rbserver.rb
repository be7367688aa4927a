#!/usr/bin/env ruby
# rbserver.rb — the interop test server in Ruby (the services of
# pyserver.py, cserver.c and cxxserver.cc):
#   ECHO  read a type name, then one item of that type; answer it
#   ELST  answer the next item (a nested list) unchanged
#   FAIL  read a text and fail with it (MkExceptionC, code 1234)
#   PYER  fail with a plain Ruby exception (ArgumentError)
#   WRNG  read a STR as I32; answer "caught: <error text>"
#   INST  answer a text naming this server instance: its class's name, as
#         its initialize set it (the factory must run the user's initialize
#         for every instance), and its object id
# MQRB_GC_STRESS=1 in the environment runs it under GC.stress.
require 'mqlink'
include Mqlink

class RubyTestServer < MqContextC
  def initialize
    super
    @name = self.class.name
  end

  def ServerSetup
    %w[ECHO ELST FAIL WRNG INST].each { |t| ServiceCreate(t, t.to_sym) }
    ServiceCreate("PYER", method(:PYER))
  end

  def ECHO
    t = ReadSTR()
    v = __send__("Read" + t)
    SendSTART()
    __send__("Send" + t, v)
    SendRETURN()
  end

  def ELST
    SendSTART()
    ProxyItem(self)
    SendRETURN()
  end

  def FAIL
    raise MkExceptionC.new(ReadSTR(), 1234)
  end

  def PYER
    raise ArgumentError, "ruby says no"
  end

  def WRNG
    text = begin
      ReadI32()
      "not caught"
    rescue MkExceptionC => e
      "caught: " + e.message
    end
    SendSTART()
    SendSTR(text)
    SendRETURN()
  end

  def INST
    SendSTART()
    SendSTR("#{@name}:#{object_id.to_s(16)}")
    SendRETURN()
  end
end

GC.stress = true if ENV["MQRB_GC_STRESS"] == "1"
srv = RubyTestServer.new
srv.ConfigSetServerSetup(srv.method(:ServerSetup))
srv.LinkCreate(ARGV)
srv.ProcessEvent(MQ_WAIT_FOREVER)
srv.Delete()
