"""The wire records of the ingest API (docs/ingest.md), built from keyword arguments.

Each builder returns exactly the JSON object one NDJSON line carries: a rollout (formats §2), a score record computed
outside Verity (`"source": "external"`, formats §3) or a case (formats §1). Optional fields that are not given are
left out, never sent as null, so a record sent twice hashes the same on the server (ingest is idempotent).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Optional, Sequence

DIMENSIONS = ("outcome", "policy", "evidence", "efficiency", "communication")

Record = dict


def _put(out: dict, key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def rollout_record(
    *,
    trajectory_id: str,
    run_id: str,
    step: int,
    ticket_id: str,
    final_reply: str,
    steps: Sequence[Mapping[str, Any]] = (),
    group_id: Optional[str] = None,
    sample_index: Optional[int] = None,
    sandbox_writes: Sequence[Mapping[str, Any]] = (),
    tables: Optional[Mapping[str, Any]] = None,
    tool_registry: Sequence[Mapping[str, Any]] = (),
    claims: Optional[Mapping[str, Any]] = None,
    case: Optional[Mapping[str, Any]] = None,
    trained_reward: Optional[float] = None,
) -> Record:
    """A rollout line: `{"kind": "rollout", ..., "trajectory": {"steps", "final_reply"}, "sandbox", "tool_registry"}`.

    `steps` are `{"type": "llm", "name"?, "output"?}` or `{"type": "tool", "name", "input", "output"?, "status":
    "success" | "failed"}`; `sandbox_writes` are `{"tool", "args", "step"?, "at"?}`; `tool_registry` entries are
    `{"name", "kind"}` with kind one of read, write, handoff, other. A rollout whose case is known is scored by the
    verifier on the way in, unless its score record was logged before it. `trained_reward` is the number the trainer
    optimized for this rollout (any finite number, on the trainer's scale); the ledger entry carries it beside its
    own reward.
    """
    out: Record = {"kind": "rollout", "trajectory_id": trajectory_id, "run_id": run_id, "step": step}
    _put(out, "group_id", group_id)
    _put(out, "sample_index", sample_index)
    out["ticket_id"] = ticket_id
    _put(out, "case", dict(case) if case is not None else None)
    out["trajectory"] = {"steps": [dict(s) for s in steps], "final_reply": final_reply}
    out["sandbox"] = {"writes": [dict(w) for w in sandbox_writes], "tables": dict(tables or {})}
    out["tool_registry"] = [dict(t) for t in tool_registry]
    _put(out, "claims", dict(claims) if claims is not None else None)
    _put(out, "trained_reward", _trained(trained_reward))
    return out


def score_record(
    *,
    trajectory_id: str,
    run_id: str,
    step: int,
    ticket_id: str,
    reward: float,
    raw_reward: Optional[float] = None,
    subscores: Optional[Mapping[str, float]] = None,
    guardrails: Optional[Sequence[Any]] = None,
    reasons: Optional[Sequence[Mapping[str, Any]]] = None,
    group_id: Optional[str] = None,
    sample_index: Optional[int] = None,
    trained_reward: Optional[float] = None,
) -> Record:
    """An external score record: the reward a trainer computed, stored in the ledger as given (not reproducible).

    `reward` and `raw_reward` are in [0, 1]; `subscores` may give any of the five dimensions (outcome, policy,
    evidence, efficiency, communication); `guardrails` are guardrail codes or `{"code", "cap"?, "evidence"?}`;
    `reasons` are `{"code", "message", ...}`; `trained_reward` is the number the trainer optimized (any finite
    number; the entry takes its rollout's when it is not given here).
    """
    out: Record = {
        "kind": "score",
        "source": "external",
        "trajectory_id": trajectory_id,
        "run_id": run_id,
        "step": step,
        "ticket_id": ticket_id,
    }
    _put(out, "group_id", group_id)
    _put(out, "sample_index", sample_index)
    out["reward"] = reward
    _put(out, "raw_reward", raw_reward)
    _put(out, "subscores", dict(subscores) if subscores else None)
    _put(out, "guardrails", list(guardrails) if guardrails else None)
    _put(out, "reasons", [dict(r) for r in reasons] if reasons else None)
    _put(out, "trained_reward", _trained(trained_reward))
    return out


def _trained(value: Any) -> Optional[float]:
    """A trained reward as JSON carries it: a float (numpy scalars and 0-d tensors too); NaN and infinities are
    refused here with the field's name, as the server would refuse the line."""
    if value is None:
        return None
    number = float(value.item() if hasattr(value, "item") else value)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"trained_reward must be a finite number, got {number}")
    return number


def case_record(
    *,
    ticket_id: str,
    category: str,
    message: str,
    env_snapshot: Optional[Mapping[str, Any]] = None,
    verifier_spec: Optional[Mapping[str, Any]] = None,
    **ticket: Any,
) -> Record:
    """A case line; extra keyword arguments are kept on the ticket (`customer_id`, `created_at`, your own fields)."""
    return {
        "kind": "case",
        "ticket": {"id": ticket_id, "category": category, "message": message, **ticket},
        "env_snapshot": dict(env_snapshot or {}),
        "verifier_spec": dict(verifier_spec or {}),
    }


def prompt_ticket_id(prompt: Any) -> str:
    """The ticket of a prompt that has none: `P-` and 12 hex digits of the SHA-256 of its text.

    The same rule as the ingest API's reward-platform import, so a prompt logged from a trainer and the same prompt
    imported from a platform share a ticket. A chat prompt (a list of messages) is hashed as compact JSON.
    """
    text = prompt if isinstance(prompt, str) else canonical_json(prompt)
    return "P-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=plain)


def plain(value: Any) -> Any:
    """JSON for the values trainers hand over: numpy scalars and arrays, 0-d tensors (anything with item/tolist)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def record_kind(record: Mapping[str, Any]) -> str:
    """case, score or rollout as the server reads it (an external score record may omit `kind`); else `other`."""
    kind = record.get("kind")
    if kind in ("case", "score", "rollout"):
        return str(kind)
    if kind is None and record.get("source") == "external":
        return "score"
    return "other"


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One NDJSON line (with its newline). NaN and infinities are refused here: JSON has no spelling for them."""
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=plain) + "\n").encode(
        "utf-8"
    )
