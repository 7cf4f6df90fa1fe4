/** The history routes: a view's versions, what each changed, undo and restore (as the person). */
import type { Version } from '../../../common/api/contract';
import type { VersionRow } from '../../memory/version-history';
import { reopenUndone } from '../../inbox/inbox-review';
import { os, withSession } from '../base';

/** A version as the API gives it (the store's owner and hashes stay inside). */
function versionOut(v: VersionRow): Version {
  return { id: v.id, at: v.at, batch: v.batch, scope: v.scope, path: v.path, oldPath: v.oldPath ?? null, op: v.op, actor: v.actor, cause: v.cause, added: v.added, removed: v.removed };
}

export const history = {
  list: os.history.list.use(withSession).handler(({ input, context }) => {
    const { versions, incompleteSince } = context.versions.list(context.session, { path: input.path ?? undefined, scope: input.scope ?? undefined, limit: input.limit });
    return { versions: versions.map(versionOut), incompleteSince };
  }),
  deleted: os.history.deleted.use(withSession).handler(({ input, context }) => ({
    versions: context.versions.deleted(context.session, { path: input.path ?? undefined, scope: input.scope ?? undefined, limit: input.limit }).map(versionOut),
  })),
  read: os.history.read.use(withSession).handler(({ input, context }) => {
    const { version, before, after } = context.versions.read(input.id, context.session);
    return { version: versionOut(version), before: before ?? null, after: after ?? null, beforeKnown: before !== undefined, afterKnown: after !== undefined };
  }),
  undo: os.history.undo.use(withSession).handler(async ({ input, context }) => {
    const outcome = await context.versions.undo(input.id, context.session);
    if (outcome.status === 'conflict') return outcome;
    const v = outcome.version;
    const what = outcome.files === 1 ? v.path : `${outcome.files} files`;
    const reopened = reopenUndone(context.inbox, v.cause) !== null;
    return { status: 'ok' as const, message: `Undid the ${v.op} of ${what}.${reopened ? ' Its inbox item is pending again.' : ''}`, paths: [...outcome.paths] };
  }),
  restore: os.history.restore.use(withSession).handler(async ({ input, context }) => {
    const { path, created, restored } = await context.versions.restore(input.path, input.id, context.session);
    return { status: 'ok' as const, message: created ? `Restored ${path}: created again.` : `Restored ${path} to that version.`, versionId: restored };
  }),
};
