import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/v1/agreement/route.ts";
import { seedAgreementAudit } from "@/lib/testing/agreement-data.ts";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { run as agreementCli } from "@/lib/cli/agreement.ts";

// `verity agreement --json` and GET /api/v1/agreement print the same report for the same filter.
const url = process.env.DATABASE_URL!;
let batchId: number;
let token: string;

beforeAll(async () => {
  ({ batchId } = await seedAgreementAudit(url, "agreement-cli-api"));
  const email = `admin-${randomBytes(5).toString("hex")}@test.local`;
  const u = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  token = (await createApiToken({ name: "agreement-read", scopes: ["read"] }, { userId: u.id, email })).token;
});

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    return { code: await agreementCli(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

const get = (query: string, auth = token) =>
  GET(
    new Request(`http://verity.test/api/v1/agreement?${query}`, {
      headers: auth ? { authorization: `Bearer ${auth}` } : {},
    }),
    undefined,
  );

describe("verity agreement --json and GET /api/v1/agreement", () => {
  it("print the same JSON for the same filter", async () => {
    for (const [query, argv] of [
      [`batch=${batchId}`, ["--batch", String(batchId)]],
      [
        `batch=${batchId}&guardrail=empty_promise&tolerance=0.2`,
        ["--batch", String(batchId), "--guardrail", "empty_promise", "--tolerance", "0.2"],
      ],
    ] as const) {
      const res = await get(query);
      expect(res.status).toBe(200);
      const api = await res.json();
      const c = await cli([...argv, "--json"]);
      expect(c).toMatchObject({ code: 0, err: "" });
      expect(JSON.parse(c.out)).toEqual(api);
      expect(api.filter.batch).toBe(batchId);
      expect(api.headline.n).toBeGreaterThan(0);
    }
  });

  it("refuse the same bad filter, each in its own way", async () => {
    const res = await get(`batch=${batchId}&tolerance=7`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe("tolerance: must be between 0 and 1");
    expect(await cli(["--batch", String(batchId), "--tolerance", "7", "--json"])).toEqual({
      code: 2,
      out: "",
      err: "verity agreement: tolerance: must be between 0 and 1\n",
    });
    expect((await get(`batch=${batchId}`, "")).status).toBe(401);
  });
});
