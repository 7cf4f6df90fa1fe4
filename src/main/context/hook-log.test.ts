// The hooks' log (hook-log.ts) on the real disk: one line per failure with its time, 0600 in a 0700
// directory, moved aside past 1 MiB so it never grows without bound, and never a throw.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logHookError } from './hook-log';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-hook-log-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('logHookError', () => {
  it('appends a dated line (the stack indented under it), readable by the person alone', async () => {
    const home = path.join(dir, 'home');
    expect(logHookError(home, 'context-hook', new Error('the disk is gone'), new Date('2026-01-02T03:04:05.000Z'))).toBe(true);
    expect(logHookError(home, 'context-hook', 'a plain string', new Date('2026-01-02T03:04:06.000Z'))).toBe(true);
    const lines = (await fs.readFile(path.join(home, 'logs', 'context-hook.log'), 'utf8')).split('\n');
    expect(lines[0]).toBe('2026-01-02T03:04:05.000Z Error: the disk is gone');
    expect(lines[1]).toMatch(/^ {4,}at /);
    expect(lines.filter((l) => /^\d{4}-/.test(l))).toEqual(['2026-01-02T03:04:05.000Z Error: the disk is gone', '2026-01-02T03:04:06.000Z a plain string']);
    expect((await fs.stat(path.join(home, 'logs'))).mode & 0o777).toBe(0o700);
    expect((await fs.stat(path.join(home, 'logs', 'context-hook.log'))).mode & 0o777).toBe(0o600);
  });

  it('moves a log past 1 MiB aside before writing, so it never grows without bound', async () => {
    const logs = path.join(dir, 'logs');
    await fs.mkdir(logs);
    await fs.writeFile(path.join(logs, 'context-hook.log'), 'x'.repeat(1024 * 1024 + 1));
    expect(logHookError(dir, 'context-hook', new Error('after the move'))).toBe(true);
    expect((await fs.stat(path.join(logs, 'context-hook.log.old'))).size).toBe(1024 * 1024 + 1);
    expect(await fs.readFile(path.join(logs, 'context-hook.log'), 'utf8')).toMatch(/^\S+ Error: after the move\n/);
  });

  it('says false, never throws, when the log cannot be written', async () => {
    const file = path.join(dir, 'a-file');
    await fs.writeFile(file, 'x');
    expect(logHookError(path.join(file, 'home'), 'context-hook', new Error('lost'))).toBe(false);
  });
});
