// readHeads reads many files' heads into a few shared buffers, each head a view of its part. A
// head a long-lived caller keeps (the app's context builder keeps every file's facts) keeps its
// whole buffer alive, so a buffer is never sized for more heads than are left to read.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { makeTempRoot } from '../../../../tests/support/temp-root';
import { readHeads } from './listing';

const HEAD = 4096;
let cleanup: (() => void) | undefined;

afterEach(() => cleanup?.());

/** A note longer than a head, so each head fills its part of a buffer. */
function textOf(i: number): string {
  return `# note ${i}\n${'x'.repeat(HEAD + i)}\n`;
}

function filesIn(count: number): { root: string; rels: string[][] } {
  const temp = makeTempRoot('cairn-heads-');
  cleanup = temp.cleanup;
  const rels: string[][] = [];
  for (let i = 0; i < count; i++) {
    fs.writeFileSync(path.join(temp.root.path, `note-${i}.md`), textOf(i));
    rels.push([`note-${i}.md`]);
  }
  return { root: temp.root.path, rels };
}

it('gives every head as written, and sizes no buffer for more heads than are left', () => {
  const { root, rels } = filesIn(65);
  const heads = readHeads(root, rels, HEAD);
  heads.forEach((head, i) => expect(Buffer.from(head!.data).toString()).toBe(textOf(i).slice(0, HEAD)));
  // The first 64 share one buffer; the 65th, the last, has one sized for itself alone.
  expect(heads[0]!.data.buffer.byteLength).toBe(64 * HEAD);
  expect(heads[64]!.data.buffer).not.toBe(heads[63]!.data.buffer);
  expect(heads[64]!.data.buffer.byteLength).toBe(HEAD);
});

it('a small batch gets a buffer for its own heads only', () => {
  const { root, rels } = filesIn(3);
  const heads = readHeads(root, rels, HEAD);
  expect(new Set(heads.map((h) => h!.data.buffer)).size).toBe(1);
  expect(heads[0]!.data.buffer.byteLength).toBe(3 * HEAD);
});
