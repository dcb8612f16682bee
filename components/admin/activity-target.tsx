// The target of an activity-log entry, linked to where that thing is read. Readers of the log are leads and admins
// (policy "activitylog.read"), who may open every page linked here except the admin pages, which admins alone open;
// those stay text for a lead. Unknown target types stay text.
import Link from "next/link";
import { batchItemsHref, caseHref } from "@/components/ui/id-links.tsx";
import type { Role } from "@/lib/auth/policy.ts";
import { can } from "@/lib/auth/policy.ts";

type Entry = { action: string; targetType: string; targetId: string; details: unknown };

const text = (d: unknown, key: string): string | undefined => {
  const v = d && typeof d === "object" ? (d as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" && v ? v : undefined;
};

/** Where an entry's target is read, or null when it has none here. Exported for its unit test. */
export function activityTargetHref(e: Entry, role: Role): string | null {
  const id = e.targetId;
  switch (e.targetType) {
    case "run":
      return `/runs/${encodeURIComponent(id)}`;
    case "case":
      return caseHref(id);
    case "audit_batch":
      return /^\d+$/.test(id) ? batchItemsHref(Number(id)) : null;
    case "audit_item":
      return e.action.startsWith("pair_") ? `/agreement/pairwise/${id}` : `/audit/adjudication?item=${id}`;
    case "defect": {
      const run = text(e.details, "run_id");
      return run ? `/audit/defects?run=${encodeURIComponent(run)}` : "/audit/defects";
    }
    case "cluster": {
      // "run:key" (bulk fix) or "run/key" (state change); a run id has neither character in practice, a key may
      const run = text(e.details, "run") ?? id.split(/[:/]/)[0];
      const key = text(e.details, "key") ?? id.slice(run.length + 1);
      return `/clusters?${new URLSearchParams({ run, c: key }).toString()}`;
    }
    case "user":
      return can(role, "users.manage") ? "/admin/users" : null;
    case "api_token":
      return can(role, "tokens.manage") ? "/admin/tokens" : null;
    case "verifier_config":
      return can(role, "configs.read") ? "/admin/configs" : null;
    default:
      return null;
  }
}

export function ActivityTarget({ entry, role }: { entry: Entry; role: Role }) {
  if (!entry.targetType) return null;
  const label = `${entry.targetType} ${entry.targetId}`;
  const href = activityTargetHref(entry, role);
  return href ? (
    <Link className="text-accent hover:underline" href={href}>
      {label}
    </Link>
  ) : (
    <>{label}</>
  );
}
