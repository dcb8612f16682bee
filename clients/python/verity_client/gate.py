"""`gate()`: the audit gate of a run (GET /api/v1/runs/{run}/gate), so a training loop can stop or mark a checkpoint.

The verdict is "pass", "fail" (stop training) or "insufficient" (not enough evidence yet), with each rule's value,
threshold and interval as the console computed them; health readings out of their line (a guardrail hit rate outside
its band, say) are `warnings` beside a pass, not a fail. `verity gate --run R --json` prints the same document.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

VERDICTS = ("pass", "fail", "insufficient")


class GateError(RuntimeError):
    """The console could not answer: unreachable, a bad token (401/403), no such run (404) or a bad window (400).
    `status` is the HTTP status, or None when no answer came."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class GateRule:
    rule: str
    label: str
    status: str  # "pass", "fail", "warn", "insufficient" or "off"
    value: Optional[float]
    threshold: Dict[str, float]
    interval: Optional[Dict[str, float]]
    n: int
    unit: str
    message: str
    severity: str = "stop"  # "stop": a failure fails the gate; "warn": a health reading, out of line it is a warning


@dataclass(frozen=True)
class GateVerdict:
    run: str
    verdict: str
    window: Dict[str, Any]
    failed: List[str]
    insufficient: List[str]
    rules: List[GateRule]
    raw: Dict[str, Any]
    warnings: List[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def failed_gate(self) -> bool:
        return self.verdict == "fail"

    def __str__(self) -> str:
        why = f": {', '.join(self.failed or self.insufficient)}" if self.verdict != "pass" else ""
        warned = f" (warnings: {', '.join(self.warnings)})" if self.warnings else ""
        return f"gate {self.verdict} for run {self.run}{why}{warned}"


def _parse(body: Any) -> GateVerdict:
    if not isinstance(body, dict) or body.get("verdict") not in VERDICTS or not isinstance(body.get("rules"), list):
        raise GateError("the console's answer is not a gate report")
    rules = [
        GateRule(
            rule=str(r["rule"]),
            label=str(r["label"]),
            status=str(r["status"]),
            value=r.get("value"),
            threshold=dict(r.get("threshold") or {}),
            interval=r.get("interval"),
            n=int(r.get("n") or 0),
            unit=str(r.get("unit") or ""),
            message=str(r.get("message") or ""),
            severity=str(r.get("severity") or "stop"),
        )
        for r in body["rules"]
    ]
    return GateVerdict(
        run=str(body["run"]),
        verdict=body["verdict"],
        window=dict(body.get("window") or {}),
        failed=list(body.get("failed") or []),
        insufficient=list(body.get("insufficient") or []),
        rules=rules,
        raw=body,
        warnings=list(body.get("warnings") or []),
    )


def gate(url: str, token: str, run: str, window_steps: Optional[int] = None, *, timeout: float = 30.0) -> GateVerdict:
    """The gate of `run` over its last `window_steps` steps (None: the run's default window). `token` needs the
    `read` scope. Raises GateError when the console cannot answer; never returns a verdict it did not give."""
    if window_steps is not None and (not isinstance(window_steps, int) or isinstance(window_steps, bool) or window_steps < 1):
        raise ValueError("window_steps must be a positive integer or None")
    path = f"{url.rstrip('/')}/api/v1/runs/{urllib.parse.quote(run, safe='')}/gate"
    if window_steps is not None:
        path += f"?window_steps={window_steps}"
    req = urllib.request.Request(path, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            raw = res.read()
    except urllib.error.HTTPError as err:
        message = err.reason
        try:
            message = json.loads(err.read().decode("utf-8"))["error"]["message"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            pass
        raise GateError(f"HTTP {err.code}: {message}", err.code) from None
    except (OSError, urllib.error.URLError) as err:
        raise GateError(f"the console did not answer: {err}") from None
    try:
        body = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise GateError("the console's answer is not JSON") from None
    return _parse(body)
