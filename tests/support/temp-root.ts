/** A scope root for runtime tests: `<base>/memory`, made in a fresh temp dir (its real path) and removed with it. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ScopeRoot } from '../../src/main/runtime/runtime';

export function makeTempRoot(prefix: string): { base: string; root: ScopeRoot; cleanup(): void } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const root = { anchor: base, path: path.join(base, 'memory') };
  fs.mkdirSync(root.path);
  return { base, root, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}
