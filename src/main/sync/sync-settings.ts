/**
 * How a sync remote is shown: as the person configured it, less any password or token in it
 * (`https://me:TOKEN@host/repo` and `https://TOKEN@host/repo` -> `https://host/repo`;
 * `ssh://git@host/repo` keeps its user), since it is printed, kept in the sync's records and in
 * Inbox items, and may reach a screen share or a bug report.
 */
export function shownRemote(remote: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^@/]*)@(.*)$/i.exec(remote);
  if (!m) return remote;
  const [, scheme, userinfo, rest] = m as unknown as [string, string, string, string];
  // Over http(s) the user part is where a token goes; over ssh it is a login name.
  const keep = /^https?$/i.test(scheme) ? '' : userinfo.split(':')[0]!;
  return `${scheme}://${keep ? `${keep}@` : ''}${rest}`;
}
