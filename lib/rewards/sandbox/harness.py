"""Runs one reward version's cal_reward(payload) many times, inside the sandbox.

The pool writes to stdin one JSON line with the user's source, then one JSON line per call ({"payload": "..."}).
Each call's answer is one JSON line on the protocol fd (a private copy of the original stdout): the user's
prints are captured per call into bounded buffers and never reach the protocol. Raw writes to fd 1 or 2 (os.write,
a child process) land on stderr, which the pool bounds and attributes to the call in flight.
"""

import io
import json
import linecache
import math
import numbers
import os
import resource
import sys
import traceback


class CappedText(io.TextIOBase):
    """A text sink that keeps at most `cap` characters and remembers whether more were written."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0
        self.overflow = False

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        room = self.cap - self.size
        if len(s) > room:
            self.overflow = True
            s = s[: max(room, 0)]
        if s:
            self.parts.append(s)
            self.size += len(s)
        return len(s)

    def text(self) -> str:
        return "".join(self.parts)


def last_line(text: str) -> str | None:
    for line in reversed(text.splitlines()):
        if line.strip():
            return line.strip()
    return None


def reward_of(returned: object, printed: str) -> tuple[float | None, str | None]:
    """The reward (a finite float) from cal_reward's return value, else from the last line it printed."""
    if isinstance(returned, numbers.Real) and not isinstance(returned, bool):
        try:
            value = float(returned)
        except OverflowError:
            return None, f"cal_reward returned {returned!r:.80}, too large for a float"
        what = f"cal_reward returned {value!r}"
    else:
        line = last_line(printed)
        if line is None:
            return None, f"cal_reward returned {type(returned).__name__} and printed nothing"
        try:
            value = float(line)
        except ValueError:
            return None, f"the last line printed is not a number: {line[:80]!r}"
        what = f"the last line printed is {line[:80]!r}"
    if not math.isfinite(value):
        return None, f"{what}: not a finite number"
    return value, None


def report(e: BaseException, err: CappedText) -> str:
    """Prints the traceback without the harness's own frame; returns its last line (the exception)."""
    traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None, file=err)
    return (traceback.format_exception_only(type(e), e)[-1].strip() or type(e).__name__)[:1000]


def call(fn, payload: str, cap: int) -> dict:
    out, err = CappedText(cap), CappedText(cap)
    sys.stdout, sys.stderr = out, err
    try:
        returned = fn(payload)
        reward, problem = reward_of(returned, out.text())
        status, error = ("ok", None) if problem is None else ("invalid_output", problem)
    except BaseException as e:  # SystemExit and KeyboardInterrupt are the reward's failure too
        reward, status, error = None, "error", report(e, err)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    if out.overflow or err.overflow:
        reward, status, error = None, "invalid_output", f"printed more than {cap} characters"
    return {"status": status, "reward": reward, "stdout": out.text(), "stderr": err.text(), "error": error}


def load(source: str, cap: int):
    """Runs the module's top level once; returns (cal_reward, None) or (None, the error as a call's answer)."""
    out, err = CappedText(cap), CappedText(cap)
    sys.stdout, sys.stderr = out, err
    scope: dict = {"__name__": "reward"}
    # Tracebacks quote the reward's own lines.
    linecache.cache["reward.py"] = (len(source), None, source.splitlines(True), "reward.py")
    try:
        exec(compile(source, "reward.py", "exec"), scope)
        fn = scope.get("cal_reward")
        problem = None if callable(fn) else "the code defines no function cal_reward(payload)"
    except BaseException as e:
        fn, problem = None, report(e, err)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    if problem is None:
        return fn, None
    answer = {"status": "error", "reward": None, "stdout": out.text(), "stderr": err.text(), "error": problem}
    return None, answer


def check() -> None:
    """Compiles the source on stdin without running it; prints where a syntax error is."""
    source = sys.stdin.read()
    try:
        compile(source, "reward.py", "exec")
        print(json.dumps({"ok": True}))
    except SyntaxError as e:
        line, column = e.lineno or 1, e.offset or 1
        print(json.dumps({"ok": False, "line": line, "column": column, "message": e.msg}))
    except Exception as e:  # a NUL byte in the source (ValueError), nesting too deep for the parser, ...
        print(json.dumps({"ok": False, "line": 1, "column": 1, "message": f"{type(e).__name__}: {e}"}))


def main() -> None:
    if sys.argv[1] == "probe":
        print("ok")
        return
    if sys.argv[1] == "check":
        check()
        return
    cap = int(sys.argv[1])
    requests = os.fdopen(os.dup(0), "rb")
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    sys.stdin = io.StringIO("")
    first = requests.readline()
    if not first:
        return
    fn, failed = load(json.loads(first)["source"], cap)
    for line in requests:
        request = json.loads(line)
        answer = failed if fn is None else call(fn, request["payload"], cap)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        answer = {**answer, "cpu": usage.ru_utime + usage.ru_stime}
        protocol.write(json.dumps(answer) + "\n")
        protocol.flush()


if __name__ == "__main__":
    main()
