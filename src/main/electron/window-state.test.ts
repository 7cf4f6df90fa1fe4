// The window's remembered state on a real home: defaults when never saved, a saved state read back,
// a file that is not JSON set aside and reported (never read as absent without a word), a state
// that cannot be saved reported on stderr.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadWindowState, saveWindowState } from './window-state';

let home: string;
let stderr: string[];
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-window-'));
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('window state', () => {
  it('opens at the defaults when never saved, and at the saved state after a save', () => {
    expect(loadWindowState(home)).toEqual({ width: 1200, height: 800, maximized: false });
    saveWindowState(home, { x: 10, y: 20, width: 900, height: 700, maximized: true });
    expect(loadWindowState(home)).toEqual({ x: 10, y: 20, width: 900, height: 700, maximized: true });
    expect(stderr).toEqual([]);
  });

  it('sets a file that is not JSON aside and says so, then starts afresh', () => {
    fs.writeFileSync(path.join(home, 'window-state.json'), '{"width": 9');
    expect(loadWindowState(home)).toEqual({ width: 1200, height: 800, maximized: false });
    const aside = fs.readdirSync(home).filter((n) => n.startsWith('window-state.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(home, aside[0]!), 'utf8')).toBe('{"width": 9');
    expect(stderr.join('')).toMatch(/window-state\.json could not be read \(it is not JSON\); it was moved aside/);
  });

  it('says so when the state cannot be read or saved, and never throws', () => {
    fs.mkdirSync(path.join(home, 'window-state.json'));
    expect(loadWindowState(home)).toEqual({ width: 1200, height: 800, maximized: false });
    expect(stderr.join('')).toContain('window-state.json could not be read (EISDIR)');
    expect(() => saveWindowState(home, { width: 900, height: 700, maximized: false })).not.toThrow();
    expect(stderr.join('')).toMatch(/window's size and place could not be saved \(E[A-Z]+\)/);
  });
});
