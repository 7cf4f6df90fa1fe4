/**
 * The README's screenshots (`make screenshots`): a sample memory in a temp home, served by the
 * built `cairn serve`, shown in real Chromium at 1400 x 900, light and dark: the main window (an
 * agent's edit badged, a pinned memory open, other agents' files below the scopes) and the Inbox
 * with proposals from a Codex session, and the Activity view (agents' changes across workspaces,
 * one open as a diff, new ones above "New since you last looked").
 * Writes docs/main-window.png, docs/main-window-dark.png, docs/inbox.png and docs/activity.png.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { launchBrowser } from '../tests/support/browser';
import { runCairn } from '../tests/support/cli';
import { makeSandbox, REPO_ROOT, requireBuiltCli } from '../tests/support/sandbox';
import { openPage, theme } from '../tests/support/page';
import { rpc, serve, userHomeOf } from '../tests/support/serve';

const DOCS = path.join(REPO_ROOT, 'docs');
const CODEX_FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'codex', 'rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl');

const FILES: Record<string, string> = {
  'global/preferences.md': '---\ndescription: How I like answers and code reviews\n---\n\n- Short answers, no preamble.\n- Explain a change before making it.\n',
  'global/languages/rust.md': '---\ndescription: Rust habits: errors, clippy, tests\n---\n\n- `thiserror` for libraries, `anyhow` for binaries.\n- `cargo clippy -- -D warnings` before every commit.\n',
  'global/languages/typescript.md': '---\ndescription: TypeScript settings I use everywhere\n---\n\n- `strict` and `noUncheckedIndexedAccess` on.\n- No default exports.\n',
  'project/build.md': '---\ndescription: How to build, test and release widgets\n---\n\n# Build\n\n| Task | Command |\n| --- | --- |\n| Test | `make test` |\n| Release | `make release VERSION=x.y.z` |\n\n- [x] CI runs on every push\n- [ ] Nightly benchmarks\n',
  'project/conventions.md': '---\ndescription: Conventions of the widgets codebase\n---\n\n- Tabs, not spaces.\n- One component per file, named after it.\n- Dates in CSV exports are ISO 8601 in UTC.\n',
  'project/architecture/storage.md': '---\ndescription: Where widgets keep their data and why\n---\n\nSQLite per tenant; migrations in `db/migrations`, applied at start.\n',
  'workspace/scratch.md': '---\ndescription: Notes for this checkout only\n---\n\nThe staging database is reset every Monday.\n',
};

async function main(): Promise<void> {
  await requireBuiltCli();
  const sb = await makeSandbox();
  const served = await serve(sb.home);
  const browser = await launchBrowser();
  try {
    const { id } = (await rpc(served, 'workspaces/add', { name: 'widgets', path: sb.checkout })) as { id: string };
    const roots: Record<string, string> = { global: sb.roots.global, project: sb.roots.project, workspace: path.join(sb.home, 'workspaces', id, 'memory') };
    for (const [rel, text] of Object.entries(FILES)) {
      const [scope, ...rest] = rel.split('/');
      const file = path.join(roots[scope!]!, ...rest);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, text);
    }
    // Other agents' files, beside Cairn's memory: the checkout's AGENTS.md and the user's CLAUDE.md.
    await fs.writeFile(path.join(sb.checkout, 'AGENTS.md'), '# Widgets\n\n- Run `make test` before pushing.\n- Use pnpm, never npm.\n');
    await fs.mkdir(path.join(userHomeOf(sb.home), '.claude'), { recursive: true });
    await fs.writeFile(path.join(userHomeOf(sb.home), '.claude', 'CLAUDE.md'), '- Short answers, no preamble.\n');
    const flags = ['--home', sb.home, '--cwd', sb.checkout];
    await runCairn(['pin', '/memories/project/build.md', ...flags]);
    // An agent's views and edit (badged "agent edited"), through the tool as an agent runs it.
    for (let i = 0; i < 3; i++) await runCairn(['tool', ...flags, JSON.stringify({ command: 'view', path: '/memories/project/build.md' })]);
    await runCairn(['tool', ...flags, JSON.stringify({ command: 'str_replace', path: '/memories/project/conventions.md', old_str: '- Tabs, not spaces.', new_str: '- Tabs, not spaces; Prettier formats on save.' })]);
    // Proposals from a Codex session, for the Inbox.
    const transcript = path.join(sb.dir, 'rollout.jsonl');
    await fs.writeFile(transcript, (await fs.readFile(CODEX_FIXTURE, 'utf8')).replaceAll('/home/dev/projects/widgets', sb.checkout));
    await runCairn(['harvest', '--enable', ...flags]);
    await runCairn(['harvest', '--transcript', transcript, ...flags]);

    // The app follows the system's scheme (the default theme): the picture's scheme is emulated.
    const page = await openPage(browser.context, served.address, { width: 1400, height: 900, row: '/memories/project/build.md' });
    for (const scheme of ['light', 'dark'] as const) {
      await theme(page, scheme);
      await page.getByRole('treeitem', { name: /build\.md/ }).first().click();
      await page.getByRole('button', { name: /^Preview/ }).click();
      await page.getByRole('table').waitFor();
      await page.screenshot({ path: path.join(DOCS, scheme === 'light' ? 'main-window.png' : 'main-window-dark.png') });
      await page.getByRole('button', { name: /^Close/ }).first().click();
    }
    await theme(page, 'light');
    await page.getByRole('button', { name: /^Inbox/ }).click();
    await page.getByText(/proposals? to review/).waitFor();
    await page.getByText(/^Last run/).waitFor();
    await page.screenshot({ path: path.join(DOCS, 'inbox.png') });

    // The Activity view: what was done so far marked seen, then Claude Code (over its hooks' flags)
    // and Codex change memory; Claude Code's edit open as its diff.
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('button', { name: 'Activity', exact: true }).click();
    await page.getByRole('button', { name: 'Mark all seen' }).click();
    const as = (agent: string, session: string, command: unknown) => runCairn(['tool', ...flags, '--agent', agent, '--agent-session', session, JSON.stringify(command)]);
    await as('claude', '7f3c2a91-5d1e-4b8a-9c0f-2e6d8b4a1f37', { command: 'str_replace', path: '/memories/project/build.md', old_str: '| Test | `make test` |', new_str: '| Test | `make test` (runs lint first) |' });
    await as('codex', '0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01', { command: 'create', path: '/memories/project/architecture/queues.md', file_text: '---\ndescription: Background jobs\n---\n\nJobs run on a Redis queue; retries back off to 10 min.\n' });
    const claudeRow = page.getByRole('button', { name: /^Claude Code edited \/memories\/project\/build\.md/ });
    await claudeRow.click();
    await page.getByRole('region', { name: 'What the change did' }).getByText('(runs lint first)').first().waitFor();
    await page.screenshot({ path: path.join(DOCS, 'activity.png') });
    process.stdout.write(`Wrote docs/main-window.png, docs/main-window-dark.png, docs/inbox.png and docs/activity.png\n`);
  } finally {
    await browser.close();
    served.server.kill();
    await sb.cleanup();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`screenshots: ${String(err)}\n`);
  process.exitCode = 1;
});
