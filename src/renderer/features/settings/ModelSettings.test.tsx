// @vitest-environment happy-dom
// Settings, Models, against the real backend: what proposes the harvest and the consolidation
// (rules, a command, a model over HTTP) is stored through the API as the settings `cairn harvest`
// and `cairn consolidate` read (tests/e2e/model-settings.test.ts runs them); a backend chosen without its
// command or model, a base URL that is no web address, a key pasted where its variable's name goes
// and a confidence out of range are each named under their field, and nothing is saved.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { makeBackend, renderWithBackend, type UiBackend } from '../../../../tests/support/ui-backend';
import { SettingsView } from './SettingsView';

const MODEL_KEYS = ['harvestExtractor', 'consolidationExtractor', 'harvestCommand', 'harvestHttp', 'harvestMinConfidence', 'harvestBudget'] as const;
const DEFAULTS = { harvestExtractor: 'rules', consolidationExtractor: 'rules', harvestCommand: '', harvestHttp: null, harvestMinConfidence: 0.6, harvestBudget: { calls: 20, chars: 1_500_000 } };

async function open() {
  const user = userEvent.setup();
  const b = await makeBackend();
  await renderWithBackend(<SettingsView dark={false} dirtyRef={{ current: false }} />, b);
  await user.click(await screen.findByRole('tab', { name: 'Models' }));
  const form = within(await screen.findByRole('form', { name: 'Models for the harvest and consolidation' }));
  return { user, b, form };
}

/** The settings this tab edits, as stored. */
async function stored(b: UiBackend): Promise<Record<string, unknown>> {
  const s = await b.client.settings.get();
  return Object.fromEntries(MODEL_KEYS.map((k) => [k, s[k]]));
}

const radio = (form: ReturnType<typeof within>, group: 'Harvest proposes with' | 'Consolidation proposes with', name: string) =>
  within(form.getByRole('radiogroup', { name: group })).getByRole('radio', { name }) as HTMLInputElement;

describe('Settings: Models', () => {
  it("sets a harvest run's budget of calls and characters; a budget out of range is named and not saved", async () => {
    const { user, b, form } = await open();
    const calls = form.getByRole('spinbutton', { name: 'Most calls per run' }) as HTMLInputElement;
    const chars = form.getByRole('textbox', { name: 'Most characters per run' }) as HTMLInputElement;
    expect(calls.value).toBe('20');
    expect(chars.value).toBe('1500000');
    const save = form.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    await user.clear(calls);
    await user.type(calls, '0');
    await user.clear(chars);
    await user.type(chars, 'lots');
    expect(form.getByText('A whole number from 1 to 10,000, such as 20.')).toBeTruthy();
    expect(form.getByText('A whole number of characters from 1,000, such as 1500000.')).toBeTruthy();
    expect(calls.getAttribute('aria-invalid')).toBe('true');
    expect(save.disabled).toBe(true);
    await user.click(save);
    expect(await stored(b)).toEqual(DEFAULTS);

    await user.clear(calls);
    await user.type(calls, '40');
    await user.clear(chars);
    await user.type(chars, '2,000,000');
    await user.click(save);
    await form.findByText('Saved. The next harvest and consolidation use this.');
    expect(await stored(b)).toEqual({ ...DEFAULTS, harvestBudget: { calls: 40, chars: 2_000_000 } });
  });

  it('chooses a command for the harvest and consolidation; an empty command is named and not saved', async () => {
    const { user, b, form } = await open();
    expect(await stored(b)).toEqual(DEFAULTS);
    expect(radio(form, 'Harvest proposes with', 'Rules (offline)').checked).toBe(true);
    expect(radio(form, 'Consolidation proposes with', 'Rules (offline)').checked).toBe(true);
    expect((form.getByRole('spinbutton', { name: 'Minimum confidence' }) as HTMLInputElement).value).toBe('0.6');
    // What the agent can do with no setting is said.
    expect(form.getAllByText(/the running agent can propose too/)).toHaveLength(2);
    expect(form.getByText('/mcp__cairn__harvest')).toBeTruthy();
    expect(form.getByText('/mcp__cairn__consolidate')).toBeTruthy();
    const save = form.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    expect((form.getByRole('button', { name: 'Discard' }) as HTMLButtonElement).disabled).toBe(true);

    await user.click(radio(form, 'Harvest proposes with', 'A command'));
    await user.click(radio(form, 'Consolidation proposes with', 'A command'));
    const command = form.getByRole('textbox', { name: 'Command' }) as HTMLInputElement;
    expect(command.getAttribute('aria-invalid')).toBe('true');
    expect(form.getByText('Set the command the harvest and consolidation run, or choose another backend above.')).toBeTruthy();
    expect(form.getByText('A field above needs attention before saving.')).toBeTruthy();
    expect(save.disabled).toBe(true);
    await user.click(save);
    expect(await stored(b)).toEqual(DEFAULTS);

    // One of the README's examples, filled in by its button.
    await user.click(form.getByRole('button', { name: 'Use codex exec --skip-git-repo-check -' }));
    expect(command.value).toBe('codex exec --skip-git-repo-check -');
    expect(command.getAttribute('aria-invalid')).toBeNull();
    expect(form.getByText('Used by the harvest and consolidation')).toBeTruthy();
    await user.click(save);
    await form.findByText('Saved. The next harvest and consolidation use this.');
    expect(await stored(b)).toEqual({ ...DEFAULTS, harvestExtractor: 'command', consolidationExtractor: 'command', harvestCommand: 'codex exec --skip-git-repo-check -' });

    // Consolidation back to the rules; the harvest keeps its command.
    await user.click(radio(form, 'Consolidation proposes with', 'Rules (offline)'));
    expect(form.getByText('Used by the harvest')).toBeTruthy();
    await user.click(save);
    await waitFor(async () => expect((await stored(b)).consolidationExtractor).toBe('rules'));
    expect((await stored(b)).harvestExtractor).toBe('command');

    // Discard drops an edit: the stored command shows again, and nothing is saved.
    await user.clear(command);
    await user.type(command, 'claude -p');
    expect(form.getByText('Unsaved changes.')).toBeTruthy();
    await user.click(form.getByRole('button', { name: 'Discard' }));
    expect(command.value).toBe('codex exec --skip-git-repo-check -');
    expect((await stored(b)).harvestCommand).toBe('codex exec --skip-git-repo-check -');
  });

  it('stored settings a hand edit left incomplete (a model chosen, none set) are named on opening, before anything is run', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    await b.client.settings.set({ consolidationExtractor: 'http' });
    await renderWithBackend(<SettingsView dark={false} dirtyRef={{ current: false }} />, b);
    await user.click(await screen.findByRole('tab', { name: 'Models' }));
    const form = within(await screen.findByRole('form', { name: 'Models for the harvest and consolidation' }));
    expect(radio(form, 'Consolidation proposes with', 'A model over HTTP').checked).toBe(true);
    expect(form.getAllByText('Needed: consolidation asks this model.')).toHaveLength(3);
    expect(form.getByText('3 fields above need attention before saving.')).toBeTruthy();
    // Choosing the rules again is a change that can be saved.
    await user.click(radio(form, 'Consolidation proposes with', 'Rules (offline)'));
    await user.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(async () => expect(await stored(b)).toEqual(DEFAULTS));
  });

  it('a model over HTTP: each missing or invalid field is named under it and nothing is saved; the key is asked for by its variable name only', async () => {
    const { user, b, form } = await open();
    await user.click(radio(form, 'Harvest proposes with', 'A model over HTTP'));
    const url = form.getByRole('textbox', { name: 'Base URL' }) as HTMLInputElement;
    const model = form.getByRole('textbox', { name: 'Model' }) as HTMLInputElement;
    const keyEnv = form.getByRole('textbox', { name: /environment variable/ }) as HTMLInputElement;
    // All three are needed, each said under its field.
    expect(form.getAllByText('Needed: the harvest asks this model.')).toHaveLength(3);
    for (const field of [url, model, keyEnv]) expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(form.getByText(/The key itself is never stored/)).toBeTruthy();

    await user.type(url, 'api.anthropic.com');
    await user.type(model, 'claude-test-1');
    await user.type(keyEnv, 'sk-ant-api03-abcdef');
    const confidence = form.getByRole('spinbutton', { name: 'Minimum confidence' });
    await user.clear(confidence);
    await user.type(confidence, '1.5');
    expect(form.getByText('A web address starting with https:// or http://, such as https://api.anthropic.com.')).toBeTruthy();
    expect(form.getByText('The name of an environment variable, such as ANTHROPIC_API_KEY: letters, digits and _, not starting with a digit. Not the key itself.')).toBeTruthy();
    expect(form.getByText('A number from 0 to 1, such as 0.6.')).toBeTruthy();
    expect(model.getAttribute('aria-invalid')).toBeNull();
    expect(form.getByText('3 fields above need attention before saving.')).toBeTruthy();
    const save = form.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    await user.click(save);
    expect(await stored(b)).toEqual(DEFAULTS);

    // An OpenAI-compatible server, put right.
    await user.selectOptions(form.getByRole('combobox', { name: 'API' }), 'openai');
    await user.clear(url);
    await user.type(url, 'http://127.0.0.1:11434/v1');
    await user.clear(keyEnv);
    await user.type(keyEnv, 'LOCAL_LLM_KEY');
    await user.clear(confidence);
    await user.type(confidence, '0.8');
    await user.click(save);
    await form.findByText('Saved. The next harvest and consolidation use this.');
    expect(await stored(b)).toEqual({
      ...DEFAULTS,
      harvestExtractor: 'http',
      harvestHttp: { api: 'openai', url: 'http://127.0.0.1:11434/v1', model: 'claude-test-1', keyEnv: 'LOCAL_LLM_KEY' },
      harvestMinConfidence: 0.8,
    });

    // Back to the rules, with the model's fields emptied: no model is kept.
    await user.click(radio(form, 'Harvest proposes with', 'Rules (offline)'));
    await user.clear(url);
    await user.clear(model);
    // Two of three fields empty, one left: the others are named (a model is all of them or none).
    expect(form.getAllByText('Needed, or leave all three fields empty.')).toHaveLength(2);
    expect(save.disabled).toBe(true);
    await user.clear(keyEnv);
    await user.click(save);
    await waitFor(async () => expect(await stored(b)).toEqual({ ...DEFAULTS, harvestMinConfidence: 0.8 }));
  });
});
