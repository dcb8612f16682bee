import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { MALFORMED_HEADER } from "@/lib/auth/proxy-headers.ts";

export const metadata: Metadata = { title: "Bad address" };

// The console's 400 page: proxy.ts rewrites an address whose path does not percent-decode to here (status 400), with
// the segment it found. Asked for directly, there is nothing here.
export default async function BadAddress() {
  const segment = (await headers()).get(MALFORMED_HEADER);
  if (!segment) notFound();
  return (
    <main className="mx-auto max-w-md px-6 py-20 text-center">
      <h1 className="text-lg font-semibold">400 · Bad address</h1>
      <p className="mt-2 text-fg-muted">
        The part <code className="font-mono">{segment}</code> of this address has a malformed percent-encoding: each “%”
        must be followed by two hex digits, and the escapes must spell UTF-8.
      </p>
      <Link className="mt-4 inline-block text-accent hover:underline" href="/">
        Back to your start page
      </Link>
    </main>
  );
}
