/**
 * The agents' published CLIs the agents suite drives (tests/agents/clis/package.json, exact
 * versions): installed once into a cache outside the checkout, keyed by the lock file's digest, so
 * a fresh clone on the same machine reuses it (as a stamp does for npm ci) and a new pin installs
 * afresh. `make test` runs this file to install (`tsx tests/support/agent-clis.ts --install`);
 * tests ask for a binary with agentCli(), which fails with what to run when it is missing.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const SPEC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'agents', 'clis');
const STAMP = '.cairn-installed';

export type AgentCliName = 'claude' | 'codex' | 'gemini' | 'copilot';

/** The pinned version of each agent's package, as the suite's package.json says. */
export const AGENT_PACKAGES: Record<AgentCliName, string> = {
  claude: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  gemini: '@google/gemini-cli',
  copilot: '@github/copilot',
};

/** Where the pinned CLIs are (or go): the cache folder of this lock file. */
export function agentClisDir(): string {
  const lock = fs.readFileSync(path.join(SPEC_DIR, 'package-lock.json'));
  const digest = createHash('sha256').update(lock).digest('hex').slice(0, 16);
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'cairn-agent-clis', digest);
}

/** The version the suite pins for `name`. */
export function pinnedVersion(name: AgentCliName): string {
  const spec = JSON.parse(fs.readFileSync(path.join(SPEC_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  return spec.dependencies[AGENT_PACKAGES[name]]!;
}

/** Installs the pinned CLIs unless this lock file's install is there whole. */
export function installAgentClis(): string {
  const dir = agentClisDir();
  if (fs.existsSync(path.join(dir, STAMP))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(SPEC_DIR, f), path.join(dir, f));
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  fs.writeFileSync(path.join(dir, STAMP), `${new Date().toISOString()}\n`);
  return dir;
}

/** The executable of an agent's CLI; throws with what to run when the suite's install is missing. */
export function agentCli(name: AgentCliName): string {
  const dir = agentClisDir();
  const bin = path.join(dir, 'node_modules', '.bin', name);
  if (!fs.existsSync(path.join(dir, STAMP)) || !fs.existsSync(bin)) {
    throw new Error(`The agents' CLIs are not installed (${dir}); run: npx tsx tests/support/agent-clis.ts --install (make test does)`);
  }
  return bin;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--install')) {
  const dir = installAgentClis();
  process.stdout.write(`agents' CLIs: ${dir}\n`);
}
