/**
 * Settings: Memory (the global scope on its own, usable with no workspace at all), Agent context
 * (the injection settings, global and per workspace: ./InjectionSettings.tsx), Models (what proposes
 * the harvest and consolidation: ./ModelSettings.tsx), Sync (the global memory through the person's
 * git remote: ./SyncSettings.tsx) and Appearance
 * (theme, preview by default), stored by the main process.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/api-context';
import { useSaveSettings } from './use-save-settings';
import { MemoryPane } from '../../app/MemoryPane';
import { InjectionSettingsPanel } from './InjectionSettings';
import { ModelSettingsPanel } from './ModelSettings';
import { SyncSettingsPanel } from './SyncSettings';

export function SettingsView({ dark, dirtyRef }: { dark: boolean; dirtyRef: React.MutableRefObject<boolean> }) {
  const { orpc } = useApi();
  const settings = useQuery(orpc.settings.get.queryOptions());
  const save = useSaveSettings();
  const [tab, setTab] = useState<'memory' | 'context' | 'models' | 'sync' | 'appearance'>('memory');
  return (
    <div className="settings">
      <div className="tabs" role="tablist" aria-label="Settings">
        <button type="button" role="tab" aria-selected={tab === 'memory'} className={tab === 'memory' ? 'tab selected' : 'tab'} onClick={() => setTab('memory')}>
          Memory
        </button>
        <button type="button" role="tab" aria-selected={tab === 'context'} className={tab === 'context' ? 'tab selected' : 'tab'} onClick={() => setTab('context')}>
          Agent context
        </button>
        <button type="button" role="tab" aria-selected={tab === 'models'} className={tab === 'models' ? 'tab selected' : 'tab'} onClick={() => setTab('models')}>
          Models
        </button>
        <button type="button" role="tab" aria-selected={tab === 'sync'} className={tab === 'sync' ? 'tab selected' : 'tab'} onClick={() => setTab('sync')}>
          Sync
        </button>
        <button type="button" role="tab" aria-selected={tab === 'appearance'} className={tab === 'appearance' ? 'tab selected' : 'tab'} onClick={() => setTab('appearance')}>
          Appearance
        </button>
      </div>
      {tab === 'memory' ? (
        <MemoryPane workspaceId={null} scopes={['global']} title="Global memory" dark={dark} previewByDefault={settings.data?.previewByDefault ?? false} dirtyRef={dirtyRef} />
      ) : tab === 'context' ? (
        <InjectionSettingsPanel />
      ) : tab === 'models' ? (
        <ModelSettingsPanel />
      ) : tab === 'sync' ? (
        <SyncSettingsPanel />
      ) : (
        <section className="appearance" role="tabpanel" aria-label="Appearance">
          <label>
            Theme
            <select value={settings.data?.theme ?? 'system'} onChange={(e) => save.mutate({ theme: e.target.value as 'system' | 'light' | 'dark' })}>
              <option value="system">Follow the system</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={settings.data?.previewByDefault ?? false} onChange={(e) => save.mutate({ previewByDefault: e.target.checked })} /> Open files in the rendered preview
          </label>
        </section>
      )}
    </div>
  );
}
