// A local webhook receiver for the alarm and gate tests: records every posted JSON body and answers 200. Alarm posts
// have type "verity.alarm", the gate's verdict changes "verity.gate" (lib/gate/webhook.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

export type PostedAlarm = {
  type: string;
  run: string;
  alarm: string;
  from: string;
  to: string;
  step: number | null;
};

export async function startAlarmReceiver(): Promise<{
  url: string;
  received: PostedAlarm[];
  close: () => Promise<void>;
}> {
  const received: PostedAlarm[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(JSON.parse(body));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alarms`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A receiver for the whole test file: started before its tests, closed after them. */
export function alarmReceiverForFile(): { readonly url: string; readonly received: PostedAlarm[] } {
  let receiver: Awaited<ReturnType<typeof startAlarmReceiver>> | undefined;
  beforeAll(async () => {
    receiver = await startAlarmReceiver();
  });
  afterAll(() => receiver?.close());
  const started = () => {
    if (!receiver) throw new Error("the alarm receiver starts in beforeAll");
    return receiver;
  };
  return {
    get url() {
      return started().url;
    },
    get received() {
      return started().received;
    },
  };
}
