// Homes written before the person's actor was called `person` say `user` in their stored lines:
// the history's log, the change journal and the usage file. Each is read here from such a line on
// a real temp home, and the change shows as the person's, exactly as a line written now.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, JOURNAL_DIR, JOURNAL_FILE, journalLine, type JournalEvent } from '../../src/main/journal/journal';
import { HistoryStore } from '../../src/main/history/history-store';

let home: string;
beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-person-')));
});
afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

describe('a stored line whose actor is the older name `user`', () => {
  it('in the history log: listed as the person\'s version', () => {
    const store = new HistoryStore(home);
    store.record([{ owner: 'global', scope: 'global', path: '/memories/global/mine.md', op: 'create', before: null, after: new TextEncoder().encode('mine\n'), actor: 'person', cause: 'ui', workspaceId: null, projectId: null }]);
    const log = path.join(home, 'history', 'log.jsonl');
    const text = fs.readFileSync(log, 'utf8');
    expect(text).toContain('"actor":"person"');
    // The same line as an older Cairn wrote it.
    fs.writeFileSync(log, text.replace('"actor":"person"', '"actor":"user"'));
    const versions = new HistoryStore(home).list();
    expect(versions.map((v) => [v.path, v.op, v.actor, v.cause])).toEqual([['/memories/global/mine.md', 'create', 'person', 'ui']]);
  });

  it('in the change journal: delivered as the person\'s change', async () => {
    const journal = new Journal(home);
    const seen: JournalEvent[] = [];
    const stop = journal.tail((e) => seen.push(e), { pollMs: 10 });
    try {
      const event = { scope: 'global', path: '/memories/global/mine.md', op: 'update', actor: 'person', workspaceId: null, projectId: null, sha256: null, at: new Date(0).toISOString() } as const;
      // Another process's line (the tail skips its own pid), as an older Cairn wrote it.
      const line = journalLine(event, process.pid + 1).replace('"actor":"person"', '"actor":"user"');
      expect(line).toContain('"actor":"user"');
      fs.appendFileSync(path.join(home, JOURNAL_DIR, JOURNAL_FILE), line);
      await expect.poll(() => seen.length).toBe(1);
      expect(seen[0]).toMatchObject({ path: '/memories/global/mine.md', op: 'update', actor: 'person' });
    } finally {
      stop();
    }
  });
});
