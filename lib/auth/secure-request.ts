import { env } from "@/lib/env.ts";

/**
 * Whether cookies set on this response get the Secure flag: when VERITY_SECURE_COOKIES says so, or the request
 * reached us over https — directly, or through a proxy that says so in X-Forwarded-Proto.
 */
export function isSecureRequest(
  h: Headers,
  url?: URL,
  flag: string | undefined = env().VERITY_SECURE_COOKIES,
): boolean {
  if (flag === "1" || flag === "true") return true;
  if (url?.protocol === "https:") return true;
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return proto === "https" || (h.get("origin")?.startsWith("https://") ?? false);
}
