// The context facts cache for a scope reached over SSH: a new process (a new connection
// and a new builder over the home's cache) answers exactly what a build from nothing answers, with
// no more round trips than that build (the heads come with the listing either way), and an edit
// made on the host in place (same size, the mtime put back) shows at once. Real OpenSSH sshd on
// loopback. A file's version is given only once its last change is VERSION_SETTLE_MS old on the
// host's clock, so the suite waits that long after writing (a wait any machine speed only
// lengthens: it decides nothing by luck).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContextBuilder } from '../../src/main/context/context-builder';
import { ContextFactsCache } from '../../src/main/context/context-facts-cache';
import { UsageStore } from '../../src/main/memory/usage-store';
import { VERSION_SETTLE_MS } from '../../src/main/runtime/runtime';
import type { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { testRuntime } from '../support/ssh';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

const settle = () => new Promise((resolve) => setTimeout(resolve, VERSION_SETTLE_MS + 200));
const SECOND = 1_700_000_000;

describe.runIf(sshdAvailable())('the context facts cache over SSH', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  const runtimes: SshRuntime[] = [];
  const note = (n: number, description: string) => `---\ndescription: ${description}\n---\n${'- deploy the database migration before the release.\n'.repeat(20)}${n}\n`;

  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox();
    await fs.mkdir(sb.roots.project, { recursive: true });
    for (let i = 0; i < 6; i++) {
      await fs.writeFile(path.join(sb.roots.project, `n${i}.md`), note(i, `note ${i} on releases`));
      await fs.utimes(path.join(sb.roots.project, `n${i}.md`), SECOND, SECOND);
    }
    await settle();
  });
  afterEach(async () => {
    for (const r of runtimes.splice(0)) r.connection.close();
    await sb.cleanup();
  });

  /** A new process's answer: a new connection, a new builder (over the cache, or not); its round trips. */
  async function answer(cache: boolean): Promise<{ text: string; requests: number }> {
    const runtime = testRuntime(sshd);
    runtimes.push(runtime);
    const session = { ...sb.session, scopes: { ...sb.session.scopes, project: { ...sb.session.scopes.project, runtime } } } as typeof sb.session;
    const builder = new ContextBuilder(new UsageStore(sb.home), cache ? { factsCache: new ContextFactsCache(sb.home) } : {});
    const before = runtime.connection.counters.requests;
    const snapshot = await builder.snapshot(session);
    const text = `${builder.index(snapshot)}\n\n${builder.relevant(snapshot, 'deploy the database migration', Date.now())}`;
    return { text, requests: runtime.connection.counters.requests - before };
  }

  it('answers from the cache what a fresh build answers, in no more round trips', async () => {
    const fresh = await answer(false);
    expect(fresh.text).toContain('/memories/project/n3.md: note 3 on releases');
    const first = await answer(true);
    expect(first.text).toBe(fresh.text);
    expect(await fs.readdir(path.join(sb.home, 'cache', 'context-facts'))).toHaveLength(1);
    const cached = await answer(true);
    expect(cached.text).toBe(fresh.text);
    expect(cached.requests).toBeLessThanOrEqual(fresh.requests);
  });

  it('shows an edit made on the host in place, same size with the mtime put back', async () => {
    await answer(true);
    const file = path.join(sb.roots.project, 'n2.md');
    const edited = note(2, 'note 2 on rollouts');
    expect(Buffer.byteLength(edited)).toBe((await fs.stat(file)).size);
    const handle = await fs.open(file, 'r+');
    await handle.write(edited, 0);
    await handle.close();
    await fs.utimes(file, SECOND, SECOND);
    await settle();
    const after = await answer(true);
    expect(after.text).toContain('/memories/project/n2.md: note 2 on rollouts');
    expect(after.text).toBe((await answer(false)).text);
  });
});
