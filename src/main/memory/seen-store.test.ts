// The seen marks and the badges derived from them, on the real filesystem: a real MemoryService
// writing into a real version history (on a fake clock), marks written by this process and by two
// others at once, and files damaged in the ways a crash or a person can damage them (set aside and
// reported, never replaced unseen).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { captureStderr } from '../../../tests/support/stderr';
import { HistoryStore } from '../history/history-store';
import { setAsideDamaged, TEMP_PREFIX } from '../runtime/local/atomic-write';
import { MemoryService } from './memory-service';
import { lookedView, SEEN_FILE, SeenStore } from './seen-store';

let sb: Sandbox;
let now: number;
let history: HistoryStore;
let service: MemoryService;
let seen: SeenStore;
const tick = () => (now += 1_000);

beforeEach(async () => {
  sb = await makeSandbox();
  now = Date.parse('2025-03-01T10:00:00.000Z');
  history = new HistoryStore(sb.home, { now: () => now });
  service = new MemoryService({ history });
  seen = new SeenStore(sb.home, { now: () => now });
});
afterEach(async () => {
  await sb.cleanup();
});

const as = (actor: 'agent' | 'person', command: unknown) => {
  tick();
  return service.run(command as never, sb.session, { mode: 'exec', actor });
};
const open = (p: string) => {
  tick();
  const scope = p.split('/')[2] as 'global' | 'project' | 'workspace';
  return seen.markSeen(sb.session.workspaceId, scope, p);
};
const badges = () =>
  seen
    .badges(sb.session, history)
    .map((b) => `${b.path} ${b.badge}`)
    .sort();

describe('badges from the history and the seen marks', () => {
  it("an agent's change badges the file until the person opens it; the next change badges it again", async () => {
    await as('agent', { command: 'create', path: '/memories/project/a.md', file_text: 'one\n' });
    await as('person', { command: 'create', path: '/memories/project/mine.md', file_text: 'mine\n' });
    expect(badges()).toEqual(['/memories/project/a.md agent']);
    await open('/memories/project/a.md');
    expect(badges()).toEqual([]);
    await as('agent', { command: 'str_replace', path: '/memories/project/a.md', old_str: 'one', new_str: 'two' });
    expect(badges()).toEqual(['/memories/project/a.md agent']);
    // The person's own later change does not count as having seen the agent's.
    await as('person', { command: 'str_replace', path: '/memories/project/a.md', old_str: 'two', new_str: 'three' });
    expect(badges()).toEqual(['/memories/project/a.md agent']);
  });

  it('a change during the read that marked the file seen badges it again (the mark is the time before the read)', async () => {
    await as('agent', { command: 'create', path: '/memories/global/g.md', file_text: 'g\n' });
    tick();
    const stamp = seen.stamp(); // taken when the read began
    await as('agent', { command: 'str_replace', path: '/memories/global/g.md', old_str: 'g', new_str: 'h' });
    await seen.markSeen(sb.session.workspaceId, 'global', '/memories/global/g.md', stamp);
    expect(badges()).toEqual(['/memories/global/g.md agent']);
  });

  it('follows renames: the badge moves with the file, and so does an open made before the rename', async () => {
    await as('agent', { command: 'create', path: '/memories/project/a.md', file_text: 'a\n' });
    await as('agent', { command: 'create', path: '/memories/project/b.md', file_text: 'b\n' });
    await open('/memories/project/b.md');
    await as('person', { command: 'rename', old_path: '/memories/project/a.md', new_path: '/memories/project/dir/a2.md' });
    await as('person', { command: 'rename', old_path: '/memories/project/b.md', new_path: '/memories/project/b2.md' });
    expect(badges()).toEqual(['/memories/project/dir/a2.md agent']);
    // An agent's rename is a change of the agent's.
    await as('agent', { command: 'rename', old_path: '/memories/project/b2.md', new_path: '/memories/project/b3.md' });
    expect(badges()).toEqual(['/memories/project/b3.md agent', '/memories/project/dir/a2.md agent']);
  });

  it('a deleted file has no badge, and a file made again at its path is new', async () => {
    await as('agent', { command: 'create', path: '/memories/workspace/w.md', file_text: 'w\n' });
    await as('agent', { command: 'delete', path: '/memories/workspace/w.md' });
    expect(badges()).toEqual([]);
    await as('person', { command: 'create', path: '/memories/workspace/w.md', file_text: 'again\n' });
    expect(badges()).toEqual([]);
  });

  it('says "outside Cairn" for an outside edit recorded in the history', async () => {
    tick();
    history.record([{ owner: 'global', scope: 'global', path: '/memories/global/x.md', op: 'create', before: null, after: new TextEncoder().encode('x'), actor: 'external', cause: 'external', workspaceId: null, projectId: null }]);
    expect(badges()).toEqual(['/memories/global/x.md external']);
  });

  it('keys project and workspace files by the view they are seen from, global files by their path alone', async () => {
    await as('agent', { command: 'create', path: '/memories/global/g.md', file_text: 'g\n' });
    await as('agent', { command: 'create', path: '/memories/project/p.md', file_text: 'p\n' });
    // Opened from another workspace: the global file is the same file there, the project file is not this view's.
    tick();
    await seen.markSeen('another-workspace', 'global', '/memories/global/g.md');
    await seen.markSeen('another-workspace', 'project', '/memories/project/p.md');
    expect(badges()).toEqual(['/memories/project/p.md agent']);
  });

  it('a mark survives a new store on the same home (a restart)', async () => {
    await as('agent', { command: 'create', path: '/memories/project/a.md', file_text: 'a\n' });
    await open('/memories/project/a.md');
    expect(new SeenStore(sb.home).badges(sb.session, new HistoryStore(sb.home))).toEqual([]);
  });
});

describe('"Mark all seen": when the person last looked over a view', () => {
  it('is kept per view, never goes back, survives a restart, and leaves every badge in place', async () => {
    await as('agent', { command: 'create', path: '/memories/project/a.md', file_text: 'a\n' });
    expect(seen.lookedAt(lookedView(sb.session.workspaceId))).toBeNull();
    tick();
    const at = await seen.markLooked(lookedView(sb.session.workspaceId));
    expect(at).toBe(new Date(now).toISOString());
    // An earlier mark arriving late keeps the later one.
    expect(await seen.markLooked(lookedView(sb.session.workspaceId), '2025-01-01T00:00:00.000Z')).toBe(at);
    expect(new SeenStore(sb.home).lookedAt(lookedView(sb.session.workspaceId))).toBe(at);
    // Another view has its own; the badge stays until the file is opened.
    expect(seen.lookedAt(lookedView(null))).toBeNull();
    expect(badges()).toEqual(['/memories/project/a.md agent']);
  });
});

describe('the file', () => {
  const file = () => path.join(sb.home, SEEN_FILE);

  it('is written whole, mode 0600, with no temp files left', async () => {
    await open('/memories/global/a.md');
    expect(fs.statSync(file()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({ version: 1, files: { '/memories/global/a.md': new Date(now).toISOString() } });
    expect(fs.readdirSync(sb.home).filter((n) => n.endsWith('.tmp') || n.startsWith(TEMP_PREFIX))).toEqual([]);
  });

  it.each([
    ['torn mid-write', '{\n "version": 1,\n "files": {\n  "/memories/global/a.md": "2025-03-01T1'],
    ['not JSON at all', '\u0000\u0001garbage'],
    ['JSON of another shape', '[1, 2, 3]'],
    ['null', 'null'],
    ['marks that are not times', '{"version":1,"files":{"/memories/global/a.md":"yesterday","/memories/global/b.md":42}}'],
    ['a directory', null],
  ])('sets a file %s aside as seen.json.damaged-<time>, says so, and reads it as no marks (badges show again)', async (_what, text) => {
    await as('agent', { command: 'create', path: '/memories/global/a.md', file_text: 'a\n' });
    fs.mkdirSync(sb.home, { recursive: true });
    if (text === null) fs.mkdirSync(file());
    else fs.writeFileSync(file(), text);
    const said = captureStderr();
    try {
      expect(badges()).toEqual(['/memories/global/a.md agent']);
    } finally {
      said.restore();
    }
    const aside = fs.readdirSync(sb.home).filter((n) => n.startsWith(`${SEEN_FILE}.damaged-`));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^seen\.json\.damaged-\d{8}T\d{6}Z$/);
    // What was there is kept as it was, and the person is told where.
    if (text !== null) expect(fs.readFileSync(path.join(sb.home, aside[0]!), 'utf8')).toBe(text);
    expect(said.text()).toContain(`${file()} could not be read`);
    expect(said.text()).toContain(path.join(sb.home, aside[0]!));
    await open('/memories/global/b.md');
    expect(Object.keys(JSON.parse(fs.readFileSync(file(), 'utf8')).files)).toEqual(['/memories/global/b.md']);
    expect(fs.readdirSync(sb.home).filter((n) => n.startsWith(`${SEEN_FILE}.damaged-`))).toEqual(aside);
  });

  it('sets aside only the damaged file it read, not a good one written since', () => {
    fs.mkdirSync(sb.home, { recursive: true });
    fs.writeFileSync(file(), '{"files":');
    const damaged = fs.statSync(file(), { bigint: true });
    fs.writeFileSync(`${file()}.new`, '{"version":1,"files":{}}\n');
    fs.renameSync(`${file()}.new`, file());
    const said = captureStderr();
    try {
      expect(setAsideDamaged(file(), 'torn', damaged)).toBeNull();
    } finally {
      said.restore();
    }
    expect(fs.readFileSync(file(), 'utf8')).toBe('{"version":1,"files":{}}\n');
    expect(said.text()).toBe('');
  });

  it('keeps a later mark when an earlier one arrives after it', async () => {
    tick();
    const later = seen.stamp();
    await seen.markSeen(null, 'global', '/memories/global/a.md', later);
    await seen.markSeen(null, 'global', '/memories/global/a.md', '2025-01-01T00:00:00.000Z');
    expect(seen.read().get('/memories/global/a.md')).toBe(later);
  });

  it('loses no mark when two processes mark files at the same time', async () => {
    const moduleUrl = new URL('./seen-store.ts', import.meta.url).href;
    const marker = (who: string) =>
      new Promise<void>((resolve, reject) => {
        const script = `const { SeenStore } = await import(${JSON.stringify(moduleUrl)});
const store = new SeenStore(${JSON.stringify(sb.home)});
await Promise.all(Array.from({ length: 40 }, (_, i) => store.markSeen(${JSON.stringify(who)}, 'project', '/memories/project/f' + i + '.md')));`;
        // Node 20 runs the TypeScript module through the tsx loader the repository's tests use.
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd() });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${err}`))));
      });
    await Promise.all([marker('one'), marker('two')]);
    const marks = seen.read();
    expect(marks.size).toBe(80);
    for (const who of ['one', 'two']) for (let i = 0; i < 40; i++) expect(marks.has(`${who}:/memories/project/f${i}.md`)).toBe(true);
  }, 30_000);
});
