"""One POST of NDJSON lines to the ingest API, gzip-compressed, and what its answer means for a retry."""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import urllib.parse
from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class Answer:
    """The outcome of one attempt. `retry` says whether sending the same lines again may succeed."""

    status: Optional[int]
    summary: Optional[dict]
    error: Optional[str]
    retry: bool


class IngestTransport:
    """Keeps one keep-alive connection to the console and reopens it after any failure."""

    def __init__(self, url: str, token: str, *, timeout: float = 120.0, compress: bool = True) -> None:
        parsed = urllib.parse.urlsplit(url.rstrip("/"))
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"url must be http(s)://host[:port][/prefix], got {url!r}")
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._path = (parsed.path or "") + "/api/v1/ingest"
        self._token = token
        self._timeout = timeout
        self._compress = compress
        self._conn: Optional[http.client.HTTPConnection] = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self._timeout)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def post(self, body: bytes) -> Answer:
        headers = {
            "Authorization": f"Bearer {self._token}",
            "Content-Type": "application/x-ndjson",
            "Accept": "application/json",
        }
        if self._compress:
            body = gzip.compress(body, compresslevel=5)
            headers["Content-Encoding"] = "gzip"
        try:
            conn = self._connection()
            conn.request("POST", self._path, body=body, headers=headers)
            res = conn.getresponse()
            raw = res.read()
            status = res.status
            if res.getheader("connection", "").lower() == "close":
                self.close()
        except (OSError, http.client.HTTPException) as err:
            # Refused, reset, timed out, cut mid-answer: the request may or may not have been committed, and sending
            # it again is safe either way (committed lines come back unchanged).
            self.close()
            reason = err.__class__.__name__ if isinstance(err, socket.timeout) else f"{err.__class__.__name__}: {err}"
            return Answer(None, None, f"connection failed ({reason})", retry=True)
        return interpret(status, raw)


def interpret(status: int, raw: bytes) -> Answer:
    body: Any = None
    try:
        body = json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError):
        body = None
    summary = body if isinstance(body, dict) and "lines" in body else None
    message = _message(body) or raw[:200].decode("utf-8", "replace")
    if status == 200 and summary is not None:
        return Answer(status, summary, None, retry=False)
    if status >= 500 or status == 429:
        return Answer(status, summary, f"HTTP {status}: {message}", retry=True)
    if status == 400 and summary is not None and summary.get("failed_at") == "body":
        # The console read less than was sent (a proxy or the network cut the body): the lines are fine.
        return Answer(status, summary, f"HTTP {status}: {message}", retry=True)
    return Answer(status, summary, f"HTTP {status}: {message}", retry=False)


def _message(body: Any) -> Optional[str]:
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or body["error"].get("code"))
    if isinstance(body.get("error"), str):
        return body["error"]
    return None
