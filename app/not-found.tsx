import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-md px-6 py-20 text-center">
      <h1 className="text-lg font-semibold">Not found</h1>
      <p className="mt-2 text-fg-muted">There is nothing at this address.</p>
      <Link className="mt-4 inline-block text-accent hover:underline" href="/">
        Back to your start page
      </Link>
    </main>
  );
}
