#!/usr/bin/env ruby
# kv_client.rb — uses kv_server (any language's): SET, GET and DEL on the
# parent context, then through a child context (a second server instance
# over the same connection).
#
#   ruby kv_client.rb @ ruby kv_server.rb
#   ruby kv_client.rb --uds --file /tmp/kv
require 'mqlink'
include Mqlink

def kv_set(c, key, value)
  c.SendSTART(); c.SendSTR(key); c.SendSTR(value)
  c.SendEND_AND_WAIT("SET_")
  puts "SET #{key}=#{value}"
end

def kv_get(c, key, who = "")
  c.SendSTART(); c.SendSTR(key)
  c.SendEND_AND_WAIT("GET_")
  puts "#{who}GET #{key} -> #{c.ReadSTR()}"
rescue MkExceptionC => e # the server's error text
  puts "#{who}GET #{key} -> error: #{e.text}"
end

def kv_del(c, key)
  c.SendSTART(); c.SendSTR(key)
  c.SendEND_AND_WAIT("DEL_")
  puts "DEL #{key} -> #{c.ReadI32()}"
end

c = MqContextC.new
child = MqContextC.new
begin
  c.LinkCreate(ARGV)
  kv_set(c, "color", "blue")
  kv_get(c, "color")
  child.LinkCreateChild(c) # its own server instance, over c's link
  kv_get(child, "color", "child ")
  kv_set(child, "size", "10")
  child.LinkDelete()
  kv_del(c, "color")
  kv_del(c, "color")
  kv_get(c, "color")
  kv_get(c, "size")
rescue MkExceptionC => e
  warn "kv_client.rb: #{e.message}"
  exit 1
ensure
  child.Delete()
  c.Delete()
end
