import { describe, expect, it } from "vitest";
import {
  activityLogQuery,
  createTokenInput,
  createUserInput,
  formObject,
  setDisabledInput,
} from "@/lib/admin/schema.ts";

describe("admin form schemas", () => {
  it("turns FormData into a plain object, checkboxes into arrays", () => {
    const f = new FormData();
    f.set("name", "pipeline");
    f.append("scopes", "ingest");
    f.append("scopes", "read");
    f.set("$ACTION_ID_abc", "");
    expect(formObject(f, ["scopes"])).toEqual({ name: "pipeline", scopes: ["ingest", "read"] });
    expect(formObject(new FormData(), ["scopes"])).toEqual({ scopes: [] });
  });

  it("explains what is wrong with a new user, field by field", () => {
    const r = createUserInput.safeParse({ email: "x", role: "boss", password: "short" });
    expect(r.success).toBe(false);
    const byField = Object.fromEntries(r.error!.issues.map((i) => [i.path[0], i.message]));
    expect(byField.email).toMatch(/email address/);
    expect(byField.role).toMatch(/admin, lead, researcher, annotator/);
    expect(byField.password).toBe("At least 10 characters.");
  });

  it("requires a token name and at least one known scope", () => {
    expect(createTokenInput.safeParse({ name: " ", scopes: ["ingest"] }).success).toBe(false);
    expect(createTokenInput.safeParse({ name: "p", scopes: [] }).error!.issues[0].message).toBe(
      "Pick at least one scope.",
    );
    expect(createTokenInput.safeParse({ name: "p", scopes: ["admin"] }).success).toBe(false);
    expect(createTokenInput.parse({ name: " p ", scopes: ["read"] })).toEqual({ name: "p", scopes: ["read"] });
  });

  it("reads the disabled flag", () => {
    expect(setDisabledInput.parse({ userId: "3", disabled: "true" })).toEqual({ userId: 3, disabled: true });
    expect(setDisabledInput.parse({ userId: "3", disabled: "false" })).toEqual({ userId: 3, disabled: false });
    expect(setDisabledInput.safeParse({ userId: "0", disabled: "false" }).success).toBe(false);
  });

  it("parses activity-log filters and refuses bad dates and cursors", () => {
    expect(
      activityLogQuery.parse({
        action: "auth.sign_in",
        actor: "Lead@Verity.Local",
        from: "2025-01-01",
        to: "",
        before: "42",
      }),
    ).toEqual({
      action: "auth.sign_in",
      actor: "lead@verity.local",
      from: "2025-01-01",
      to: undefined,
      before: 42n,
    });
    expect(activityLogQuery.safeParse({ from: "2025-13-45" }).success).toBe(false);
    expect(activityLogQuery.safeParse({ before: "abc" }).success).toBe(false);
    expect(activityLogQuery.parse({ action: "" })).toEqual({ action: undefined, actor: undefined });
  });
});
