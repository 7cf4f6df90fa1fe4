/** A stream read to its end as UTF-8 text (stdin of a command). Light: hooks load it. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buffer);
    size += buffer.byteLength;
    // A hook's input past the cap is not what an agent sends: stop reading (the parse then fails).
    if (size > maxBytes) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}
