"""The client against the real console npm test started: delivery, rejects, the full-queue policies."""

from __future__ import annotations

import threading
import time
import unittest

from support import (
    INGEST_TOKEN,
    URL,
    FaultProxy,
    example_case,
    example_rollout_fields,
    export_run,
    needs_console,
    unique_run,
)
from verity_client import Reject, Verity, score_record


def wait_until(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


@needs_console
class DeliveryTest(unittest.TestCase):
    def test_ten_thousand_rollouts_logged_from_a_loop_arrive_exactly(self) -> None:
        run = unique_run("loop")
        ticket = f"T-{run}"
        fields = example_rollout_fields()
        with Verity(URL, INGEST_TOKEN, run=run) as verity:
            verity.log([example_case(ticket)])
            for i in range(10_000):
                ok = verity.log_rollout(
                    trajectory_id=f"{run}/{i}",
                    step=i // 64,
                    ticket_id=ticket,
                    group_id=f"{run}/s{i // 64}/g{(i % 64) // 8}",
                    sample_index=i % 8,
                    **fields,
                )
                self.assertTrue(ok)
            self.assertTrue(verity.flush(timeout=300))
            stats = verity.stats()
        self.assertEqual(
            {k: stats[k] for k in ("logged", "sent", "accepted", "unchanged", "rejected", "failed", "dropped")},
            {"logged": 10_001, "sent": 10_001, "accepted": 10_001, "unchanged": 0, "rejected": 0, "failed": 0,
             "dropped": 0},
        )
        self.assertGreaterEqual(stats["batches"], 20)  # sent in batches of at most 500 lines, not in one request
        # The case was known, so the verifier scored every rollout on the way in: one current entry each, read back.
        ledger = export_run(run)
        self.assertEqual(len(ledger), 10_000)
        self.assertEqual(sorted(r["trajectory_id"] for r in ledger), sorted(f"{run}/{i}" for i in range(10_000)))
        self.assertEqual({(r["source"], r["reward"]) for r in ledger}, {("verifier", 1.0)})
        by_id = {r["trajectory_id"]: r for r in ledger}
        self.assertEqual(
            (by_id[f"{run}/9999"]["step"], by_id[f"{run}/9999"]["group_id"]), (156, f"{run}/s156/g1")
        )

    def test_score_records_logged_before_their_rollouts_are_stored_as_given(self) -> None:
        run = unique_run("scores")
        ticket = f"T-{run}"
        fields = example_rollout_fields()
        with Verity(URL, INGEST_TOKEN, run=run) as verity:
            verity.log([example_case(ticket)])
            for i in range(300):
                # The score no later than its rollout (here: the call before), whichever POSTs they end up in: the
                # console does not score a rollout whose trajectory already has an entry, although its case is known.
                verity.log_score(
                    trajectory_id=f"{run}/{i}",
                    step=3,
                    ticket_id=ticket,
                    reward=i / 1000,
                    raw_reward=0.5,
                    subscores={"outcome": 0.25},
                    guardrails=["missing_evidence"],
                    reasons=[{"code": "reward_component", "field": "format", "actual": 1, "message": "format = 1"}],
                )
                verity.log_rollout(trajectory_id=f"{run}/{i}", step=3, ticket_id=ticket, **fields)
            self.assertTrue(verity.flush(timeout=120))
            self.assertEqual(verity.stats()["rejected"], 0)
        ledger = export_run(run)
        self.assertEqual(len(ledger), 300)
        self.assertEqual({r["source"] for r in ledger}, {"external"})
        self.assertEqual(sorted(r["reward"] for r in ledger), [i / 1000 for i in range(300)])
        first = next(r for r in ledger if r["trajectory_id"] == f"{run}/7")
        self.assertEqual(
            {k: first[k] for k in ("raw_reward", "subscores", "reasons")},
            {
                "raw_reward": 0.5,
                "subscores": {"outcome": 0.25},
                "reasons": [{"code": "reward_component", "field": "format", "actual": 1, "message": "format = 1"}],
            },
        )
        self.assertEqual([g["code"] for g in first["guardrails"]], ["missing_evidence"])

    def test_trained_rewards_travel_with_rollouts_and_score_records(self) -> None:
        run = unique_run("trained")
        ticket = f"T-{run}"
        fields = example_rollout_fields()
        with Verity(URL, INGEST_TOKEN, run=run) as verity:
            verity.log([example_case(ticket)])
            # Scored by the verifier on the way in: the entry takes the rollout's trained reward.
            verity.log_rollout(trajectory_id=f"{run}/scored", step=1, ticket_id=ticket, trained_reward=0.25, **fields)
            # The trainer's score record gives its own.
            verity.log_score(trajectory_id=f"{run}/own", step=1, ticket_id=ticket, reward=0.5, trained_reward=-2.5)
            verity.log_rollout(trajectory_id=f"{run}/own", step=1, ticket_id=ticket, **fields)
            self.assertTrue(verity.flush(timeout=60))
            self.assertEqual(verity.stats()["rejected"], 0)
        by_id = {r["trajectory_id"]: r for r in export_run(run)}
        self.assertEqual((by_id[f"{run}/scored"]["source"], by_id[f"{run}/scored"]["reward"]), ("verifier", 1.0))
        self.assertEqual(by_id[f"{run}/scored"]["trained_reward"], 0.25)
        self.assertEqual(by_id[f"{run}/own"]["trained_reward"], -2.5)

    def test_rejected_lines_are_reported_with_their_record_and_line(self) -> None:
        run = unique_run("rejects")
        rejects: list = []
        good = lambda i: score_record(trajectory_id=f"{run}/{i}", run_id=run, step=1, ticket_id="T-x", reward=0.5)
        records = [
            good(1),
            score_record(trajectory_id=f"{run}/2", run_id=run, step=1, ticket_id="T-x", reward=1.5),
            good(3),
            {"kind": "rollout", "trajectory_id": f"{run}/4", "run_id": run, "step": 1, "ticket_id": "T-x"},
            {"kind": "review", "trajectory_id": f"{run}/5"},
            good(6),
        ]
        with Verity(URL, INGEST_TOKEN, on_reject=rejects.append, batch_age=60) as verity:
            self.assertEqual(verity.log(records), 6)
            self.assertTrue(verity.flush(timeout=60))
            stats = verity.stats()
        self.assertEqual((stats["accepted"], stats["rejected"]), (3, 3))
        # One POST: score records first (records 1, 2, 3, 5 by kind order, the review is sent with them), then the
        # rollout; `seq` is the record's place among the client's log calls, `line` its line in that POST.
        self.assertEqual(
            [(r.seq, r.line, r.path) for r in rejects],
            [(2, 2, "reward"), (5, 4, "kind"), (4, 6, "trajectory")],
        )
        self.assertTrue(all(isinstance(r, Reject) for r in rejects))
        self.assertEqual(rejects[0].record, records[1])
        self.assertRegex(rejects[0].message, r"1")
        self.assertRegex(rejects[1].message, r'unknown kind "review"')
        self.assertEqual(stats["rejects"], rejects)
        self.assertEqual(sorted(r["trajectory_id"] for r in export_run(run)), [f"{run}/1", f"{run}/3", f"{run}/6"])


@needs_console
class FullQueueTest(unittest.TestCase):
    """The queue holds 10 records; the console is held unreachable behind a proxy while the loop logs."""

    def setUp(self) -> None:
        self.proxy = FaultProxy(URL)
        self.proxy.default = "hold"
        self.run = unique_run("full")

    def tearDown(self) -> None:
        self.proxy.close()

    def client(self, on_full: str) -> Verity:
        return Verity(
            self.proxy.url,
            INGEST_TOKEN,
            run=self.run,
            batch_records=5,
            batch_age=60,
            max_queue_records=10,
            on_full=on_full,
            backoff=(0.05, 0.2),
        )

    def score(self, verity: Verity, i: int) -> bool:
        return verity.log_score(trajectory_id=f"{self.run}/{i}", step=1, ticket_id="T-q", reward=0.5)

    def fill(self, verity: Verity) -> None:
        # 5 records make a batch, which the sender takes and POSTs into the held connection; 10 more fill the queue.
        for i in range(5):
            self.assertTrue(self.score(verity, i))
        self.assertTrue(wait_until(lambda: verity.stats()["queued"] == 0 and len(self.proxy.seen) == 1))
        for i in range(5, 15):
            self.assertTrue(self.score(verity, i))
        self.assertEqual(verity.stats()["queued"], 10)

    def test_drop_policy_drops_and_counts_the_records_that_do_not_fit(self) -> None:
        verity = self.client("drop")
        self.fill(verity)
        self.assertEqual([self.score(verity, i) for i in range(15, 18)], [False, False, False])
        self.assertEqual(verity.stats()["dropped"], 3)
        self.proxy.default = "pass"
        self.proxy.release()
        self.assertTrue(verity.close(timeout=60))
        stats = verity.stats()
        self.assertEqual((stats["logged"], stats["dropped"], stats["accepted"], stats["failed"]), (15, 3, 15, 0))
        self.assertEqual(sorted(r["trajectory_id"] for r in export_run(self.run)),
                         sorted(f"{self.run}/{i}" for i in range(15)))

    def test_block_policy_holds_the_caller_until_there_is_room(self) -> None:
        verity = self.client("block")
        self.fill(verity)
        returned: list = []
        caller = threading.Thread(target=lambda: returned.extend(self.score(verity, i) for i in range(15, 18)))
        caller.start()
        caller.join(timeout=1.0)
        self.assertTrue(caller.is_alive(), "log_score returned while the queue was full")
        self.assertEqual(returned, [])
        self.proxy.default = "pass"
        self.proxy.release()
        caller.join(timeout=60)
        self.assertFalse(caller.is_alive())
        self.assertTrue(verity.close(timeout=60))
        stats = verity.stats()
        self.assertEqual((stats["logged"], stats["dropped"], stats["accepted"]), (18, 0, 18))
        self.assertEqual(len(export_run(self.run)), 18)


class TrainedRewardRecordTest(unittest.TestCase):
    def test_a_trained_reward_json_cannot_carry_is_refused_with_the_fields_name(self) -> None:
        from verity_client.records import rollout_record

        for bad in (float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "trained_reward must be a finite number"):
                score_record(trajectory_id="t", run_id="r", step=0, ticket_id="T", reward=0.5, trained_reward=bad)
            with self.assertRaisesRegex(ValueError, "trained_reward must be a finite number"):
                rollout_record(trajectory_id="t", run_id="r", step=0, ticket_id="T", final_reply="", trained_reward=bad)
        self.assertNotIn("trained_reward", score_record(trajectory_id="t", run_id="r", step=0, ticket_id="T", reward=1))


if __name__ == "__main__":
    unittest.main()
