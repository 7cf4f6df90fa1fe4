// @vitest-environment happy-dom
// Settings › Sync against the real backend and real git: with sync set up, each workspace has a
// switch, off until the person turns it on; turning it on syncs that workspace's memory to the
// remote at once (under its project's folder), and the switch shows it on.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { makeBackend, renderWithBackend } from '../../../../tests/support/ui-backend';
import { SyncSettingsPanel } from './SyncSettings';

afterEach(cleanup);

it("turns a workspace's memory sync on with its switch, and the workspace's memory goes out", async () => {
  const user = userEvent.setup();
  const b = await makeBackend();
  const bare = path.join(b.sb.dir, 'memory.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  await b.host.registry.setSettings({ sync: { remote: `file://${bare}`, workspaces: [], afterChangeSeconds: 30 } });
  await b.agent({ command: 'create', path: '/memories/workspace/checks.md', file_text: 'Run the linter first.\n' });
  await renderWithBackend(<SyncSettingsPanel />, b);

  const toggle = (await screen.findByRole('checkbox', { name: 'Sync the memory of Widgets' })) as HTMLInputElement;
  expect(toggle.checked).toBe(false);
  await user.click(toggle);
  await waitFor(() => expect((screen.getByRole('checkbox', { name: 'Sync the memory of Widgets' }) as HTMLInputElement).checked).toBe(true), { timeout: 30_000 });
  expect(b.host.registry.settings().sync?.workspaces).toEqual([b.workspaceId]);
  const files = execFileSync('git', ['--git-dir', bare, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' }).trim().split('\n');
  expect(files).toEqual([`workspace/${b.session.projectId}/checks.md`]);
}, 60_000);
