// config.json written by an older Cairn, through the registry on a real temp home: a setting stored
// under its older name (`sweepExtractor`, now `consolidationExtractor`) is read as the current one,
// the file is left as the person has it until that setting is written, and then the write puts the
// current name in and takes the older one out, leaving every other byte alone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { WorkspaceRegistry } from './registry';

let sb: Sandbox;
let file: string;
const registry = (): WorkspaceRegistry => {
  const global = sb.session.scopes.global;
  if (!global.available) throw new Error('the sandbox has no global scope');
  return new WorkspaceRegistry(sb.home, { local: global.runtime });
};
beforeEach(async () => {
  sb = await makeSandbox();
  fs.mkdirSync(sb.home, { recursive: true });
  file = path.join(sb.home, 'config.json');
});
afterEach(async () => {
  await sb.cleanup();
});

const OLDER = '{\n    "version": 1,\n    "workspaces": [],\n    "settings": {\n        "theme": "dark",\n        "sweepExtractor": "command",\n        "harvestCommand": "claude -p"\n    }\n}\n';

describe('a setting stored under its older name', () => {
  it('is read as the current setting, and the file is not rewritten for it', async () => {
    fs.writeFileSync(file, OLDER);
    const r = registry();
    expect(r.settings()).toMatchObject({ consolidationExtractor: 'command', theme: 'dark', harvestCommand: 'claude -p' });
    expect(r.settings()).not.toHaveProperty('sweepExtractor');
    expect(r.problems()).toEqual([]);
    // Writing another setting edits that one member; the older name stays, still read.
    await r.setSettings({ theme: 'light' });
    expect(fs.readFileSync(file, 'utf8')).toBe(OLDER.replace('"dark"', '"light"'));
    expect(registry().settings().consolidationExtractor).toBe('command');
  });

  it('is written under the current name when it next changes, the older one removed, the rest byte for byte', async () => {
    fs.writeFileSync(file, OLDER);
    await registry().setSettings({ consolidationExtractor: 'http' });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('sweepExtractor');
    expect(JSON.parse(text)).toEqual({ version: 1, workspaces: [], settings: { theme: 'dark', harvestCommand: 'claude -p', consolidationExtractor: 'http' } });
    expect(text.replace(/,\n {8}"consolidationExtractor": "http"/, '')).toBe(OLDER.replace('        "sweepExtractor": "command",\n', ''));
    expect(registry().settings().consolidationExtractor).toBe('http');
  });

  it('an invalid value under the older name falls back to the default and is reported by the name in the file', () => {
    fs.writeFileSync(file, OLDER.replace('"command"', '"telepathy"'));
    const r = registry();
    expect(r.settings().consolidationExtractor).toBe('rules');
    expect(r.problems()).toEqual([expect.stringMatching(/^settings\.sweepExtractor = "telepathy" is not valid/)]);
  });
});
