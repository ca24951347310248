"""redis-py on the names Coordis uses: the classic lock, the list queue and pub/sub.

The test suite runs this beside Coordis clients (library, CLI) on one Redis and judges what both did. Every
command prints JSON lines on stdout: one per event where the test needs to react (``subscribed``), and a final
summary. Credentials, when the server wants them, come from $INTEROP_REDIS_USER / $INTEROP_REDIS_PASSWORD so
that they stay out of the process list.

    coordis_interop.py lock      --redis H:P --name KEY --holds N --ttl-ms T --wait-ms W --fenced H:P --client ID [--broken]
    coordis_interop.py push      --redis H:P --queue KEY --count N --producer ID [--batch B]
    coordis_interop.py consume   --redis H:P --queue KEY --expect N --idle-ms I
    coordis_interop.py publish   --redis H:P --channel CH --count N
    coordis_interop.py subscribe --redis H:P --channel CH --expect N --timeout-ms T
"""
import argparse
import json
import os
import random
import socket
import sys
import time

import redis
from redis.lock import Lock


def emit(**fields):
    sys.stdout.write(json.dumps(fields, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def connect(address):
    host, port = address.rsplit(":", 1)
    return redis.Redis(host=host, port=int(port), username=os.environ.get("INTEROP_REDIS_USER") or None,
                       password=os.environ.get("INTEROP_REDIS_PASSWORD") or None, socket_timeout=10)


class Fenced:
    """The test kit's FencedResource line protocol: VERB client token, one answer line per request."""

    def __init__(self, address, client):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("r", encoding="utf-8")
        self.client = client

    def call(self, verb, token):
        self.sock.sendall(f"{verb} {self.client} {token}\n".encode("utf-8"))
        answer = self.reader.readline().strip()
        if answer in ("", "ERR"):
            raise RuntimeError(f"fenced resource answered {answer!r} to {verb}")
        return answer


class UnsafeLock(Lock):
    """A deliberately broken lock for the negative control: SET without NX takes the name even when it is held."""

    def do_acquire(self, token):
        timeout = int(self.timeout * 1000) if self.timeout else None
        return bool(self.redis.set(self.name, token, px=timeout))


def lock(args):
    r = connect(args.redis)
    fenced = Fenced(args.fenced, args.client)
    kind = UnsafeLock if args.broken else Lock
    held = busy = lost = 0
    emit(event="started", client=args.client)
    for _ in range(args.holds):
        # redis-py's Lock: SET name token NX PX ttl, polled every `sleep` seconds; released by a
        # compare-and-delete script
        lk = kind(r, args.name, timeout=args.ttl_ms / 1000.0, sleep=0.005,
                  blocking_timeout=args.wait_ms / 1000.0)
        if not lk.acquire():
            busy += 1
            continue
        # no fencing number: the resource judges these holds by overlap only
        fenced.call("ENTER", 0)
        time.sleep(random.uniform(0.001, 0.004))
        fenced.call("EXIT", 0)
        try:
            lk.release()
        except redis.exceptions.LockNotOwnedError:
            lost += 1  # another holder's value was there (only the broken lock lets that happen)
        held += 1
        time.sleep(random.uniform(0, 0.003))
    emit(event="done", client=args.client, held=held, busy=busy, lost=lost)


def push(args):
    r = connect(args.redis)
    i = 0
    while i < args.count:
        # a batch LPUSH puts its values in the list in argument order: still first in, first out from the right
        batch = [f"{args.producer}-{j}" for j in range(i, min(i + args.batch, args.count))]
        r.lpush(args.queue, *batch)
        i += len(batch)
    emit(event="done", producer=args.producer, pushed=args.count)


def consume(args):
    r = connect(args.redis)
    got = []
    idle = max(1, args.idle_ms // 1000)
    while len(got) < args.expect:
        item = r.brpop(args.queue, timeout=idle)
        if item is None:
            break
        got.append(item[1].decode("utf-8"))
    emit(event="done", received=got)


def publish(args):
    r = connect(args.redis)
    receivers = 0
    for i in range(args.count):
        receivers += r.publish(args.channel, f"py-{i}")
    emit(event="done", published=args.count, receivers=receivers)


def subscribe(args):
    r = connect(args.redis)
    p = r.pubsub(ignore_subscribe_messages=False)
    p.subscribe(args.channel)
    got = []
    deadline = time.monotonic() + args.timeout_ms / 1000.0
    while len(got) < args.expect and time.monotonic() < deadline:
        m = p.get_message(timeout=0.2)
        if m is None:
            continue
        if m["type"] == "subscribe":
            emit(event="subscribed", channel=m["channel"].decode("utf-8"))  # confirmed by Redis
        elif m["type"] == "message":
            got.append(m["data"].decode("utf-8"))
    p.close()
    emit(event="done", received=got)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("lock")
    p.add_argument("--redis", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--holds", type=int, required=True)
    p.add_argument("--ttl-ms", type=int, default=5000)
    p.add_argument("--wait-ms", type=int, default=20000)
    p.add_argument("--fenced", required=True)
    p.add_argument("--client", required=True)
    p.add_argument("--broken", action="store_true")
    p.set_defaults(run=lock)

    p = sub.add_parser("push")
    p.add_argument("--redis", required=True)
    p.add_argument("--queue", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--producer", required=True)
    p.add_argument("--batch", type=int, default=1)
    p.set_defaults(run=push)

    p = sub.add_parser("consume")
    p.add_argument("--redis", required=True)
    p.add_argument("--queue", required=True)
    p.add_argument("--expect", type=int, required=True)
    p.add_argument("--idle-ms", type=int, default=2000)
    p.set_defaults(run=consume)

    p = sub.add_parser("publish")
    p.add_argument("--redis", required=True)
    p.add_argument("--channel", required=True)
    p.add_argument("--count", type=int, required=True)
    p.set_defaults(run=publish)

    p = sub.add_parser("subscribe")
    p.add_argument("--redis", required=True)
    p.add_argument("--channel", required=True)
    p.add_argument("--expect", type=int, required=True)
    p.add_argument("--timeout-ms", type=int, default=10000)
    p.set_defaults(run=subscribe)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
