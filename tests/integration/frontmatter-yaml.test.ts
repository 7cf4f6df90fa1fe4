// Frontmatter is untrusted: a description with an unknown YAML tag (`!!js/function`, `!foo`) is read
// quietly (nothing on stderr, no warning), never executed, and the file still views and indexes.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { ContextBuilder } from '../../src/main/context/context-builder';
import { extractDescription } from '../../src/main/memory/frontmatter';

/** Every way a warning could reach stderr: process.emitWarning, console, and stderr itself. */
function watchStderr(): { said: () => unknown[][] } {
  const spies = [
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {}),
    vi.spyOn(console, 'warn').mockImplementation(() => {}),
    vi.spyOn(console, 'error').mockImplementation(() => {}),
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true),
  ];
  return { said: () => spies.flatMap((s) => s.mock.calls as unknown[][]) };
}

afterEach(() => {
  vi.restoreAllMocks();
  delete (globalThis as { pwned?: unknown }).pwned;
});

const fm = (yaml: string) => `---\n${yaml}\n---\n# body\n`;
const PAYLOAD = 'function () { globalThis.pwned = true; return "pwned" }';

describe('an unknown YAML tag in frontmatter', () => {
  it.each<[string, string, string | null]>([
    ['!!js/function on the description', `description: !!js/function '${PAYLOAD}'`, PAYLOAD],
    ['!!js/function on another key', `description: "deploy notes"\nhook: !!js/function '${PAYLOAD}'`, 'deploy notes'],
    ['!!js/undefined', 'description: !!js/undefined ""\nx: "y"', ''],
    ['a local tag', 'description: "quoted"\nx: !foo bar', 'quoted'],
    ['a local tag on a mapping', 'description: !foo {a: 1}', null],
    ['!!python/object', 'description: "py"\ny: !!python/object:os.system [echo]', 'py'],
    ['a tag with a URI', 'description: !<tag:evil.example,2024:x> "uri"', 'uri'],
  ])('%s: parsed quietly, inert', (_name, yaml, expected) => {
    const seen = watchStderr();
    expect(extractDescription(fm(yaml))).toBe(expected);
    expect(seen.said()).toEqual([]);
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });
});

describe('a memory file with such frontmatter', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('views as written and indexes, with nothing on stderr', async () => {
    const text = fm(`description: !!js/function '${PAYLOAD}'\nother: !foo bar`);
    await fs.mkdir(sb.roots.global, { recursive: true });
    await fs.writeFile(path.join(sb.roots.global, 'tagged.md'), text);
    const seen = watchStderr();
    const view = await sb.run({ command: 'view', path: '/memories/global/tagged.md' });
    expect(view.ok).toBe(true);
    expect(view.output).toContain("description: !!js/function 'function () { globalThis.pwned = true; return \"pwned\" }'");
    expect(view.output).toContain('other: !foo bar');
    const snapshot = await new ContextBuilder().snapshot(sb.session);
    expect(snapshot.files.find((f) => f.path === '/memories/global/tagged.md')?.description).toBe(PAYLOAD);
    expect(seen.said()).toEqual([]);
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });
});
