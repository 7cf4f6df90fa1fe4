// The rules extractor proposes only what a person said outright, table-driven: each
// statement gives the memory a person would expect, with its category, scope and verbatim
// evidence; questions, suppositions, code, quotes, and anything the agent or a tool wrote give
// nothing.
import { describe, expect, it } from 'vitest';
import { extractByRules, MAX_RULE_CANDIDATES } from './rules-extractor';
import type { TranscriptMessage } from './transcript';

let seq = 0;
function person(text: string, over: Partial<TranscriptMessage> = {}): TranscriptMessage {
  return { id: `m${++seq}`, role: 'user', kind: 'text', text, at: null, fromPerson: true, sidechain: false, ...over };
}

describe('the rules extractor', () => {
  it.each([
    ['Remember that the staging database is read-only.', 'The staging database is read-only.', 'fact', 'project'],
    ['Please remember: deploys go through the release branch, never main.', 'Deploys go through the release branch, never main.', 'fact', 'project'],
    ['remember to run `make lint` before pushing', 'Run `make lint` before pushing.', 'convention', 'project'],
    ['Keep in mind that the API rate limit is 100 requests a minute.', 'The API rate limit is 100 requests a minute.', 'fact', 'project'],
    ['Remember the tests need `docker compose up` first.', 'The tests need `docker compose up` first.', 'command', 'project'],
    ['From now on, write commit messages in the imperative.', 'Write commit messages in the imperative.', 'convention', 'project'],
    ['Going forward use pnpm for every package.', 'Use pnpm for every package.', 'convention', 'project'],
    ['Always run the migrations in a transaction.', 'Always run the migrations in a transaction.', 'convention', 'project'],
    ['Never push directly to main!', 'Never push directly to main.', 'convention', 'project'],
    ['We use tabs, not spaces.', 'We use tabs, not spaces.', 'convention', 'project'],
    ["We're using vitest instead of jest.", "We're using vitest instead of jest.", 'convention', 'project'],
    ['Use zod instead of hand-written validators.', 'Use zod instead of hand-written validators.', 'convention', 'project'],
    ['I prefer short answers without preamble.', 'The user prefers short answers without preamble.', 'preference', 'global'],
    ["I'd rather you ask before deleting files.", 'The user prefers you ask before deleting files.', 'preference', 'global'],
    ['ok, also: always keep PRs under 400 lines.', 'Always keep PRs under 400 lines.', 'convention', 'project'],
    ['Remember that the api service listens on port 8081', 'The api service listens on port 8081.', 'fact', 'project'],
    ['FYI the docs site is deployed from the gh-pages branch.', 'The docs site is deployed from the gh-pages branch.', 'fact', 'project'],
  ])('%s', (said, text, category, scope) => {
    const message = person(`Thanks, that works.\n${said}\nNow the next thing.`);
    const [found, ...more] = extractByRules([message]);
    expect(more).toEqual([]);
    expect(found).toMatchObject({ text, category, scope, evidence: [{ messageId: message.id }] });
    // The quote is the clause it was taken from, verbatim.
    expect(said).toContain(found!.evidence[0]!.quote);
    expect(found!.confidence).toBeGreaterThanOrEqual(0.6);
  });

  it.each([
    'Do you remember how we fixed the flaky test?',
    'Should we always run the e2e suite?',
    'If you always run the full suite it takes 15 minutes.',
    'I remember when this used to work.',
    'Remember when the deploy broke last week',
    'The docs say we use yarn, not npm.',
    'Why do we never cache this?',
    'Fix the bug in the parser.',
    'always',
    '> Remember that the cache is global.',
    '```\n# always run as root\nremember that x\n```',
    '- [ ] maybe we always want this?',
  ])('proposes nothing for %j', (said) => {
    expect(extractByRules([person(said)])).toEqual([]);
  });

  it('reads only what the person typed: never the agent, a tool, a hook, a summary or a side chain', () => {
    const said = 'Remember that the staging database is read-only.';
    expect(
      extractByRules([
        person(said, { role: 'assistant', fromPerson: false }),
        person(said, { kind: 'tool_result', fromPerson: false }),
        person(said, { fromPerson: false }),
        person(said, { kind: 'summary', fromPerson: false }),
        person(said, { sidechain: true }),
      ]),
    ).toEqual([]);
  });

  it('proposes a statement once, in message order, and at most the cap', () => {
    const a = person('Always run lint. Never skip the hooks.');
    const b = person('always run lint.');
    const found = extractByRules([a, b]);
    expect(found.map((c) => [c.text, c.evidence[0]!.messageId])).toEqual([
      ['Always run lint.', a.id],
      ['Never skip the hooks.', a.id],
    ]);
    const many = person(Array.from({ length: 15 }, (_, i) => `Always check item number ${i} twice.`).join(' '));
    expect(extractByRules([many])).toHaveLength(MAX_RULE_CANDIDATES);
  });

  it('gives the same candidates for the same messages', () => {
    const messages = [person('From now on, squash merge. We use tabs, not spaces.'), person('I prefer British spelling.')];
    expect(extractByRules(messages)).toEqual(extractByRules(messages));
  });
});
