import { describe, expect, it } from "vitest";
import {
  answer,
  answerOf,
  buildRows,
  draftFromState,
  isClaimRow,
  stateFromDraft,
  toggleAnswer,
  unansweredOf,
  type ClaimRow,
} from "@/components/review/form-model.ts";
import { unansweredClaims, unansweredMessage } from "@/lib/review/claim-answers.ts";
import { emptyDraft, parseDraft } from "@/lib/review/schema.ts";

// Every claim of the form needs an answer; the form refuses what the server refuses (the same function on the
// same slots), and an answer survives the draft.
const rows = buildRows(["finance.issue_refund", "orders.cancel"], ["refund_amount"], ["guarantee"]);
const claim = (id: string) =>
  rows
    .filter(isClaimRow)
    .find((r) => `${r.kind}:${"tool" in r ? r.tool : "key" in r ? r.key : r.code}` === id)! as ClaimRow;
const fresh = () => stateFromDraft(emptyDraft());

describe("claim answers", () => {
  it("starts with every claim unanswered, and names them all in form order", () => {
    const s = fresh();
    expect(rows.filter(isClaimRow).map((r) => answerOf(s, r))).toEqual([null, null, null, null]);
    expect(unansweredMessage(unansweredOf(rows, s))).toBe(
      "Answer every claim first, yes or no (unanswered: finance.issue_refund (write), orders.cancel (write), refund_amount (mention), guarantee (forbidden expression)).",
    );
  });

  it("takes yes and no apart: no is not a claim, yes is; toggling goes yes ↔ no", () => {
    let s = answer(fresh(), claim("write:finance.issue_refund"), "yes");
    s = answer(s, claim("write:orders.cancel"), "no");
    s = toggleAnswer(s, claim("mention:refund_amount")); // unanswered → yes
    s = toggleAnswer(toggleAnswer(s, claim("forbidden:guarantee")), claim("forbidden:guarantee")); // yes → no
    expect(unansweredOf(rows, s)).toEqual([]);
    const d = draftFromState(s);
    expect(d.claims).toEqual({
      claimed_writes: ["finance.issue_refund"],
      mentioned: [{ key: "refund_amount" }],
      forbidden_hits: [],
    });
    expect(d.denied).toEqual(["forbidden:guarantee", "write:orders.cancel"]);
    // changing "no" to "yes" takes it out of the denied list
    const again = draftFromState(answer(s, claim("write:orders.cancel"), "yes"));
    expect(again.denied).toEqual(["forbidden:guarantee"]);
    expect(again.claims.claimed_writes).toEqual(["finance.issue_refund", "orders.cancel"]);
  });

  it("agrees with the server's check and keeps the answers through a saved draft", () => {
    const s = answer(answer(fresh(), claim("write:orders.cancel"), "no"), claim("mention:refund_amount"), "yes");
    const d = draftFromState(s);
    const server = unansweredClaims(
      {
        writeTools: ["finance.issue_refund", "orders.cancel"],
        mentionKeys: ["refund_amount"],
        forbidden: ["guarantee"],
      },
      d.claims,
      d.denied!,
    );
    expect(unansweredOf(rows, s)).toEqual(server);
    expect(server).toEqual([
      { kind: "write", name: "finance.issue_refund" },
      { kind: "forbidden", name: "guarantee" },
    ]);
    const restored = stateFromDraft(parseDraft(JSON.parse(JSON.stringify(d))));
    expect(unansweredOf(rows, restored)).toEqual(server);
    // a draft saved before answers existed has none
    expect(stateFromDraft(parseDraft({ ...d, denied: undefined })).denied).toEqual([]);
  });
});
