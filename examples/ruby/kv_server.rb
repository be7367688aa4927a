#!/usr/bin/env ruby
# kv_server.rb — the key-value service in Ruby: SET key value, GET key,
# DEL key.  Every instance (the parent's and each child's) is a new
# KvServer; the store belongs to the process, so they share it.
#
#   ruby kv_client.rb @ ruby kv_server.rb
#   ruby kv_server.rb --uds --file /tmp/kv --fork
require 'mqlink'
include Mqlink

STORE = {}

class KvServer < MqContextC
  def ServerSetup
    ServiceCreate("SET_", :Set)
    ServiceCreate("GET_", :Get)
    ServiceCreate("DEL_", :Del)
  end

  def Set
    key = ReadSTR()
    STORE[key] = ReadSTR()
    SendSTART()
    SendRETURN()
  end

  def Get
    key = ReadSTR()
    # an exception reaches the caller as its error
    raise MkExceptionC, "no key '#{key}'" unless STORE.key?(key)
    SendSTART()
    SendSTR(STORE[key])
    SendRETURN()
  end

  def Del
    found = STORE.delete(ReadSTR()) ? 1 : 0
    SendSTART()
    SendI32(found)
    SendRETURN()
  end
end

srv = KvServer.new
begin
  srv.ConfigSetServerSetup(:ServerSetup)
  srv.LinkCreate(ARGV)
  srv.ProcessEvent(MQ_WAIT_FOREVER)
rescue MkExceptionC => e
  warn "kv_server.rb: #{e.message}"
  exit 1
ensure
  srv.Delete()
end
