/**
 * The context routes: what agents receive without asking, and what a prompt would bring, as the
 * person previews them; the same builder and render functions as `cairn context`, so the bytes
 * shown are the bytes agents get.
 */
import type { z } from 'zod';
import type { indexScopeCountSchema } from '../../../common/api/contract/context';
import { injectionFor } from '../../../common/context/injection';
import { utf8Length } from '../../../common/context/render';
import { INDEX_MAX_BYTES, SCOPES } from '../../../common/memory/constants';
import type { ContextSnapshot } from '../../context/context-builder';
import { os, withSession } from '../base';

/**
 * Per scope of the view, how many of its files the rendered index lists: a line of the index is a
 * file's path, alone or before ": " and its description.
 */
function scopeCounts(snapshot: ContextSnapshot, index: string, scopes: ReadonlySet<string>): z.infer<typeof indexScopeCountSchema>[] {
  const listed = new Set(index.split('\n').map((line) => line.split(': ')[0]));
  return SCOPES.filter((scope) => scopes.has(scope)).map((scope) => {
    const files = snapshot.files.filter((f) => f.scope === scope);
    return { scope, listed: files.filter((f) => listed.has(f.path)).length, total: files.length };
  });
}

export const context = {
  preview: os.context.preview.use(withSession).handler(async ({ context }) => {
    const { session, builder } = context;
    // The same builder and render functions as `cairn context`: the same bytes.
    const snapshot = await builder.snapshot(session);
    const index = builder.index(snapshot);
    // Within the view's injection settings, as agents of this workspace get it.
    const { hotSetMaxBytes } = injectionFor(context.registry.settings(), session.workspaceId);
    const hot = await builder.hotSet(snapshot, session, hotSetMaxBytes);
    const viewScopes = new Set(SCOPES.filter((s) => session.scopes[s].available));
    return {
      index: { text: index, bytes: utf8Length(index), budget: INDEX_MAX_BYTES },
      hot: { text: hot, bytes: utf8Length(hot), budget: hotSetMaxBytes },
      scopes: scopeCounts(snapshot, index, viewScopes),
    };
  }),
  relevant: os.context.relevant.use(withSession).handler(async ({ input, context }) => {
    const { session, builder } = context;
    const injection = injectionFor(context.registry.settings(), session.workspaceId);
    const snapshot = await builder.snapshot(session);
    const text = builder.relevant(snapshot, input.prompt, Date.now(), injection);
    return { text, bytes: utf8Length(text), budget: injection.relevantMaxBytes };
  }),
};
