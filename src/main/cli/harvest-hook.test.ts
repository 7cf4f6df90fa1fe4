// Whether the harvest hook takes harvest for on, from config.json as it is on disk: off without a
// settings file (the default), on for the workspaces it lists, and an error, never "off", when the
// file is there but cannot be read or is not JSON (the hook's note then says why nothing was harvested).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harvestEnabled } from './harvest-hook';

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-harvest-hook-'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

describe('harvestEnabled', () => {
  it('is off without settings, and on for the workspaces the settings list', () => {
    expect(harvestEnabled(home, 'w1')).toBe(false);
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ settings: { harvestWorkspaces: ['w1'] } }));
    expect(harvestEnabled(home, 'w1')).toBe(true);
    expect(harvestEnabled(home, 'w2')).toBe(false);
  });

  it('says the settings cannot be read or are not JSON rather than taking harvest for off', () => {
    fs.writeFileSync(path.join(home, 'config.json'), '{"settings": {"harvestWorkspaces": ["w1"]');
    expect(() => harvestEnabled(home, 'w1')).toThrow("the settings (config.json in Cairn's home) are not JSON");
    fs.rmSync(path.join(home, 'config.json'));
    fs.mkdirSync(path.join(home, 'config.json'));
    expect(() => harvestEnabled(home, 'w1')).toThrow(/cannot be read \(EISDIR\)/);
    expect(() => harvestEnabled(home, 'w1')).not.toThrow(home);
  });
});
