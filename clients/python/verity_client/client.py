"""`Verity`: log rollouts and score records from a training loop without waiting for the console.

`log_rollout`, `log_score` and `log` encode the record and put it on a bounded in-memory queue, then return. One
background thread takes batches off the queue — when `batch_records` lines or `batch_bytes` bytes are waiting, or
the oldest has waited `batch_age` seconds, or `flush()` asks — and POSTs each gzip-compressed to
`/api/v1/ingest`. Connection failures, 5xx (and 429) answers and bodies the console saw cut short are retried with
exponential backoff and jitter, the same lines again: ingest is idempotent, so lines a lost answer had committed come
back `unchanged`, never twice. Lines the console rejects are reported one by one (`on_reject`, `stats()`).

The training step waits only when the queue is full, and then as `on_full` says: "block" (the default) waits for
room, "drop" drops the new record, counts it in `stats()["dropped"]` and returns False.
"""

from __future__ import annotations

import atexit
import collections
import json
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from verity_client.gate import GateVerdict, gate
from verity_client.records import encode_line, record_kind, rollout_record, score_record
from verity_client.transport import Answer, IngestTransport

log = logging.getLogger("verity_client")

# The ingest answer lists at most 1,000 rejected lines (MAX_LISTED_REJECTS): a batch never has more lines, so every
# reject comes back with its line number.
MAX_BATCH_RECORDS = 1000
# Within one POST, cases go first (a rollout whose case is earlier in the body is scored) and score records before
# rollouts: the console does not score a rollout whose trajectory already has a ledger entry, even when the body's
# transactions split the two. Across POSTs the order of the log calls decides: log a score no later than its rollout.
_SEND_ORDER = {"case": 0, "score": 1, "other": 1, "rollout": 2}


@dataclass(frozen=True)
class Reject:
    """A line the console refused. `seq` is the record's number among all records logged through this client
    (1-based, in the order of the log calls); `line` its line in the POST that carried it."""

    seq: int
    line: int
    path: str
    message: str
    record: Optional[dict]

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"record {self.seq} (line {self.line}){where}: {self.message}"


@dataclass
class _Entry:
    seq: int
    kind: str
    line: bytes
    queued_at: float


class Verity:
    """A client for one console. Thread-safe: any thread may log; one background thread sends.

    url: the console, e.g. "http://localhost:3000"; token: an API token with the `ingest` scope.
    run: default run_id for log_rollout/log_score when they are not given one.
    batch_records / batch_bytes / batch_age: a batch is sent when any is reached (lines, encoded bytes, seconds).
    max_queue_records / max_queue_bytes: the queue's bound; when full, `on_full` decides ("block" or "drop").
    on_reject(Reject): called from the sender thread for every refused line; on_error(message, records): for a
    batch that failed for good (4xx such as a revoked token, or max_retries exhausted).
    max_retries: None retries a failing batch until it goes through or close() gives up; an integer bounds it.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        run: Optional[str] = None,
        batch_records: int = 500,
        batch_bytes: int = 4 * 1024 * 1024,
        batch_age: float = 1.0,
        max_queue_records: int = 100_000,
        max_queue_bytes: int = 256 * 1024 * 1024,
        on_full: str = "block",
        on_reject: Optional[Callable[[Reject], None]] = None,
        on_error: Optional[Callable[[str, List[dict]], None]] = None,
        max_retries: Optional[int] = None,
        backoff: Tuple[float, float] = (0.25, 30.0),
        timeout: float = 120.0,
        compress: bool = True,
    ) -> None:
        if on_full not in ("block", "drop"):
            raise ValueError('on_full must be "block" or "drop"')
        if not 1 <= batch_records <= MAX_BATCH_RECORDS:
            raise ValueError(f"batch_records must be between 1 and {MAX_BATCH_RECORDS}")
        if max_queue_records < batch_records:
            raise ValueError("max_queue_records must be at least batch_records")
        self.run = run
        self._url = url
        self._token = token
        # Tickets whose prompt case the GRPO adapters have logged through this client (each is sent once).
        self.prompt_cases_sent: Set[str] = set()
        self._transport = IngestTransport(url, token, timeout=timeout, compress=compress)
        self._batch_records = batch_records
        self._batch_bytes = batch_bytes
        self._batch_age = batch_age
        self._max_records = max_queue_records
        self._max_bytes = max_queue_bytes
        self._on_full = on_full
        self._on_reject = on_reject
        self._on_error = on_error
        self._max_retries = max_retries
        self._backoff = backoff

        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queue: Deque[_Entry] = collections.deque()
        self._queued_bytes = 0
        self._seq = 0  # records logged (enqueued or dropped)
        self._done = 0  # of those, how many are settled: answered, failed, dropped or abandoned
        self._flush_upto = 0
        self._closing = False
        self._abandon = False
        self._closed = False
        self._counts: Dict[str, Any] = {
            "logged": 0,
            "dropped": 0,
            "sent": 0,
            "accepted": 0,
            "unchanged": 0,
            "rejected": 0,
            "failed": 0,
            "abandoned": 0,
            "batches": 0,
            "retries": 0,
            "last_error": None,
        }
        self._rejects: Deque[Reject] = collections.deque(maxlen=100)
        self._thread = threading.Thread(target=self._run, name="verity-sender", daemon=True)
        self._thread.start()
        atexit.register(self._at_exit)

    # ---------- logging (the training thread) ----------

    def log_rollout(self, *, run_id: Optional[str] = None, **fields: Any) -> bool:
        """Enqueues a rollout (keyword arguments of records.rollout_record). False if it was dropped (queue full)."""
        return self._put(rollout_record(run_id=self._run_id(run_id), **fields))

    def log_score(self, *, run_id: Optional[str] = None, **fields: Any) -> bool:
        """Enqueues an external score record (keyword arguments of records.score_record). False if dropped."""
        return self._put(score_record(run_id=self._run_id(run_id), **fields))

    def log(self, records: Iterable[Mapping[str, Any]]) -> int:
        """Enqueues wire records as they are (cases, rollouts, score records). Returns how many were enqueued."""
        return sum(1 for r in records if self._put(r))

    def _run_id(self, run_id: Optional[str]) -> str:
        if run_id is not None:
            return run_id
        if self.run is None:
            raise TypeError("give run_id=, or create the client with Verity(url, token, run=...)")
        return self.run

    def _put(self, record: Mapping[str, Any]) -> bool:
        # Encoded now, on the caller's thread: the record is copied as it is at the call (a loop may reuse its
        # dicts), and a value JSON cannot carry fails here, where the caller can see it.
        entry = _Entry(0, record_kind(record), encode_line(record), 0.0)
        size = len(entry.line)
        with self._changed:
            if self._closing:
                raise RuntimeError("this Verity client is closed")
            while self._full(size):
                if self._on_full == "drop":
                    self._seq += 1
                    self._done += 1
                    self._counts["dropped"] += 1
                    self._changed.notify_all()
                    return False
                self._changed.wait()
                if self._closing:
                    raise RuntimeError("this Verity client was closed while waiting for room in its queue")
            self._seq += 1
            entry.seq = self._seq
            entry.queued_at = time.monotonic()
            self._queue.append(entry)
            self._queued_bytes += size
            self._counts["logged"] += 1
            self._changed.notify_all()
        return True

    def _full(self, size: int) -> bool:
        if not self._queue:
            return False
        return len(self._queue) >= self._max_records or self._queued_bytes + size > self._max_bytes

    # ---------- flush, close, stats ----------

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Sends everything logged so far and waits for the console's answers. False if `timeout` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            target = self._seq
            self._flush_upto = max(self._flush_upto, target)
            self._changed.notify_all()
            while self._done < target:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def close(self, timeout: Optional[float] = 60.0) -> bool:
        """Flushes (up to `timeout` seconds), then stops the sender. Records still unsent count as `abandoned`."""
        if self._closed:
            return True
        done = self.flush(timeout)
        with self._changed:
            self._closing = True
            self._abandon = not done
            self._changed.notify_all()
        # Giving up, the sender may be inside a POST (up to `timeout` of the transport): it is a daemon thread.
        self._thread.join(timeout=None if done else 5.0)
        with self._changed:
            # Not known to be stored: queued, or in a POST still unanswered.
            abandoned = self._seq - self._done
            self._counts["abandoned"] += abandoned
            self._done = self._seq
            self._queue.clear()
            self._queued_bytes = 0
            self._closed = True
            self._changed.notify_all()
        self._transport.close()
        atexit.unregister(self._at_exit)
        return done and abandoned == 0

    def _at_exit(self) -> None:
        self.close(timeout=30.0)

    def __enter__(self) -> "Verity":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def gate(
        self, run: Optional[str] = None, window_steps: Optional[int] = None, *, token: Optional[str] = None
    ) -> GateVerdict:
        """The audit gate of `run` (default: this client's run) over its last `window_steps` steps; see
        verity_client.gate.gate. The token needs the `read` scope: create this client's token with both scopes
        (`--scope ingest,read`) or pass a read token here. Records still queued are not waited for: flush() first
        to judge the steps just logged."""
        return gate(self._url, token or self._token, self._run_id(run), window_steps)

    def stats(self) -> Dict[str, Any]:
        """Counters since the client started: logged, dropped, sent (lines answered), accepted, unchanged, rejected,
        failed, abandoned, batches, retries, queued (waiting now), last_error, and the last 100 rejects."""
        with self._lock:
            out = dict(self._counts)
            out["queued"] = len(self._queue)
            out["rejects"] = list(self._rejects)
        return out

    # ---------- the sender thread ----------

    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            self._send(batch)

    def _next_batch(self) -> Optional[List[_Entry]]:
        with self._changed:
            while True:
                if self._abandon:
                    return None
                if self._queue:
                    due = self._queue[0].queued_at + self._batch_age
                    now = time.monotonic()
                    if (
                        len(self._queue) >= self._batch_records
                        or self._queued_bytes >= self._batch_bytes
                        or now >= due
                        or self._flush_upto >= self._queue[0].seq
                        or self._closing
                    ):
                        return self._take()
                    self._changed.wait(due - now)
                elif self._closing:
                    return None
                else:
                    self._changed.wait()

    def _take(self) -> List[_Entry]:
        batch: List[_Entry] = []
        size = 0
        while self._queue and len(batch) < self._batch_records:
            entry = self._queue[0]
            if batch and size + len(entry.line) > self._batch_bytes:
                break
            self._queue.popleft()
            batch.append(entry)
            size += len(entry.line)
        self._queued_bytes -= size
        # Room in the queue: a caller blocked in log_* may go on.
        self._changed.notify_all()
        return batch

    def _send(self, batch: List[_Entry]) -> None:
        ordered = sorted(batch, key=lambda e: (_SEND_ORDER[e.kind], e.seq))
        body = b"".join(e.line for e in ordered)
        attempt = 0
        while True:
            answer = self._transport.post(body)
            if not answer.retry:
                break
            attempt += 1
            with self._changed:
                self._counts["retries"] += 1
                self._counts["last_error"] = answer.error
                if self._abandon:
                    # close() gave up waiting: the batch stays unsettled and is counted as abandoned, not failed.
                    return
            if self._max_retries is not None and attempt > self._max_retries:
                break
            delay = min(self._backoff[1], self._backoff[0] * (2 ** (attempt - 1)))
            delay *= 0.5 + random.random() / 2
            log.warning("verity: %s; sending %d records again in %.1f s", answer.error, len(batch), delay)
            with self._changed:
                # Woken early only by close(); a flush does not shorten the backoff.
                self._changed.wait_for(lambda: self._abandon, timeout=delay)
        self._settle(ordered, answer)

    def _settle(self, ordered: List[_Entry], answer: Answer) -> None:
        rejects: List[Reject] = []
        failed_message: Optional[str] = None
        with self._changed:
            if self._closed:
                return  # counted as abandoned by close()
            self._counts["batches"] += 1
            if answer.summary is not None and answer.status == 200:
                s = answer.summary
                self._counts["sent"] += len(ordered)
                for key in ("accepted", "unchanged", "rejected"):
                    self._counts[key] += int(s.get(key, 0))
                for r in s.get("rejects", []):
                    line = int(r.get("line", 0))
                    entry = ordered[line - 1] if 1 <= line <= len(ordered) else None
                    rejects.append(
                        Reject(
                            seq=entry.seq if entry else 0,
                            line=line,
                            path=str(r.get("path", "")),
                            message=str(r.get("message", "")),
                            record=_decode(entry.line) if entry else None,
                        )
                    )
                self._rejects.extend(rejects)
            else:
                self._counts["failed"] += len(ordered)
                self._counts["last_error"] = answer.error
                failed_message = answer.error or "failed"
            self._done += len(ordered)
            self._changed.notify_all()
        for reject in rejects:
            self._call(self._on_reject, reject)
        if failed_message is not None:
            log.error("verity: %d records not stored: %s", len(ordered), failed_message)
            self._call(self._on_error, failed_message, [_decode(e.line) for e in ordered])

    @staticmethod
    def _call(callback: Optional[Callable[..., None]], *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # a callback's bug must not stop the sender
            log.exception("verity: callback failed")


def _decode(line: bytes) -> Optional[dict]:
    try:
        value = json.loads(line)
        return value if isinstance(value, dict) else None
    except ValueError:
        return None
