"""A GRPO batch as the ledger's records: one rollout and one external score record per completion.

Shaped like what verl's and OpenRLHF's trainers hold after scoring a batch — parallel lists of prompts, completions,
rewards, reward components and group ids (verl: `non_tensor_batch["uid"]`), plus the step. Nothing here imports a
trainer; `from_verl` reads a verl `DataProto` by duck typing.

Per completion i (K completions of a prompt make a group):
- ticket: `ticket_ids[i]`, else `P-<sha256(prompt)[:12]>` (the reward-platform import's rule). For a derived ticket
  a minimal case is sent once (the prompt as the ticket's message, empty spec), so the prompt is stored with its
  rollouts; a given ticket id is expected to have its own case.
- group: `group_ids[i]` (verl's uid) or the ticket; `group_id` is `RUN/sSTEP/<group>`, `sample_index` the
  completion's place in its group, `trajectory_id` `RUN/sSTEP/<group>/k<sample_index>` unless given.
- rollout: a text completion is the final reply (no steps); a chat completion (messages) becomes llm steps for the
  assistant's text, tool steps for its tool calls (with the tool messages' content as output), and its last
  assistant text as the final reply. The registry lists the tools called, kind from `tool_kinds` (default other).
- trained reward: `rewards[i]` exactly as the trainer optimized it (before any `reward_range` mapping) goes into
  `trained_reward` on both records, so the console can show where the trainer's number and the ledger's part.
- score: `reward` (mapped from `reward_range` to [0, 1] when given; the ledger holds rewards in [0, 1] and rejects
  others by line); components named like a sub-score (outcome, policy, evidence, efficiency, communication) become
  `subscores`, the others reasons `{"code": "reward_component", "field": name, "actual": value}`.
The score record goes before its rollout, so the verifier never scores a rollout the trainer already scored.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from verity_client.records import DIMENSIONS, case_record, prompt_ticket_id, rollout_record, score_record

if TYPE_CHECKING:
    from verity_client.client import Verity


def grpo_records(
    *,
    run_id: str,
    step: int,
    prompts: Sequence[Any],
    completions: Sequence[Any],
    rewards: Sequence[float],
    components: Optional[Mapping[str, Sequence[Any]]] = None,
    group_ids: Optional[Sequence[Any]] = None,
    sample_indices: Optional[Sequence[int]] = None,
    ticket_ids: Optional[Sequence[str]] = None,
    trajectory_ids: Optional[Sequence[str]] = None,
    category: str = "imported",
    reward_range: Optional[Tuple[float, float]] = None,
    tool_kinds: Optional[Mapping[str, str]] = None,
    known_tickets: Optional[Set[str]] = None,
) -> List[dict]:
    """The records of one batch, in sending order (case, then per completion its score and its rollout)."""
    n = len(completions)
    for name, column in (("prompts", prompts), ("rewards", rewards)):
        if len(column) != n:
            raise ValueError(f"{name} has {len(column)} entries, completions {n}")
    for name, optional in (("group_ids", group_ids), ("sample_indices", sample_indices), ("ticket_ids", ticket_ids),
                           ("trajectory_ids", trajectory_ids)):
        if optional is not None and len(optional) != n:
            raise ValueError(f"{name} has {len(optional)} entries, completions {n}")
    columns = {k: list(v) for k, v in (components or {}).items()}
    for name, column in columns.items():
        if len(column) != n:
            raise ValueError(f"component {name!r} has {len(column)} entries, completions {n}")

    out: List[dict] = []
    sent = known_tickets if known_tickets is not None else set()
    seen_in_group: Dict[str, int] = {}
    for i in range(n):
        prompt = prompts[i]
        ticket = ticket_ids[i] if ticket_ids is not None else prompt_ticket_id(prompt)
        if ticket_ids is None and ticket not in sent:
            sent.add(ticket)
            out.append(_prompt_case(ticket, prompt, category))
        group = str(group_ids[i]) if group_ids is not None else ticket
        group_id = f"{run_id}/s{step}/{group}"
        if sample_indices is not None:
            k = int(sample_indices[i])
        else:
            k = seen_in_group.get(group_id, 0)
            seen_in_group[group_id] = k + 1
        identity = {
            "trajectory_id": trajectory_ids[i] if trajectory_ids is not None else f"{group_id}/k{k}",
            "run_id": run_id,
            "step": int(step),
            "ticket_id": ticket,
            "group_id": group_id,
            "sample_index": k,
        }
        subscores, reasons = _components({name: column[i] for name, column in columns.items()})
        reward = float(rewards[i])
        trained = reward
        if reward_range is not None:
            lo, hi = reward_range
            reasons.insert(0, {"code": "trainer_reward", "actual": reward, "message": f"trainer reward {reward:g}"})
            reward = (reward - lo) / (hi - lo)
        out.append(score_record(reward=reward, subscores=subscores, reasons=reasons, trained_reward=trained, **identity))
        steps, final_reply, tools = completion_trajectory(completions[i])
        kinds = tool_kinds or {}
        registry = [{"name": t, "kind": kinds.get(t, "other")} for t in sorted(tools)]
        out.append(rollout_record(steps=steps, final_reply=final_reply, tool_registry=registry, trained_reward=trained,
                                  **identity))
    return out


def log_grpo_batch(verity: "Verity", *, run_id: Optional[str] = None, **batch: Any) -> int:
    """Logs a batch through `verity` (keyword arguments of grpo_records). Returns how many records were enqueued.

    The client remembers the prompt tickets whose case it has sent, so each prompt's case goes once per client.
    """
    run = run_id if run_id is not None else verity.run
    if run is None:
        raise TypeError("give run_id=, or create the client with Verity(url, token, run=...)")
    batch.setdefault("known_tickets", verity.prompt_cases_sent)
    return verity.log(grpo_records(run_id=run, **batch))


def from_verl(batch: Any, tokenizer: Any, reward_extra_info: Optional[Mapping[str, Sequence[Any]]] = None,
              step: Optional[int] = None) -> Dict[str, Any]:
    """grpo_records' keyword arguments from a verl `DataProto` after reward computation, read as verl's trainer
    reads it for its own rollout dump: decoded `prompts`/`responses`, reward = `token_level_scores.sum(-1)`, group =
    `non_tensor_batch["uid"]`, step = `meta_info["global_steps"]`, components = the reward manager's
    `reward_extra_info` lists of the batch's length. A chat prompt (`raw_prompt`, with return_raw_chat) is used as
    messages when present."""
    tensors = batch.batch
    non_tensor = getattr(batch, "non_tensor_batch", {}) or {}
    meta = getattr(batch, "meta_info", {}) or {}
    completions = tokenizer.batch_decode(tensors["responses"], skip_special_tokens=True)
    n = len(completions)
    if "raw_prompt" in non_tensor:
        prompts = [list(p) for p in non_tensor["raw_prompt"]]
    else:
        prompts = tokenizer.batch_decode(tensors["prompts"], skip_special_tokens=True)
    rewards = [float(r) for r in tensors["token_level_scores"].sum(-1).tolist()]
    out: Dict[str, Any] = {"prompts": prompts, "completions": completions, "rewards": rewards}
    if "uid" in non_tensor:
        out["group_ids"] = [str(u) for u in non_tensor["uid"]]
    the_step = step if step is not None else meta.get("global_steps")
    if the_step is None:
        raise ValueError("no step: give step=, or a batch with meta_info['global_steps']")
    out["step"] = int(the_step)
    extra = {k: list(v) for k, v in (reward_extra_info or {}).items() if hasattr(v, "__len__") and len(v) == n}
    if extra:
        out["components"] = extra
    return out


def completion_trajectory(completion: Any) -> Tuple[List[dict], str, Set[str]]:
    """(steps, final_reply, tools called) of a completion: text, or a list of chat messages."""
    if isinstance(completion, str):
        return [], completion, set()
    messages = list(completion)
    steps: List[dict] = []
    tools: Set[str] = set()
    by_call_id: Dict[str, dict] = {}
    unanswered: List[dict] = []
    final_reply = ""
    last_assistant = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    for i, m in enumerate(messages):
        role = m.get("role")
        text = _text(m.get("content"))
        if role == "assistant":
            calls = m.get("tool_calls") or []
            if i == last_assistant and not calls:
                final_reply = text
            elif text:
                steps.append({"type": "llm", "name": "assistant", "output": text})
            for call in calls:
                fn = call.get("function", call)
                name = str(fn.get("name") or "unknown")
                tools.add(name)
                step = {"type": "tool", "name": name, "input": fn.get("arguments", {}) or {}, "status": "success"}
                steps.append(step)
                if call.get("id"):
                    by_call_id[str(call["id"])] = step
                unanswered.append(step)
        elif role == "tool":
            step = by_call_id.get(str(m.get("tool_call_id"))) if m.get("tool_call_id") else None
            if step is None:
                step = next((s for s in unanswered if s["name"] == m.get("name")), unanswered[0] if unanswered else None)
            if step is not None:
                step["output"] = text
                unanswered.remove(step)
        elif text:
            steps.append({"type": "llm", "name": str(role or "message"), "output": text})
    return steps, final_reply, tools


def _prompt_case(ticket: str, prompt: Any, category: str) -> dict:
    if isinstance(prompt, str):
        return case_record(ticket_id=ticket, category=category, message=prompt)
    messages = [dict(m) for m in prompt]
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    return case_record(ticket_id=ticket, category=category, message=users[-1] if users else "", messages=messages)


def _components(values: Mapping[str, Any]) -> Tuple[Dict[str, float], List[dict]]:
    subscores: Dict[str, float] = {}
    reasons: List[dict] = []
    for name, raw in values.items():
        value = _number(raw)
        if value is None:
            continue  # TRL gives NaN for a reward function that had nothing to say about this completion
        if name in DIMENSIONS:
            subscores[name] = value
        else:
            reasons.append({"code": "reward_component", "field": name, "actual": value, "message": f"{name} = {value:g}"})
    return subscores, reasons


def _number(raw: Any) -> Optional[float]:
    if raw is None:
        return None
    try:
        value = float(raw.item() if hasattr(raw, "item") else raw)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) or math.isinf(value) else value


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return str(content)
