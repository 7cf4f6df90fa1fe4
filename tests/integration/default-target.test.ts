// Approving a proposal without naming a file, in a scope where the person keeps that category in a
// folder (`preferences/`): the memory lands in the folder's file, never in a new `preferences.md`
// beside it. A real home and checkout, approvals through the person's MemoryService.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { openHome, type HomeServices } from '../../src/main/host/home-services';
import { approveItem } from '../../src/main/inbox/inbox-review';
import type { Candidate } from '../../src/main/inbox/candidate';

let sb: Sandbox;
let home: HomeServices;

const globalFile = (...names: string[]) => path.join(sb.roots.global, ...names);
const person = (input: Record<string, unknown>) => home.service.execute(input, sb.session, { mode: 'exec', actor: 'person' });

/** A harvested preference, pending in the inbox; its id. */
function propose(text: string, category: Candidate['category'] = 'preference'): string {
  const [item] = home.inbox.add([{ category, text, scope: 'global', evidence: [{ messageId: 'm', quote: text }], confidence: 0.9, rationale: 'r' }], {
    agent: 'claude',
    sessionId: 's',
    cwd: null,
    workspaceId: sb.session.workspaceId,
    projectId: sb.session.projectId,
    extractor: 'rules',
  });
  return item!.id;
}

const approve = (id: string) => approveItem(home.inbox, home.service, sb.session, id);

beforeEach(async () => {
  sb = await makeSandbox();
  home = openHome(sb.home);
});
afterEach(async () => {
  await home.close();
  await sb.cleanup();
});

describe('the file an approval goes to when none is named', () => {
  it('is the category file at the top of the scope when there is no folder of its name', async () => {
    const outcome = await approve(propose('Prefers tabs.'));
    expect(outcome).toMatchObject({ status: 'approved', path: '/memories/global/preferences.md', created: true });
    expect(fs.readFileSync(globalFile('preferences.md'), 'utf8')).toContain('- Prefers tabs.\n');
  });

  it('is general.md inside an existing preferences/ folder, created there, with no sibling preferences.md', async () => {
    expect((await person({ command: 'create', path: '/memories/global/preferences/typescript.md', file_text: '- Strict mode.\n' })).ok).toBe(true);
    const outcome = await approve(propose('Prefers small pull requests.'));
    expect(outcome).toMatchObject({ status: 'approved', path: '/memories/global/preferences/general.md', created: true });
    expect(fs.existsSync(globalFile('preferences.md'))).toBe(false);
    expect(fs.readFileSync(globalFile('preferences', 'general.md'), 'utf8')).toContain('- Prefers small pull requests.\n');
    expect(fs.readFileSync(globalFile('preferences', 'typescript.md'), 'utf8')).toBe('- Strict mode.\n');
    // The next one joins it.
    expect(await approve(propose('Prefers rebase over merge.'))).toMatchObject({ path: '/memories/global/preferences/general.md', created: false });
  });

  it("is the folder's own general file when it has one (its name, index or README)", async () => {
    expect((await person({ command: 'create', path: '/memories/global/lessons/README.md', file_text: '# Lessons\n' })).ok).toBe(true);
    expect((await person({ command: 'create', path: '/memories/global/lessons/ci.md', file_text: '- CI is slow.\n' })).ok).toBe(true);
    expect(await approve(propose('Run the linter before pushing.', 'lesson'))).toMatchObject({ status: 'approved', path: '/memories/global/lessons/README.md', created: false });
    expect(fs.readFileSync(globalFile('lessons', 'README.md'), 'utf8')).toBe('# Lessons\n- Run the linter before pushing.\n');
  });

  it('stays preferences.md when the person has that file as well as the folder, and follows a file the person names', async () => {
    expect((await person({ command: 'create', path: '/memories/global/preferences.md', file_text: '- Tabs.\n' })).ok).toBe(true);
    expect((await person({ command: 'create', path: '/memories/global/preferences/typescript.md', file_text: '- Strict mode.\n' })).ok).toBe(true);
    expect(await approve(propose('Prefers short names.'))).toMatchObject({ path: '/memories/global/preferences.md', created: false });
    const named = await approveItem(home.inbox, home.service, sb.session, propose('Prefers const.'), { to: '/memories/global/preferences/typescript.md' });
    expect(named).toMatchObject({ path: '/memories/global/preferences/typescript.md' });
    expect(fs.existsSync(globalFile('preferences', 'general.md'))).toBe(false);
  });
});
