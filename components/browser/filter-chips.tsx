import Link from "next/link";
import { browseQuery, parseReasonSignature, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

// The active filters as chips, each with a link that drops it (the view's sort is kept). Filters set by a link
// from elsewhere (a cluster's "open in browser") are readable here without opening the form's "More filters".

type Chip = { keys: (keyof BrowseParams)[]; label: string };

function range(label: string, min: number | undefined, max: number | undefined): string | null {
  if (min !== undefined && max !== undefined) return `${label} ${min}–${max}`;
  if (min !== undefined) return `${label} ≥ ${min}`;
  if (max !== undefined) return `${label} ≤ ${max}`;
  return null;
}

function signatureLabel(sig: string): string {
  const s = parseReasonSignature(sig);
  if (!s) return sig;
  return [
    s.code,
    s.tool === null ? "no tool" : `tool ${s.tool}`,
    s.field === null ? "no field" : `field ${s.field}`,
  ].join(" · ");
}

export function filterChips(p: BrowseParams): Chip[] {
  const out: Chip[] = [];
  const add = (keys: (keyof BrowseParams)[], label: string | null) => {
    if (label !== null) out.push({ keys, label });
  };
  const yes = (v: "yes" | "no" | undefined, on: string, off: string) =>
    v === undefined ? null : v === "yes" ? on : off;
  add(["run"], p.run === undefined ? null : `run ${p.run}`);
  add(["step_from", "step_to"], range("steps", p.step_from, p.step_to));
  add(["category"], p.category?.length ? `category ${p.category.join(" or ")}` : null);
  add(["reward_min", "reward_max"], range("reward", p.reward_min, p.reward_max));
  add(["reward_below"], p.reward_below === undefined ? null : `reward < ${p.reward_below}`);
  for (const d of DIMENSIONS) add([`${d}_min`, `${d}_max`], range(d, p[`${d}_min`], p[`${d}_max`]));
  add(["weakest"], p.weakest?.length ? `weakest sub-score ${p.weakest.join(" or ")}` : null);
  add(["any"], p.any?.length ? `any of ${p.any.join(", ")}` : null);
  add(["all"], p.all?.length ? `all of ${p.all.join(", ")}` : null);
  add(
    ["none"],
    p.none?.length
      ? p.none.length === GUARDRAIL_CODES.length
        ? "no guardrail"
        : `none of ${p.none.join(", ")}`
      : null,
  );
  add(["deciding"], p.deciding?.length ? `deciding ${p.deciding.join(" or ")}` : null);
  add(["capped"], yes(p.capped, "capped", "not capped"));
  add(
    ["handoff"],
    p.handoff === "credited" ? "hand-off credited on its outcome" : yes(p.handoff, "hand-off", "no hand-off"),
  );
  add(
    ["trained_differs"],
    yes(p.trained_differs, "trained reward differs from ledger", "trained reward equals ledger"),
  );
  add(["sandbox_write"], yes(p.sandbox_write, "sandbox wrote", "no sandbox write"));
  add(["status"], p.status?.length ? `status ${p.status.join(" or ")}` : null);
  add(["reason"], p.reason === undefined ? null : `reason ${p.reason}`);
  add(["sig"], p.sig === undefined ? null : `reason ${signatureLabel(p.sig)}`);
  add(["q"], p.q === undefined ? null : `search ${p.q}`);
  add(["sampled"], yes(p.sampled, "sampled", "not sampled"));
  add(["reviewed"], yes(p.reviewed, "reviewed", "not reviewed"));
  return out;
}

export function FilterChips({ params }: { params: BrowseParams }) {
  const chips = filterChips(params);
  if (!chips.length) return null;
  return (
    <ul
      className="flex flex-wrap gap-1 border-b border-border px-3 py-1.5"
      aria-label="Active filters"
      data-testid="filter-chips"
    >
      {chips.map((c) => {
        const q = browseQuery(params, Object.fromEntries(c.keys.map((k) => [k, undefined])));
        return (
          <li
            key={c.keys.join(",")}
            className="inline-flex items-center gap-1 rounded bg-bg-muted px-1.5 py-px text-[11px] text-fg-muted"
          >
            <span>{c.label}</span>
            <Link
              href={`/trajectories${q ? `?${q}` : ""}`}
              aria-label={`Remove filter: ${c.label}`}
              className="hover:text-fg"
            >
              ×
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
