#!/usr/bin/env python3
"""A static HTTP server for remote-store tests and benchmarks: GET/HEAD with Range, keep-alive,
an injected latency per request, and injected faults. Standard library only.

    remote_server.py --root DIR [--port 0] [--port-file F] [--latency-ms 20]
                     [--fault KIND[:N]] [--fault-match SUBSTR] [--log F]

Faults (applied to requests whose path contains --fault-match, default every path):
  status500:N   the first N requests of each path answer 500, then the real object
  drop:N        the first N requests of each path: connection closed without a response
  truncate:N    the first N requests: full Content-Length, half the body, connection closed
  delay:MS      the first request of each path waits MS milliseconds before answering
  truncate-always, longer-length-always (Content-Length above the body), pad-always:BYTES (the
  body grows by BYTES, Content-Length matching), forbidden-always (403 with an XML body)
"""
import argparse
import http.server
import os
import socket
import socketserver
import sys
import threading
import time
import urllib.parse


def make_handler(args):
    seen = {}
    lock = threading.Lock()
    kind, _, arg = (args.fault or "").partition(":")
    arg = int(arg) if arg else 1
    log = open(args.log, "a", buffering=1) if args.log else None

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes

        def log_message(self, fmt, *a):
            pass  # the request log below has one line per request

        def log_request_line(self):
            if log:
                log.write("%s %s\n" % (self.command, self.path))

        def count(self):
            with lock:
                seen[self.path] = seen.get(self.path, 0) + 1
                return seen[self.path]

        def send_plain(self, status, body=b"", ctype="text/plain"):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            self.log_request_line()
            if args.latency_ms:
                time.sleep(args.latency_ms / 1000.0)
            n = self.count()
            faulty = kind and (args.fault_match or "") in self.path
            if faulty and kind == "status500" and n <= arg:
                return self.send_plain(500, b"injected failure")
            if faulty and kind == "drop" and n <= arg:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if faulty and kind == "delay" and n == 1:
                time.sleep(arg / 1000.0)
            if faulty and kind == "forbidden-always":
                return self.send_plain(403, b"<Error><Code>AccessDenied</Code></Error>", "application/xml")
            rel = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
            full = os.path.realpath(os.path.join(args.root, rel))
            if not full.startswith(os.path.realpath(args.root) + os.sep) or not os.path.isfile(full):
                return self.send_plain(404, b"not found")
            with open(full, "rb") as f:
                data = f.read()
            if faulty and kind == "pad-always":
                data += b"\0" * arg
            status, start, end = 200, 0, len(data)
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes="):
                a, _, b = rng[6:].partition("-")
                if a == "":
                    start = max(0, len(data) - int(b))
                else:
                    start = int(a)
                    end = min(len(data), int(b) + 1) if b else len(data)
                if start >= len(data) and len(data) > 0:
                    return self.send_plain(416)
                status = 206
            body = data[start:end]
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            declared = len(body)
            if faulty and kind == "longer-length-always":
                declared += 10
            self.send_header("Content-Length", str(declared))
            if status == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, len(data)))
            self.end_headers()
            if self.command == "HEAD":
                return
            if faulty and (kind == "truncate-always" or (kind == "truncate" and n <= arg)) and len(body) > 1:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.wfile.write(body)
            if declared != len(body):
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256  # the default 5 drops SYNs when 16 connections open at once (1 s stalls)

    def handle_error(self, request, client_address):
        pass  # clients hanging up on injected faults are expected


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--latency-ms", type=float, default=0.0)
    p.add_argument("--fault")
    p.add_argument("--fault-match")
    p.add_argument("--log")
    args = p.parse_args()
    serve(make_handler(args), args.port, args.port_file)


def wait_port(port, seconds=20.0):
    """Wait until something accepts connections on 127.0.0.1:`port`; False after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def serve(handler, port, port_file):
    """Serve `handler` on 127.0.0.1:`port` (0 = any free port); the port chosen goes to
    `port_file` (written atomically) or to stdout. Also used by latency_proxy.py."""
    srv = Server(("127.0.0.1", port), handler)
    port = srv.server_address[1]
    if port_file:
        tmp = port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, port_file)
    else:
        print(port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
