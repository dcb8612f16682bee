import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { MALFORMED_HEADER, NUL_HEADER } from "@/lib/auth/proxy-headers.ts";
import { describeNulPart, type NulPart } from "@/lib/server/route-params.ts";

export const metadata: Metadata = { title: "Bad address" };

// The console's 400 page: proxy.ts rewrites an address whose path does not percent-decode, or that holds a NUL
// character, to here (status 400), with the part it found. Asked for directly, there is nothing here.
export default async function BadAddress() {
  const h = await headers();
  const segment = h.get(MALFORMED_HEADER);
  const nul = nulPartOf(h.get(NUL_HEADER));
  if (!segment && !nul) notFound();
  return (
    <main className="mx-auto max-w-md px-6 py-20 text-center">
      <h1 className="text-lg font-semibold">400 · Bad address</h1>
      {segment ? (
        <p className="mt-2 text-fg-muted">
          The part <code className="font-mono">{segment}</code> of this address has a malformed percent-encoding: each
          “%” must be followed by two hex digits, and the escapes must spell UTF-8.
        </p>
      ) : (
        <p className="mt-2 text-fg-muted">
          This address holds a NUL character (<code className="font-mono">%00</code>) in {describeNulPart(nul!)}: no
          value may contain one.
        </p>
      )}
      <Link className="mt-4 inline-block text-accent hover:underline" href="/">
        Back to your start page
      </Link>
    </main>
  );
}

function nulPartOf(header: string | null): NulPart | null {
  if (!header) return null;
  try {
    return JSON.parse(decodeURIComponent(header)) as NulPart;
  } catch {
    return null;
  }
}
