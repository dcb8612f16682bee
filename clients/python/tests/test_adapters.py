"""The GRPO-batch mapping, verl's DataProto, the TRL callback — as records, and as the console takes them."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import unittest
from types import SimpleNamespace

from support import INGEST_TOKEN, URL, export_run, needs_console, unique_run
from verity_client import Verity, prompt_ticket_id
from verity_client.grpo import completion_trajectory, from_verl, grpo_records, log_grpo_batch
from verity_client.trl import VerityCallback

CHAT = [
    {"role": "assistant", "content": "Let me look up the order.",
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "order.get", "arguments": '{"order_id": "O-1"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "delivered"}'},
    {"role": "assistant", "content": "",
     "tool_calls": [{"type": "function", "function": {"name": "finance.issue_refund", "arguments": {"amount": 5}}}]},
    {"role": "tool", "name": "finance.issue_refund", "content": "ok"},
    {"role": "assistant", "content": [{"type": "text", "text": "Refunded 5 EUR."}]},
]


class GrpoRecordsTest(unittest.TestCase):
    def test_a_text_batch_maps_to_a_case_per_prompt_then_score_and_rollout_per_completion(self) -> None:
        records = grpo_records(
            run_id="grpo-7",
            step=12,
            prompts=["Where is my parcel?"] * 2 + ["Cancel my order"] * 2,
            completions=["It ships today.", "No idea.", "Cancelled.", "Done."],
            rewards=[1.0, 0.0, 0.5, 0.25],
            components={"accuracy": [1, 0, 0.5, 0], "outcome": [1.0, 0.0, 1.0, float("nan")]},
            group_ids=["u1", "u1", "u2", "u2"],
        )
        ticket = prompt_ticket_id("Where is my parcel?")
        self.assertEqual([r["kind"] for r in records], ["case", "score", "rollout", "score", "rollout", "case",
                                                        "score", "rollout", "score", "rollout"])
        self.assertEqual(records[0], {"kind": "case", "ticket": {"id": ticket, "category": "imported",
                                                                  "message": "Where is my parcel?"},
                                      "env_snapshot": {}, "verifier_spec": {}})
        identity = {"trajectory_id": "grpo-7/s12/u1/k1", "run_id": "grpo-7", "step": 12, "ticket_id": ticket,
                    "group_id": "grpo-7/s12/u1", "sample_index": 1}
        self.assertEqual(records[3], {"kind": "score", "source": "external", **identity, "reward": 0.0,
                                      "subscores": {"outcome": 0.0},
                                      "reasons": [{"code": "reward_component", "field": "accuracy", "actual": 0.0,
                                                   "message": "accuracy = 0"}],
                                      "trained_reward": 0.0})
        self.assertEqual(records[4], {"kind": "rollout", **identity,
                                      "trajectory": {"steps": [], "final_reply": "No idea."},
                                      "sandbox": {"writes": [], "tables": {}}, "tool_registry": [],
                                      "trained_reward": 0.0})
        # A NaN component (TRL: the function had nothing to say) is left out, not sent.
        self.assertNotIn("subscores", records[9])
        self.assertEqual(records[9]["trajectory_id"], "grpo-7/s12/u2/k1")

    def test_prompts_without_group_ids_group_by_ticket_and_reward_range_maps_to_unit(self) -> None:
        records = grpo_records(run_id="r", step=0, prompts=["p", "p", "q"], completions=["a", "b", "c"],
                               rewards=[-1.0, 3.0, 1.0], reward_range=(-1.0, 3.0), known_tickets={prompt_ticket_id("q")})
        scores = [r for r in records if r["kind"] == "score"]
        self.assertEqual([r["reward"] for r in scores], [0.0, 1.0, 0.5])
        # The trainer's own number, before the mapping, on both records.
        self.assertEqual([r["trained_reward"] for r in scores], [-1.0, 3.0, 1.0])
        self.assertEqual([r["trained_reward"] for r in records if r["kind"] == "rollout"], [-1.0, 3.0, 1.0])
        self.assertEqual(scores[2]["reasons"], [{"code": "trainer_reward", "actual": 1.0, "message": "trainer reward 1"}])
        self.assertEqual([(r["group_id"], r["sample_index"]) for r in scores],
                         [(f"r/s0/{prompt_ticket_id('p')}", 0), (f"r/s0/{prompt_ticket_id('p')}", 1),
                          (f"r/s0/{prompt_ticket_id('q')}", 0)])
        # The known ticket's case is not sent again.
        self.assertEqual([r["ticket"]["id"] for r in records if r["kind"] == "case"], [prompt_ticket_id("p")])

    def test_a_chat_completion_becomes_llm_and_tool_steps_with_the_last_text_as_final_reply(self) -> None:
        steps, final, tools = completion_trajectory(CHAT)
        self.assertEqual(steps, [
            {"type": "llm", "name": "assistant", "output": "Let me look up the order."},
            {"type": "tool", "name": "order.get", "input": '{"order_id": "O-1"}', "status": "success",
             "output": '{"status": "delivered"}'},
            {"type": "tool", "name": "finance.issue_refund", "input": {"amount": 5}, "status": "success", "output": "ok"},
        ])
        self.assertEqual((final, tools), ("Refunded 5 EUR.", {"order.get", "finance.issue_refund"}))

    def test_columns_of_different_lengths_are_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "rewards has 1 entries, completions 2"):
            grpo_records(run_id="r", step=0, prompts=["p", "p"], completions=["a", "b"], rewards=[1.0])
        with self.assertRaisesRegex(ValueError, "component 'fmt' has 1 entries"):
            grpo_records(run_id="r", step=0, prompts=["p"] * 2, completions=["a", "b"], rewards=[1, 0],
                         components={"fmt": [1]})


class FakeTensor:
    """Enough of a torch tensor for from_verl: rows of token ids or of token-level scores."""

    def __init__(self, rows):
        self.rows = rows

    def sum(self, dim):
        assert dim == -1
        return FakeTensor([sum(r) for r in self.rows])

    def tolist(self):
        return self.rows


class FakeTokenizer:
    vocab = {0: "", 1: "What", 2: " is", 3: " 2+2?", 4: "4", 5: "5"}

    def batch_decode(self, rows, skip_special_tokens=False):
        assert skip_special_tokens
        return ["".join(self.vocab[t] for t in r) for r in rows.rows]


class VerlTest(unittest.TestCase):
    def test_from_verl_reads_a_dataproto_as_verls_rollout_dump_does(self) -> None:
        batch = SimpleNamespace(
            batch={"prompts": FakeTensor([[0, 1, 2, 3]] * 2), "responses": FakeTensor([[4, 0], [5, 0]]),
                   "token_level_scores": FakeTensor([[0.0, 1.0], [0.0, 0.0]])},
            non_tensor_batch={"uid": ["9f1c", "9f1c"]},
            meta_info={"global_steps": 41},
        )
        kwargs = from_verl(batch, FakeTokenizer(), reward_extra_info={"acc": [1.0, 0.0], "per_batch": [3.0]})
        self.assertEqual(kwargs, {"prompts": ["What is 2+2?"] * 2, "completions": ["4", "5"], "rewards": [1.0, 0.0],
                                  "group_ids": ["9f1c", "9f1c"], "step": 41, "components": {"acc": [1.0, 0.0]}})
        records = grpo_records(run_id="v", **kwargs)
        self.assertEqual([r["trajectory_id"] for r in records if r["kind"] == "rollout"], ["v/s41/9f1c/k0", "v/s41/9f1c/k1"])


class TrlCallbackTest(unittest.TestCase):
    def test_importing_the_adapters_imports_no_trainer(self) -> None:
        code = "import sys, verity_client.trl, verity_client.grpo; print(sorted({'trl','transformers','torch','verl'} & set(sys.modules)))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True)
        self.assertEqual(out.stdout.strip(), "[]")

    def test_the_callback_logs_a_batch_once_every_tracked_reward_function_has_scored_it(self) -> None:
        logged: list = []
        verity = SimpleNamespace(run="trl-run", prompt_cases_sent=set(), log=logged.extend)
        cb = VerityCallback(verity)  # type: ignore[arg-type]

        def accuracy(prompts, completions, **kwargs):
            return [1.0 if c == "4" else 0.0 for c in completions]

        def fmt(prompts, completions, completion_ids, trainer_state, **kwargs):
            return [0.5, None]

        tracked = [cb.track(accuracy), cb.track(fmt)]
        self.assertEqual([f.__name__ for f in tracked], ["accuracy", "fmt"])
        args = SimpleNamespace(process_index=1, reward_weights=[1.0, 2.0])
        cb.on_train_begin(args, SimpleNamespace(global_step=0), None)
        prompts, completions = ["2+2?", "2+2?"], ["4", "5"]
        state = SimpleNamespace(global_step=7)
        # As GRPOTrainer._calculate_rewards calls them: keywords, the same lists, dataset columns as lists.
        for f in tracked:
            out = f(prompts=prompts, completions=completions, completion_ids=[[1], [2]], trainer_state=state,
                    answer=["4", "4"])
        self.assertEqual(out, [0.5, None])  # what the trainer gets is untouched
        scores = [r for r in logged if r["kind"] == "score"]
        self.assertEqual([r["trajectory_id"] for r in scores], ["trl-run/s7/r1b0/0", "trl-run/s7/r1b0/1"])
        self.assertEqual([r["reward"] for r in scores], [2.0, 0.0])  # 1*1 + 2*0.5; 1*0 + (None counts 0)
        self.assertEqual([len(r["reasons"]) for r in scores], [2, 1])
        # Events the callback does not use are answered and do nothing.
        self.assertIsNone(cb.on_log(args, state, None, logs={"loss": 0.1}))
        self.assertIsNone(cb.on_evaluate(args, state, None, metrics={}))
        with self.assertRaises(AttributeError):
            cb.not_an_event  # noqa: B018

    def test_a_batch_some_function_never_scored_is_logged_at_step_end(self) -> None:
        logged: list = []
        verity = SimpleNamespace(run="r", prompt_cases_sent=set(), log=logged.extend)
        cb = VerityCallback(verity)  # type: ignore[arg-type]
        first = cb.track(lambda prompts, completions, **k: [0.25], name="first")
        cb.track(lambda prompts, completions, **k: [0.5], name="second")
        first(prompts=["p"], completions=["c"], trainer_state=SimpleNamespace(global_step=3))
        self.assertEqual(logged, [])
        cb.on_step_end(None, SimpleNamespace(global_step=4), None)
        self.assertEqual([r["reward"] for r in logged if r["kind"] == "score"], [0.25])


@needs_console
class AdaptersAgainstTheConsoleTest(unittest.TestCase):
    def test_a_chat_grpo_batch_is_stored_without_rejects_and_reads_back(self) -> None:
        run = unique_run("grpo")
        rejects: list = []
        prompt = [{"role": "system", "content": "You are a support agent."},
                  {"role": "user", "content": f"Refund my order ({run})"}]
        with Verity(URL, INGEST_TOKEN, run=run, on_reject=rejects.append) as verity:
            for step in range(3):
                n = log_grpo_batch(verity, step=step, prompts=[prompt] * 4, completions=[CHAT, CHAT, "No.", "Later."],
                                   rewards=[2.0, 1.5, -1.0, 0.0], reward_range=(-1.0, 2.0),
                                   components={"format": [1, 1, 0, 0], "communication": [1.0, 0.5, 0.0, 0.0]},
                                   tool_kinds={"finance.issue_refund": "write", "order.get": "read"})
                self.assertEqual(n, 9 if step == 0 else 8)  # the prompt's case goes once
            self.assertTrue(verity.flush(timeout=60))
            stats = verity.stats()
        self.assertEqual(rejects, [])
        self.assertEqual((stats["accepted"], stats["rejected"]), (25, 0))
        ledger = export_run(run)
        self.assertEqual(len(ledger), 12)
        ticket = prompt_ticket_id(prompt)
        first = next(r for r in ledger if r["trajectory_id"] == f"{run}/s0/{ticket}/k0")
        self.assertEqual((first["source"], first["reward"], first["subscores"]), ("external", 1.0, {"communication": 1.0}))
        self.assertEqual(first["trained_reward"], 2.0)  # the trainer's reward, on its own scale
        self.assertTrue(math.isclose(next(r for r in ledger if r["trajectory_id"] == f"{run}/s2/{ticket}/k1")["reward"],
                                     2.5 / 3))


if __name__ == "__main__":
    unittest.main()
