/** Reading a command's input and writing its answer whole. Light: hooks load it. */
import type { CliIo } from './tool-command';

/** A stream read to its end as UTF-8 text (stdin of a command). */
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

/** All of a command's stdin (CliIo.readInput), or null when it is a terminal unless `evenFromTerminal`. */
export async function readInput(io: CliIo, evenFromTerminal: boolean): Promise<string | null> {
  if (io.readInput) return io.readInput(evenFromTerminal);
  return !evenFromTerminal && io.stdin.isTTY ? null : readAll(io.stdin);
}

/** Writes a command's whole answer to stdout (CliIo.writeOutput); nothing for an empty one. */
export function writeOutput(io: CliIo, text: string): void {
  if (text === '') return;
  if (io.writeOutput) io.writeOutput(text);
  else io.stdout.write(text);
}
