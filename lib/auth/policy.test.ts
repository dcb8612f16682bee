import { describe, expect, it } from "vitest";
import { ACTIONS, can, homePath, POLICY, ROLES, tokenAllows, type Action, type Role } from "@/lib/auth/policy.ts";

// The whole matrix written out by hand: a change to the policy must change this table too.
const Y = true;
const n = false;
const EXPECTED: Record<Action, Record<Role, boolean>> = {
  "runs.read": { admin: Y, lead: Y, researcher: Y, annotator: n },
  "ledger.read": { admin: Y, lead: Y, researcher: Y, annotator: n },
  "audit.read": { admin: Y, lead: Y, researcher: Y, annotator: n },
  "audit.manage": { admin: Y, lead: Y, researcher: n, annotator: n },
  "audit.review": { admin: Y, lead: n, researcher: n, annotator: Y },
  adjudicate: { admin: Y, lead: Y, researcher: n, annotator: n },
  "cases.revise": { admin: Y, lead: Y, researcher: n, annotator: n },
  export: { admin: Y, lead: Y, researcher: Y, annotator: n },
  ingest: { admin: Y, lead: n, researcher: n, annotator: n },
  "configs.read": { admin: Y, lead: Y, researcher: Y, annotator: n },
  "configs.manage": { admin: Y, lead: n, researcher: n, annotator: n },
  "users.manage": { admin: Y, lead: n, researcher: n, annotator: n },
  "tokens.manage": { admin: Y, lead: n, researcher: n, annotator: n },
  "activitylog.read": { admin: Y, lead: Y, researcher: n, annotator: n },
  "rewards.manage": { admin: Y, lead: Y, researcher: n, annotator: n },
};

describe("the policy table", () => {
  it("lists every action once in the expected matrix", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...ACTIONS].sort());
    expect(new Set(ACTIONS).size).toBe(ACTIONS.length);
  });

  for (const action of ACTIONS) {
    for (const role of ROLES) {
      it(`${role} ${EXPECTED[action][role] ? "may" : "may not"} ${action}`, () => {
        expect(can(role, action)).toBe(EXPECTED[action][role]);
      });
    }
  }

  it("refuses everything to nobody", () => {
    for (const action of ACTIONS) {
      expect(can(null, action)).toBe(false);
      expect(can(undefined, action)).toBe(false);
    }
  });

  it("keeps annotators blind: no action that shows a ledger number", () => {
    expect([...POLICY.annotator]).toEqual(["audit.review"]);
  });

  it("lets researchers read everything a lead reads except the activity log, and change nothing", () => {
    for (const a of [
      "configs.manage",
      "users.manage",
      "tokens.manage",
      "audit.manage",
      "adjudicate",
      "cases.revise",
    ] as const)
      expect(can("researcher", a)).toBe(false);
  });

  it("sends each role to a page it may open", () => {
    expect(homePath("admin")).toBe("/runs");
    expect(homePath("lead")).toBe("/runs");
    expect(homePath("researcher")).toBe("/runs");
    expect(homePath("annotator")).toBe("/queue");
  });
});

describe("token scopes", () => {
  it("allows exactly the scopes a token carries", () => {
    expect(tokenAllows(["ingest"], "ingest")).toBe(true);
    expect(tokenAllows(["ingest"], "read")).toBe(false);
    expect(tokenAllows([], "read")).toBe(false);
    expect(tokenAllows(["ingest", "read"], "read")).toBe(true);
  });
});
