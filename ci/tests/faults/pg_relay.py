"""A TCP relay in front of PostgreSQL that loses the answers of writes PostgreSQL did: what a network that fails
between a write and its answer does, which no packet rule can aim at (a write's first statement is a read, so
dropping every answer fails writes before they write).

Usage: pg_relay.py --upstream HOST:PORT --mode-file FILE --port-file FILE --stats-file FILE
Listens on a free port of 127.0.0.1 (written to --port-file once it listens). --mode-file holds one word, read
again whenever it changes:
  pass    every byte goes through both ways; connections whose answers were dropped are closed on the switch
  writes  reads go through; a connection's answers are dropped from the moment it sends a write that applies on its
          own (a COMMIT, or an INSERT, UPDATE or DELETE outside a transaction): PostgreSQL does it, its client never
          hears so
  all     every answer is dropped, new connections' too: PostgreSQL looks unreachable (its checks cannot run)
--stats-file gets the counts as JSON on every switch and at exit: connections, held (writes whose answers were
dropped, by what was sent: commit or statement), closed (connections closed on a switch to pass).
The client's messages are read as PostgreSQL's wire protocol (Parse, Bind, Execute, Query); the server's only for
ReadyForQuery, which says whether a transaction is open. A connection that asks for TLS is relayed as bytes.
"""
import argparse
import asyncio
import json
import os
import re
import signal
import struct

# a statement that writes by itself, also inside a CTE (not `FOR NO KEY UPDATE`, a lock a read takes)
WRITE = re.compile(r"\b(INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b", re.IGNORECASE)
COMMIT = re.compile(r"^\s*(COMMIT|END)\b", re.IGNORECASE)
SSL_REQUEST, GSSENC_REQUEST = 80877103, 80877104


def cstrings(body, n):
    """The first n NUL-terminated strings of a message body."""
    out, at = [], 0
    for _ in range(n):
        end = body.index(b"\0", at)
        out.append(body[at:end].decode("utf-8", "replace"))
        at = end + 1
    return out


class Frames:
    """Complete messages out of a byte stream: (type, body); the startup message has no type byte."""

    def __init__(self, startup):
        self.buf = bytearray()
        self.startup = startup

    def feed(self, data):
        self.buf += data
        while True:
            if self.startup:
                if len(self.buf) < 4:
                    return
                n = struct.unpack("!I", self.buf[:4])[0]
                if len(self.buf) < n:
                    return
                body, self.buf = bytes(self.buf[4:n]), self.buf[n:]
                yield None, body
            else:
                if len(self.buf) < 5:
                    return
                n = struct.unpack("!I", self.buf[1:5])[0]
                if len(self.buf) < 1 + n:
                    return
                kind, body, self.buf = chr(self.buf[0]), bytes(self.buf[5:1 + n]), self.buf[1 + n:]
                yield kind, body


class Relay:
    def __init__(self, upstream, mode_file, stats_file):
        self.host, self.port = upstream.rsplit(":", 1)
        self.mode_file, self.stats_file = mode_file, stats_file
        self.mode = "pass"
        self.conns = set()
        self.stats = {"connections": 0, "held": {"commit": 0, "statement": 0}, "closed": 0}

    def write_stats(self):
        with open(self.stats_file + ".tmp", "w") as f:
            json.dump(dict(self.stats, mode=self.mode), f)
        os.replace(self.stats_file + ".tmp", self.stats_file)

    async def watch_mode(self):
        seen = None
        while True:
            try:
                stat = os.stat(self.mode_file)
                if (stat.st_mtime_ns, stat.st_size) != seen:
                    seen = (stat.st_mtime_ns, stat.st_size)
                    with open(self.mode_file) as f:
                        self.switch(f.read().strip())
            except (FileNotFoundError, ValueError):
                pass
            await asyncio.sleep(0.05)

    def switch(self, mode):
        if mode not in ("pass", "writes", "all"):
            raise ValueError(mode)
        self.mode = mode
        if mode == "pass":
            # a client that missed answers cannot go on with its connection: it sees it closed, as after a partition
            for c in [c for c in self.conns if c.held or c.dropped]:
                c.close()
                self.stats["closed"] += 1
        self.write_stats()

    async def serve(self, reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, int(self.port))
        except OSError:
            writer.close()
            return
        self.stats["connections"] += 1
        conn = Connection(self, writer, up_writer)
        self.conns.add(conn)
        try:
            # each direction closes both sockets when it ends
            await asyncio.gather(conn.from_client(reader), conn.from_server(up_reader))
        finally:
            self.conns.discard(conn)


class Connection:
    def __init__(self, relay, client, server):
        self.relay, self.client, self.server = relay, client, server
        self.held = False      # this connection's answers are dropped from now on (a write went out)
        self.dropped = False   # some answer of this connection was dropped
        self.in_tx = False     # the last ReadyForQuery said a transaction is open
        self.opaque = False    # TLS: bytes only
        self.expect_byte = False   # the client asked for TLS: one byte answers it
        self.statements, self.portals = {}, {}

    def close(self):
        for w in (self.client, self.server):
            if not w.is_closing():
                w.close()

    def sent(self, sql):
        """A statement is about to reach PostgreSQL: in mode writes, hold the answers of one that applies alone."""
        if self.relay.mode != "writes" or self.held:
            return
        kind = "commit" if COMMIT.search(sql) else "statement" if WRITE.search(sql) and not self.in_tx else None
        if kind:
            self.held = True
            self.relay.stats["held"][kind] += 1

    def read_client(self, frames, data):
        for kind, body in frames.feed(data):
            if kind is None:   # startup, or a request for TLS / GSS encryption answered by one byte
                code = struct.unpack("!I", body[:4])[0]
                frames.startup = code in (SSL_REQUEST, GSSENC_REQUEST)
                self.expect_byte = frames.startup
            elif kind == "P":
                name, sql = cstrings(body, 2)
                self.statements[name] = sql
            elif kind == "B":
                portal, name = cstrings(body, 2)
                self.portals[portal] = self.statements.get(name, "")
            elif kind == "E":
                self.sent(self.portals.get(cstrings(body, 1)[0], ""))
            elif kind == "Q":
                self.sent(cstrings(body, 1)[0])

    async def from_client(self, reader):
        frames = Frames(startup=True)
        try:
            while data := await reader.read(65536):
                if not self.opaque:
                    self.read_client(frames, data)
                self.server.write(data)
                await self.server.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self.close()

    async def from_server(self, reader):
        frames = Frames(startup=False)
        try:
            while data := await reader.read(65536):
                framed = data
                if self.expect_byte:   # the one-byte answer to a TLS or GSS request: 'S' or 'G', the rest is encrypted
                    self.expect_byte = False
                    self.opaque = data[:1] in (b"S", b"G")
                    framed = data[1:]
                if not self.opaque:
                    for kind, body in frames.feed(framed):
                        if kind == "Z":
                            self.in_tx = body[:1] in (b"T", b"E")
                if self.held or self.relay.mode == "all":
                    self.dropped = True
                    continue
                self.client.write(data)
                await self.client.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self.close()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--upstream", required=True)
    p.add_argument("--mode-file", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--stats-file", required=True)
    a = p.parse_args()
    relay = Relay(a.upstream, a.mode_file, a.stats_file)
    server = await asyncio.start_server(relay.serve, "127.0.0.1", 0)
    relay.write_stats()
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    os.replace(a.port_file + ".tmp", a.port_file)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    watcher = asyncio.create_task(relay.watch_mode())
    await stop.wait()
    watcher.cancel()
    server.close()
    for c in list(relay.conns):
        c.close()
    relay.write_stats()


if __name__ == "__main__":
    asyncio.run(main())
