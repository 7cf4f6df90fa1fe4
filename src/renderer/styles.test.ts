// @vitest-environment happy-dom
// The window's stylesheet as the browser applies it: in the dark theme a disabled primary button
// (Save with nothing to save) must not look like the enabled one, whose accent fill says "press me".
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

afterEach(() => {
  document.head.innerHTML = '';
  document.body.innerHTML = '';
  delete document.documentElement.dataset.theme;
});

function buttons(theme: 'dark' | 'light') {
  const style = document.createElement('style');
  style.textContent = fs.readFileSync(path.join(__dirname, 'styles.css'), 'utf8');
  document.head.append(style);
  document.documentElement.dataset.theme = theme;
  document.body.innerHTML = '<button class="btn primary" disabled>Save</button><button class="btn primary">Save</button>';
  const [disabled, enabled] = [...document.querySelectorAll('button')].map((b) => getComputedStyle(b));
  return { disabled: disabled!, enabled: enabled! };
}

describe('a disabled primary button', () => {
  it('in the dark theme, loses the accent fill and colour of the enabled one', () => {
    const { disabled, enabled } = buttons('dark');
    expect(enabled.backgroundColor).toBe('#5b93f0');
    expect(disabled.backgroundColor).not.toBe(enabled.backgroundColor);
    expect(disabled.color).not.toBe(enabled.color);
  });
});
