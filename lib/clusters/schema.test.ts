import { describe, expect, it } from "vitest";
import { clusterPageSchema } from "@/lib/clusters/schema.ts";
import { paramsRecord } from "@/lib/ledger/browse-schema.ts";

describe("the clusters window form with its fields blank", () => {
  it("reads blank steps and threshold as the whole run at the default threshold", () => {
    const r = clusterPageSchema.safeParse(
      paramsRecord({ run: "grpo-main", step_from: "", step_to: "", threshold: "" }),
    );
    expect(r.success && r.data).toEqual({ run: "grpo-main", view: "bars" });
  });
});
