/**
 * Settings, Models: what proposes the harvest's memories (`harvestExtractor`) and a
 * scope's consolidation (`consolidationExtractor`): rules (offline, the default), a command
 * (`harvestCommand`) or a model over HTTP (`harvestHttp`: api, base URL, model and the NAME of the
 * environment variable holding its key, never the key), both backends sharing one command and one
 * model; and the harvest's `harvestMinConfidence`. Stored through settings.set, read by `cairn
 * harvest`, `cairn consolidate` and the app at their next run (`--extractor` still overrides for one run).
 * The `agent` backends need no setting: the running agent proposes through the MCP prompts
 * `harvest` and `consolidate`, as each card says.
 *
 * One draft for the whole form, saved by Save or dropped by Discard; until it is edited the form
 * shows the stored settings as they are. Each value is checked as common/api/settings.ts's schema
 * checks it (and a base URL must be http(s)), the error under its field; a backend chosen without
 * its command or model is named as an error too, and nothing can be saved while any error stands.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { z } from 'zod';
import { HARVEST_EXTRACTORS, settingsSchema } from '../../../common/api/settings';
import { CONSOLIDATE_PROMPT, HARVEST_PROMPT } from '../../../common/memory/tool-description';
import { useApi } from '../../api/api-context';
import { useSaveSettings } from './use-save-settings';
import './model-settings.css';

type Settings = z.infer<typeof settingsSchema>;
type Backend = (typeof HARVEST_EXTRACTORS)[number];
type Api = 'anthropic' | 'openai';

/** The settings this tab edits. */
type ModelPatch = Pick<Settings, 'harvestExtractor' | 'consolidationExtractor' | 'harvestCommand' | 'harvestHttp' | 'harvestMinConfidence' | 'harvestBudget'>;

/** The form's values as typed. */
interface Draft {
  harvest: Backend;
  consolidation: Backend;
  command: string;
  api: Api;
  url: string;
  model: string;
  keyEnv: string;
  minConfidence: string;
  budgetCalls: string;
  budgetChars: string;
}
type Field = 'command' | 'url' | 'model' | 'keyEnv' | 'minConfidence' | 'budgetCalls' | 'budgetChars';

const httpShape = settingsSchema.shape.harvestHttp.unwrap().unwrap().shape;
const commandSchema = settingsSchema.shape.harvestCommand.unwrap();
const confidenceSchema = settingsSchema.shape.harvestMinConfidence.unwrap();
const budgetShape = settingsSchema.shape.harvestBudget.unwrap().shape;

const COMMAND_EXAMPLES = ['claude -p --output-format json', 'codex exec --skip-git-repo-check -'] as const;

const API_HINTS: Record<Api, { url: string; key: string; hint: string }> = {
  anthropic: { url: 'https://api.anthropic.com', key: 'ANTHROPIC_API_KEY', hint: 'Anthropic’s Messages API: https://api.anthropic.com.' },
  openai: { url: 'https://api.openai.com/v1', key: 'OPENAI_API_KEY', hint: 'An OpenAI-compatible server: its base URL, ending in /v1.' },
};

const toDraft = (s: Settings): Draft => ({
  harvest: s.harvestExtractor,
  consolidation: s.consolidationExtractor,
  command: s.harvestCommand,
  api: s.harvestHttp?.api ?? 'anthropic',
  url: s.harvestHttp?.url ?? '',
  model: s.harvestHttp?.model ?? '',
  keyEnv: s.harvestHttp?.keyEnv ?? '',
  minConfidence: String(s.harvestMinConfidence),
  budgetCalls: String(s.harvestBudget.calls),
  budgetChars: String(s.harvestBudget.chars),
});

const stored = (s: Settings): ModelPatch => ({
  harvestExtractor: s.harvestExtractor,
  consolidationExtractor: s.consolidationExtractor,
  harvestCommand: s.harvestCommand,
  harvestHttp: s.harvestHttp,
  harvestMinConfidence: s.harvestMinConfidence,
  harvestBudget: s.harvestBudget,
});

/** Who uses a backend, in words: "the harvest and consolidation", "the harvest", "consolidation", or null. */
function users(d: Draft, backend: Backend): string | null {
  const h = d.harvest === backend;
  const s = d.consolidation === backend;
  return h && s ? 'the harvest and consolidation' : h ? 'the harvest' : s ? 'consolidation' : null;
}

/** What the draft would save, and what is wrong with it (by field). */
function checkDraft(d: Draft): { patch: ModelPatch; errors: Partial<Record<Field, string>> } {
  const errors: Partial<Record<Field, string>> = {};

  const command = d.command.trim();
  const commandUsers = users(d, 'command');
  if (!commandSchema.safeParse(command).success) errors.command = 'At most 2000 characters.';
  else if (command === '' && commandUsers !== null) errors.command = `Set the command ${commandUsers} ${commandUsers === 'the harvest and consolidation' ? 'run' : 'runs'}, or choose another backend above.`;

  const url = d.url.trim();
  const model = d.model.trim();
  const keyEnv = d.keyEnv.trim();
  const httpUsers = users(d, 'http');
  const none = url === '' && model === '' && keyEnv === '';
  const missing = httpUsers !== null ? `: ${httpUsers} ${httpUsers === 'the harvest and consolidation' ? 'ask' : 'asks'} this model.` : ', or leave all three fields empty.';
  let harvestHttp: ModelPatch['harvestHttp'] = null;
  if (!none || httpUsers !== null) {
    if (url === '') errors.url = `Needed${missing}`;
    else if (!httpShape.url.safeParse(url).success || !/^https?:$/.test(safeProtocol(url))) errors.url = `A web address starting with https:// or http://, such as ${API_HINTS[d.api].url}.`;
    if (model === '') errors.model = `Needed${missing}`;
    else if (!httpShape.model.safeParse(model).success) errors.model = 'At most 200 characters.';
    if (keyEnv === '') errors.keyEnv = `Needed${missing}`;
    else if (!httpShape.keyEnv.safeParse(keyEnv).success)
      errors.keyEnv = `The name of an environment variable, such as ${API_HINTS[d.api].key}: letters, digits and _, not starting with a digit. Not the key itself.`;
    harvestHttp = { api: d.api, url, model, keyEnv };
  }

  const confidence = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(d.minConfidence) ? Number(d.minConfidence) : Number.NaN;
  if (!confidenceSchema.safeParse(confidence).success) errors.minConfidence = 'A number from 0 to 1, such as 0.6.';

  const whole = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN);
  const calls = whole(d.budgetCalls);
  const chars = whole(d.budgetChars.replace(/[,_ ]/g, ''));
  if (!budgetShape.calls.safeParse(calls).success) errors.budgetCalls = 'A whole number from 1 to 10,000, such as 20.';
  if (!budgetShape.chars.safeParse(chars).success) errors.budgetChars = 'A whole number of characters from 1,000, such as 1500000.';

  return { patch: { harvestExtractor: d.harvest, consolidationExtractor: d.consolidation, harvestCommand: command, harvestHttp, harvestMinConfidence: confidence, harvestBudget: { calls, chars } }, errors };
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

/** What the running agent can do with no setting: propose through one of Cairn's MCP prompts. */
function AgentLine({ prompt }: { prompt: string }) {
  return (
    <p className="muted models-agent">
      With no setting, the running agent can propose too, through Cairn&rsquo;s MCP server: its <code>{prompt}</code> prompt (<code>/mcp__cairn__{prompt}</code> in Claude Code).
    </p>
  );
}

const BACKEND_LABELS: Record<Backend, string> = { rules: 'Rules (offline)', command: 'A command', http: 'A model over HTTP' };

export function ModelSettingsPanel() {
  const { orpc } = useApi();
  const settings = useQuery(orpc.settings.get.queryOptions());
  const save = useSaveSettings();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [status, setStatus] = useState<{ kind: 'saved' | 'error'; text: string } | null>(null);
  const id = useId();

  if (!settings.data) return <p className="muted models">Loading the settings…</p>;
  const current = settings.data;
  const d = draft ?? toDraft(current);
  const { patch, errors } = checkDraft(d);
  const invalid = Object.keys(errors).length > 0;
  const edited = draft !== null && JSON.stringify(draft) !== JSON.stringify(toDraft(current));
  const changed = edited && JSON.stringify(patch) !== JSON.stringify(stored(current));

  const set = <K extends keyof Draft>(key: K, v: Draft[K]) => {
    setDraft({ ...d, [key]: v });
    setStatus(null);
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (invalid || !changed || save.isPending) return;
    try {
      await save.mutateAsync(patch);
      setDraft(null);
      setStatus({ kind: 'saved', text: 'Saved. The next harvest and consolidation use this.' });
    } catch (err) {
      setStatus({ kind: 'error', text: `Not saved: ${err instanceof Error ? err.message : String(err)}` });
    }
  };

  /** A field's error, or its hint, under it (the input's description either way). */
  const under = (field: Field, hint: React.ReactNode) => (
    <span id={`${id}-${field}-hint`} className={errors[field] ? 'models-hint error-text' : 'models-hint muted'}>
      {errors[field] ?? hint}
    </span>
  );
  const input = (field: Field, props: React.InputHTMLAttributes<HTMLInputElement>) => (
    <input
      id={`${id}-${field}`}
      type="text"
      spellCheck={false}
      autoComplete="off"
      value={d[field]}
      aria-invalid={errors[field] ? true : undefined}
      aria-describedby={`${id}-${field}-hint`}
      onChange={(e) => set(field, e.target.value)}
      {...props}
    />
  );

  /** A labelled row of the form: its input, then its error or hint. */
  const row = (field: Field, label: React.ReactNode, props: React.InputHTMLAttributes<HTMLInputElement>, hint: React.ReactNode, more?: React.ReactNode) => (
    <div className="models-row">
      <label htmlFor={`${id}-${field}`}>{label}</label>
      <div className="models-control">
        {input(field, props)}
        {under(field, hint)}
        {more}
      </div>
    </div>
  );

  const choice = (which: 'harvest' | 'consolidation', backend: Backend, description: React.ReactNode) => (
    <div className="models-choice">
      <input
        type="radio"
        id={`${id}-${which}-${backend}`}
        name={`${id}-${which}`}
        value={backend}
        checked={d[which] === backend}
        aria-describedby={`${id}-${which}-${backend}-what`}
        onChange={() => set(which, backend)}
      />
      <label htmlFor={`${id}-${which}-${backend}`}>{BACKEND_LABELS[backend]}</label>
      <span id={`${id}-${which}-${backend}-what`} className="muted">
        {description}
      </span>
    </div>
  );

  const usedBy = (backend: Backend) => {
    const who = users(d, backend);
    return <span className={who ? 'models-used on' : 'models-used'}>{who ? `Used by ${who}` : 'Not used now'}</span>;
  };

  return (
    <section className="models" role="tabpanel" aria-label="Models">
      <p className="muted">
        What proposes new memories from agents&rsquo; sessions (the harvest) and the consolidation of a scope. Whatever proposes, Cairn checks every proposal, and nothing reaches memory
        until you approve or apply it. <code>cairn harvest</code> and <code>cairn consolidate</code> follow these settings from their next run (<code>--extractor</code> overrides them for
        one run).
      </p>
      <form className="models-form" aria-label="Models for the harvest and consolidation" noValidate onSubmit={(e) => void submit(e)}>
        <fieldset className="models-card">
          <legend>Harvest</legend>
          <p className="muted models-lead">Proposes memories from agents&rsquo; sessions, to the Inbox for your review (once harvest is on for a workspace: the Inbox&rsquo;s switch).</p>
          <div role="radiogroup" aria-label="Harvest proposes with" className="models-choices">
            {choice('harvest', 'rules', <>What you said outright (&ldquo;remember that&hellip;&rdquo;, &ldquo;always&hellip;&rdquo;, &ldquo;we use X, not Y&rdquo;); never the agent&rsquo;s words.</>)}
            {choice('harvest', 'command', 'The command below, given the session on its stdin.')}
            {choice('harvest', 'http', 'The model below, asked over HTTP.')}
          </div>
          {row('minConfidence', 'Minimum confidence', { className: 'models-number', type: 'number', inputMode: 'decimal', min: 0, max: 1, step: 0.05 }, 'Proposals less sure than this (from 0 to 1) are dropped; 0.6 by default.')}
          {row('budgetCalls', 'Most calls per run', { className: 'models-number', type: 'number', inputMode: 'numeric', min: 1, step: 1 }, 'A run of the command or HTTP model asks it at most this often (one call per part of a long session); 20 by default. The rest of a session waits for the next run.')}
          {row('budgetChars', 'Most characters per run', { className: 'models-number wide', inputMode: 'numeric' }, 'What a run sends the model at most, in characters of prompt; 1,500,000 by default (a part of a session is up to 60,000).')}
          <AgentLine prompt={HARVEST_PROMPT} />
        </fieldset>

        <fieldset className="models-card">
          <legend>Consolidation</legend>
          <p className="muted models-lead">
            Proposes deleting, merging and rewriting a scope&rsquo;s files (<strong>Consolidate&hellip;</strong> on a scope, <code>cairn consolidate</code>), for you to apply.
          </p>
          <div role="radiogroup" aria-label="Consolidation proposes with" className="models-choices">
            {choice('consolidation', 'rules', 'Deleting files no agent has used for 60 days, merging files that say the same thing.')}
            {choice('consolidation', 'command', <>The command below, given the scope&rsquo;s files on its stdin.</>)}
            {choice('consolidation', 'http', 'The model below, asked over HTTP.')}
          </div>
          <AgentLine prompt={CONSOLIDATE_PROMPT} />
        </fieldset>

        <fieldset className="models-card">
          <legend>Command</legend>
          {usedBy('command')}
          {row(
            'command',
            'Command',
            { className: 'models-mono', placeholder: COMMAND_EXAMPLES[0] },
            'Run through /bin/sh in an empty temporary directory, the prompt on its stdin and JSON on its stdout; stopped after 10 minutes.',
            <span className="models-hint muted">
              For example:{' '}
              {COMMAND_EXAMPLES.map((example, i) => (
                <span key={example}>
                  {i > 0 ? ' or ' : null}
                  <button type="button" className="models-example" aria-label={`Use ${example}`} title="Use this command" onClick={() => set('command', example)}>
                    {example}
                  </button>
                </span>
              ))}
            </span>,
          )}
        </fieldset>

        <fieldset className="models-card">
          <legend>Model over HTTP</legend>
          {usedBy('http')}
          <div className="models-row">
            <label htmlFor={`${id}-api`}>API</label>
            <div className="models-control">
              <select id={`${id}-api`} value={d.api} onChange={(e) => set('api', e.target.value as Api)}>
                <option value="anthropic">Anthropic</option>
                <option value="openai">OpenAI-compatible</option>
              </select>
            </div>
          </div>
          {row('url', 'Base URL', { placeholder: API_HINTS[d.api].url, inputMode: 'url' }, API_HINTS[d.api].hint)}
          {row('model', 'Model', {}, 'Its id, as the API names it.')}
          {row('keyEnv', <>Key&rsquo;s environment variable</>, { className: 'models-mono', placeholder: API_HINTS[d.api].key }, 'The name of the variable that holds the API key.')}
          <p className="models-key">
            The key itself is never stored: only the variable&rsquo;s name is. Cairn reads the key from that variable, in the environment Cairn runs in, at each call.
          </p>
        </fieldset>

        <div className="models-actions">
          <button type="submit" className="btn primary" disabled={save.isPending || invalid || !changed}>
            Save
          </button>
          <button
            type="button"
            className="btn"
            disabled={save.isPending || !edited}
            onClick={() => {
              setDraft(null);
              setStatus(null);
            }}
          >
            Discard
          </button>
          {status ? (
            <span role="status" className={status.kind === 'error' ? 'error-text' : 'muted'}>
              {status.text}
            </span>
          ) : invalid ? (
            <span role="status" className="error-text">
              {Object.keys(errors).length === 1 ? 'A field above needs attention before saving.' : `${Object.keys(errors).length} fields above need attention before saving.`}
            </span>
          ) : changed ? (
            <span className="muted">Unsaved changes.</span>
          ) : null}
        </div>
      </form>
    </section>
  );
}
