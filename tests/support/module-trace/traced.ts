// Runs the built CLI with the module trace on (register.mjs): its result, and what it loaded.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { runCairn, type CliResult } from '../cli';

const REGISTER = path.join(import.meta.dirname, 'register.mjs');

/**
 * `cairn <args>` traced, its trace written under `dir`: the packages, `node:` modules and `chunk:`
 * names it imported (`loaded`), and the `chunk:` names alone (`chunks`).
 */
export async function runTraced(dir: string, args: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult & { loaded: string[]; chunks: string[] }> {
  const trace = path.join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  await fs.writeFile(trace, '');
  const r = await runCairn(args, { ...options, env: { ...options.env, NODE_OPTIONS: `--import ${REGISTER}`, CAIRN_MODULE_TRACE: trace } });
  const loaded = [...new Set((await fs.readFile(trace, 'utf8')).split('\n').filter(Boolean))];
  return { ...r, loaded, chunks: loaded.filter((m) => m.startsWith('chunk:')) };
}
