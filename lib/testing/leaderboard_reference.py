"""An independent reference for the reward leaderboard, written from the formulas (Wilson 1927; McNemar 1947 exact;
Newcombe 1998 method 10; Bonett and Wright 2000; Efron's percentile bootstrap; the cluster-robust variance of a mean
and Kish's design effect for the probe's pairs, clustered by rollout) in another language, standard library
only, for lib/leaderboard's tests to compare with. κ, AC1 and PABAK come from agreement_reference.py beside it (the
agreement report's own independent reference); the t quantile, likewise.

Reads JSON on stdin: {"input": <LeaderboardInput as lib/leaderboard/input.ts>, "headToHead": [[a, b], ...],
"seed": int, "iterations": int} and prints, per candidate id, the row's figures; per pair "a|b", the head-to-head
figures; the bootstrap uses its own mulberry32 with the same seed, so its intervals are compared to the digit.
"""
import json
import math
import sys

from agreement_reference import Z, table_figures, t_quantile_975, wilson

MISSING = ["not_run", "error", "timeout", "invalid_output", "unavailable"]


def rate(k, n):
    return {"k": k, "n": n, "value": k / n if n else None, "interval": wilson(k, n) if n else None}


def reward_of(c, rollout):
    r = c["results"].get(rollout)
    if r is None:
        return None, "not_run"
    if r["status"] == "ok":
        return r["reward"], None
    return None, r["status"]


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for t in range(i, j + 1):
            out[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(xs, ys):
    n = len(xs)
    if n < 2 or len(set(xs)) == 1 or len(set(ys)) == 1:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def spearman(xs, ys):
    return pearson(ranks(xs), ranks(ys)) if len(xs) >= 2 else None


def spearman_interval(rho, n):
    if rho is None or n < 4:
        return None
    if abs(rho) == 1:
        return [rho, rho]
    se = math.sqrt((1 + rho * rho / 2) / (n - 3))
    return [math.tanh(math.atanh(rho) - Z * se), math.tanh(math.atanh(rho) + Z * se)]


def mae_with_interval(xs, ys):
    n = len(xs)
    if n == 0:
        return None, None
    d = [abs(x - y) for x, y in zip(xs, ys)]
    m = sum(d) / n
    if n < 2:
        return m, None
    s = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
    return m, [max(0.0, m - Z * s / math.sqrt(n)), m + Z * s / math.sqrt(n)]


def detection(pairs):
    # pairs of (human passes, scorer passes); failure is the class sought
    caught = sum(1 for h, s in pairs if not h and not s)
    missed = sum(1 for h, s in pairs if not h and s)
    passed = sum(1 for h, s in pairs if h and s)
    alarms = sum(1 for h, s in pairs if h and not s)
    return {"agreement": rate(caught + passed, len(pairs)), "sensitivity": rate(caught, caught + missed),
            "specificity": rate(passed, passed + alarms)}


def ordering(c, pairwise):
    if not pairwise:
        return None
    agree = inv = ties = unordered = 0
    for p in pairwise:
        l, _ = reward_of(c, p["left"])
        r, _ = reward_of(c, p["right"])
        if l is None or r is None or l == r:
            unordered += 1
        elif p["preferred"] == "tie":
            ties += 1
        elif (p["preferred"] == "left") == (l > r):
            agree += 1
        else:
            inv += 1
    return {"agreement": rate(agree, agree + inv), "agree": agree, "inversions": inv, "ties": ties,
            "unordered": unordered}


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def row(c, items, pairwise):
    th = c.get("threshold", 0.9)
    missing = {m: 0 for m in MISSING}
    cov = []
    for it in items:
        rw, why = reward_of(c, it["rolloutId"])
        if why:
            missing[why] += 1
        else:
            cov.append((it, rw, rw >= th, it["human"]["verdict"] == "pass"))
    run = len(items) - missing["not_run"]
    a = sum(1 for _, _, s, h in cov if s and h)
    b = sum(1 for _, _, s, h in cov if s and not h)
    cc = sum(1 for _, _, s, h in cov if not s and h)
    d = sum(1 for _, _, s, h in cov if not s and not h)
    fn = [x[1] for x in cov]
    hu = [x[0]["human"]["reward"] for x in cov]
    mae, mae_iv = mae_with_interval(fn, hu)
    rho = spearman(fn, hu)

    def breakdown(keys_of):
        keys = sorted({k for it in items for k in keys_of(it)})
        out = {}
        for k in keys:
            sl = [(h, s) for it, _, s, h in cov if k in keys_of(it)]
            out[k] = {"items": sum(1 for it in items if k in keys_of(it)), "covered": len(sl), **detection(sl)}
        return out

    costs, lat = [], []
    for it in items:
        r = c["results"].get(it["rolloutId"])
        if r is None:
            continue
        if r.get("costUsd") is not None:
            costs.append(r["costUsd"])
        if r.get("latencyMs") is not None:
            lat.append(r["latencyMs"])
    return {
        "covered": len(cov), "missing": missing, "failureShare": rate(run - len(cov), run),
        "matrix": [[a, b], [cc, d]], "coefficients": table_figures([[a, b], [cc, d]]),
        **detection([(h, s) for _, _, s, h in cov]),
        "mae": mae, "maeInterval": mae_iv, "spearman": rho, "spearmanInterval": spearman_interval(rho, len(cov)),
        "ordering": ordering(c, pairwise),
        "guardrails": breakdown(lambda it: set(it["guardrails"])),
        "categories": breakdown(lambda it: {it["category"]} if it["category"] is not None else set()),
        "costPer1000": 1000 * sum(costs) / len(costs) if costs else None, "medianLatencyMs": median(lat),
    }


def mulberry32(seed):
    state = seed & 0xFFFFFFFF

    def nxt():
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = state
        t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
        t = (t ^ (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF))) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return nxt


def quantile7(xs, p):
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def mcnemar(b, c):
    n = b + c
    if n == 0 or b == c:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n)


def newcombe(a, b, c, d):
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n)
    l2, u2 = wilson(a + c, n)
    margins = [a + b, c + d, a + c, b + d]
    if 0 in margins:
        phi = 0.0
    else:
        big = a * d - b * c
        root = math.sqrt(margins[0] * margins[1] * margins[2] * margins[3])
        phi = (big - n / 2) / root if big > n / 2 else (0.0 if big >= 0 else big / root)
    th = p1 - p2
    lo = th - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2))
    hi = th + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1))
    return th, [max(-1.0, lo), min(1.0, hi)]


def head_to_head(ca, cb, items, seed, iterations):
    right, trip = [], []
    for it in items:
        ra, _ = reward_of(ca, it["rolloutId"])
        rb, _ = reward_of(cb, it["rolloutId"])
        if ra is None or rb is None:
            continue
        h = it["human"]["verdict"] == "pass"
        right.append(((ra >= ca.get("threshold", 0.9)) == h, (rb >= cb.get("threshold", 0.9)) == h))
        trip.append((it["human"]["reward"], ra, rb))
    t = [sum(1 for x, y in right if x and y), sum(1 for x, y in right if x and not y),
         sum(1 for x, y in right if y and not x), sum(1 for x, y in right if not x and not y)]
    diff, iv = newcombe(*t)

    def mae_diff(s):
        return (sum(abs(a - r) for r, a, _ in s) - sum(abs(b - r) for r, _, b in s)) / len(s)

    def rho_diff(s):
        ra = spearman([a for _, a, _ in s], [r for r, _, _ in s])
        rb = spearman([b for _, _, b in s], [r for r, _, _ in s])
        return None if ra is None or rb is None else ra - rb

    rng = mulberry32(seed)
    n = len(trip)
    maes, rhos = [], []
    for _ in range(iterations):
        s = [trip[math.floor(rng() * n)] for _ in range(n)]
        maes.append(mae_diff(s))
        v = rho_diff(s)
        if v is not None:
            rhos.append(v)

    def pct(vals):
        if len(vals) * 2 < iterations:
            return None
        vals = sorted(vals)
        return [quantile7(vals, 0.025), quantile7(vals, 0.975)]

    return {"n": n, "table": t, "difference": diff, "interval": iv, "pValue": mcnemar(t[1], t[2]),
            "mae": mae_diff(trip), "maeInterval": pct(maes), "spearman": rho_diff(trip), "spearmanInterval": pct(rhos)}


def clustered(values, keys):
    """The pooled mean and the cluster-robust variance of it, sum over clusters of (S_c - mean * m_c)^2 / N^2, with
    the number of clusters; a key of None is a cluster of its own."""
    n = len(values)
    mean = sum(values) / n
    groups = {}
    for i, (v, key) in enumerate(zip(values, keys)):
        g = ("own", i) if key is None else ("rollout", key)
        s, m = groups.get(g, (0.0, 0))
        groups[g] = (s + v, m + 1)
    return mean, len(groups), sum((s - mean * m) ** 2 for s, m in groups.values()) / (n * n)


def rerun(pairs, th):
    # a probe's pairs clustered by rollout: t interval on (rollouts - 1) df with the CR1 factor C/(C - 1), its standard
    # error never below the independent one; the flips'
    # Wilson interval at n / deff, deff = variance / (p(1 - p)/n), kept within [rollouts, n] (rollouts at p = 0 or 1)
    done = [(p["first"], p["second"], p.get("rollout")) for p in pairs
            if p["first"] is not None and p["second"] is not None]
    n = len(done)
    keys = [k for _, _, k in done]
    m, c, v = clustered([s - f for f, s, _ in done], keys)
    hits = [1.0 if (f >= th) != (s >= th) else 0.0 for f, s, _ in done]
    p, _, hv = clustered(hits, keys)
    srs = p * (1 - p) / n
    n_eff = c if c < 2 or srs == 0 else n if hv == 0 else min(n, max(c, n * srs / hv))
    flips = int(sum(hits))
    mae, _, av = clustered([abs(s - f) for f, s, _ in done], keys)
    shift_iv = mae_iv = None
    if c >= 2:
        # never narrower than the independent standard error s / sqrt(n)
        def se_of(xs, var):
            mean = sum(xs) / n
            return math.sqrt(max(c / (c - 1) * var, sum((x - mean) ** 2 for x in xs) / (n - 1) / n))
        half = t_quantile_975(c - 1) * se_of([s - f for f, s, _ in done], v)
        se = se_of([abs(s - f) for f, s, _ in done], av)
        shift_iv, mae_iv = [m - half, m + half], [max(0.0, mae - Z * se), mae + Z * se]
    return {"n": n, "rollouts": c, "meanShift": m, "meanShiftInterval": shift_iv,
            "flips": {"k": flips, "n": n, "value": p, "interval": wilson(p * n_eff, n_eff)}, "mae": mae,
            "maeInterval": mae_iv}


def main():
    data = json.load(sys.stdin)
    inp = data["input"]
    by_id = {c["id"]: c for c in inp["candidates"]}
    out = {"rows": {}, "headToHead": {}, "reruns": {}}
    for c in inp["candidates"]:
        out["rows"][c["id"]] = row(c, inp["items"], inp["pairwise"])
        th = c.get("threshold", 0.9)
        for kind in ("probe", "retest"):
            if c.get(kind):
                out["reruns"][f"{c['id']}|{kind}"] = rerun(c[kind], th)
    for a, b in data["headToHead"]:
        out["headToHead"][f"{a}|{b}"] = head_to_head(by_id[a], by_id[b], inp["items"], data["seed"],
                                                      data["iterations"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
