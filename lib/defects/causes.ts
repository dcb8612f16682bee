// Which adjudication causes open a defect, and the defect vocabulary shared by the list page, its URL schema and
// the agreement page's "after N spec fixes, M rule fixes". Pure.
import type { DisagreementCause } from "@/lib/agreement/causes.ts";

export const DEFECT_CAUSES = ["spec_wrong", "verifier_rule_wrong"] as const satisfies readonly DisagreementCause[];
export type DefectCause = (typeof DEFECT_CAUSES)[number];

export const DEFECT_STATUSES = ["open", "fixed", "verified"] as const;
export type DefectStatus = (typeof DEFECT_STATUSES)[number];

export const DEFECT_KIND_LABELS: Record<DefectCause, string> = { spec_wrong: "spec", verifier_rule_wrong: "rule" };

export function isDefectCause(cause: string): cause is DefectCause {
  return (DEFECT_CAUSES as readonly string[]).includes(cause);
}
