// Regular expressions of reward functions: compiled once per version, and when one does not compile, the error names
// the character where it goes wrong (JavaScript's own message names none). Python's named group `(?P<name>…)`, common
// in platform examples, is accepted as JavaScript's `(?<name>…)`.

export type CompiledPattern = { ok: true; re: RegExp } | { ok: false; message: string; position: number };

export const PATTERN_FLAGS = /^[imsu]*$/;

/** The pattern in JavaScript's syntax: `(?P<name>` becomes `(?<name>` and `(?P=name)` becomes `\k<name>`. */
export function fromPythonSyntax(pattern: string): string {
  return pattern.replace(/\(\?P<([A-Za-z_]\w*)>/g, "(?<$1>").replace(/\(\?P=([A-Za-z_]\w*)\)/g, "\\k<$1>");
}

function tryCompile(source: string, flags: string): string | null {
  try {
    new RegExp(source, flags);
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
  }
}

/**
 * Compiles `pattern`; on failure, finds the first prefix that fails once its open groups and character class are
 * closed — the character that prefix ends with is where the pattern goes wrong. When every prefix compiles so closed,
 * the fault is a construct left open: the position of the innermost group or class still open at the end.
 */
export function compilePattern(pattern: string, flags = ""): CompiledPattern {
  const source = fromPythonSyntax(pattern);
  const whole = tryCompile(source, flags);
  if (whole === null) return { ok: true, re: new RegExp(source, flags) };
  const opens: number[] = [];
  let inClass = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const prefix = pattern.slice(0, i + 2);
      if (tryCompile(closeOpen(fromPythonSyntax(prefix), opens.length, inClass >= 0), flags) !== null)
        return failure(whole, i);
      i++;
      continue;
    }
    if (inClass >= 0) {
      if (c === "]") inClass = -1;
    } else if (c === "[") inClass = i;
    else if (c === "(") opens.push(i);
    else if (c === ")") {
      if (opens.length === 0) return failure(whole, i);
      opens.pop();
    }
    const prefix = pattern.slice(0, i + 1);
    if (tryCompile(closeOpen(fromPythonSyntax(prefix), opens.length, inClass >= 0), flags) !== null)
      return failure(whole, i);
  }
  return failure(whole, inClass >= 0 ? inClass : (opens[opens.length - 1] ?? pattern.length));
}

function closeOpen(prefix: string, groups: number, inClass: boolean): string {
  // A group opened but not yet named ("(?", "(?<", "(?<na") cannot be closed by ")" alone: it is given a body first.
  let s = inClass ? prefix + "]" : prefix;
  if (/\(\?<[A-Za-z_]\w*$/.test(s)) s += ">x";
  else if (/\(\?<$/.test(s)) s += "x>x";
  else if (/\(\?$/.test(s)) s += ":";
  return s + ")".repeat(groups);
}

function failure(message: string, position: number): CompiledPattern {
  return { ok: false, message: `${message} (at character ${position + 1})`, position };
}
