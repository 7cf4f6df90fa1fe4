// The home's side files watched on the real filesystem: a pin flushed by another store (another
// process's, as `cairn pin` makes it) and a seen mark are each reported, by which file changed;
// files that come and go beside them (temp files, locks) are not. Waits are for the reports.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { SeenStore } from '../memory/seen-store';
import { UsageStore } from '../memory/usage-store';
import { MetaWatcher, type MetaChange } from './meta-watcher';

let sb: Sandbox;
let watcher: MetaWatcher;
let reports: MetaChange[];
let waiting: Array<() => void>;

/** Resolves once `n` reports have arrived. */
const reported = (n: number) =>
  new Promise<void>((resolve) => {
    const check = () => (reports.length >= n ? resolve() : waiting.push(check));
    check();
  });

beforeEach(async () => {
  sb = await makeSandbox();
  fs.mkdirSync(sb.home, { recursive: true });
  reports = [];
  waiting = [];
  watcher = new MetaWatcher(sb.home, { settleMs: 10 });
  watcher.subscribe((what) => {
    reports.push(what);
    for (const w of waiting.splice(0)) w();
  });
});
afterEach(async () => {
  watcher.close();
  await sb.cleanup();
});

describe('MetaWatcher', () => {
  it('reports a pin flushed by another store, then a seen mark, and not the files beside them', async () => {
    const other = new UsageStore(sb.home);
    other.record({ type: 'pin', id: 'global:a.md', pinned: true, at: new Date().toISOString() });
    await other.flush();
    await reported(1);
    expect(reports).toEqual(['usage']);

    // A temp file and a lock beside the files change nothing that is reported; the mark after them is.
    fs.writeFileSync(path.join(sb.home, 'memory-meta.json.123-abcd.tmp'), 'x');
    fs.rmSync(path.join(sb.home, 'memory-meta.json.123-abcd.tmp'));
    await new SeenStore(sb.home).markSeen(null, 'global', '/memories/global/a.md');
    await reported(2);
    expect(reports).toEqual(['usage', 'seen']);
  });
});
