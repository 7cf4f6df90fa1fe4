/**
 * Settings written straight into a home's registry file (`<home>/config.json`), as a person
 * hand-editing it would, for tests that run real `cairn` processes or servers over that home.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Merges `extra` into the stored settings (the file made, with no workspace, when missing). */
export function mergeStoredSettings(home: string, extra: Record<string, unknown>): void {
  const file = path.join(home, 'config.json');
  const config = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { workspaces: [] }) as { settings?: Record<string, unknown> };
  config.settings = { ...config.settings, ...extra };
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(config));
}
