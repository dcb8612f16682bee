import Link from "next/link";

export default function Forbidden() {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold">403 · Not allowed</h1>
      <p className="mt-2 text-fg-muted">Your role does not give access to this page. Ask an admin if you need it.</p>
      <Link className="mt-4 inline-block text-accent hover:underline" href="/">
        Back to your start page
      </Link>
    </div>
  );
}
