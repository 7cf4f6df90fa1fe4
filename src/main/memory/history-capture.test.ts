// What MemoryService hands the version history for each change: the bytes each file held
// before and holds after, captured under the scope's lock, on the real filesystem (LocalRuntime).
// A seeded random mix of the six commands and a person's saves: after every change, each recorded
// file's `after` is exactly what the disk holds, and its `before` what the disk held just before.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { seededRandom } from '../../../tests/support/random';
import { RUNTIME_KINDS, suiteRuntime } from '../../../tests/support/ssh';
import type { HistoryChange, HistorySink } from './history-capture';
import { MemoryService } from './memory-service';

const decode = (b: Uint8Array | null | 'unknown') => (b === null || b === 'unknown' ? b : new TextDecoder().decode(b));

// Batches are recorded before their change is made; one taken back (abandoned) is forgotten.
class ListSink implements HistorySink {
  readonly batches: HistoryChange[][] = [];
  private readonly ids: string[] = [];
  prepare(changes: readonly HistoryChange[], supersedes: string | null): string[] {
    if (supersedes !== null) this.abandon(supersedes);
    this.batches.push([...changes]);
    const id = `b${Math.random().toString(36).slice(2)}`;
    this.ids.push(`${id}-0`);
    return changes.map((_, i) => `${id}-${i}`);
  }
  abandon(batch: string): void {
    const k = this.ids.indexOf(batch);
    if (k < 0) return;
    this.ids.splice(k, 1);
    this.batches.splice(k, 1);
  }
  get last(): Array<Record<string, unknown>> {
    return this.batches.at(-1)!.map((c) => ({ ...c, before: decode(c.before), after: decode(c.after) }));
  }
}

let sb: Sandbox;
let sink: ListSink;
let service: MemoryService;
const run = async (input: Record<string, unknown>) => {
  const r = await service.execute(input, sb.session, { mode: 'exec', actor: 'agent' });
  if (!r.ok) throw new Error(r.output);
  return r.output;
};

// The same over SSH, where a delete's and a rename's bytes come back with the remote operation.
describe.each(RUNTIME_KINDS)('the history of each change, over the %s runtime', (kind) => {
  const runtime = suiteRuntime(kind);
  beforeEach(async () => {
    sb = await makeSandbox({ runtime: runtime() });
    sink = new ListSink();
    service = new MemoryService({ history: sink });
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('records create, str_replace and insert with the bytes before and after, owner and cause', async () => {
    await run({ command: 'create', path: '/memories/project/a.md', file_text: 'one\n' });
    expect(sink.last).toEqual([
      expect.objectContaining({ owner: `project:${sb.session.projectId}`, scope: 'project', path: '/memories/project/a.md', op: 'create', before: null, after: 'one\n', actor: 'agent', cause: 'tool' }),
    ]);
    await run({ command: 'str_replace', path: '/memories/project/a.md', old_str: 'one', new_str: 'two' });
    expect(sink.last).toEqual([expect.objectContaining({ op: 'update', before: 'one\n', after: 'two\n' })]);
    await run({ command: 'insert', path: '/memories/project/a.md', insert_line: 0, insert_text: 'zero' });
    expect(sink.last).toEqual([expect.objectContaining({ op: 'update', before: 'two\n', after: 'zero\ntwo\n' })]);
  });

  it('records a failed command as nothing', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' });
    const r = await service.execute({ command: 'str_replace', path: '/memories/global/a.md', old_str: 'absent', new_str: 'x' }, sb.session, { mode: 'exec', actor: 'agent' });
    expect(r.ok).toBe(false);
    expect(sink.batches).toHaveLength(1);
  });

  it('records a delete of a directory as one batch, a file each, with the bytes it took away', async () => {
    await run({ command: 'create', path: '/memories/global/d/a.md', file_text: 'A\n' });
    await run({ command: 'create', path: '/memories/global/d/deep/b.md', file_text: 'B\n' });
    await run({ command: 'delete', path: '/memories/global/d' });
    expect(sink.last.map((c) => [c.path, c.op, c.before, c.after])).toEqual([
      ['/memories/global/d/a.md', 'delete', 'A\n', null],
      ['/memories/global/d/deep/b.md', 'delete', 'B\n', null],
    ]);
  });

  it('records a rename of a directory as each file’s move, with its bytes', async () => {
    await run({ command: 'create', path: '/memories/workspace/d/a.md', file_text: 'A\n' });
    await run({ command: 'rename', old_path: '/memories/workspace/d', new_path: '/memories/workspace/e/f' });
    expect(sink.last.map((c) => [c.oldPath, c.path, c.op, c.before, c.after])).toEqual([['/memories/workspace/d/a.md', '/memories/workspace/e/f/a.md', 'rename', 'A\n', 'A\n']]);
  });

  it('records a person’s save with cause ui, and no change for a save that conflicts', async () => {
    const saved = await service.save('/memories/global/n.md', 'first\n', null, sb.session);
    expect(saved.status).toBe('ok');
    expect(sink.last).toEqual([expect.objectContaining({ op: 'create', before: null, after: 'first\n', actor: 'person', cause: 'ui' })]);
    const again = await service.save('/memories/global/n.md', 'second\n', saved.status === 'ok' ? saved.sha256 : '', sb.session);
    expect(again.status).toBe('ok');
    expect(sink.last).toEqual([expect.objectContaining({ op: 'update', before: 'first\n', after: 'second\n' })]);
    expect((await service.save('/memories/global/n.md', 'third\n', saved.status === 'ok' ? saved.sha256 : '', sb.session)).status).toBe('conflict');
    expect(sink.batches).toHaveLength(2);
  });

  it('matches the disk after every change of a random mix, before and after', async () => {
    const random = seededRandom(18);
    const names = ['a.md', 'b.md', 'd/c.md', 'd/e/f.md', 'g.md'];
    const onDisk = async (p: string) => fs.readFile(path.join(sb.roots.global, p.replace('/memories/global/', '')), 'utf8').catch(() => null);
    const snapshot = async () => new Map<string, string | null>(await Promise.all(names.map(async (n) => [`/memories/global/${n}`, await onDisk(`/memories/global/${n}`)] as [string, string | null])));
    let before = await snapshot();
    for (let step = 0; step < 200; step++) {
      const name = names[Math.floor(random() * names.length)]!;
      const p = `/memories/global/${name}`;
      const exists = before.get(p) !== null;
      const r = random();
      const batches = sink.batches.length;
      try {
        if (!exists) await run({ command: 'create', path: p, file_text: `${name} ${step}\n` });
        else if (r < 0.3) await run({ command: 'str_replace', path: p, old_str: before.get(p)!.trimEnd(), new_str: `${name} edited ${step}` });
        else if (r < 0.45) await run({ command: 'insert', path: p, insert_line: 0, insert_text: `line ${step}` });
        else if (r < 0.6) await run({ command: 'delete', path: random() < 0.3 && name.startsWith('d/') ? '/memories/global/d' : p });
        else if (r < 0.75) {
          const to = names[Math.floor(random() * names.length)]!;
          if (before.get(`/memories/global/${to}`) === null) await run({ command: 'rename', old_path: p, new_path: `/memories/global/${to}` });
        } else {
          const current = await service.read(p, sb.session);
          await service.save(p, `${current.content}saved ${step}\n`, current.sha256, sb.session);
        }
      } catch {
        // A command the random mix made invalid (an old_str found twice): it must record nothing.
        expect(sink.batches.length).toBe(batches);
      }
      const after = await snapshot();
      for (const batch of sink.batches.slice(batches)) {
        for (const c of batch) {
          if (c.oldPath) expect(decode(c.before)).toBe(before.get(c.oldPath) ?? null);
          else expect(decode(c.before)).toBe(before.get(c.path) ?? null);
          expect(decode(c.after)).toBe(after.get(c.path) ?? null);
          if (c.oldPath) expect(after.get(c.oldPath) ?? null).toBeNull();
        }
      }
      before = after;
    }
    expect(sink.batches.length).toBeGreaterThan(100);
  });
});
