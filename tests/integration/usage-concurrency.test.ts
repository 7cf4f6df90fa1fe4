// Several `cairn` processes recording uses of the same files at once: no increment lost.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runJsonl } from '../support/cli';

let sb: Sandbox;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe('usage recorded by concurrent processes', () => {
  it('4 processes x 150 uses: every count exact', async () => {
    const flags = ['--home', sb.home, '--cwd', sb.checkout];
    await runJsonl(flags, [
      { command: 'create', path: '/memories/global/shared.md', file_text: 'shared' },
      { command: 'create', path: '/memories/project/team.md', file_text: 'team' },
    ]);
    const processes = 4;
    await Promise.all(
      Array.from({ length: processes }, (_, p) => {
        const commands: unknown[] = [];
        for (let i = 0; i < 50; i++) {
          commands.push({ command: 'view', path: '/memories/global/shared.md' });
          commands.push({ command: 'view', path: '/memories/project/team.md' });
          commands.push(i === 0 ? { command: 'create', path: `/memories/workspace/p${p}.md`, file_text: `${p}` } : { command: 'view', path: `/memories/workspace/p${p}.md` });
        }
        return runJsonl(flags, commands);
      }),
    );
    const files = JSON.parse(await fs.readFile(path.join(sb.home, 'memory-meta.json'), 'utf8')).files as Record<string, { accessCount: number }>;
    expect(files['global:shared.md']!.accessCount).toBe(1 + processes * 50);
    expect(files[`project:${sb.session.projectId}:team.md`]!.accessCount).toBe(1 + processes * 50);
    for (let p = 0; p < processes; p++) expect(files[`workspace:${sb.session.workspaceId}:p${p}.md`]!.accessCount).toBe(50);
    // No temp files left beside the sidecar.
    expect((await fs.readdir(sb.home)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
