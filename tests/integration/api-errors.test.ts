// What a client is told when a route fails, through the app's own transport (the router served
// on a MessagePort, the renderer's link on the other end) over a real home: a refusal a person can
// fix arrives with its message (as the typed refusal where the answer has one), and a failure of
// Cairn's own arrives as a bare 500, its stack and host paths only in the log.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { createORPCClient, ORPCError } from '@orpc/client';
import { RPCLink } from '@orpc/client/message-port';
import type { RouterClient } from '@orpc/server';
import { RPCHandler } from '@orpc/server/message-port';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiJsonSerializers } from '../../src/common/api/wire';
import { openAppHost, type AppHost } from '../../src/main/host/app-host';
import type { InboxStore } from '../../src/main/inbox/inbox-store';
import { INTERNAL_FAILURE_MESSAGE } from '../../src/main/api/errors';
import { router, type AppRouter, type RouterContext } from '../../src/main/api/router';
import { makeSandbox, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let host: AppHost;
let closePorts: () => void;

/** A client of `router` over a MessageChannel, as the renderer reaches it in the app. */
function connect(context: RouterContext): RouterClient<AppRouter> {
  const { port1, port2 } = new MessageChannel();
  new RPCHandler(router, { customJsonSerializers: apiJsonSerializers }).upgrade(port1, { context });
  port1.start();
  port2.start();
  closePorts = () => {
    port1.close();
    port2.close();
  };
  return createORPCClient<RouterClient<AppRouter>>(new RPCLink({ port: port2, customJsonSerializers: apiJsonSerializers }));
}

/** What a call rejected with (the test fails if it did not). */
async function failure(call: Promise<unknown>): Promise<ORPCError<string, unknown>> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ORPCError);
  return err as ORPCError<string, unknown>;
}

/** Everything written to stderr while `run` runs. */
async function stderrOf(run: () => Promise<void>): Promise<string> {
  let log = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    log += String(chunk);
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return log;
}

/** The host's context with its inbox replaced by one whose reads fail as a bug would. */
function withBrokenInbox(hostPath: string): RouterContext {
  const broken = (): never => {
    throw new TypeError(`Cannot read properties of undefined (reading 'status') at ${hostPath}`);
  };
  const inbox = Object.create(host.inbox, { listing: { value: broken }, list: { value: broken } }) as InboxStore;
  return { ...host, inbox };
}

beforeEach(async () => {
  sb = await makeSandbox();
  host = openAppHost(sb.home);
});
afterEach(async () => {
  closePorts?.();
  await host.close();
  await sb.cleanup();
});

describe('a refusal a person can fix', () => {
  it('reaches the client with its message: as a bad request, or as the typed refusal where the answer has one', async () => {
    const client = connect(host);
    const missing = await failure(client.memory.read({ workspaceId: null, path: '/memories/global/nope.md' }));
    expect(missing.code).toBe('BAD_REQUEST');
    expect(missing.message).toBe('The path /memories/global/nope.md does not exist. Please provide a valid path.');

    expect(await client.memory.delete({ workspaceId: null, path: '/memories/global/nope.md' })).toEqual({
      status: 'error',
      message: expect.stringMatching(/^The path \/memories\/global\/nope\.md does not exist/),
    });
  });

  it('names the view a request asks for as a bad request, also on a route whose answer has a refusal', async () => {
    const client = connect(host);
    const unknown = await failure(client.memory.save({ workspaceId: 'nope-123', path: '/memories/global/a.md', content: 'x', expectedSha256: null }));
    expect(unknown.code).toBe('BAD_REQUEST');
    expect(unknown.message).toMatch(/^No workspace nope-123 is registered/);
  });

  it('reaches the client from a route that had no handling of its own, and from a stream', async () => {
    const client = connect(host);
    const stream = await client.memory.onChange({ workspaceId: 'nope-123' });
    const ended = await failure((async () => {
      for await (const _event of stream) break;
    })());
    expect(ended.code).toBe('BAD_REQUEST');
    expect(ended.message).toMatch(/^No workspace nope-123 is registered/);

    await fs.writeFile(path.join(sb.home, 'config.json'), '{ "settings": ');
    const broken = await failure(client.inbox.reviewScopes({ workspaceId: null }));
    expect(broken.code).toBe('BAD_REQUEST');
    expect(broken.message).toMatch(/^Cairn's settings file .* does not parse: line 1, column 15/);
    // A route whose answer is an object of defaults (the settings) is refused, never answered
    // with a "refusal" its schema would read as settings.
    const refused = await failure(client.settings.set({ theme: 'dark' }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.message).toMatch(/^Cairn's settings file .* does not parse/);
  });
});

describe("a failure of Cairn's own", () => {
  const hostPath = '/home/someone/.cairn/inbox/items/0001.json';

  it('reaches the client as a bare 500, without its message, stack or path; the log has all of it', async () => {
    const client = connect(withBrokenInbox(hostPath));
    let err!: ORPCError<string, unknown>;
    const log = await stderrOf(async () => {
      err = await failure(client.inbox.list({}));
    });
    expect(err.code).toBe('INTERNAL_SERVER_ERROR');
    expect(err.message).toBe(INTERNAL_FAILURE_MESSAGE);
    expect(JSON.stringify(err.toJSON())).not.toMatch(/someone|TypeError|api-errors\.test/);
    expect(log).toContain(`TypeError: Cannot read properties of undefined (reading 'status') at ${hostPath}`);
    expect(log).toMatch(/api-errors\.test\.ts:\d+/);
  });

  it('ends a stream the same way', async () => {
    const client = connect(withBrokenInbox(hostPath));
    let err!: ORPCError<string, unknown>;
    const log = await stderrOf(async () => {
      const stream = await client.inbox.onChange();
      err = await failure((async () => {
        for await (const _event of stream) break;
      })());
    });
    expect(err.code).toBe('INTERNAL_SERVER_ERROR');
    expect(err.message).toBe(INTERNAL_FAILURE_MESSAGE);
    expect(JSON.stringify(err.toJSON())).not.toMatch(/someone|TypeError/);
    expect(log).toContain(hostPath);
  });
});
