// The inbox's bounds and its damaged files, through the built CLI on a temp home and checkout.
// A 4 MiB Markdown list (about 110,000 entries) once made one pending item per entry (100,000 items,
// 408 MB; `cairn inbox list` then took 4.5 s and 457 MB). Now one import proposes at most
// MAX_IMPORT_PROPOSALS and says how many entries it left out, from which line, and what to do;
// the inbox holds at most MAX_INBOX_PENDING pending items whatever proposes them, and `inbox list`
// stays small and about as fast as on an empty home; an archive (`--from cairn`) holds at most as
// many changes. A damaged item file (not JSON, or not an
// item) is listed as damaged, and showing, approving or rejecting it names the file and what to do,
// leaving it as it is.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_IMPORT_PROPOSALS, MAX_INBOX_PENDING } from '../../src/common/memory/constants';
import { runCairn } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  env = { HOME: path.join(sb.dir, 'userhome'), CAIRN_HOME: sb.home, CODEX_HOME: '', CLAUDE_CONFIG_DIR: '' };
});
afterEach(() => sb.cleanup());

const cairn = (args: string[]) => runCairn(args, { env, cwd: sb.checkout });

async function timed(args: string[]): Promise<{ ms: number; status: number | null; stdout: string; stderr: string }> {
  const start = performance.now();
  const result = await cairn(args);
  return { ms: performance.now() - start, ...result };
}

/** Bytes of every file under `dir`. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += (await fs.stat(path.join(e.parentPath, e.name))).size;
  return total;
}

/** A Markdown list of distinct one-line entries, as long as fits in `bytes`; returns how many. */
async function markdownList(file: string, bytes: number): Promise<number> {
  const lines = ['# Notes', ''];
  let size = lines.join('\n').length + 1;
  for (let i = 0; ; i++) {
    const line = `- Widget ${i} ships from bay ${i % 97}.`;
    if (size + line.length + 1 > bytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  return lines.length - 2;
}

interface ImportJson {
  proposed: Array<{ line: number; id: string | null }>;
  present: Array<{ line: number; reason: string }>;
  leftOut: Array<{ reason: string; entries: number; from: { file: string; line: number }; message: string }>;
}

describe('the inbox bounds, through the CLI', () => {
  it('a 4 MiB Markdown list: one import proposes at most MAX_IMPORT_PROPOSALS and says what it left out; the inbox stops at MAX_INBOX_PENDING; inbox list stays small and fast', async () => {
    const notes = path.join(sb.checkout, 'NOTES.md');
    const entries = await markdownList(notes, 4 * 1024 * 1024 - 1);
    expect(entries).toBeGreaterThan(100_000);
    // How long a listing takes here and now, with nothing in the inbox (the machine may be busy).
    const empty = await timed(['inbox', 'list']);
    expect(empty.stdout).toContain('(the inbox is empty)');

    const first = await timed(['import', '--from', 'markdown', 'NOTES.md', '--scope', 'project']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Read 1 file (NOTES.md): ${entries} entries.\nProposed ${MAX_IMPORT_PROPOSALS} for your review in the inbox.`);
    expect(first.stdout).toContain(
      `${entries - MAX_IMPORT_PROPOSALS} entries (from NOTES.md line ${MAX_IMPORT_PROPOSALS + 3} on) were not proposed: one import proposes at most ${MAX_IMPORT_PROPOSALS}, as many as a person can review at once. Review these in the inbox, then import again (what is already proposed is not proposed twice), or import a smaller file.`,
    );

    // Again: what waits is not proposed twice, the next entries are; in JSON, the same account.
    const second = await cairn(['import', '--from', 'markdown', 'NOTES.md', '--scope', 'project', '--json']);
    expect(second.status, second.stderr).toBe(0);
    const again = JSON.parse(second.stdout) as ImportJson;
    expect(again.present).toHaveLength(MAX_IMPORT_PROPOSALS);
    expect(again.proposed.map((p) => p.line)).toEqual(Array.from({ length: MAX_IMPORT_PROPOSALS }, (_, i) => MAX_IMPORT_PROPOSALS + 3 + i));
    expect(again.leftOut).toEqual([{ reason: 'import-cap', entries: entries - 2 * MAX_IMPORT_PROPOSALS, from: { file: 'NOTES.md', line: 2 * MAX_IMPORT_PROPOSALS + 3 }, message: expect.stringMatching(/were not proposed: one import proposes at most/) }]);

    // The third fills the inbox: what does not fit is left out because the inbox is full.
    const third = JSON.parse((await cairn(['import', '--from', 'markdown', 'NOTES.md', '--scope', 'project', '--json'])).stdout) as ImportJson;
    const room = MAX_INBOX_PENDING - 2 * MAX_IMPORT_PROPOSALS;
    expect(third.proposed).toHaveLength(room);
    expect(third.leftOut).toEqual([
      {
        reason: 'inbox-full',
        entries: entries - 2 * MAX_IMPORT_PROPOSALS - room,
        from: { file: 'NOTES.md', line: 2 * MAX_IMPORT_PROPOSALS + room + 3 },
        message: expect.stringContaining(`were not proposed: Cairn's inbox is full: ${MAX_INBOX_PENDING} items already wait for a person's review`),
      },
    ]);

    // What the inbox holds, and what listing it costs: bounded by the cap, not by the file.
    const inboxBytes = await sizeOf(path.join(sb.home, 'inbox'));
    const list = await timed(['inbox', 'list']);
    const json = await timed(['inbox', 'list', '--json']);
    console.log(
      `  ${entries} entries imported three times: inbox ${(inboxBytes / 1024).toFixed(0)} KiB; inbox list ${list.ms.toFixed(0)} ms, ${(list.stdout.length / 1024).toFixed(0)} KiB; --json ${json.ms.toFixed(0)} ms, ${(json.stdout.length / 1024).toFixed(0)} KiB; empty home ${empty.ms.toFixed(0)} ms`,
    );
    expect(list.status).toBe(0);
    expect(list.stdout.trim().split('\n')).toHaveLength(MAX_INBOX_PENDING + 1);
    expect((JSON.parse(json.stdout) as { items: unknown[]; unread: number }).items).toHaveLength(MAX_INBOX_PENDING);
    expect(inboxBytes).toBeLessThan(MAX_INBOX_PENDING * 4 * 1024);
    expect(list.stdout.length).toBeLessThan(MAX_INBOX_PENDING * 200);
    expect(json.stdout.length).toBeLessThan(MAX_INBOX_PENDING * 2 * 1024);
    // Reading 500 small files is a few tens of milliseconds over starting the CLI; 100,000 took seconds.
    expect(list.ms).toBeLessThan(empty.ms * 2 + 1500);
  }, 180_000);
});

describe('an archive of Cairn memory, through the CLI', () => {
  it('holds at most MAX_IMPORT_PROPOSALS changes and says how many files it left out, from which on', async () => {
    const pack = tar.pack();
    const files = MAX_IMPORT_PROPOSALS + 5;
    for (let i = 0; i < files; i++) pack.entry({ name: `global/n${String(i).padStart(3, '0')}.md`, mode: 0o644 }, `- Note ${i}.\n`);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    const file = path.join(sb.dir, 'memory.tar');
    await fs.writeFile(file, Buffer.concat(chunks));
    const result = await cairn(['import', '--from', 'cairn', file]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`memory.tar: ${files} memory files.\nHeld for your review: ${MAX_IMPORT_PROPOSALS} to create, 0 to replace.`);
    expect(result.stdout).toContain(`5 files (from /memories/global/n${MAX_IMPORT_PROPOSALS}.md on) were not proposed: one import proposes at most ${MAX_IMPORT_PROPOSALS}`);
    const listed = JSON.parse((await cairn(['inbox', 'list', '--json'])).stdout) as { items: unknown[] };
    expect(listed.items).toHaveLength(MAX_IMPORT_PROPOSALS);
  });
});

describe('a damaged inbox item file, through the CLI', () => {
  it('is listed as damaged (text and JSON); show, approve and reject name the file and what to do, and leave it as it is', async () => {
    const notes = path.join(sb.checkout, 'NOTES.md');
    await fs.writeFile(notes, '- Deploys go out on Tuesdays.\n');
    expect((await cairn(['import', '--from', 'markdown', notes, '--scope', 'global'])).status).toBe(0);
    const items = path.join(sb.home, 'inbox', 'items');
    const torn = path.join(items, '0mx13hxjc-00011c9f.json');
    const odd = path.join(items, '0mx13hxjd-00011c9f.json');
    await fs.writeFile(torn, '{"id": "0mx13hxjc-00011c9f", "kind": "memory", "status": "pen');
    await fs.writeFile(odd, JSON.stringify({ id: '0mx13hxjd-00011c9f', kind: 'memory', status: 'pending', createdAt: '2026-01-01T00:00:00Z', text: 'a note without a candidate' }));
    const before = [await fs.readFile(torn, 'utf8'), await fs.readFile(odd, 'utf8')];

    const list = await cairn(['inbox', 'list']);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`0mx13hxjc-00011c9f +\\S+ \\S+ +damaged +- +it is not valid JSON: ${torn}`));
    expect(list.stdout).toMatch(new RegExp(`0mx13hxjd-00011c9f +\\S+ \\S+ +damaged +- +it is JSON, but not an inbox item \\(candidate: `));
    expect(list.stdout).toContain('Deploys go out on Tuesdays.');
    expect(list.stdout).toContain('2 inbox files are damaged: Cairn cannot read them and leaves them as they are. Look at each file; remove it once it holds nothing you need (cairn inbox show ID says more).');

    const json = JSON.parse((await cairn(['inbox', 'list', '--json'])).stdout) as { items: unknown[]; damaged: Array<{ id: string; file: string; problem: string }> };
    expect(json.items).toHaveLength(1);
    expect(json.damaged.map((d) => [d.id, d.file, d.problem])).toEqual([
      ['0mx13hxjd-00011c9f', odd, expect.stringMatching(/^it is JSON, but not an inbox item/)],
      ['0mx13hxjc-00011c9f', torn, 'it is not valid JSON'],
    ]);

    const said = `Error: The inbox item file ${torn} is damaged: it is not valid JSON. Cairn cannot show, approve or reject it and leaves it as it is. Look at it (it is JSON, one item per file); once it holds nothing you need, remove it (rm ${torn}).\n`;
    for (const verb of ['show', 'approve', 'reject']) {
      const r = await cairn(['inbox', verb, '0mx13hxjc-00011c9f']);
      expect([verb, r.status, r.stdout]).toEqual([verb, 1, said]);
    }
    expect([await fs.readFile(torn, 'utf8'), await fs.readFile(odd, 'utf8')]).toEqual(before);
    await expect(fs.readdir(sb.roots.global)).rejects.toThrow();

    // Once the person removes it, it leaves the list.
    await fs.rm(torn);
    expect((await cairn(['inbox', 'list'])).stdout).toContain('1 inbox file is damaged: Cairn cannot read it and leaves it as it is.');
  });
});
