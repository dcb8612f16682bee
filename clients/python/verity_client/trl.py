"""A TRL `TrainerCallback`-style class that logs a GRPOTrainer's completions and rewards to Verity.

TRL hands completions to user code only through reward functions (`reward_func(prompts=, completions=,
completion_ids=, trainer_state=, **dataset columns)`); a callback's `on_log` sees averaged metrics, never the
completions. So `VerityCallback.track(func)` wraps each reward function: the wrapper returns exactly what the
function returns and records it as that component. Once every tracked function has scored a batch (TRL calls them
one after another with the same lists), the batch is logged: the reward is the weighted sum TRL uses (weights from
`reward_weights=`, else `GRPOConfig.reward_weights` in tracking order, else 1; components a function left out, None
or NaN, count as 0), the step `trainer_state.global_step`, the ticket the dataset's `ticket_id` column when there
is one. Anything left incomplete is logged at `on_step_end`; `on_train_end` flushes the client.

This module does not import transformers or trl: the class answers every `on_*` event a Trainer sends (those it does
not use do nothing), which is all a Trainer asks of a callback.

Trajectory ids are `RUN/sSTEP/r<process>b<generation>/<i>`, so the processes of a multi-GPU run (each logs its own
slice of the batch, with its own client) and several generations within one step never collide.
"""

from __future__ import annotations

import asyncio
import functools
import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from verity_client.client import Verity
from verity_client.grpo import grpo_records


class VerityCallback:
    def __init__(
        self,
        verity: Verity,
        *,
        run_id: Optional[str] = None,
        reward_weights: Optional[Mapping[str, float]] = None,
        reward_range: Optional[Tuple[float, float]] = None,
        category: str = "imported",
        tool_kinds: Optional[Mapping[str, str]] = None,
        flush_on_train_end: bool = True,
    ) -> None:
        run = run_id if run_id is not None else verity.run
        if run is None:
            raise TypeError("give run_id=, or create the client with Verity(url, token, run=...)")
        self.verity = verity
        self.run_id = run
        self._weights: Optional[Dict[str, float]] = dict(reward_weights) if reward_weights is not None else None
        self._reward_range = reward_range
        self._category = category
        self._tool_kinds = tool_kinds
        self._flush_on_train_end = flush_on_train_end
        self._names: List[str] = []
        self._pending: Dict[int, Dict[str, Any]] = {}
        self._rank = 0
        self._step = 0
        self._generation: Dict[int, int] = {}

    # ---------- reward functions ----------

    def track(self, reward_func: Callable[..., Any], name: Optional[str] = None) -> Callable[..., Any]:
        """Wraps a TRL reward function; pass the wrapper to GRPOTrainer(reward_funcs=[...]). Its name (TRL's metric
        key, `rewards/<name>/mean`) stays the function's."""
        component = name or getattr(reward_func, "__name__", f"reward_{len(self._names)}")
        if component in self._names:
            raise ValueError(f"a reward function named {component!r} is tracked already")
        self._names.append(component)

        if asyncio.iscoroutinefunction(reward_func):

            @functools.wraps(reward_func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                values = await reward_func(*args, **kwargs)
                self._record(component, values, args, kwargs)
                return values

            return async_wrapper

        @functools.wraps(reward_func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = reward_func(*args, **kwargs)
            self._record(component, values, args, kwargs)
            return values

        return wrapper

    def _record(self, component: str, values: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> None:
        prompts = kwargs.get("prompts", args[0] if args else None)
        completions = kwargs.get("completions", args[1] if len(args) > 1 else None)
        if prompts is None or completions is None:
            return
        key = id(completions)
        batch = self._pending.get(key)
        if batch is None:
            state = kwargs.get("trainer_state")
            batch = {
                # Holding the list keeps its id from being reused while the batch is pending.
                "completions": completions,
                "prompts": prompts,
                "step": int(getattr(state, "global_step", self._step)),
                "ticket_ids": kwargs.get("ticket_id"),
                "components": {},
            }
            self._pending[key] = batch
        batch["components"][component] = list(values) if values is not None else [None] * len(completions)
        if len(batch["components"]) == len(self._names):
            self._emit(self._pending.pop(key))

    def _emit(self, batch: Dict[str, Any]) -> None:
        n = len(batch["completions"])
        weights = self._weights or {}
        rewards = []
        for i in range(n):
            total = 0.0
            for name, column in batch["components"].items():
                v = column[i]
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    continue
                total += weights.get(name, 1.0) * float(v)
            rewards.append(total)
        step = batch["step"]
        generation = self._generation.get(step, 0)
        self._generation = {step: generation + 1}  # only the current step's count is needed
        prefix = f"{self.run_id}/s{step}/r{self._rank}b{generation}"
        ticket_ids = batch["ticket_ids"]
        self.verity.log(
            grpo_records(
                run_id=self.run_id,
                step=step,
                prompts=batch["prompts"],
                completions=batch["completions"],
                rewards=rewards,
                components=batch["components"],
                ticket_ids=[str(t) for t in ticket_ids] if ticket_ids is not None else None,
                trajectory_ids=[f"{prefix}/{i}" for i in range(n)],
                category=self._category,
                reward_range=self._reward_range,
                tool_kinds=self._tool_kinds,
                known_tickets=self.verity.prompt_cases_sent,
            )
        )

    def _emit_pending(self) -> None:
        for key in list(self._pending):
            self._emit(self._pending.pop(key))

    # ---------- TrainerCallback events ----------

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._rank = int(getattr(args, "process_index", 0) or 0)
        self._step = int(getattr(state, "global_step", 0) or 0)
        configured = getattr(args, "reward_weights", None)
        if self._weights is None and configured is not None and len(configured) == len(self._names):
            self._weights = {name: float(w) for name, w in zip(self._names, configured)}

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._step = int(getattr(state, "global_step", self._step) or 0)
        self._emit_pending()

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._emit_pending()
        if self._flush_on_train_end:
            self.verity.flush()

    def __getattr__(self, name: str) -> Callable[..., None]:
        # Every other Trainer event (on_init_end, on_log, on_evaluate, on_save, ... and any added later).
        if name.startswith("on_"):
            return _ignore
        raise AttributeError(name)


def _ignore(*args: Any, **kwargs: Any) -> None:
    return None
