// Undo through the real history, on the real disk: a seeded mix of commands and saves,
// then every recorded batch undone newest first, gives back a tree byte-identical to the start;
// an undo meets a file changed since with a conflict and changes nothing; an undo can be undone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { seededRandom } from '../../../tests/support/random';
import { RUNTIME_KINDS, suiteRuntime } from '../../../tests/support/ssh';
import { scopeOwner } from '../../common/memory/identity';
import { HistoryStore, type HistoryVersion } from '../history/history-store';
import { RuntimeError } from '../runtime/runtime';
import type { UndoStep } from './history-undo';
import { MemoryService } from './memory-service';
import { fileTree } from '../../../tests/support/file-tree';

let sb: Sandbox;
let history: HistoryStore;
let service: MemoryService;
const run = (input: Record<string, unknown>) => service.execute(input, sb.session, { mode: 'exec', actor: 'agent' });

// Over SSH the bytes a delete or a rename takes come back from the remote helper in the same
// request (Runtime.remove/rename with capture); the undo must give back the same tree.

const tree = (): Record<string, string> => fileTree(sb.roots.global, { encoding: 'utf8', dirs: 'empty' });

const bytes = (sha: string | null | 'unknown') => (sha === null ? null : history.readBlob(sha as string)!);
const stepsOf = (batch: readonly HistoryVersion[]): UndoStep[] =>
  batch.map((v) => ({ path: v.path, ...(v.oldPath !== undefined ? { oldPath: v.oldPath } : {}), op: v.op, before: bytes(v.before), after: bytes(v.after) }));
const batches = () => {
  const seen = new Map<string, HistoryVersion[]>();
  for (const v of history.list({ owner: scopeOwner('global', sb.session)! })) (seen.get(v.batch) ?? seen.set(v.batch, []).get(v.batch)!).push(v);
  return [...seen.values()]; // newest batch first
};

describe.each(RUNTIME_KINDS)('undo over the %s runtime', (kind) => {
  const runtime = suiteRuntime(kind);
  beforeEach(async () => {
    sb = await makeSandbox({ runtime: runtime() });
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('undoes every change of a random mix, newest first, back to a byte-identical start', async () => {
    await run({ command: 'create', path: '/memories/global/start.md', file_text: 'the start\n' });
    const start = tree();
    const startBatches = batches().length;
    const random = seededRandom(1818);
    const names = ['a.md', 'b.md', 'd/c.md', 'd/e/f.md'];
    for (let step = 0; step < 120; step++) {
      const name = names[Math.floor(random() * names.length)]!;
      const p = `/memories/global/${name}`;
      const exists = tree()[name] !== undefined;
      const r = random();
      if (!exists) await run({ command: 'create', path: p, file_text: `${name} ${step}\n` });
      else if (r < 0.3) await run({ command: 'str_replace', path: p, old_str: tree()[name]!.split('\n')[0]!, new_str: `${name} edit ${step}` });
      else if (r < 0.45) await run({ command: 'insert', path: p, insert_line: 0, insert_text: `line ${step}` });
      else if (r < 0.6) await run({ command: 'delete', path: random() < 0.4 && name.startsWith('d/') ? '/memories/global/d' : p });
      else if (r < 0.75) await run({ command: 'rename', old_path: p, new_path: `/memories/global/moved-${step}.md` });
      else {
        const current = await service.read(p, sb.session);
        await service.save(p, `${current.content}saved ${step}\n`, current.sha256, sb.session);
      }
    }
    const all = batches();
    expect(all.length - startBatches).toBeGreaterThan(100);
    for (const batch of all.slice(0, all.length - startBatches)) {
      const outcome = await service.undo(stepsOf(batch), `undo:${batch[0]!.batch}`, sb.session);
      expect(outcome).toMatchObject({ status: 'ok' });
    }
    expect(tree()).toEqual(start);
  });

  it('takes away the directories a create or a rename made, and only those left empty', async () => {
    await run({ command: 'create', path: '/memories/global/start.md', file_text: 'the start\n' });
    fs.mkdirSync(path.join(sb.roots.global, 'kept'));
    fs.writeFileSync(path.join(sb.roots.global, 'kept', '.hidden'), 'a person put this here\n');
    const start = tree();
    await run({ command: 'create', path: '/memories/global/a/b/c.md', file_text: 'deep\n' });
    await run({ command: 'create', path: '/memories/global/kept/x.md', file_text: 'beside a hidden file\n' });
    await run({ command: 'rename', old_path: '/memories/global/start.md', new_path: '/memories/global/moved/here/start.md' });
    expect(Object.keys(tree())).toEqual(expect.arrayContaining(['a/b/c.md', 'moved/here/start.md']));
    for (const batch of batches().slice(0, 3)) expect((await service.undo(stepsOf(batch), 'undo:test', sb.session)).status).toBe('ok');
    // a/, a/b/, moved/ and moved/here/ are gone; kept/ keeps the file listings never show.
    expect(tree()).toEqual(start);
  });

  it('refuses a file changed since, naming it, and changes nothing', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' });
    await run({ command: 'str_replace', path: '/memories/global/a.md', old_str: 'one', new_str: 'two' });
    const [edit] = batches();
    fs.writeFileSync(path.join(sb.roots.global, 'a.md'), 'changed outside\n');
    expect(await service.undo(stepsOf(edit!), 'undo:x', sb.session)).toMatchObject({ status: 'conflict', kind: 'changed', path: '/memories/global/a.md' });
    expect(tree()).toEqual({ 'a.md': 'changed outside\n' });
    fs.rmSync(path.join(sb.roots.global, 'a.md'));
    expect(await service.undo(stepsOf(edit!), 'undo:x', sb.session)).toMatchObject({ status: 'conflict', kind: 'deleted' });
    expect(tree()).toEqual({});
  });

  it('is all or nothing for a batch: one file made again blocks a directory delete’s undo', async () => {
    await run({ command: 'create', path: '/memories/global/d/a.md', file_text: 'A\n' });
    await run({ command: 'create', path: '/memories/global/d/b.md', file_text: 'B\n' });
    await run({ command: 'delete', path: '/memories/global/d' });
    const [removal] = batches();
    expect(removal).toHaveLength(2);
    fs.mkdirSync(path.join(sb.roots.global, 'd'));
    fs.writeFileSync(path.join(sb.roots.global, 'd', 'b.md'), 'new B\n');
    expect(await service.undo(stepsOf(removal!), 'undo:x', sb.session)).toMatchObject({ status: 'conflict', kind: 'exists', path: '/memories/global/d/b.md' });
    expect(tree()).toEqual({ 'd/b.md': 'new B\n' });
    fs.rmSync(path.join(sb.roots.global, 'd'), { recursive: true });
    expect(await service.undo(stepsOf(removal!), `undo:${removal![0]!.batch}`, sb.session)).toMatchObject({ status: 'ok' });
    expect(tree()).toEqual({ 'd/a.md': 'A\n', 'd/b.md': 'B\n' });
  });

  it('is itself a change in the history, recorded as one batch by the person, and can be undone', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' });
    await run({ command: 'str_replace', path: '/memories/global/a.md', old_str: 'one', new_str: 'two' });
    const [edit] = batches();
    await service.undo(stepsOf(edit!), `undo:${edit![0]!.batch}`, sb.session);
    expect(tree()).toEqual({ 'a.md': 'one\n' });
    const [undo] = batches();
    expect(undo).toHaveLength(1);
    expect(undo![0]).toMatchObject({ actor: 'person', cause: `undo:${edit![0]!.batch}`, op: 'update' });
    await service.undo(stepsOf(undo!), `undo:${undo![0]!.batch}`, sb.session);
    expect(tree()).toEqual({ 'a.md': 'two\n' });
  });
});

describe('undo that fails midway', () => {
  beforeEach(async () => {
    sb = await makeSandbox();
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  // A full disk cannot be produced on demand here: the runtime's writeFile is wrapped to fail
  // with ENOSPC on its second call (a fault only a stand-in can make); everything else is real.
  it('takes back what it had put back, records nothing, and says why', async () => {
    await run({ command: 'create', path: '/memories/global/d/a.md', file_text: 'A\n' });
    await run({ command: 'create', path: '/memories/global/d/b.md', file_text: 'B\n' });
    await run({ command: 'create', path: '/memories/global/d/c.md', file_text: 'C\n' });
    await run({ command: 'delete', path: '/memories/global/d' });
    const [removal] = batches();
    expect(removal).toHaveLength(3);
    const before = batches().length;
    const binding = sb.session.scopes.global;
    if (!binding.available) throw new Error('global scope unavailable');
    const real = binding.runtime;
    let writes = 0;
    const failing = Object.create(real) as typeof real;
    failing.writeFile = async (...args: Parameters<typeof real.writeFile>) => {
      if (++writes === 2) throw new RuntimeError('IO', 'ENOSPC');
      return real.writeFile(...args);
    };
    const session = { ...sb.session, scopes: { ...sb.session.scopes, global: { ...binding, runtime: failing } } };
    await expect(service.undo(stepsOf(removal!), `undo:${removal![0]!.batch}`, session)).rejects.toThrow();
    expect(tree()).toEqual({});
    expect(batches().length).toBe(before);
    // The disk has room again: the same undo brings all three back.
    expect(await service.undo(stepsOf(removal!), `undo:${removal![0]!.batch}`, sb.session)).toMatchObject({ status: 'ok' });
    expect(tree()).toEqual({ 'd/a.md': 'A\n', 'd/b.md': 'B\n', 'd/c.md': 'C\n' });
  });
});
