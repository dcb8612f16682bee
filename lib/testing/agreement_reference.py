"""An independent reference for the agreement coefficients, written from the published formulas (Cohen 1960;
Gwet 2008 and Handbook of Inter-Rater Reliability, 4th ed., 2014; Byrt, Bishop and Carlin 1993) in another language
and with another t distribution (numerical integration of the density), for the integration tests to compare with.

Reads JSON on stdin: {"tables": {name: [[a, b], [c, d]]}, "raw": {name: [[rating, ...], ...]}} (tables: rows are
rater A positive / not, columns rater B positive / not; raw: per item the ratings, true/false, of each rater who rated
it) and prints, per name, kappa, ac1 with se and interval, pabak with se and interval, and the positive and negative
agreement (pa, na) with their Wilson intervals. Where every rating is in
one category there is nothing to tell apart and no coefficient (null); where every item agrees, the interval is
Wilson's for the observed agreement carried through the coefficient (docs/audit.md), since the variance is 0.
"""
import json
import math
import sys


def t_pdf(x, df):
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return c * (1 + x * x / df) ** (-(df + 1) / 2)


def t_cdf(x, df):
    # P(0 < T < x) by composite Simpson on [0, x], plus one half
    steps = 4000
    h = x / steps
    s = t_pdf(0, df) + t_pdf(x, df)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_pdf(i * h, df)
    return 0.5 + s * h / 3


def t_quantile_975(df):
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < 0.975:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < 0.975:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def interval(value, se, n):
    if n < 2:
        return None
    t = t_quantile_975(n - 1)
    return [max(-1.0, value - t * se), min(1.0, value + t * se)]


Z = 1.959963984540054


def perfect_interval(n, pe):
    # every item agrees: Wilson's lower bound for n of n, n / (n + z^2), carried through (p - pe) / (1 - pe)
    low = n / (n + Z * Z)
    return [max(-1.0, (low - pe) / (1 - pe)), 1.0]


def wilson(k, n):
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z / denom * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return [0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half)]


def specific(both, b, c):
    # positive (or negative) agreement 2a / (2a + b + c), Wilson over the a + b + c items in the class
    items = both + b + c
    if items == 0:
        return None
    value = 2 * both / (2 * both + b + c)
    return {"value": value, "interval": wilson(value * items, items)}


def table_figures(t):
    (a, b), (c, d) = t
    n = a + b + c + d
    if n == 0:
        return None
    pa_na = {"pa": specific(a, b, c), "na": specific(d, b, c)}
    if b == 0 and c == 0 and (a == 0 or d == 0):
        # every rating in one category: nothing to tell apart, no coefficient
        return {"n": n, "kappa": None, "ac1": None, "ac1_interval": None, "pabak": None, "pabak_interval": None,
                **pa_na}
    pa = (a + d) / n
    row1, col1 = (a + b) / n, (a + c) / n
    pe_k = row1 * col1 + (1 - row1) * (1 - col1)
    kappa = None if abs(1 - pe_k) < 1e-12 or row1 in (0, 1) or col1 in (0, 1) else (pa - pe_k) / (1 - pe_k)
    # AC1 for two categories: pe = 2 pi (1 - pi), pi the mean positive share of the two raters
    pi = (row1 + col1) / 2
    pe = 2 * pi * (1 - pi)
    ac1 = (pa - pe) / (1 - pe)
    p = [[a / n, b / n], [c / n, d / n]]
    pis = [pi, 1 - pi]
    s = 0.0
    for k in range(2):
        for l in range(2):
            w = 1.0 if k == l else 0.0
            s += p[k][l] * (w - 2 * (1 - ac1) * (1 - (pis[k] + pis[l]) / 2)) ** 2
    ac1_se = math.sqrt(max(0.0, (s - (pa - 2 * (1 - ac1) * pe) ** 2) / (n * (1 - pe) ** 2)))
    pabak = 2 * pa - 1
    pabak_se = 2 * math.sqrt(pa * (1 - pa) / n)
    perfect = b == 0 and c == 0
    return {
        "n": n,
        "kappa": kappa,
        "ac1": ac1,
        "ac1_se": ac1_se,
        "ac1_interval": perfect_interval(n, pe) if perfect else interval(ac1, ac1_se, n),
        "pabak": pabak,
        "pabak_se": pabak_se,
        "pabak_interval": perfect_interval(n, 0.5) if perfect else interval(pabak, pabak_se, n),
        **pa_na,
    }


def raw_ac1(units):
    # Gwet (2014) ch. 5, two categories (True, False); every unit has at least one rating
    units = [u for u in units if len(u) > 0]
    n = len(units)
    counts = [[sum(1 for v in u if v), sum(1 for v in u if not v)] for u in units]
    r = [len(u) for u in units]
    two = [i for i in range(n) if r[i] >= 2]
    if not two:
        return None
    pa_i = [(sum(c * (c - 1) for c in counts[i]) / (r[i] * (r[i] - 1))) if r[i] >= 2 else 0.0 for i in range(n)]
    pa = sum(pa_i[i] for i in two) / len(two)
    pi = [sum(counts[i][k] / r[i] for i in range(n)) / n for k in range(2)]
    if min(pi) == 0:
        return None  # every rating in one category: nothing to tell apart
    pe = sum(p * (1 - p) for p in pi)  # / (q - 1) with q = 2
    ac1 = (pa - pe) / (1 - pe)
    lin = []
    for i in range(n):
        item = (n / len(two)) * (pa_i[i] - (pe if r[i] >= 2 else 0)) / (1 - pe)
        pe_i = sum(counts[i][k] * (1 - pi[k]) for k in range(2)) / r[i]
        lin.append(item - 2 * (1 - ac1) * (pe_i - pe) / (1 - pe))
    se = math.sqrt(sum((x - ac1) ** 2 for x in lin) / (n * (n - 1))) if n > 1 else float("nan")
    iv = perfect_interval(len(two), pe) if pa == 1 and len(two) >= 2 else interval(ac1, se, n)
    return {"n": n, "ac1": ac1, "ac1_se": se, "ac1_interval": iv}


def main():
    data = json.load(sys.stdin)
    out = {
        "tables": {k: table_figures(v) for k, v in data.get("tables", {}).items()},
        "raw": {k: raw_ac1(v) for k, v in data.get("raw", {}).items()},
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
