import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { WorkspaceRegistry } from '../workspaces/registry';
import { mcpSession } from './session-binding';

let sb: Sandbox;
let registry: WorkspaceRegistry;
beforeEach(async () => {
  sb = await makeSandbox();
  const global = sb.session.scopes.global;
  if (!global.available) throw new Error('the sandbox has no global scope');
  // The local runtime the sandbox's sessions use (the process's one).
  registry = new WorkspaceRegistry(sb.home, { local: global.runtime });
});
afterEach(async () => {
  await sb.cleanup();
});

describe('the workspace an MCP client gets', () => {
  it('is never an SSH workspace whose remote path happens to equal the local directory', async () => {
    // Nothing listens on port 1: the host is unreachable, and it is registered anyway (with a warning).
    const { entry } = await registry.addSsh({ name: 'remote', host: '127.0.0.1:1', path: sb.checkout });
    const session = await mcpSession(registry, sb.checkout);
    expect(session.workspaceId).not.toBe(entry.id);
    expect(session.scopes.project.available).toBe(true);
  });

  it('is the registered local workspace containing the directory', async () => {
    const local = await registry.add('widgets', sb.checkout);
    const session = await mcpSession(registry, sb.checkout);
    expect(session.workspaceId).toBe(local.id);
  });
});
