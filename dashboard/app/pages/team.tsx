import { useState } from 'preact/hooks';
import { api, unwrap, type Role, type Schemas } from '../api.ts';
import { useNotify } from '../components/notices.tsx';
import {
  ConfirmButton,
  ErrorText,
  LoadMore,
  PageTitle,
  ShownOnce,
  StatusBadge,
  Time,
  useAction,
  ScrollTable,
} from '../components/ui.tsx';
import { dateTime } from '../format.ts';
import { useLoad, usePaged } from '../hooks.ts';
import { browserLabel } from '../user-agent.ts';
import { useIsAdmin, useSession } from '../session.ts';

type TeamUser = Schemas['User'];
type Invitation = Schemas['Invitation'];

/** Admins: the organization's users, roles, invitations and sessions. Everyone: their own sessions. */
export function TeamPage() {
  const admin = useIsAdmin();
  const session = useSession();
  return (
    <>
      <PageTitle>{admin ? 'Team' : 'Your sessions'}</PageTitle>
      {admin && <Users />}
      <Sessions userId={session.user.id} title={admin ? 'Your sessions' : 'Signed-in browsers'} />
    </>
  );
}

function Users() {
  const self = useSession().user;
  const notify = useNotify();
  const users = usePaged<TeamUser>(
    (startingAfter) =>
      unwrap(api.GET('/v1/users', { params: { query: { limit: 25, starting_after: startingAfter } } })),
    'users',
  );
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [link, setLink] = useState<Invitation | null>(null);
  const [sessionsOf, setSessionsOf] = useState<string | null>(null);
  const invite = useAction();
  const row = useAction();
  // The server refuses to demote or remove the last active admin (409 `last_admin`): leave those
  // controls off your own row when the whole list shows no other active admin.
  const lastAdmin =
    self.role === 'admin' &&
    !users.hasMore &&
    !users.items.some((user) => user.id !== self.id && user.role === 'admin' && user.status === 'active');
  return (
    <>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void invite.run(async () => {
              setLink(await unwrap(api.POST('/v1/invitations', { body: { email, role } })));
              setEmail('');
              users.reload();
            });
          }}
        >
          <label>
            Email
            <input type="email" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
          </label>
          <label>
            Role
            <select value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              <option value="viewer">viewer (read only)</option>
              <option value="admin">admin</option>
            </select>
          </label>
          <button type="submit" disabled={invite.busy}>
            Create invitation link
          </button>
        </form>
        <ErrorText error={invite.error} />
        {link && (
          <ShownOnce
            label={`Invitation link for ${link.email} (send it to them; valid until ${dateTime(link.expiresAt)})`}
            value={link.url}
            onDone={() => setLink(null)}
          />
        )}
      </section>
      <section aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <ErrorText error={users.error ?? row.error} />
        <ScrollTable label="Users table">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.items.map((user) => (
                <tr key={user.id}>
                  <th scope="row">
                    {user.email}
                    {user.id === self.id ? ' (you)' : ''}
                  </th>
                  <td>
                    {user.id === self.id && lastAdmin ? (
                      <>
                        {user.role} <span class="muted">(the only admin: make someone else admin first)</span>
                      </>
                    ) : (
                      <>
                        <label class="visually-hidden" for={`role-${user.id}`}>
                          Role of {user.email}
                        </label>
                        <select
                          id={`role-${user.id}`}
                          value={user.role}
                          onChange={(event) => {
                            const next = event.currentTarget.value as Role;
                            void row.run(async () => {
                              try {
                                const saved = await unwrap(
                                  api.PATCH('/v1/users/{id}', {
                                    params: { path: { id: user.id } },
                                    body: { role: next },
                                  }),
                                );
                                users.replace((item) => item.id === user.id, saved);
                                notify(`${user.email} is now ${next}.`);
                              } catch (error) {
                                users.replace((item) => item.id === user.id, { ...user });
                                throw error;
                              }
                            });
                          }}
                        >
                          <option value="admin">admin</option>
                          <option value="viewer">viewer</option>
                        </select>
                      </>
                    )}
                  </td>
                  <td>
                    <StatusBadge status={user.status} />
                    {user.status === 'invited' &&
                      (user.invitationExpiresAt ? (
                        <span class="muted">
                          {' '}
                          until <Time iso={user.invitationExpiresAt} />
                        </span>
                      ) : (
                        <span class="muted"> (invitation expired: invite them again)</span>
                      ))}
                  </td>
                  <td>
                    <Time iso={user.createdAt} />
                  </td>
                  <td class="actions">
                    {/* Only someone who has signed in (by password or link) can have sessions. */}
                    {user.status === 'active' &&
                      (user.id === self.id ? (
                        <button
                          type="button"
                          class="secondary small"
                          onClick={() => document.getElementById(`sessions-${self.id}`)?.scrollIntoView()}
                        >
                          Sessions
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="secondary small"
                          aria-expanded={sessionsOf === user.id}
                          onClick={() => setSessionsOf(sessionsOf === user.id ? null : user.id)}
                        >
                          Sessions
                        </button>
                      ))}
                    {!(user.id === self.id && lastAdmin) && (
                      <ConfirmButton
                        label="Remove"
                        confirmLabel={`Remove ${user.email}`}
                        onConfirm={() =>
                          row.run(async () => {
                            await unwrap(api.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } }));
                            users.replace((item) => item.id === user.id, null);
                            notify(`${user.email} removed.`);
                          })
                        }
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
        <LoadMore hasMore={users.hasMore} loading={users.loading} onClick={users.loadMore} />
        {sessionsOf && sessionsOf !== self.id && (
          <Sessions
            userId={sessionsOf}
            title={`Sessions of ${users.items.find((user) => user.id === sessionsOf)?.email ?? sessionsOf}`}
            other
          />
        )}
      </section>
    </>
  );
}

function Sessions({ userId, title, other = false }: { userId: string; title: string; other?: boolean }) {
  const notify = useNotify();
  const sessions = useLoad(
    () => unwrap(api.GET('/v1/sessions', { params: { query: other ? { userId } : {} } })),
    userId,
  );
  const revoke = useAction();
  return (
    <section aria-labelledby={`sessions-${userId}`}>
      <h2 id={`sessions-${userId}`}>{title}</h2>
      <ErrorText error={sessions.error ?? revoke.error} />
      <ScrollTable label={`${title} table`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(sessions.value?.data ?? []).map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <span title={item.userAgent ?? undefined}>{browserLabel(item.userAgent)}</span>
                  {item.current ? ' (this browser)' : ''}
                </th>
                <td>{item.ipAddress ?? '—'}</td>
                <td>
                  <Time iso={item.createdAt} />
                </td>
                <td>
                  <Time iso={item.lastSeenAt} />
                </td>
                <td>
                  <Time iso={item.expiresAt} />
                </td>
                <td>
                  {!item.current && (
                    <ConfirmButton
                      label="Revoke"
                      confirmLabel="Revoke session"
                      onConfirm={() =>
                        revoke.run(async () => {
                          await unwrap(api.DELETE('/v1/sessions/{id}', { params: { path: { id: item.id } } }));
                          notify('Session revoked.');
                          sessions.reload();
                        })
                      }
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      {sessions.value?.data.length === 0 && (
        <p class="muted">
          No sessions: {other ? 'this user is' : 'you are'} not signed in in any browser. A session starts at each
          sign-in and ends on signing out, on revoking it here, or after 7 days unused.
        </p>
      )}
    </section>
  );
}
