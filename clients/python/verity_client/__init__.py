"""Verity's Python client: log rollouts and score records from a training loop (see README.md)."""

from verity_client.client import Reject, Verity
from verity_client.gate import GateError, GateVerdict, gate
from verity_client.records import case_record, prompt_ticket_id, rollout_record, score_record

__all__ = ["Verity", "Reject", "rollout_record", "score_record", "case_record", "prompt_ticket_id", "gate", "GateVerdict", "GateError"]
__version__ = "0.1.0"
