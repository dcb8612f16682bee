// The body of a streamed download (an export, a cluster's backlog, a Parquet file). Its first chunk is read before
// the response is made: a parameter the query refuses, an unknown run or a lost database then fails the request
// with its status, instead of a 200 whose body dies after its first bytes. The rest is pulled under backpressure
// (the next batch is read only when the client has taken the previous one); an error after the first bytes aborts
// the body, so the client sees a cut download rather than one that looks complete; a client that goes away
// cancels the stream, which ends the reads behind it.

/** The stream of `chunks`, each encoded, its first chunk already read (this throws what that read throws). */
export async function streamedBody<T>(
  chunks: AsyncGenerator<T>,
  encode: (chunk: T) => Uint8Array,
): Promise<ReadableStream<Uint8Array>> {
  let ahead: IteratorResult<T> | null = await chunks.next();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = ahead ?? (await chunks.next());
        ahead = null;
        if (next.done) controller.close();
        else controller.enqueue(encode(next.value));
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

const encoder = new TextEncoder();

/** Encodes a text chunk as UTF-8. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
