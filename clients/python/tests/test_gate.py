"""gate(): against a local fake console that answers GET /api/v1/runs/{run}/gate as the console does, and (under
`npm test -- py`) against the real console."""

from __future__ import annotations

import http.server
import json
import threading
import unittest
import urllib.parse
from typing import Any, Dict, List, Optional, Tuple

from tests.support import (
    INGEST_TOKEN,
    READ_TOKEN,
    URL,
    example_case,
    example_rollout_fields,
    needs_console,
    unique_run,
)
from verity_client import GateError, Verity, gate

REPORT: Dict[str, Any] = {
    "run": "grpo 7/a",
    "verdict": "fail",
    "window": {"steps": 2000, "from": 1000, "to": 2999},
    "failed": ["reward_hacking"],
    "insufficient": ["agreement"],
    "rules": [
        {
            "rule": "handoff",
            "label": "Hand-off rate",
            "status": "pass",
            "value": 0.05,
            "threshold": {"max": 0.1},
            "interval": {"lower": 0.04, "upper": 0.06},
            "n": 4000,
            "unit": "rollouts",
            "message": "hand-offs on 5% over 4,000 rollouts: under the 10% ceiling",
        },
        {
            "rule": "reward_hacking",
            "label": "Reward hacking",
            "status": "fail",
            "value": -3.1,
            "threshold": {"min": 0.8},
            "interval": {"lower": 0.3, "upper": 0.5},
            "n": 6,
            "unit": "windows",
            "message": "the ledger's success rises while the corrected success does not",
        },
    ],
}


class FakeConsole:
    """Answers each request from a queue of (status, body); records the path and the Authorization header."""

    def __init__(self) -> None:
        self.answers: List[Tuple[int, Any]] = []
        self.requests: List[Tuple[str, Optional[str]]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                outer.requests.append((self.path, self.headers.get("Authorization")))
                status, body = outer.answers.pop(0)
                raw = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class GateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.console = FakeConsole()

    def tearDown(self) -> None:
        self.console.close()

    def test_the_verdict_and_every_rule_come_back_as_the_console_gave_them(self) -> None:
        self.console.answers.append((200, REPORT))
        v = gate(self.console.url, "vty_read", "grpo 7/a", window_steps=2000)
        path, auth = self.console.requests[0]
        self.assertEqual(path, "/api/v1/runs/grpo%207%2Fa/gate?window_steps=2000")
        self.assertEqual(auth, "Bearer vty_read")
        self.assertEqual(v.verdict, "fail")
        self.assertTrue(v.failed_gate)
        self.assertFalse(v.passed)
        self.assertEqual(v.failed, ["reward_hacking"])
        self.assertEqual(v.insufficient, ["agreement"])
        self.assertEqual([r.rule for r in v.rules], ["handoff", "reward_hacking"])
        self.assertEqual(v.rules[0].threshold, {"max": 0.1})
        self.assertEqual(v.rules[0].interval, {"lower": 0.04, "upper": 0.06})
        self.assertEqual(v.rules[1].status, "fail")
        self.assertEqual(v.window["from"], 1000)
        self.assertEqual(str(v), "gate fail for run grpo 7/a: reward_hacking")

    def test_without_a_window_the_query_is_empty_and_the_client_uses_its_run(self) -> None:
        self.console.answers.append((200, {**REPORT, "verdict": "pass", "failed": [], "insufficient": []}))
        verity = Verity(self.console.url, "vty_both", run="grpo-9")
        try:
            v = verity.gate()
        finally:
            verity.close(timeout=5)
        self.assertEqual(self.console.requests[0], ("/api/v1/runs/grpo-9/gate", "Bearer vty_both"))
        self.assertTrue(v.passed)

    def test_a_pass_with_warnings_is_a_pass_and_says_its_warnings(self) -> None:
        hit_rate = {
            "rule": "hit_rate",
            "label": "Guardrail hit rate",
            "status": "warn",
            "severity": "warn",
            "value": 0.05,
            "threshold": {"min": 0.1, "max": 0.3},
            "interval": None,
            "n": 4000,
            "unit": "rollouts",
            "message": "guardrail hits on 5% of all 4,000 rollouts of the window: below the 10%–30% band",
        }
        passing = {**REPORT, "verdict": "pass", "failed": [], "insufficient": [], "warnings": ["hit_rate"]}
        self.console.answers.append((200, {**passing, "rules": [hit_rate]}))
        v = gate(self.console.url, "vty_read", "r")
        self.assertTrue(v.passed)
        self.assertEqual(v.warnings, ["hit_rate"])
        self.assertEqual((v.rules[0].status, v.rules[0].severity, v.rules[0].interval), ("warn", "warn", None))
        self.assertEqual(str(v), "gate pass for run grpo 7/a (warnings: hit_rate)")
        # a console without warnings (an older one) reads as none, its rules as stop rules
        self.console.answers.append((200, REPORT))
        old = gate(self.console.url, "vty_read", "r")
        self.assertEqual((old.warnings, old.rules[0].severity), ([], "stop"))

    def test_an_error_answer_raises_with_the_consoles_message_and_status(self) -> None:
        self.console.answers.append((404, {"error": {"code": "not_found", "message": 'There is no run "x".'}}))
        with self.assertRaises(GateError) as caught:
            gate(self.console.url, "vty_read", "x")
        self.assertEqual(caught.exception.status, 404)
        self.assertIn('There is no run "x".', str(caught.exception))

    def test_an_answer_that_is_not_a_gate_report_is_refused(self) -> None:
        self.console.answers.append((200, {"verdict": "maybe", "rules": []}))
        with self.assertRaises(GateError):
            gate(self.console.url, "vty_read", "r")
        self.console.answers.append((200, b"<html>proxy</html>"))
        with self.assertRaises(GateError):
            gate(self.console.url, "vty_read", "r")

    def test_a_bad_window_is_refused_before_any_request(self) -> None:
        for bad in (0, -5, 2.5, True):
            with self.assertRaises(ValueError):
                gate(self.console.url, "vty_read", "r", window_steps=bad)  # type: ignore[arg-type]
        self.assertEqual(self.console.requests, [])

    def test_an_unreachable_console_raises(self) -> None:
        url = self.console.url
        self.console.close()
        with self.assertRaises(GateError) as caught:
            gate(url, "vty_read", "r", timeout=2)
        self.assertIsNone(caught.exception.status)
        self.console = FakeConsole()


@needs_console
class ConsoleGateTest(unittest.TestCase):
    def test_an_unknown_run_is_a_404_and_a_logged_run_has_a_verdict(self) -> None:
        with self.assertRaises(GateError) as caught:
            gate(URL, READ_TOKEN, unique_run("gate"))
        self.assertEqual(caught.exception.status, 404)
        # A run of its own, logged through the client: scored on the way in, never audited.
        run = unique_run("gate")
        ticket = f"T-{run}"
        fields = example_rollout_fields()
        with Verity(URL, INGEST_TOKEN, run=run) as verity:
            verity.log([example_case(ticket)])
            for i in range(8):
                verity.log_rollout(
                    trajectory_id=f"{run}/{i}", step=i // 4, ticket_id=ticket, group_id=f"{run}/s{i // 4}",
                    sample_index=i % 4, **fields,
                )
            self.assertTrue(verity.flush(timeout=60))
        v = gate(URL, READ_TOKEN, run)
        self.assertEqual(v.run, run)
        self.assertEqual(
            [r.rule for r in v.rules],
            ["hit_rate", "handoff", "agreement", "extraction", "trained_mismatch", "reward_hacking", "ordering",
             "ledger_rank"],
        )
        # no review yet: the audit's rules cannot be judged, so the run cannot pass
        self.assertNotEqual(v.verdict, "pass")
        self.assertIn("agreement", v.insufficient)

if __name__ == "__main__":
    unittest.main()
