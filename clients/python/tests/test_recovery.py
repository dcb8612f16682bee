"""Failures on the way: the console killed and restarted mid-stream, 5xx answers, connections dropped or cut."""

from __future__ import annotations

import threading
import time
import unittest

from support import (
    CONTROL_URL,
    INGEST_TOKEN,
    URL,
    FaultProxy,
    control,
    example_case,
    example_rollout_fields,
    export_run,
    needs_console,
    unique_run,
)
from verity_client import Verity


@needs_console
class RecoveryTest(unittest.TestCase):
    @unittest.skipUnless(CONTROL_URL, "needs the test runner's console control")
    def test_console_killed_and_restarted_mid_stream_loses_and_duplicates_nothing(self) -> None:
        run = unique_run("restart")
        ticket = f"T-{run}"
        fields = example_rollout_fields()
        total = 6000
        verity = Verity(URL, INGEST_TOKEN, run=run, batch_records=100, batch_age=0.05, backoff=(0.1, 1.0))
        verity.log([example_case(ticket)])
        outage = threading.Event()
        restarted = threading.Event()

        def kill_and_restart() -> None:
            outage.wait()
            control("kill")  # SIGKILL: whatever POST is in flight gets no answer
            time.sleep(1.0)  # the client meets a closed port meanwhile
            control("start")
            restarted.set()

        side = threading.Thread(target=kill_and_restart)
        side.start()
        try:
            for i in range(total):
                verity.log_rollout(trajectory_id=f"{run}/{i}", step=i // 100, ticket_id=ticket, **fields)
                if i == 1500:
                    # Once some batches are in: the rest of the loop runs while the console is gone.
                    while verity.stats()["accepted"] < 500:
                        time.sleep(0.01)
                    outage.set()
                if i % 100 == 0:
                    time.sleep(0.005)  # a training step's pace, so the outage falls in the middle of the stream
            self.assertTrue(restarted.wait(timeout=180), "the console did not come back")
            self.assertTrue(verity.flush(timeout=300))
        finally:
            outage.set()
            side.join()
            verity.close(timeout=10)
        ids = [r["trajectory_id"] for r in export_run(run)]
        self.assertEqual(len(ids), total, "entries lost or duplicated")
        self.assertEqual(sorted(ids), sorted(f"{run}/{i}" for i in range(total)))
        stats = verity.stats()
        self.assertGreaterEqual(stats["retries"], 1, "the outage was never seen by the client")
        self.assertEqual((stats["failed"], stats["rejected"], stats["abandoned"]), (0, 0, 0))
        self.assertEqual(stats["accepted"] + stats["unchanged"], total + 1)

    def test_5xx_answers_and_dropped_or_cut_connections_are_retried_without_duplicates(self) -> None:
        proxy = FaultProxy(URL)
        self.addCleanup(proxy.close)
        # Two 503s, a connection closed before it is read, two bodies cut in half on the way to the console (which
        # commits what it decompressed before the cut), then the console itself.
        proxy.script.extend(["503", "503", "refuse", "cut", "pass", "cut"])
        run = unique_run("faults")
        ticket = f"T-{run}"
        fields = example_rollout_fields()
        with Verity(proxy.url, INGEST_TOKEN, run=run, batch_records=400, batch_age=0.05, backoff=(0.05, 0.2)) as v:
            v.log([example_case(ticket)])
            for i in range(2000):
                v.log_rollout(trajectory_id=f"{run}/{i}", step=i // 50, ticket_id=ticket, **fields)
            self.assertTrue(v.flush(timeout=120))
            stats = v.stats()
        ids = [r["trajectory_id"] for r in export_run(run)]
        self.assertEqual(len(ids), 2000, "entries lost or duplicated")
        self.assertEqual(sorted(ids), sorted(f"{run}/{i}" for i in range(2000)))
        self.assertEqual(proxy.modes[:6], ["503", "503", "refuse", "cut", "pass", "cut"])
        self.assertGreaterEqual(stats["retries"], 5)
        self.assertEqual((stats["failed"], stats["rejected"]), (0, 0))
        self.assertEqual(stats["accepted"] + stats["unchanged"], 2001)
        self.assertTrue(all(h.get("content-encoding") == "gzip" for h in proxy.seen))

    def test_a_client_error_is_not_retried_and_reaches_on_error(self) -> None:
        errors: list = []
        with Verity(URL, "vty_not_a_token", on_error=lambda m, recs: errors.append((m, len(recs))), batch_age=60) as v:
            v.log_score(run_id="r", trajectory_id="t", step=1, ticket_id="T", reward=0.5)
            self.assertTrue(v.flush(timeout=30))
            stats = v.stats()
        self.assertEqual((stats["retries"], stats["failed"], stats["sent"]), (0, 1, 0))
        self.assertEqual(len(errors), 1)
        self.assertRegex(errors[0][0], r"^HTTP 401: ")
        self.assertEqual(errors[0][1], 1)


if __name__ == "__main__":
    unittest.main()
