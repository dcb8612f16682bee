import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { AlarmTransition } from "@/lib/monitors/alarm-state.ts";
import { deliverTransitions, postAlarmWebhook, webhookPayload, WEBHOOK_MAX_PER_BATCH } from "@/lib/monitors/webhook.ts";

type Received = { method: string; type: string | undefined; body: unknown };

/** A receiver on 127.0.0.1 that answers each request with `reply(n)` (status, or "hang" to never answer). */
async function receiver(reply: (n: number) => number | "hang" = () => 204) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      received.push({ method: req.method ?? "", type: req.headers["content-type"], body: JSON.parse(data) });
      const r = reply(received.length);
      if (r === "hang") return;
      res.writeHead(r).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  servers.push(server);
  return { url, received };
}
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const change = (i: number): AlarmTransition => ({
  runId: "grpo-hacking",
  alarm: "handoff",
  from: "amber",
  to: "red",
  step: 21000 + i,
  value: 0.123,
  message: "hand-off rate 12.3%: above the 10% ceiling for 3 consecutive evaluations",
  at: new Date("2025-01-02T03:04:05.000Z"),
});

describe("alarm webhook", () => {
  it("posts one JSON document per change", async () => {
    const r = await receiver();
    expect(await deliverTransitions(r.url, [change(0), change(1)])).toEqual(["sent", "sent"]);
    expect(r.received).toHaveLength(2);
    expect(r.received[0]).toEqual({
      method: "POST",
      type: "application/json",
      body: {
        type: "verity.alarm",
        run: "grpo-hacking",
        alarm: "handoff",
        label: "Hand-off rate",
        from: "amber",
        to: "red",
        step: 21000,
        value: 0.123,
        message: change(0).message,
        at: "2025-01-02T03:04:05.000Z",
      },
    });
  });

  it("a receiver that does not answer costs one timeout; the rest of the batch is not attempted (no retry storm)", async () => {
    const r = await receiver(() => "hang");
    const started = Date.now();
    const out = await deliverTransitions(r.url, [change(0), change(1), change(2)], 300);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(out[0]).toBe("failed: no answer within 300 ms");
    expect(out.slice(1)).toEqual([
      "failed: skipped after an earlier failure in the same evaluation",
      "failed: skipped after an earlier failure in the same evaluation",
    ]);
    expect(r.received).toHaveLength(1);
  });

  it("reports an error status and a refused connection without throwing", async () => {
    const r = await receiver(() => 500);
    expect(await postAlarmWebhook(r.url, webhookPayload(change(0)))).toBe("failed: HTTP 500");
    const closed = await receiver();
    const url = closed.url;
    await new Promise((res) => servers.pop()!.close(res));
    expect(await postAlarmWebhook(url, webhookPayload(change(0)), 1000)).toMatch(/^failed: /);
  });

  it("posts at most WEBHOOK_MAX_PER_BATCH changes per evaluation", async () => {
    const r = await receiver();
    const out = await deliverTransitions(
      r.url,
      Array.from({ length: WEBHOOK_MAX_PER_BATCH + 2 }, (_, i) => change(i)),
    );
    expect(r.received).toHaveLength(WEBHOOK_MAX_PER_BATCH);
    expect(out.filter((o) => o === "sent")).toHaveLength(WEBHOOK_MAX_PER_BATCH);
    expect(out[WEBHOOK_MAX_PER_BATCH]).toMatch(/^failed: skipped, more than/);
  });
});
