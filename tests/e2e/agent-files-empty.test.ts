// The section of other agents' files under the tree, in real Chromium against `cairn serve`, for a
// checkout and a user home that hold none: while it looks and once it has found nothing, it takes
// the same lines, so the tree above it does not move when the answer comes (at 1400 and 800 px,
// where its note wraps differently). Every state the section shows is recorded as it is put on the
// page, with the section's height then: the tree has the pane's height less the section's.
// Screenshots: test-results/agent-files-none-<width>.png, for a person to look at.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { shot } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

let sb: Sandbox;
let served: Served;
let browser: Browser;

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite((sb) =>
    sb.run({ command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and test\n---\nRun make test before pushing.\n' }),
  ));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

it.each([1400, 800])('at %i px the section keeps its height from "looking" to "nothing found", so the tree does not move', async (width) => {
  const page = await browser.context.newPage();
  try {
    await page.addInitScript(`(() => {
      const states = (window.__agentFileStates = []);
      new MutationObserver(() => {
        const section = document.querySelector('section[aria-label="Other agents\\' files"]');
        const body = section && section.querySelector('.af-body');
        if (!body) return;
        const text = body.textContent;
        if (states.length === 0 || states[states.length - 1].text !== text) states.push({ text, height: section.getBoundingClientRect().height });
      }).observe(document, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.setViewportSize({ width, height: 800 });
    await page.goto(served.address);
    const section = page.getByRole('region', { name: "Other agents' files" });
    await section.getByText("No other agent's files here.").waitFor();
    const states = (await page.evaluate('window.__agentFileStates')) as { text: string; height: number }[];
    expect(states.map((s) => s.text.split('…')[0])).toEqual(["Looking for other agents' files", expect.stringMatching(/^No other agent's files here\./)]);
    // The section's height is what the tree above it gives up: the same, so the tree does not move.
    expect(states[1]!.height).toBe(states[0]!.height);
    // Which files would show is said either way.
    for (const s of states) expect(s.text).toContain('CLAUDE.md, AGENTS.md');
    await shot(page, `agent-files-none-${width}`);
  } finally {
    await page.close();
  }
});
