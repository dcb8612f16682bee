import { describe, expect, it } from "vitest";
import { listSpecPointers } from "@/lib/ledger/spec-pointers.ts";

describe("listSpecPointers", () => {
  const snapshot = { order: { id: "O-1", paid_amount: 59.99 }, attachments: [{ id: "A-1" }] };
  it("lists each pointer with its field and resolved value, skipping literals and escaped $$", () => {
    const spec = {
      required_writes: [
        {
          tool: "finance.issue_refund",
          args: { order_id: "$order.id", amount: "$order.paid_amount", note: "$$literal" },
        },
      ],
      must_mention: [{ key: "att", value: "$attachments.0.id" }],
    };
    expect(listSpecPointers(spec, snapshot)).toEqual([
      { field: "required_writes.0.args.order_id", pointer: "$order.id", resolved: true, value: "O-1" },
      { field: "required_writes.0.args.amount", pointer: "$order.paid_amount", resolved: true, value: 59.99 },
      { field: "must_mention.0.value", pointer: "$attachments.0.id", resolved: true, value: "A-1" },
    ]);
  });
  it("marks a pointer that does not resolve", () => {
    expect(listSpecPointers({ a: "$order.paid" }, snapshot)).toEqual([
      { field: "a", pointer: "$order.paid", resolved: false, value: null },
    ]);
  });
});
