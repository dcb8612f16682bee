// The triage vocabulary of domain.md ("Disagreements are triaged into …"), in the order the form offers them
// (number keys 1–5). The values are the DisagreementCause enum of the database.

export const DISAGREEMENT_CAUSES = [
  "spec_wrong",
  "extraction_wrong",
  "verifier_rule_wrong",
  "annotator_wrong",
  "ambiguous",
] as const;
export type DisagreementCause = (typeof DISAGREEMENT_CAUSES)[number];

export const CAUSE_LABELS: Record<DisagreementCause, string> = {
  spec_wrong: "Spec wrong",
  extraction_wrong: "Extraction wrong",
  verifier_rule_wrong: "Verifier rule wrong",
  annotator_wrong: "Annotator wrong",
  ambiguous: "Ambiguous case",
};
