/**
 * Settings, Agent context: the injection settings for every workspace, and per
 * workspace the ones it overrides ("Use global" per field). Stored through settings.set
 * (`injection`, `injectionByWorkspace`: common/context/injection.ts says what each means), read
 * by `cairn context` and `cairn mcp` at their next call or session.
 *
 * Each form is a draft saved by its Save button (numbers are typed, not sent per keystroke); a
 * value out of range is named under its field and cannot be saved. A workspace whose fields all
 * use the global values is removed from the overrides.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DEFAULT_INJECTION, INJECTION_LIMITS, RELEVANT_MODES, type InjectionOverride, type InjectionSettings, type RelevantMode } from '../../../common/context/injection';
import { useApi } from '../../api/api-context';
import { useSaveSettings } from './use-save-settings';
import { kib } from '../context-preview/ContextPreview';
import './injection.css';

type Key = keyof InjectionSettings;
type NumberKey = keyof typeof INJECTION_LIMITS;
const KEYS = Object.keys(DEFAULT_INJECTION) as Key[];

const MODE_LABELS: Record<RelevantMode, string> = {
  relevant: 'The files that match it',
  recent_only: 'The most recent files, whatever it says',
  off: 'None (agents can still search)',
};

/** A form's values as typed: numbers as text until they are checked. */
interface Draft {
  relevant: RelevantMode;
  recentWhenNoMatch: boolean;
  relevantMaxFiles: string;
  relevantMaxBytes: string;
  hotSetMaxBytes: string;
}

const toDraft = (v: InjectionSettings): Draft => ({
  relevant: v.relevant,
  recentWhenNoMatch: v.recentWhenNoMatch,
  relevantMaxFiles: String(v.relevantMaxFiles),
  relevantMaxBytes: String(v.relevantMaxBytes),
  hotSetMaxBytes: String(v.hotSetMaxBytes),
});

const UNITS: Record<NumberKey, string> = { relevantMaxFiles: 'files', relevantMaxBytes: 'bytes', hotSetMaxBytes: 'bytes' };

/** A typed number as the setting, or what is wrong with it. */
function checkNumber(key: NumberKey, text: string): { value: number } | { error: string } {
  const { min, max } = INJECTION_LIMITS[key];
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isInteger(value) && value >= min && value <= max) return { value };
  return { error: `A whole number from ${min} to ${max} ${UNITS[key]}.` };
}

export function InjectionSettingsPanel() {
  const { orpc } = useApi();
  const settings = useQuery(orpc.settings.get.queryOptions());
  const workspaces = useQuery(orpc.workspaces.list.queryOptions());
  const save = useSaveSettings();
  const [picked, setPicked] = useState<string | null>(null);
  const pickerId = useId();

  if (!settings.data) return <p className="muted injection">Loading the settings…</p>;
  const global = settings.data.injection;
  const overrides = settings.data.injectionByWorkspace;
  const list = workspaces.data ?? [];
  const workspace = list.find((w) => w.id === picked) ?? list[0];

  return (
    <section className="injection" role="tabpanel" aria-label="Agent context">
      <p className="muted">
        What Cairn gives agents without a tool call: at the start of a session the memory index and the hot set (pinned, then most used files), and with each prompt a few memory
        files. Files the content scanners flag are never given. <code>cairn context</code> (Claude Code&rsquo;s hooks) and <code>cairn mcp</code> follow these settings from their next call
        or session.
      </p>
      <InjectionForm key="global" title="All workspaces" global={global} value={global} onSave={(v) => save.mutateAsync({ injection: { ...global, ...v } })} />
      <h3>For one workspace</h3>
      {list.length === 0 || !workspace ? (
        <p className="muted">No workspace yet: the settings above apply to every agent.</p>
      ) : (
        <>
          <label className="injection-picker" htmlFor={pickerId}>
            Workspace
            <select id={pickerId} value={workspace.id} onChange={(e) => setPicked(e.target.value)}>
              {list.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                  {overrides[w.id] ? ' (own settings)' : ''}
                </option>
              ))}
            </select>
          </label>
          <InjectionForm
            key={workspace.id}
            title={workspace.name}
            global={global}
            value={overrides[workspace.id] ?? {}}
            overriding
            onSave={(v) => {
              const next = { ...overrides };
              if (Object.keys(v).length === 0) delete next[workspace.id];
              else next[workspace.id] = v;
              return save.mutateAsync({ injectionByWorkspace: next });
            }}
          />
        </>
      )}
    </section>
  );
}

interface FormProps {
  readonly title: string;
  readonly global: InjectionSettings;
  /** The form's stored values: all of them, or (overriding) those the workspace sets. */
  readonly value: InjectionOverride;
  /** A workspace's form: each field can use the global value. */
  readonly overriding?: boolean;
  readonly onSave: (value: InjectionOverride) => Promise<unknown>;
}

function InjectionForm({ title, global, value, overriding = false, onSave }: FormProps) {
  const [draft, setDraft] = useState<Draft>(() => toDraft({ ...global, ...value }));
  const [inherit, setInherit] = useState<Record<Key, boolean>>(() => Object.fromEntries(KEYS.map((k) => [k, overriding && value[k] === undefined])) as Record<Key, boolean>);
  const [status, setStatus] = useState<{ kind: 'saved' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const set = <K extends keyof Draft>(key: K, v: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: v }));
    setStatus(null);
  };
  const toggleInherit = (key: Key, on: boolean) => {
    setInherit((i) => ({ ...i, [key]: on }));
    // Starting an override from the global value, so nothing changes until the person changes it.
    if (!on) setDraft((d) => ({ ...d, [key]: toDraft(global)[key] }));
    setStatus(null);
  };

  // What the form would save, and what is wrong with it.
  const errors: Partial<Record<NumberKey, string>> = {};
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    if (inherit[key]) continue;
    if (key === 'relevant' || key === 'recentWhenNoMatch') out[key] = draft[key];
    else {
      const checked = checkNumber(key, draft[key]);
      if ('error' in checked) errors[key] = checked.error;
      else out[key] = checked.value;
    }
  }
  const next = out as InjectionOverride;
  const changed = KEYS.some((k) => next[k] !== value[k]);
  const invalid = Object.keys(errors).length > 0;
  const shown = (key: Key) => (inherit[key] ? global[key] : undefined);
  const mode = inherit.relevant ? global.relevant : draft.relevant;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (invalid || !changed) return;
    setBusy(true);
    try {
      await onSave(next);
      setStatus({ kind: 'saved', text: 'Saved. Agents get this from their next prompt or session.' });
    } catch (err) {
      setStatus({ kind: 'error', text: `Not saved: ${err instanceof Error ? err.message : String(err)}` });
    } finally {
      setBusy(false);
    }
  };

  const useGlobal = (key: Key, what: string) =>
    overriding ? (
      <label className="check injection-inherit">
        <input type="checkbox" aria-label={`${what}: use global`} checked={inherit[key]} onChange={(e) => toggleInherit(key, e.target.checked)} /> Use global
      </label>
    ) : null;

  const numberRow = (key: NumberKey, label: string, hint: (n: number) => string) => {
    const globalValue = shown(key);
    const text = globalValue !== undefined ? String(globalValue) : draft[key];
    const n = checkNumber(key, text);
    return (
      <div className="injection-row">
        <label htmlFor={`${id}-${key}`}>{label}</label>
        <div className="injection-control">
          <input
            id={`${id}-${key}`}
            type="number"
            inputMode="numeric"
            min={INJECTION_LIMITS[key].min}
            max={INJECTION_LIMITS[key].max}
            value={text}
            disabled={inherit[key]}
            aria-invalid={errors[key] ? true : undefined}
            aria-describedby={`${id}-${key}-hint`}
            onChange={(e) => set(key, e.target.value)}
          />
          <span id={`${id}-${key}-hint`} className={errors[key] ? 'injection-hint error-text' : 'injection-hint muted'}>
            {errors[key] ?? ('value' in n ? hint(n.value) : '')}
          </span>
        </div>
        {useGlobal(key, label)}
      </div>
    );
  };

  return (
    <form className="injection-form" aria-label={overriding ? `Agent context for ${title}` : 'Agent context for all workspaces'} onSubmit={(e) => void submit(e)}>
      <h3>{overriding ? `Overrides for ${title}` : title}</h3>
      <div className="injection-row">
        <label htmlFor={`${id}-relevant`}>With each prompt</label>
        <div className="injection-control">
          <select id={`${id}-relevant`} value={mode} disabled={inherit.relevant} onChange={(e) => set('relevant', e.target.value as RelevantMode)}>
            {RELEVANT_MODES.map((m) => (
              <option key={m} value={m}>
                {MODE_LABELS[m]}
              </option>
            ))}
          </select>
        </div>
        {useGlobal('relevant', 'With each prompt')}
      </div>
      <div className="injection-row">
        <span />
        <label className="check injection-control">
          <input
            type="checkbox"
            checked={inherit.recentWhenNoMatch ? global.recentWhenNoMatch : draft.recentWhenNoMatch}
            disabled={inherit.recentWhenNoMatch || mode !== 'relevant'}
            onChange={(e) => set('recentWhenNoMatch', e.target.checked)}
          />{' '}
          When no file matches, the most recent ones instead of nothing
        </label>
        {useGlobal('recentWhenNoMatch', 'When no file matches')}
      </div>
      {numberRow('relevantMaxFiles', 'Files per prompt, at most', (n) => (n === 1 ? 'one file' : `${n} files`))}
      {numberRow('relevantMaxBytes', 'Bytes per prompt, at most', (n) => kib(n))}
      {numberRow('hotSetMaxBytes', 'Hot set at session start, bytes', (n) => (n === 0 ? 'no hot set' : kib(n)))}
      <div className="injection-actions">
        <button type="submit" className="btn primary" disabled={busy || invalid || !changed}>
          Save
        </button>
        {!overriding ? (
          <button
            type="button"
            className="btn"
            disabled={busy || KEYS.every((k) => String(draft[k]) === String(DEFAULT_INJECTION[k]))}
            onClick={() => {
              setDraft(toDraft(DEFAULT_INJECTION));
              setStatus(null);
            }}
          >
            Defaults
          </button>
        ) : (
          <button
            type="button"
            className="btn"
            disabled={busy || KEYS.every((k) => inherit[k])}
            onClick={() => {
              setInherit(Object.fromEntries(KEYS.map((k) => [k, true])) as Record<Key, boolean>);
              setStatus(null);
            }}
          >
            Use global for all
          </button>
        )}
        {status ? (
          <span role="status" className={status.kind === 'error' ? 'error-text' : 'muted'}>
            {status.text}
          </span>
        ) : null}
      </div>
    </form>
  );
}
