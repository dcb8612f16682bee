import "server-only";
import { isIP } from "node:net";
import { z } from "zod";

/** One VERITY_TRUSTED_PROXIES entry: an IPv4/IPv6 address or a CIDR range. Null when it is neither. */
export function parseProxyEntry(entry: string): { address: string; prefix?: number; family: "ipv4" | "ipv6" } | null {
  const [address, prefixText, ...rest] = entry.split("/");
  const v = isIP(address);
  if (v === 0 || rest.length > 0) return null;
  const family = v === 4 ? "ipv4" : "ipv6";
  if (prefixText === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (v === 4 ? 32 : 128)) return null;
  return { address, prefix, family };
}

/** The entries of a comma-separated VERITY_TRUSTED_PROXIES value. */
export function splitProxyList(spec: string): string[] {
  return spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The entries of a comma-separated VERITY_TRUSTED_PROXIES value that are not addresses or CIDR ranges. */
export function invalidProxyEntries(spec: string): string[] {
  return splitProxyList(spec).filter((e) => parseProxyEntry(e) === null);
}

/** "https://host[:port]" with nothing after it but an optional "/". */
/** A size written as `<n>MB` or `<n>GB`, in MB. */
function sizeMb(v: string): number {
  const n = parseInt(v, 10);
  return v.endsWith("GB") ? n * 1024 : n;
}

/** A byte count written as `<n>`, `<n>MB` or `<n>GB` (MB and GB in powers of 1024), in bytes. */
function bytesOf(v: string): number {
  const n = parseInt(v, 10);
  return v.endsWith("GB") ? n * 2 ** 30 : v.endsWith("MB") ? n * 2 ** 20 : n;
}

function isOrigin(v: string): boolean {
  try {
    const u = new URL(v);
    return /^https?:$/.test(u.protocol) && v.replace(/\/$/, "") === u.origin;
  } catch {
    return false;
  }
}

// Every environment variable the product reads, validated in one place. README.md lists the same set.
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** A streaming standby of DATABASE_URL; read-only pages and APIs read from it (lib/db/read-client.ts). */
  DATABASE_REPLICA_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** Seconds of replica lag above which the console says its data is behind. */
  VERITY_REPLICA_MAX_LAG: z.coerce.number().positive().default(30),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  VERITY_DATA_DIR: z.string().default(".data"),
  VERITY_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** shared_buffers of the embedded PostgreSQL (lib/db/embedded.ts): a size in PostgreSQL's units, 128MB to 64GB;
   * unset, a quarter of the machine's memory up to 8GB (embeddedSettings). */
  VERITY_PG_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9][0-9]*(MB|GB)$/, "must be a size such as 1GB or 512MB")
    // (a value the pattern already refused is not also called out of range)
    .refine(
      (v) => !/^\d+(MB|GB)$/.test(v) || (sizeMb(v) >= 128 && sizeMb(v) <= 65536),
      "must be between 128MB and 64GB",
    )
    .optional(),
  /** Inflated bytes a gzip request body or CLI input may become (lib/ingest/content-encoding.ts); past it, 413. */
  VERITY_MAX_INFLATED_BYTES: z
    .string()
    .regex(/^[1-9][0-9]*(MB|GB)?$/, "must be a number of bytes or a size such as 512MB or 4GB")
    .default("1GB")
    .transform(bytesOf),
  /** `force`: the demo runs are loaded even beside other runs (lib/demo/first-run.ts). */
  VERITY_DEMO: z.enum(["0", "1", "true", "false", "force"]).optional(),
  /** Size of the generated demo runs loaded into an empty database: `small` for tests, `default` for `npm start`. */
  VERITY_DEMO_SIZE: z.enum(["small", "default"]).default("default"),
  VERITY_SESSION_HOURS: z.coerce.number().positive().default(12),
  VERITY_SECURE_COOKIES: z.enum(["0", "1", "true", "false"]).optional(),
  /** Reverse proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For entries are believed. */
  VERITY_TRUSTED_PROXIES: z
    .string()
    .optional()
    .refine((v) => v === undefined || invalidProxyEntries(v).length === 0, {
      error: (i) =>
        `must list IP addresses or CIDR ranges separated by commas (not ${invalidProxyEntries(String(i.input)).join(", ")})`,
    }),
  /** The console's public origin (https://verity.example.org), for absolute URLs such as the OIDC redirect URI. */
  VERITY_PUBLIC_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || isOrigin(v), {
      error: "must be an http:// or https:// origin only (https://verity.example.org), without a path or query",
    }),
  // OIDC sign-in (authorization code + PKCE) is on only when issuer, client id and secret are all set.
  VERITY_OIDC_ISSUER: z.string().url().optional(),
  VERITY_OIDC_CLIENT_ID: z.string().min(1).optional(),
  VERITY_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** Defaults to <public origin>/auth/oidc/callback (lib/auth/public-origin.ts). */
  VERITY_OIDC_REDIRECT_URI: z.string().url().optional(),
  VERITY_LLM_BASE_URL: z.string().url().optional(),
  VERITY_LLM_MODEL: z.string().optional(),
  VERITY_LLM_API_KEY: z.string().optional(),
  VERITY_CHROMIUM: z.string().default("/usr/bin/chromium"),
  /** When set, every training-monitor alarm state change is POSTed here as JSON (lib/monitors/webhook.ts). */
  VERITY_ALARM_WEBHOOK_URL: z.string().url().optional(),
});

export type Env = z.infer<typeof envSchema>;

let cached: Env | undefined;

/** The validated environment. Throws one readable sentence naming each bad variable. */
export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}.`);
  }
  cached = parsed.data;
  return cached;
}

/** Demo data and demo users exist unless this is a production deployment without VERITY_DEMO. */
export function demoEnabled(e: Env = env()): boolean {
  if (e.VERITY_DEMO !== undefined)
    return e.VERITY_DEMO === "1" || e.VERITY_DEMO === "true" || e.VERITY_DEMO === "force";
  return e.NODE_ENV !== "production";
}
