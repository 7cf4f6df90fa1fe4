// Outside edits recorded in the version history, on a real home: an edit found on disk becomes a
// version; one whose version cannot be recorded (the history's log cannot be read) loses only its
// version, says so on stderr (naming the virtual path, no host path), and never throws.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { outsideEditEvent } from '../../common/memory/events';
import { HistoryStore } from '../history/history-store';
import { OutsideEdits } from './outside-edits';

let sb: Sandbox;
let stderr: string[];
beforeEach(async () => {
  sb = await makeSandbox();
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await sb.cleanup();
});

describe('OutsideEdits', () => {
  it('records an edit found on disk, and says so when its version cannot be recorded', async () => {
    fs.mkdirSync(sb.roots.global, { recursive: true });
    fs.writeFileSync(path.join(sb.roots.global, 'a.md'), 'edited in an editor\n');
    const edits = new OutsideEdits(new HistoryStore(sb.home));
    const event = outsideEditEvent('global', ['a.md'], 'create', null, sb.session);
    expect(await edits.record(event, sb.session)).toEqual(expect.any(String));
    expect(stderr).toEqual([]);

    // The history's log can no longer be read (a folder in its place, as a broken disk would leave it).
    const log = path.join(sb.home, 'history', 'log.jsonl');
    fs.rmSync(log);
    fs.mkdirSync(log);
    fs.writeFileSync(path.join(sb.roots.global, 'a.md'), 'edited again\n');
    const again = outsideEditEvent('global', ['a.md'], 'update', null, sb.session);
    expect(await new OutsideEdits(new HistoryStore(sb.home)).record(again, sb.session)).toBeUndefined();
    expect(stderr.join('')).toMatch(/^cairn: an edit made outside Cairn to \/memories\/global\/a\.md could not be recorded in the history \(E[A-Z]+\)\.\n$/);
    expect(stderr.join('')).not.toContain(sb.dir);
  });
});
