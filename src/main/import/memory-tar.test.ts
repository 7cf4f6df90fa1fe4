// The reader of memory archives, on archives a Cairn export never makes: too many entries, a cut
// archive, and the names a hostile archive may carry.
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { MAX_TAR_ENTRIES, readMemoryTar } from './memory-tar';

async function makeTar(list: Array<{ name: string; body?: string; type?: tar.Header['type'] }>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve) => {
    pack.on('data', (c: unknown) => void chunks.push(c as Buffer));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
  });
  for (const e of list) await new Promise<void>((resolve, reject) => pack.entry({ name: e.name, type: e.type ?? 'file' }, e.body ?? '', (err) => (err ? reject(err) : resolve())));
  pack.finalize();
  return done;
}

describe('readMemoryTar', () => {
  it('reads plain files below the scopes, and ignores directory entries', async () => {
    const data = await makeTar([{ name: 'global/', type: 'directory' }, { name: './global/a.md', body: 'a\n' }, { name: 'workspace/d/b.md', body: 'b\n' }]);
    const read = await readMemoryTar(Readable.from([data]));
    expect(read.problems).toEqual([]);
    expect(read.files.map((f) => [f.path, f.text])).toEqual([
      ['/memories/global/a.md', 'a\n'],
      ['/memories/workspace/d/b.md', 'b\n'],
    ]);
  });

  it('stops at more entries than three full scopes hold', async () => {
    const list = Array.from({ length: MAX_TAR_ENTRIES + 5 }, (_, i) => ({ name: `global/f${i}.md`, body: 'x' }));
    const read = await readMemoryTar(Readable.from([await makeTar(list)]));
    expect(read.problems).toEqual([{ entry: `"global/f${MAX_TAR_ENTRIES}.md"`, reason: expect.stringMatching(/more than 3000 entries/) }]);
  });

  it('refuses an archive cut short, and names with control characters shown escaped', async () => {
    const whole = await makeTar([{ name: 'global/a.md', body: 'a'.repeat(2000) }]);
    const cut = await readMemoryTar(Readable.from([whole.subarray(0, 1000)]));
    expect(cut.problems).toEqual([{ entry: '(the archive)', reason: expect.stringMatching(/^it is not a readable tar archive/) }]);
    const odd = await readMemoryTar(Readable.from([await makeTar([{ name: 'global/a\u001b[31m.md', body: 'x' }])]));
    expect(odd.problems).toEqual([{ entry: '"global/a\\u001b[31m.md"', reason: expect.stringMatching(/breaks the path rules/) }]);
  });
});
