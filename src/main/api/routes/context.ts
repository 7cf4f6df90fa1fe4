/** The context route: what agents receive without asking, as the person previews it. */
import { INDEX_MAX_BYTES } from '../../../common/memory/constants';
import { injectionFor } from '../../../common/context/injection';
import { utf8Length } from '../../../common/context/render';
import { os, withSession } from '../base';

export const context = {
  preview: os.context.preview.use(withSession).handler(async ({ context }) => {
    const { session, builder } = context;
    // The same builder and render functions as `cairn context`: the same bytes.
    const snapshot = await builder.snapshot(session);
    const index = builder.index(snapshot);
    // Within the view's injection settings, as agents of this workspace get it.
    const { hotSetMaxBytes } = injectionFor(context.registry.settings(), session.workspaceId);
    const hot = await builder.hotSet(snapshot, session, hotSetMaxBytes);
    return { index: { text: index, bytes: utf8Length(index), budget: INDEX_MAX_BYTES }, hot: { text: hot, bytes: utf8Length(hot), budget: hotSetMaxBytes } };
  }),
};
