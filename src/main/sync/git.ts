/**
 * The git binary, as the sync runs it: the person's own git, with their credentials, SSH agent and
 * config (the environment is passed through, as their own `git push` has it), never asking on a
 * terminal (GIT_TERMINAL_PROMPT=0, ssh in batch mode: a sync in the background cannot answer a
 * prompt, and one that waited would hold the sync's lease). Output is read whole; a command that
 * fails is a GitError with git's own words, which name the person's remote and never a memory file's
 * host path.
 */
import { execFile } from 'node:child_process';
import { CairnError } from '../../common/errors';

/** Longest any one git command may run (a fetch or push over a slow link included). */
const GIT_TIMEOUT_MS = 120_000;

export class GitError extends CairnError {
  override readonly name = 'GitError';
  constructor(
    message: string,
    /** git's exit status (null: killed, or it could not be started). */
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly status: number;
}

/** Runs `git args` in `cwd`; resolves whatever its exit status (callers that need success use `git`). */
export function gitRaw(cwd: string, args: readonly string[], input?: string): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args as string[],
      {
        cwd,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 256 * 1024 * 1024,
        env: {
          ...process.env,
          GIT_TERMINAL_PROMPT: '0',
          // The person's ssh command if they set one; batch mode either way.
          GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
          LC_ALL: 'C',
        },
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== 'number') {
          const code = (err as NodeJS.ErrnoException).code;
          reject(new GitError(code === 'ENOENT' ? 'git is not installed (the sync runs the git binary).' : `git could not run (${code ?? err.message}).`, null, String(stderr)));
          return;
        }
        resolve({ stdout: String(stdout), stderr: String(stderr), status: err ? ((err as { code?: number }).code ?? 1) : 0 });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Runs `git args` in `cwd` and returns its stdout; a non-zero exit is a GitError with git's last words. */
export async function git(cwd: string, args: readonly string[], input?: string): Promise<string> {
  const result = await gitRaw(cwd, args, input);
  if (result.status !== 0) throw new GitError(gitWords(args, result.stderr), result.status, result.stderr);
  return result.stdout;
}

/** What a failed git command said, in a line: its `fatal:`/`error:` line, else its last one. */
export function gitWords(args: readonly string[], stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const said = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.at(-1) ?? 'no message';
  return `git ${args[0]} failed: ${said.replace(/^(fatal|error):\s*/, '')}`;
}
