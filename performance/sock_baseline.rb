#!/usr/bin/env ruby
# sock_baseline.rb — what a Ruby user would otherwise use: round trips of
# SIZE bytes between two Ruby processes over Ruby's own sockets, on the same
# transport as the link (pipe: UNIXSocket.pair to a forked child; uds:
# UNIXServer; tcp: TCPServer on loopback with TCP_NODELAY, as the link).
#
#   sock_baseline.rb --transport pipe|uds|tcp [--sec S] [--size N]
#
# Prints one line in perfclient's shape, for the Ruby row's .perf file:
#   sock-roundtrip ops/s=53000 count=53000 sec=1.000 transport=uds size=88
require 'optparse'
require 'socket'
require 'tmpdir'

opts = { transport: 'pipe', sec: 1.0, size: 88 }
OptionParser.new do |o|
  o.on('--transport T', %w[pipe uds tcp]) { |v| opts[:transport] = v }
  o.on('--sec S', Float) { |v| opts[:sec] = v }
  o.on('--size N', Integer) { |v| opts[:size] = v }
end.parse!
size = opts[:size]

# The peer: answer every message with itself until the other side closes.
def echo(io, size)
  while (msg = io.read(size)) && msg.bytesize == size
    io.write(msg)
  end
  exit!(0)
end

def nodelay(sock)
  sock.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
  sock
end

# A connected socket to a forked echo peer, and the peer's pid.
def connect(transport, size, dir)
  case transport
  when 'pipe'
    a, b = UNIXSocket.pair
    pid = fork { a.close; echo(b, size) }
    b.close
    [a, pid]
  when 'uds'
    path = File.join(dir, 'sock')
    server = UNIXServer.new(path)
    pid = fork { server.close; echo(UNIXSocket.new(path), size) }
    [server.accept, pid].tap { server.close }
  else
    server = TCPServer.new('127.0.0.1', 0)
    port = server.addr[1]
    pid = fork { server.close; echo(nodelay(TCPSocket.new('127.0.0.1', port)), size) }
    [nodelay(server.accept), pid].tap { server.close }
  end
end

Dir.mktmpdir do |dir|
  conn, pid = connect(opts[:transport], size, dir)
  msg = 'x' * size
  conn.write(msg) # warm-up
  conn.read(size)
  n = 0
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  sec = 0
  loop do
    100.times do
      conn.write(msg)
      raise 'the peer ended' unless conn.read(size)&.bytesize == size
    end
    n += 100
    sec = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
    break if sec >= opts[:sec]
  end
  conn.close
  Process.wait(pid)
  printf("sock-roundtrip ops/s=%.0f count=%d sec=%.3f transport=%s size=%d\n",
         n / sec, n, sec, opts[:transport], size)
end
