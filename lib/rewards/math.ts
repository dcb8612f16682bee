// The math reward's parser: mathjs is not a dependency of Verity, so answers are read by this small exact parser
// instead. It evaluates to an exact rational (BigInt numerator and denominator): integers, decimals, scientific
// notation (1.5e3, 2\times10^{3}), percentages (50% = 1/2), fractions (a/b, \frac{a}{b}, \dfrac, \tfrac), + - * / ^
// (integer exponents), parentheses and \left( \right), \cdot, \times, and the LaTeX wrappers models put around an
// answer (\boxed{…}, $…$, \(…\), \text{…} units are dropped). Anything else (roots, symbols, sets) is not a number: a
// reply that does not parse is a wrong answer (0), a reference that does not parse is the function's error.

export type Rational = { n: bigint; d: bigint };

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
};

function rat(n: bigint, d: bigint = 1n): Rational {
  if (d === 0n) throw new MathParseError("division by zero");
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

const add = (a: Rational, b: Rational) => rat(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Rational, b: Rational) => rat(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Rational, b: Rational) => rat(a.n * b.n, a.d * b.d);
const div = (a: Rational, b: Rational) => rat(a.n * b.d, a.d * b.n);

const MAX_EXPONENT = 1000n;

function pow(a: Rational, e: Rational): Rational {
  if (e.d !== 1n) throw new MathParseError("only whole-number exponents are evaluated");
  if (e.n > MAX_EXPONENT || e.n < -MAX_EXPONENT) throw new MathParseError("exponent too large");
  const p = e.n < 0n ? -e.n : e.n;
  const r = rat(a.n ** p, a.d ** p);
  return e.n < 0n ? div(rat(1n), r) : r;
}

export class MathParseError extends Error {}

/** Strips what surrounds an answer: the last \boxed{…} (its braces balanced), $…$, \(…\), \[…\], a trailing period. */
export function answerText(text: string): string {
  let s = text.trim();
  const boxed = lastBoxed(s);
  if (boxed !== null) s = boxed;
  s = s.replace(/^\$+|\$+$/g, "").replace(/^\\[([]|\\[)\]]$/g, "");
  return s.replace(/\.$/, "").trim();
}

function lastBoxed(s: string): string | null {
  const at = Math.max(s.lastIndexOf("\\boxed{"), s.lastIndexOf("\\fbox{"));
  if (at < 0) return null;
  const open = s.indexOf("{", at);
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "{") depth++;
    else if (s[i] === "}" && --depth === 0) return s.slice(open + 1, i);
  }
  return null;
}

/** The LaTeX of an answer rewritten as plain arithmetic for the tokenizer. */
function plain(s: string): string {
  return s
    .replace(/\\(?:text|textbf|mathrm|mbox)\{[^{}]*\}|\\,|\\!|\\;|\\ /g, " ")
    .replace(/\{,\}/g, ",")
    .replace(/\\[dtc]?frac/g, "\\frac")
    .replace(/\\left|\\right/g, "")
    .replace(/\\cdot|\\times/g, "*")
    .replace(/\\div/g, "/")
    .replace(/\\%/g, "%")
    .replace(/−/g, "-");
}

type Token = { t: "num"; v: Rational } | { t: "op"; v: string };

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?![\d.])|\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(
      s.slice(i),
    );
    if (num && num[0] && /\d/.test(num[0])) {
      out.push({ t: "num", v: decimal(num[0].replace(/[, ]/g, "")) });
      i += num[0].length;
      continue;
    }
    if (s.startsWith("\\frac", i)) {
      out.push({ t: "op", v: "frac" });
      i += 5;
      continue;
    }
    if ("+-*/^()%{}".includes(c)) {
      out.push({ t: "op", v: c === "{" ? "(" : c === "}" ? ")" : c });
      i++;
      continue;
    }
    throw new MathParseError(`unexpected ${JSON.stringify(s.slice(i, i + 12))}`);
  }
  return out;
}

/** A decimal literal (1.25, .5, 3e-2) as an exact rational. */
function decimal(text: string): Rational {
  const m = /^(\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new MathParseError(`not a number: ${text}`);
  const [, int, frac = "", exp = "0"] = m;
  const e = BigInt(exp) - BigInt(frac.length);
  if (e > MAX_EXPONENT || e < -MAX_EXPONENT) throw new MathParseError("exponent too large");
  const digits = BigInt((int || "0") + frac);
  return e >= 0n ? rat(digits * 10n ** e) : rat(digits, 10n ** -e);
}

/** Recursive descent: sum := product (± product)*; product := unary (( * | / | implicit) unary)*; unary := -unary | power. */
function parser(tokens: Token[]) {
  let i = 0;
  const peek = () => tokens[i];
  const isOp = (v: string) => peek()?.t === "op" && peek().v === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new MathParseError(`expected "${v}"`);
    i++;
  };
  function sum(): Rational {
    let v = product();
    while (isOp("+") || isOp("-")) v = tokens[i++].v === "+" ? add(v, product()) : sub(v, product());
    return v;
  }
  function product(): Rational {
    let v = unary();
    for (;;) {
      if (isOp("*") || isOp("/")) {
        const op = tokens[i++].v;
        v = op === "*" ? mul(v, unary()) : div(v, unary());
      } else if (peek() && (peek().t === "num" || isOp("(") || isOp("frac"))) v = mul(v, unary());
      else return v;
    }
  }
  function unary(): Rational {
    if (isOp("-") || isOp("+")) {
      const op = tokens[i++].v;
      return op === "-" ? sub(rat(0n), unary()) : unary();
    }
    return power();
  }
  function power(): Rational {
    let v = atom();
    while (isOp("%")) {
      i++;
      v = div(v, rat(100n));
    }
    if (isOp("^")) {
      i++;
      v = pow(v, unary());
    }
    return v;
  }
  function atom(): Rational {
    const tok = peek();
    if (!tok) throw new MathParseError("the expression ends too early");
    if (tok.t === "num") {
      i++;
      return tok.v;
    }
    if (tok.v === "(") {
      i++;
      const v = sum();
      expect(")");
      return v;
    }
    if (tok.v === "frac") {
      i++;
      const [a, b] = [group(), group()];
      return div(a, b);
    }
    throw new MathParseError(`unexpected "${tok.v}"`);
  }
  function group(): Rational {
    // \frac12 is \frac{1}{2}: an ungrouped argument is one digit.
    const tok = peek();
    if (tok?.t === "num" && tok.v.d === 1n && tok.v.n >= 10n) {
      const digits = tok.v.n.toString();
      tokens.splice(i, 1, { t: "num", v: rat(BigInt(digits[0])) }, { t: "num", v: rat(BigInt(digits.slice(1))) });
    }
    return atom();
  }
  return {
    parse(): Rational {
      const v = sum();
      if (i < tokens.length) throw new MathParseError(`unexpected "${String(tokens[i].v)}" after the expression`);
      return v;
    },
  };
}

/** Parses and evaluates an answer exactly; throws MathParseError when it is not a number. */
export function parseMath(text: string): Rational {
  const s = plain(answerText(text));
  if (!s) throw new MathParseError("no answer");
  return parser(tokenize(s)).parse();
}

export function toNumber(r: Rational): number {
  return Number(r.n) / Number(r.d);
}

/**
 * Whether `got` equals `want` within the relative tolerance: |got − want| ≤ tolerance · |want| (exactly equal when
 * want is 0). Exact in rationals, so 1/3 against 0.3333 fails at tolerance 0 and passes at 1%.
 */
export function mathEqual(got: Rational, want: Rational, tolerance: number): boolean {
  const diff = sub(got, want);
  if (diff.n === 0n) return true;
  if (tolerance <= 0) return false;
  const tol = decimal(tolerance.toFixed(12).replace(/0+$/, "").replace(/\.$/, ""));
  const absDiff = rat(diff.n < 0n ? -diff.n : diff.n, diff.d);
  const bound = mul(tol, rat(want.n < 0n ? -want.n : want.n, want.d));
  return absDiff.n * bound.d <= bound.n * absDiff.d;
}
