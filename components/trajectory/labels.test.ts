import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StepTimeline } from "@/components/trajectory/step-timeline.tsx";
import { RewardWaterfall } from "@/components/trajectory/waterfall.tsx";

// The trajectory page's step outputs and the waterfall's success marker say what they are in text, not only by
// position or a hover title.
describe("trajectory page labels", () => {
  it("labels each step's output with its step", () => {
    const out = renderToStaticMarkup(
      createElement(StepTimeline, {
        steps: [
          { type: "llm", name: "assistant", output: "Let me look that up." },
          { type: "tool", name: "orders.get", input: { id: 1 }, output: { status: "paid" }, status: "success" },
          { type: "tool", name: "orders.cancel", status: "error" },
        ],
        kinds: { "orders.get": "read", "orders.cancel": "write" },
        writes: [],
      }),
    );
    expect(out).toContain("<figcaption");
    expect(out).toContain(">model output</figcaption>");
    expect(out).toContain(">output of orders.get</figcaption>");
    // a step without output has no caption
    expect(out.match(/<figcaption/g)).toHaveLength(2);
  });

  it("names the waterfall's success line in text and for screen readers", () => {
    const out = renderToStaticMarkup(
      createElement(RewardWaterfall, {
        raw: 0.8,
        reward: 0.35,
        caps: [{ code: "empty_promise", cap: 0.35 }],
        deciding: "empty_promise",
      }),
    );
    expect(out).toContain('aria-label="success line 0.9"');
    expect(out.replace(/<!-- -->/g, "")).toContain("dashed line: success at 0.9");
  });
});
