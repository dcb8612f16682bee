"""Test support for the client's tests: the console npm test started, reading a run back through the export API,
the runner's kill/start control, a worked example as rollout fields, and a fault-injecting HTTP proxy."""

from __future__ import annotations

import collections
import copy
import json
import logging
import os
import pathlib
import socket
import socketserver
import threading
import unittest
import urllib.parse
import urllib.request
import uuid
from typing import Any, Deque, Dict, List, Optional

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "lib" / "verifier" / "examples" / "01-refund-correct.json"

URL = os.environ.get("VERITY_TEST_URL")
INGEST_TOKEN = os.environ.get("VERITY_TEST_INGEST_TOKEN", "")
READ_TOKEN = os.environ.get("VERITY_TEST_READ_TOKEN", "")
CONTROL_URL = os.environ.get("VERITY_TEST_CONTROL_URL")

# Retries are expected in these tests; their warnings would only clutter the report.
logging.getLogger("verity_client").addHandler(logging.NullHandler())
logging.getLogger("verity_client").propagate = False


def needs_console(cls: type) -> type:
    return unittest.skipUnless(URL, "needs a console: run through `npm test -- py`")(cls)


def unique_run(name: str) -> str:
    return f"py-{name}-{uuid.uuid4().hex[:8]}"


def export_run(run: str) -> List[Dict[str, Any]]:
    """The run's current ledger entries as score records, read through GET /api/v1/runs/{run}/ledger.ndjson."""
    req = urllib.request.Request(
        f"{URL}/api/v1/runs/{urllib.parse.quote(run, safe='')}/ledger.ndjson?cases=0",
        headers={"Authorization": f"Bearer {READ_TOKEN}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as res:
            text = res.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return []
        raise
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def control(action: str) -> None:
    """Asks the test runner to `kill` the console (SIGKILL) or `start` it again (returns once it is healthy)."""
    req = urllib.request.Request(f"{CONTROL_URL}/{action}", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=180) as res:
        if res.status != 200:
            raise RuntimeError(f"control {action}: HTTP {res.status}")


def example_case(ticket_id: str) -> Dict[str, Any]:
    """The worked example's case (a damaged air fryer, refund due) under another ticket id."""
    case = copy.deepcopy(json.loads(EXAMPLE.read_text("utf-8"))["case"])
    case["ticket"]["id"] = ticket_id
    return case


def example_rollout_fields() -> Dict[str, Any]:
    """The worked example's rollout (a correct refund; the verifier gives it 1.0) as log_rollout keyword arguments."""
    r = json.loads(EXAMPLE.read_text("utf-8"))
    return {
        "steps": r["trajectory"]["steps"],
        "final_reply": r["trajectory"]["final_reply"],
        "sandbox_writes": r["sandbox"]["writes"],
        "tables": r["sandbox"]["tables"],
        "tool_registry": r["tool_registry"],
        "claims": r.get("claims"),
    }


class FaultProxy:
    """An HTTP proxy in front of the console that fails requests on purpose, one request per connection.

    Each request takes the next mode from `script` (then `default`): "pass" forwards it; "503" answers 503 without
    forwarding; "refuse" closes the connection before reading it; "cut" forwards the head and half the body to the
    console, then closes both sides (the console sees a body cut short, the client no answer); "hold" reads the
    request and keeps the connection open without answering until `release()`, then closes it.
    """

    def __init__(self, upstream: str) -> None:
        u = urllib.parse.urlsplit(upstream)
        self.upstream = (u.hostname or "127.0.0.1", u.port or 80)
        self.script: Deque[str] = collections.deque()
        self.default = "pass"
        self.seen: List[Dict[str, str]] = []  # the headers of every request read, in order
        self.modes: List[str] = []  # the mode each of them got
        self._lock = threading.Lock()
        self._released = threading.Event()
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy._handle(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()

    def release(self) -> None:
        self._released.set()

    def _mode(self) -> str:
        with self._lock:
            return self.script.popleft() if self.script else self.default

    def _handle(self, client: socket.socket) -> None:
        mode = self._mode()
        if mode == "refuse":
            client.close()
            with self._lock:
                self.modes.append(mode)
            return
        head, body = _read_request(client)
        if head is None:
            return
        with self._lock:
            self.seen.append(_headers(head))
            self.modes.append(mode)
        if mode == "503":
            payload = b'{"error": {"code": "unavailable", "message": "injected by the test proxy"}}'
            client.sendall(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            client.close()
            return
        if mode == "hold":
            self._released.wait()
            client.close()
            return
        upstream = socket.create_connection(self.upstream)
        # One request per connection: the console closes after answering, and so does the client's side.
        upstream.sendall(head.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1))
        if mode == "cut":
            upstream.sendall(body[: len(body) // 2])
            upstream.close()
            client.close()
            return
        upstream.sendall(body)
        while True:
            chunk = upstream.recv(65536)
            if not chunk:
                break
            client.sendall(chunk)
        upstream.close()
        client.close()


def _read_request(sock: socket.socket) -> "tuple[Optional[bytes], bytes]":
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    end = data.index(b"\r\n\r\n") + 4
    head, body = data[:end], data[end:]
    length = int(_headers(head).get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head, body


def _headers(head: bytes) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip().lower()] = v.strip()
    return out
