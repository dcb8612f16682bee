"""The README's wire format by example is what the builders send, byte for byte."""

from __future__ import annotations

import pathlib
import re
import unittest
from types import SimpleNamespace

from verity_client.records import encode_line, rollout_record, score_record

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


class ReadmeTest(unittest.TestCase):
    def test_each_logging_example_sends_the_line_shown_after_it(self) -> None:
        text = README.read_text("utf-8")
        pairs = re.findall(r"```python\n(verity\.log_\w+\(.*?)```\n```json\n(.*?)```", text, re.S)
        self.assertEqual(len(pairs), 2)
        for code, shown in pairs:
            sent: list = []
            verity = SimpleNamespace(
                log_rollout=lambda **f: sent.append(rollout_record(run_id="grpo-7", **f)),
                log_score=lambda **f: sent.append(score_record(run_id="grpo-7", **f)),
            )
            exec(code, {"verity": verity})
            self.assertEqual(encode_line(sent[0]).decode("utf-8"), shown.replace("\n ", "").replace("\n", "") + "\n")


if __name__ == "__main__":
    unittest.main()
