import Link from "next/link";

// Outside the console (its own forbidden.tsx keeps the sidebar). A 403 from forbidden() in lib/auth/guards.ts.
export default function Forbidden() {
  return (
    <main className="mx-auto max-w-md px-6 py-20 text-center">
      <h1 className="text-lg font-semibold">403 · Not allowed</h1>
      <p className="mt-2 text-fg-muted">Your role does not give access to this page. Ask an admin if you need it.</p>
      <Link className="mt-4 inline-block text-accent hover:underline" href="/">
        Back to your start page
      </Link>
    </main>
  );
}
