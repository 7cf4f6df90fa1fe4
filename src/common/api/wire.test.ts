// The memory list's wire encoding: whatever goes in comes back equal, only lists are encoded, and
// a damaged column set is refused rather than half-read.
import { describe, expect, it } from 'vitest';
import { StandardRPCJsonSerializer } from '@orpc/client/standard';
import { apiJsonSerializers, decodeMemoryList, encodeMemoryList, MEMORY_LIST_WIRE_TYPE, type MemoryListOutput } from './wire';

const file = (path: string, over: Partial<MemoryListOutput['files'][number]> = {}): MemoryListOutput['files'][number] => ({
  scope: path.split('/')[2] as 'global' | 'project' | 'workspace',
  path,
  description: null,
  size: 12,
  pinned: false,
  accessCount: 0,
  lastAccessedAt: null,
  lastWriteAt: null,
  lastWriteBy: null,
  flags: [],
  ...over,
});

const list: MemoryListOutput = {
  files: [
    file('/memories/global/a.md', { description: 'Always run the linter', size: 40 }),
    file('/memories/project/deep/dir/b.md', { pinned: true, accessCount: 7, lastAccessedAt: '2026-11-20T10:00:00.000Z', lastWriteAt: '2026-11-19T09:00:00.000Z', lastWriteBy: 'agent' }),
    file('/memories/project/c.md', { lastWriteBy: 'external', lastWriteAt: '2026-11-21T09:00:00.000Z' }),
    file('/memories/workspace/d.md', { description: 'quotes " and \\ and\nnewlines', flags: [{ kind: 'injection', rule: 'ignore-previous', line: 3 }] }),
    file('/memories/workspace/e.md', { lastWriteBy: 'person', accessCount: 1 }),
  ],
  scopes: [
    { scope: 'global', available: true, reason: null },
    { scope: 'project', available: true, reason: null },
    { scope: 'workspace', available: false, reason: 'the host is unreachable.' },
  ],
};

describe('memory list wire encoding', () => {
  it('gives back exactly what it was given: usage, flags, every actor, odd text, an empty list', () => {
    expect(decodeMemoryList(encodeMemoryList(list))).toEqual(list);
    const empty: MemoryListOutput = { files: [], scopes: list.scopes };
    expect(decodeMemoryList(encodeMemoryList(empty))).toEqual(empty);
  });

  it('round-trips through oRPC serialization as one string, and leaves other answers alone', () => {
    const serializer = new StandardRPCJsonSerializer({ customJsonSerializers: apiJsonSerializers });
    const [json, meta] = serializer.serialize(list);
    expect(typeof json).toBe('string');
    expect(meta).toEqual([[MEMORY_LIST_WIRE_TYPE]]);
    expect(serializer.deserialize(JSON.parse(JSON.stringify(json)), meta)).toEqual(list);

    for (const other of [{ files: [], scopes: [], extra: 1 }, { files: [{ path: '/memories/global/a.md' }], scopes: [] }, [list.files[0]], { status: 'ok', message: 'Created' }]) {
      const [plain, otherMeta] = serializer.serialize(other);
      expect(otherMeta).toEqual([]);
      expect(plain).toEqual(other);
    }
  });

  it('is much smaller than the same list as objects when most files are plain', () => {
    const big: MemoryListOutput = {
      files: Array.from({ length: 1000 }, (_, i) => file(`/memories/project/topic-${i % 10}/note-${i}.md`, { description: `How build work is done, note ${i}`, ...(i % 10 === 0 ? { accessCount: 3, lastAccessedAt: '2026-11-20T10:00:00.000Z' } : {}) })),
      scopes: list.scopes,
    };
    expect(encodeMemoryList(big).length).toBeLessThan(JSON.stringify(big).length * 0.6);
  });

  it('gives the list decoded before when the same text comes again, and decodes a changed one afresh', () => {
    const wire = encodeMemoryList(list);
    const first = decodeMemoryList(wire);
    // A copy of the text, as a second answer off the socket would be: equal, not the same string.
    expect(decodeMemoryList(` ${wire}`.slice(1))).toBe(first);
    const pinned: MemoryListOutput = { ...list, files: list.files.map((f, i) => (i === 0 ? { ...f, pinned: !f.pinned } : f)) };
    const changed = decodeMemoryList(encodeMemoryList(pinned));
    expect(changed).not.toBe(first);
    expect(changed).toEqual(pinned);
    // The view's list, still known after another view's was decoded.
    expect(decodeMemoryList(wire)).toBe(first);
  });

  it('refuses a damaged column set with a clear error', () => {
    const cols = JSON.parse(encodeMemoryList(list)) as Record<string, unknown[]>;
    const damaged = [
      { ...cols, v: 2 },
      { ...cols, size: cols.size!.slice(1) },
      { ...cols, scope: [9, ...cols.scope!.slice(1)] },
      { ...cols, usage: [[99, 1, 1, null, null, null]] },
      { ...cols, flags: [[0, 'nope']] },
    ];
    for (const d of damaged) expect(() => decodeMemoryList(JSON.stringify(d))).toThrow(/Malformed memory list from the server/);
    expect(() => decodeMemoryList({ files: [] })).toThrow(/not a string/);
  });
});
