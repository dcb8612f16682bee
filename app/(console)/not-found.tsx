import Link from "next/link";

// notFound() from a console page (an unknown run, trajectory or batch): the console's 404, inside its sidebar.
export default function NotFound() {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold">404 · Not found</h1>
      <p className="mt-2 text-fg-muted">There is nothing at this address: the run or record it names does not exist.</p>
      <Link className="mt-4 inline-block text-accent hover:underline" href="/">
        Back to your start page
      </Link>
    </div>
  );
}
