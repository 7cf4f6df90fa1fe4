// The InboxStore's bounds and its damaged files, on a real temp folder: it holds at most
// MAX_INBOX_PENDING pending items whoever adds them (a batch is cut at the cap, a change refused
// with a text naming no host path); a listing reads at most that many, newest first, and counts the
// older files it left; a file that is no item (not JSON, not an item's shape, a link, a FIFO, too
// large, misnamed) is listed as damaged with what is wrong, never hidden and never changed; what was
// decided over 90 days ago is removed, at most once a day.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_INBOX_ITEM_BYTES, MAX_INBOX_PENDING } from '../../common/memory/constants';
import type { Candidate } from './candidate';
import { InboxFullError, InboxStore, type ItemSource } from './inbox-store';

let dir: string;
let store: InboxStore;
let clock: number;

const SOURCE: ItemSource = { agent: 'claude', sessionId: 's1', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' };
const candidate = (text: string): Candidate => ({ category: 'fact', text, scope: 'global', evidence: [{ messageId: 'm', quote: text }], confidence: 0.9, rationale: 'r' });
const many = (n: number, from = 0) => Array.from({ length: n }, (_, i) => candidate(`Fact number ${from + i}.`));
const itemsDir = () => path.join(dir, 'inbox', 'items');
const CHANGE = { command: 'create', scope: 'project', path: '/memories/project/a.md', newPath: null, before: null, beforeSha256: null, after: 'a' } as const;
const CHANGE_SOURCE = { workspaceId: null, projectId: null, owner: 'global', cwd: null };

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-inbox-'));
  clock = Date.parse('2026-03-01T10:00:00Z');
  store = new InboxStore(dir, () => clock++);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the inbox cap', () => {
  it('adds the candidates it has room for, up to MAX_INBOX_PENDING pending, and then none', () => {
    expect(store.add(many(MAX_INBOX_PENDING - 3), SOURCE)).toHaveLength(MAX_INBOX_PENDING - 3);
    expect(store.room()).toBe(3);
    const last = store.add(many(10, 1000), SOURCE);
    expect(last.map((i) => i.candidate.text)).toEqual(['Fact number 1000.', 'Fact number 1001.', 'Fact number 1002.']);
    expect(store.room()).toBe(0);
    expect(store.add(many(1, 2000), SOURCE)).toEqual([]);
    expect(fs.readdirSync(itemsDir())).toHaveLength(MAX_INBOX_PENDING);
  });

  it('refuses an agent\u2019s change once full, with a text a model can act on (no host path)', () => {
    store.add(many(MAX_INBOX_PENDING), SOURCE);
    let thrown: unknown;
    try {
      store.addChange(CHANGE, CHANGE_SOURCE);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InboxFullError);
    expect((thrown as Error).message).toMatch(/^Cairn's inbox is full: 500 items already wait for a person's review.*Ask the user to review the inbox/);
    expect((thrown as Error).message).not.toContain(dir);
  });

  it('makes room again as a person decides', () => {
    const items = store.add(many(MAX_INBOX_PENDING), SOURCE);
    store.decide(items[0]!.id, { status: 'rejected' });
    expect(store.room()).toBe(1);
    expect(store.addChange(CHANGE, CHANGE_SOURCE).status).toBe('pending');
  });

  it('lists at most MAX_INBOX_PENDING items, the newest, and counts the older files it did not read', () => {
    // An inbox filled past the cap before there was one: written as files, as an older Cairn did.
    fs.mkdirSync(itemsDir(), { recursive: true });
    const made = store.add(many(MAX_INBOX_PENDING), SOURCE);
    const model = JSON.parse(fs.readFileSync(path.join(itemsDir(), `${made[0]!.id}.json`), 'utf8')) as { id: string };
    for (let i = 0; i < 300; i++) {
      const id = `00000000${i.toString(36).padStart(1, '0')}`.slice(-9) + '-0000abcd';
      fs.writeFileSync(path.join(itemsDir(), `${id}.json`), JSON.stringify({ ...model, id }));
    }
    const listing = store.listing('pending');
    expect(listing.items).toHaveLength(MAX_INBOX_PENDING);
    expect(listing.items[0]!.id).toBe(made[made.length - 1]!.id);
    expect(listing.unread).toBe(300);
    expect(store.room()).toBe(0);
  });
});

describe('damaged item files', () => {
  const write = (name: string, text: string) => {
    fs.mkdirSync(itemsDir(), { recursive: true });
    fs.writeFileSync(path.join(itemsDir(), name), text);
    return path.join(itemsDir(), name);
  };

  it('lists each file that is no item with what is wrong, beside the good items, and leaves it as it is', () => {
    const [good] = store.add([candidate('A good one.')], SOURCE);
    const notJson = write('0mx00000a-0000abcd.json', '{"id": "0mx00000a-0000abcd", "status": "pend');
    const wrongShape = write('0mx00000b-0000abcd.json', JSON.stringify({ id: '0mx00000b-0000abcd', kind: 'memory', createdAt: 'x', status: 'pending', candidate: { text: 5 } }));
    const misnamed = write('notes.json', '{}');
    const otherId = write('0mx00000c-0000abcd.json', JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(itemsDir(), `${good!.id}.json`), 'utf8')), id: '0mx00000d-0000abcd' }));
    write('0mx00000e-0000abcd.json', ' '.repeat(MAX_INBOX_ITEM_BYTES + 1));
    fs.symlinkSync(notJson, path.join(itemsDir(), '0mx00000f-0000abcd.json'));
    execFileSync('mkfifo', [path.join(itemsDir(), '0mx00000g-0000abcd.json')]);
    const before = new Map([notJson, wrongShape, misnamed, otherId].map((f) => [f, fs.readFileSync(f, 'utf8')]));

    const listing = store.listing('pending');
    expect(listing.items.map((i) => i.id)).toEqual([good!.id]);
    expect(Object.fromEntries(listing.damaged.map((d) => [d.id, d.problem]))).toEqual({
      notes: 'its name is not that of an inbox item (an id such as 0mx12inr7-0001214a)',
      '0mx00000g-0000abcd': 'it is not a regular file',
      '0mx00000f-0000abcd': 'it is a symbolic link, not a file Cairn wrote',
      '0mx00000e-0000abcd': `it is ${MAX_INBOX_ITEM_BYTES + 1} bytes, larger than any item Cairn writes (${MAX_INBOX_ITEM_BYTES})`,
      '0mx00000c-0000abcd': 'the id it holds is not its file name',
      '0mx00000b-0000abcd': expect.stringMatching(/^it is JSON, but not an inbox item \(candidate\.category: /),
      '0mx00000a-0000abcd': 'it is not valid JSON',
    });
    expect(listing.damaged.find((d) => d.id === '0mx00000a-0000abcd')).toMatchObject({ file: notJson, createdAt: new Date(parseInt('0mx00000a', 36)).toISOString() });
    // The good item is what the other readers see; nothing was rewritten or removed.
    expect(store.pendingTexts()).toEqual(['A good one.']);
    for (const [f, text] of before) expect(fs.readFileSync(f, 'utf8')).toBe(text);
    expect(fs.readdirSync(itemsDir())).toHaveLength(8);
  });

  it('answers a lookup of a damaged file with its problem, and of a name outside the folder with nothing', () => {
    const file = write('0mx00000a-0000abcd.json', 'not json');
    expect(store.lookup('0mx00000a-0000abcd')).toMatchObject({ file, problem: 'it is not valid JSON' });
    expect(store.get('0mx00000a-0000abcd')).toBeNull();
    write('notes.json', '[]');
    expect(store.lookup('notes')).toMatchObject({ problem: expect.stringMatching(/^its name is not/) });
    expect(store.lookup('../inbox/items/notes')).toBeNull();
    expect(store.lookup('..')).toBeNull();
    expect(store.lookup('0mx00000z-0000abcd')).toBeNull();
  });
});

describe('a folder of items that cannot be read', () => {
  it('is empty only when missing; any other failure is an error saying so, naming no path', () => {
    expect(store.listing()).toEqual({ items: [], damaged: [], unread: 0 });
    // In place of the folder, a file: reading it fails (ENOTDIR), as a folder without read
    // permission does (EACCES: tests/security/unreadable-folders.test.ts, as another user).
    fs.mkdirSync(path.dirname(itemsDir()), { recursive: true });
    fs.writeFileSync(itemsDir(), '');
    for (const read of [() => store.listing(), () => store.list('pending'), () => store.pendingTexts(), () => store.room()]) {
      expect(read).toThrow(/^Cairn cannot read its inbox \(ENOTDIR\)/);
      expect(read).not.toThrow(dir);
    }
    expect(() => store.add([candidate('A new one.')], SOURCE)).toThrow(/cannot read its inbox/);
  });

  it('the record of decided texts: missing is none decided, unreadable is an error, never "none"', () => {
    expect(store.rejectedTexts()).toEqual([]);
    // Read as empty, what the person rejected would be proposed to them again.
    fs.mkdirSync(path.join(dir, 'inbox', 'rejected.jsonl'), { recursive: true });
    expect(() => store.rejectedTexts()).toThrow(/^Cairn cannot read its inbox \(EISDIR\)/);
    expect(() => store.rejectedTexts()).not.toThrow(dir);
    expect(store.approvedTexts()).toEqual([]);
  });
});

describe('housekeeping', () => {
  const DAY = 24 * 60 * 60 * 1000;
  it('removes what was decided over 90 days ago, keeps pending items and recent decisions, and runs at most once a day', () => {
    const [oldApproved, oldRejected, oldPending] = store.add([candidate('Old approved.'), candidate('Old rejected.'), candidate('Old pending.')], SOURCE);
    store.decide(oldApproved!.id, { status: 'approved', to: '/memories/global/facts.md' });
    store.decide(oldRejected!.id, { status: 'rejected' });
    clock += 60 * DAY;
    const [recent] = store.add([candidate('Recently rejected.')], SOURCE);
    store.decide(recent!.id, { status: 'rejected' });
    clock += 31 * DAY;

    expect(store.prune()).toBe(2);
    const left = store.list().map((i) => [i.kind === 'memory' ? i.candidate.text : '', i.status]);
    expect(left.sort()).toEqual([
      ['Old pending.', 'pending'],
      ['Recently rejected.', 'rejected'],
    ]);
    expect(store.get(oldPending!.id)?.status).toBe('pending');
    // The decided texts keep only the last 90 days' lines.
    expect(store.rejectedTexts()).toEqual(['Recently rejected.']);
    expect(fs.readFileSync(path.join(dir, 'inbox', 'rejected.jsonl'), 'utf8')).not.toContain('Old rejected.');
    expect(fs.readFileSync(path.join(dir, 'inbox', 'approved.jsonl'), 'utf8')).toBe('');
    // Again the same day: nothing to do, and nothing read.
    expect(store.prune()).toBeNull();
    clock += DAY;
    expect(store.prune()).toBe(0);
  });
});
