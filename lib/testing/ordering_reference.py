"""An independent reference for the pairwise report (lib/pairwise/report.ts), written from the definitions in
docs/audit.md ("The pairwise report") in another language: ordering agreement with its Wilson interval, the tie
share, the share of "left" choices, the Hajek (1/pi) estimate with Kish's effective n, the breakdown by reward-gap
bin, and Cohen's kappa and Gwet's AC1 (q = 3: A, B, tie) between the first two annotators of overlap pairs, AC1's
interval from Gwet's variance with the t distribution of agreement_reference.py.

Reads JSON on stdin: {"delta": d, "pairs": [{"reward_a": x, "reward_b": y, "a": "traj A", "b": "traj B",
"pi": p, "judgements": [{"preferred": traj or null, "choice": "left"|"right"|"tie", "counted": bool}, ...]}, ...]}
(judgements oldest first) and prints the figures as JSON.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agreement_reference import t_quantile_975  # noqa: E402

Z = 1.959963984540054


def wilson(k, n):
    if n <= 0:
        return None
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z / denom * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return [0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half)]


def verdict(pair, preferred):
    ra, rb = pair["reward_a"], pair["reward_b"]
    if ra is None or rb is None:
        return "unscored"
    # a pair the ledger scores equal has no order to agree with, whatever the human chose: unordered, not a tie
    if ra == rb:
        return "ledger_tie"
    if preferred is None:
        return "tie"
    higher = pair["a"] if ra > rb else pair["b"]
    return "agree" if preferred == higher else "inversion"


def gap_bin(gap, delta):
    if gap <= delta:
        return "<= delta"
    if gap <= 0.25:
        return "delta-0.25"
    if gap <= 0.5:
        return "0.25-0.5"
    return "> 0.5"


def shares(rows):
    agree = sum(1 for r in rows if r["v"] == "agree")
    inv = sum(1 for r in rows if r["v"] == "inversion")
    ties = sum(1 for r in rows if r["v"] == "tie")
    unordered = sum(1 for r in rows if r["v"] in ("ledger_tie", "unscored"))
    return {
        "unordered": unordered,
        "agree": agree,
        "inversions": inv,
        "ties": ties,
        "agreement": agree / (agree + inv) if agree + inv else None,
        "interval": wilson(agree, agree + inv),
        "tie_share": ties / (agree + inv + ties) if agree + inv + ties else None,
    }


def label(pair, preferred):
    if preferred is None:
        return "tie"
    return "A" if preferred == pair["a"] else "B"


def kappa_ac1(table):
    q = len(table)
    n = sum(sum(r) for r in table)
    if n == 0:
        return None
    pa = sum(table[k][k] for k in range(q)) / n
    rows = [sum(table[k]) / n for k in range(q)]
    cols = [sum(table[i][k] for i in range(q)) / n for k in range(q)]
    pe_k = sum(rows[k] * cols[k] for k in range(q))
    used_r = sum(1 for x in rows if x > 0)
    used_c = sum(1 for x in cols if x > 0)
    kappa = None if used_r <= 1 or used_c <= 1 or abs(1 - pe_k) < 1e-12 else (pa - pe_k) / (1 - pe_k)
    pi = [(rows[k] + cols[k]) / 2 for k in range(q)]
    if sum(1 for p in pi if p > 0) <= 1:
        # every choice in one category: nothing to tell apart (docs/audit.md), no AC1
        return {"n": n, "kappa": kappa, "ac1": None, "ac1_interval": None}
    pe = sum(p * (1 - p) for p in pi) / (q - 1)
    ac1 = (pa - pe) / (1 - pe)
    # Gwet (2008), two raters: v = [sum_kl p_kl (d_kl - 2(1-AC1)(1 - (pi_k+pi_l)/2)/(q-1))^2 - (pa - 2(1-AC1)pe)^2]
    #                                / (n (1-pe)^2)
    s = 0.0
    for k in range(q):
        for m in range(q):
            d = (1 if k == m else 0) - 2 * (1 - ac1) * (1 - (pi[k] + pi[m]) / 2) / (q - 1)
            s += table[k][m] / n * d * d
    v = max(0.0, (s - (pa - 2 * (1 - ac1) * pe) ** 2) / (n * (1 - pe) ** 2))
    se = math.sqrt(v)
    iv = None
    if pa == 1 and n >= 2:
        # every pair agreed: Wilson's lower bound for n of n carried through (p - pe) / (1 - pe), not a zero width
        low = n / (n + Z * Z)
        iv = [max(-1.0, (low - pe) / (1 - pe)), 1.0]
    elif n >= 2:
        t = t_quantile_975(n - 1)
        iv = [max(-1.0, ac1 - t * se), min(1.0, ac1 + t * se)]
    return {"n": n, "kappa": kappa, "ac1": ac1, "ac1_interval": iv}


def main():
    data = json.load(sys.stdin)
    delta = data["delta"]
    primary = []
    labels = ["A", "B", "tie"]
    table = [[0, 0, 0] for _ in labels]
    for pair in data["pairs"]:
        counted = [j for j in pair["judgements"] if j["counted"]]
        if not counted:
            continue
        first = counted[0]
        v = verdict(pair, first["preferred"])
        ra, rb = pair["reward_a"], pair["reward_b"]
        gap = None if ra is None or rb is None else abs(ra - rb)
        primary.append({"v": v, "choice": first["choice"], "pi": pair["pi"], "gap": gap})
        if len(counted) >= 2:
            table[labels.index(label(pair, counted[0]["preferred"]))][labels.index(label(pair, counted[1]["preferred"]))] += 1
    out = shares(primary)
    left = sum(1 for r in primary if r["choice"] == "left")
    right = sum(1 for r in primary if r["choice"] == "right")
    out["left_share"] = left / (left + right) if left + right else None
    out["left_interval"] = wilson(left, left + right)
    ordered = [r for r in primary if r["v"] in ("agree", "inversion")]
    w = [1 / r["pi"] for r in ordered]
    if w:
        est = sum(wi for wi, r in zip(w, ordered) if r["v"] == "agree") / sum(w)
        n_eff = sum(w) ** 2 / sum(wi * wi for wi in w)
        out["weighted"] = {"estimate": est, "n_effective": n_eff, "interval": wilson(est * n_eff, n_eff)}
    else:
        out["weighted"] = None
    bins = {}
    for r in primary:
        key = "unscored" if r["gap"] is None else gap_bin(r["gap"], delta)
        bins.setdefault(key, []).append(r)
    out["by_gap"] = {k: shares(v) for k, v in bins.items()}
    out["between"] = kappa_ac1(table)
    out["table"] = table
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
