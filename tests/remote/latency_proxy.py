#!/usr/bin/env python3
"""An HTTP reverse proxy that adds a fixed latency to every request: put it in front of an
emulator (moto's S3 server) to give it a network's round trip. Keep-alive on both sides, the
Host header passed through unchanged (so AWS signatures made for the proxy's address still
match). Standard library only.

    latency_proxy.py --upstream http://127.0.0.1:PORT [--port 0] [--port-file F] [--latency-ms 20]
                     [--log F]

--log appends one line per request: METHOD PATH STATUS BODY_BYTES.
"""
import argparse
import http.client
import http.server
import os
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from remote_server import serve  # noqa: E402  (the same threaded server, backlog and port file)

HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


def make_handler(args):
    up = urllib.parse.urlsplit(args.upstream)
    local = threading.local()
    log = open(args.log, "a", buffering=1) if args.log else None

    def upstream():
        c = getattr(local, "conn", None)
        if c is None:
            c = local.conn = http.client.HTTPConnection(up.hostname, up.port, timeout=600)
        return c

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, fmt, *a):
            pass

        def relay(self):
            if args.latency_ms:
                time.sleep(args.latency_ms / 1000.0)
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            for attempt in (0, 1):  # a kept-alive upstream connection may have been closed
                try:
                    c = upstream()
                    c.request(self.command, self.path, body=body, headers=headers)
                    r = c.getresponse()
                    data = r.read()
                    break
                except (http.client.HTTPException, OSError):
                    local.conn = None
                    if attempt:
                        self.send_response(502)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
            self.send_response(r.status, r.reason)
            for k, v in r.getheaders():
                if k.lower() not in HOP and k.lower() not in ("content-length", "server", "date"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data) if self.command != "HEAD" else
                                                   int(r.getheader("Content-Length") or 0)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            if log:
                log.write("%s %s %d %d\n" % (self.command, self.path, r.status, len(data)))

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = relay

    return Handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--upstream", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--latency-ms", type=float, default=20.0)
    p.add_argument("--log")
    args = p.parse_args()
    serve(make_handler(args), args.port, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
