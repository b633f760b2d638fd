import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { PASSWORD_RULES } from '../../../shared/accounts';
import { type AdminUserQuery, createUser, deleteUser, updateUser, useAdminUsers } from '../../api/admin';
import { errorText } from '../../api/client';
import { qk } from '../../api/keys';
import type { AdminUser, SessionUser } from '../../api/types';
import { PasswordRules } from '../../pages/auth';
import { ConfirmDialog } from '../ConfirmDialog';
import { FormError } from '../ProjectNav';
import { fullTime, relativeTime } from '../time';
import { useToast } from '../toast';
import { Avatar, Button, Dialog, EmptyState, ErrorState, Field, Input, Select, Skeleton } from '../ui';

/** The API's own words for the self-protection rules (DECISIONS "Users and accounts"). */
export const SELF_RULES = {
  disable: 'Cannot disable your own account',
  delete: 'Cannot delete your own account',
  demote: 'Cannot remove your own administrator rights as the only administrator',
} as const;

const ACTIVE_ADMINS: AdminUserQuery = {
  search: '',
  status: 'active',
  role: 'admin',
  sortBy: 'username',
  sortOrder: 'asc',
};

/** Search with a short pause, so that the list is not asked for on every key press. */
function useDebounced<T>(value: T, ms = 200): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** Keeps every cached user list in step with one changed user, then asks the server again. */
function useUserChanged() {
  const qc = useQueryClient();
  return (user: AdminUser | null, removedId?: string) => {
    qc.setQueriesData<AdminUser[]>({ queryKey: ['admin-users'] }, (list) => {
      if (!list) return list;
      if (removedId) return list.filter((u) => u.id !== removedId);
      return user ? list.map((u) => (u.id === user.id ? user : u)) : list;
    });
    qc.invalidateQueries({ queryKey: ['admin-users'] });
  };
}

export function AdminUsers({ me }: { me: SessionUser }) {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<AdminUserQuery['status']>('');
  const [role, setRole] = useState<AdminUserQuery['role']>('');
  const [sortBy, setSortBy] = useState<AdminUserQuery['sortBy']>('username');
  const [sortOrder, setSortOrder] = useState<AdminUserQuery['sortOrder']>('asc');
  const [creating, setCreating] = useState(false);
  const [managing, setManaging] = useState<AdminUser | null>(null);
  const q = useDebounced(search);
  const users = useAdminUsers({ search: q, status, role, sortBy, sortOrder });
  const admins = useAdminUsers(ACTIVE_ADMINS);
  const filtered = !!(search || status || role);
  const list = users.data ?? [];
  // The dialog follows the fresh row, and stays open when a change moves the user out of the filter.
  const managed = managing ? (list.find((u) => u.id === managing.id) ?? managing) : null;

  const sortOn = (id: AdminUserQuery['sortBy']) => {
    if (sortBy === id) setSortOrder(sortOrder === 'asc' ? 'desc' : 'asc');
    else {
      setSortBy(id);
      setSortOrder(id === 'createdAt' ? 'desc' : 'asc');
    }
  };
  const header = (id: AdminUserQuery['sortBy'], label: string, className = '') => (
    <th
      scope="col"
      className={`px-3 py-2 text-left font-medium ${className}`}
      aria-sort={sortBy === id ? (sortOrder === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button
        type="button"
        onClick={() => sortOn(id)}
        className="inline-flex items-center gap-1 rounded hover:text-fg"
        aria-label={`Sort by ${label.toLowerCase()}`}
      >
        {label}
        <span aria-hidden="true" className="w-3 text-[10px]">
          {sortBy === id ? (sortOrder === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );

  return (
    <div className="flex max-w-5xl flex-col gap-3 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <div className="w-64">
          <Input
            type="search"
            aria-label="Search users"
            placeholder="Search name, username or e-mail"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <Select
          aria-label="Status"
          className="w-auto"
          value={status}
          onChange={(e) => setStatus(e.target.value as AdminUserQuery['status'])}
        >
          <option value="">Any status</option>
          <option value="active">Active</option>
          <option value="disabled">Disabled</option>
        </Select>
        <Select
          aria-label="Role"
          className="w-auto"
          value={role}
          onChange={(e) => setRole(e.target.value as AdminUserQuery['role'])}
        >
          <option value="">Any role</option>
          <option value="admin">Administrators</option>
          <option value="user">Users</option>
        </Select>
        <Select
          aria-label="Sort by"
          className="w-auto"
          value={`${sortBy}:${sortOrder}`}
          onChange={(e) => {
            const [by, order] = e.target.value.split(':');
            setSortBy(by as AdminUserQuery['sortBy']);
            setSortOrder(order as AdminUserQuery['sortOrder']);
          }}
        >
          <option value="username:asc">Username A–Z</option>
          <option value="username:desc">Username Z–A</option>
          <option value="name:asc">Name A–Z</option>
          <option value="name:desc">Name Z–A</option>
          <option value="email:asc">E-mail A–Z</option>
          <option value="email:desc">E-mail Z–A</option>
          <option value="createdAt:desc">Newest first</option>
          <option value="createdAt:asc">Oldest first</option>
        </Select>
        <span className="flex-1" />
        <span className="text-muted" data-testid="user-count" aria-live="polite">
          {users.data ? `${list.length} ${list.length === 1 ? 'user' : 'users'}` : ''}
        </span>
        <Button variant="primary" onClick={() => setCreating(true)}>
          New user
        </Button>
      </div>

      {users.isError && <ErrorState message={errorText(users.error)} onRetry={() => users.refetch()} />}
      {users.isPending && (
        <div className="flex flex-col gap-2" role="status" aria-busy="true" aria-label="Loading users">
          {[0, 1, 2, 3].map((i) => (
            <Skeleton key={i} className="h-10" />
          ))}
        </div>
      )}
      {users.data && list.length === 0 && (
        <EmptyState
          title={filtered ? 'No users match' : 'No users'}
          action={
            filtered && (
              <Button
                onClick={() => {
                  setSearch('');
                  setStatus('');
                  setRole('');
                }}
              >
                Clear filters
              </Button>
            )
          }
        >
          {filtered ? 'Try another search or filter.' : 'Create the first one.'}
        </EmptyState>
      )}
      {users.data && list.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-line bg-surface">
          <table className="w-full border-collapse text-[13px]" aria-label="Users">
            <thead className="border-b border-line text-[12px] text-muted">
              <tr>
                {header('username', 'User')}
                {header('email', 'E-mail')}
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Role
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Status
                </th>
                {header('createdAt', 'Created')}
                <th scope="col" className="px-3 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className={users.isPlaceholderData ? 'opacity-60' : ''}>
              {list.map((u) => (
                <tr
                  key={u.id}
                  data-testid="user-row"
                  data-username={u.username}
                  className="border-b border-line last:border-b-0 hover:bg-hover/50"
                >
                  <td className="px-3 py-2">
                    <div className="flex min-w-0 items-center gap-2">
                      <Avatar name={u.name ?? u.username} src={u.avatar} size={24} />
                      <div className="min-w-0">
                        <div className="truncate font-medium text-fg">
                          {u.name ?? u.username}
                          {u.id === me.id && <span className="ml-1 font-normal text-faint">(you)</span>}
                        </div>
                        <div className="truncate text-[12px] text-faint">@{u.username}</div>
                      </div>
                    </div>
                  </td>
                  <td className="max-w-[16rem] truncate px-3 py-2 text-muted">
                    {u.email ?? <span className="text-faint">—</span>}
                  </td>
                  <td className="px-3 py-2">
                    {u.isSystemAdmin ? <Badge tone="accent">Administrator</Badge> : <Badge>User</Badge>}
                  </td>
                  <td className="px-3 py-2">
                    {u.isActive ? (
                      <Badge tone="success">Active</Badge>
                    ) : (
                      <Badge tone="danger">Disabled</Badge>
                    )}
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap text-muted">
                    <time dateTime={u.createdAt} title={fullTime(u.createdAt)}>
                      {relativeTime(u.createdAt)}
                    </time>
                  </td>
                  <td className="px-3 py-2 text-right">
                    <Button size="sm" aria-label={`Manage ${u.username}`} onClick={() => setManaging(u)}>
                      Manage
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && <CreateUserDialog onClose={() => setCreating(false)} />}
      {managed && (
        <ManageUserDialog
          key={managed.id}
          user={managed}
          me={me}
          soleAdmin={
            // Until the administrators are known, err on the side of the rule.
            !admins.data || admins.data.every((a) => a.id === me.id)
          }
          onSaved={setManaging}
          onClose={() => setManaging(null)}
        />
      )}
    </div>
  );
}

function Badge({
  children,
  tone = 'neutral',
}: {
  children: ReactNode;
  tone?: 'neutral' | 'accent' | 'success' | 'danger';
}) {
  const tones = {
    neutral: 'border-line text-muted',
    accent: 'border-accent/40 bg-accent-soft text-fg',
    success: 'border-line text-success',
    danger: 'border-danger/40 bg-danger-soft text-danger',
  };
  return (
    <span
      className={`inline-flex h-5 items-center rounded-full border px-2 text-[11px] font-medium whitespace-nowrap ${tones[tone]}`}
    >
      {children}
    </span>
  );
}

function CreateUserDialog({ onClose }: { onClose: () => void }) {
  const changed = useUserChanged();
  const toast = useToast();
  const [username, setUsername] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [isSystemAdmin, setAdmin] = useState(false);
  const [confirmPassword, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ok = PASSWORD_RULES.every((r) => r.test(password));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const user = await createUser({
        username: username.trim(),
        password,
        confirmPassword,
        name: name.trim() || undefined,
        email: email.trim() || undefined,
        isSystemAdmin,
      });
      changed(user);
      toast.show(`Created ${user.username}`, 'success');
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title="New user" onClose={onClose}>
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" noValidate>
        <Field label="Username" hint="3-30 letters, digits, dashes or underscores; it cannot change later.">
          {(id) => (
            <Input
              id={id}
              autoComplete="off"
              spellCheck={false}
              value={username}
              maxLength={30}
              onChange={(e) => setUsername(e.target.value)}
            />
          )}
        </Field>
        <Field label="Display name">
          {(id) => <Input id={id} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <div className="sm:col-span-2">
          <Field label="E-mail (optional)">
            {(id) => (
              <Input
                id={id}
                type="email"
                autoComplete="off"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </Field>
        </div>
        <div className="sm:col-span-2">
          <Field label="Password for the new user" hint={<PasswordRules password={password} />}>
            {(id) => (
              <Input
                id={id}
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
        </div>
        <label className="flex items-center gap-2 sm:col-span-2">
          <input
            type="checkbox"
            checked={isSystemAdmin}
            onChange={(e) => setAdmin(e.target.checked)}
            className="accent-[var(--accent)]"
          />
          System administrator
        </label>
        <div className="border-t border-line pt-3 sm:col-span-2">
          <Field label="Your password" hint="Creating a user needs your own password.">
            {(id) => (
              <Input
                id={id}
                type="password"
                autoComplete="current-password"
                value={confirmPassword}
                onChange={(e) => setConfirm(e.target.value)}
              />
            )}
          </Field>
        </div>
        <div className="sm:col-span-2">
          <FormError error={error} />
        </div>
        <div className="flex justify-end gap-2 sm:col-span-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button
            type="submit"
            variant="primary"
            disabled={busy || !username.trim() || !ok || !confirmPassword}
          >
            {busy ? 'Creating…' : 'Create user'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** One row of the manage dialog: what is the case, and the action that changes it. */
function ActionRow({
  title,
  state,
  action,
  blocked,
}: {
  title: string;
  state: ReactNode;
  action: ReactNode;
  blocked?: string | null;
}) {
  return (
    <div className="flex flex-col gap-1 border-t border-line pt-3">
      <div className="flex items-center gap-3">
        <div className="min-w-0 flex-1">
          <div className="font-medium">{title}</div>
          <div className="text-muted">{state}</div>
        </div>
        {action}
      </div>
      {blocked && (
        <p className="text-[12px] text-faint" data-testid="blocked-reason">
          {blocked}
        </p>
      )}
    </div>
  );
}

type Pending = 'disable' | 'grant' | 'demote-self' | 'delete' | null;

function ManageUserDialog({
  user,
  me,
  soleAdmin,
  onSaved,
  onClose,
}: {
  user: AdminUser;
  me: SessionUser;
  soleAdmin: boolean;
  onSaved: (user: AdminUser) => void;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const changed = useUserChanged();
  const toast = useToast();
  const self = user.id === me.id;
  const [name, setName] = useState(user.name ?? '');
  const [email, setEmail] = useState(user.email ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending>(null);

  const patch = async (body: Partial<Pick<AdminUser, 'name' | 'email' | 'isSystemAdmin' | 'isActive'>>) => {
    const saved = await updateUser(user.id, body);
    changed(saved);
    onSaved(saved);
    return saved;
  };
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const detailsChanged = name.trim() !== (user.name ?? '') || email.trim() !== (user.email ?? '');
  const saveDetails = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const saved = await patch({ name: name.trim() || null, email: email.trim() || null });
      setName(saved.name ?? '');
      setEmail(saved.email ?? '');
      if (self) qc.invalidateQueries({ queryKey: qk.session });
      toast.show(`Saved ${saved.username}`, 'success');
    });
  };
  const demoteBlocked = self && user.isSystemAdmin && soleAdmin ? SELF_RULES.demote : null;

  return (
    <Dialog title={`Manage ${user.username}`} onClose={onClose}>
      <div className="flex flex-col gap-3">
        <div className="flex items-center gap-3">
          <Avatar name={user.name ?? user.username} src={user.avatar} size={40} />
          <div className="min-w-0 flex-1">
            <div className="truncate text-[14px] font-semibold">{user.name ?? user.username}</div>
            <div className="text-[12px] text-faint">
              @{user.username} · joined{' '}
              <time dateTime={user.createdAt} title={fullTime(user.createdAt)}>
                {relativeTime(user.createdAt)}
              </time>
            </div>
          </div>
        </div>

        <form onSubmit={saveDetails} className="grid gap-3 sm:grid-cols-2">
          <Field label="Display name">
            {(id) => <Input id={id} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="E-mail">
            {(id) => (
              <Input
                id={id}
                type="email"
                autoComplete="off"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </Field>
          <div className="flex items-center gap-2 sm:col-span-2">
            <span className="flex-1 text-[12px] text-faint">
              Usernames cannot change. People change their own password in their profile.
            </span>
            <Button type="submit" variant="primary" disabled={busy || !detailsChanged}>
              Save details
            </Button>
          </div>
        </form>

        <ActionRow
          title="Role"
          state={user.isSystemAdmin ? 'System administrator' : 'Regular user'}
          blocked={demoteBlocked}
          action={
            user.isSystemAdmin ? (
              <Button
                disabled={busy || !!demoteBlocked}
                onClick={() =>
                  self
                    ? setPending('demote-self')
                    : run(async () => {
                        await patch({ isSystemAdmin: false });
                        toast.show(`${user.username} is no longer an administrator`, 'success');
                      })
                }
              >
                Remove administrator
              </Button>
            ) : (
              <Button disabled={busy} onClick={() => setPending('grant')}>
                Make administrator
              </Button>
            )
          }
        />
        <ActionRow
          title="Access"
          state={user.isActive ? 'Active: can sign in' : 'Disabled: cannot sign in or use API keys'}
          blocked={self ? SELF_RULES.disable : null}
          action={
            user.isActive ? (
              <Button variant="danger" disabled={busy || self} onClick={() => setPending('disable')}>
                Disable account
              </Button>
            ) : (
              <Button
                disabled={busy}
                onClick={() =>
                  run(async () => {
                    await patch({ isActive: true });
                    toast.show(`${user.username} can sign in again`, 'success');
                  })
                }
              >
                Enable account
              </Button>
            )
          }
        />
        <ActionRow
          title="Delete user"
          state="Removes the profile, avatar, key and memberships; tickets and comments stay."
          blocked={self ? SELF_RULES.delete : null}
          action={
            <Button variant="danger" disabled={busy || self} onClick={() => setPending('delete')}>
              Delete user…
            </Button>
          }
        />
        <FormError error={error} />
        <div className="flex justify-end">
          <Button onClick={onClose}>Done</Button>
        </div>
      </div>

      {pending === 'grant' && (
        <ConfirmDialog
          title={`Make ${user.username} an administrator?`}
          confirmLabel="Make administrator"
          danger={false}
          onClose={() => setPending(null)}
          onConfirm={async () => {
            await patch({ isSystemAdmin: true });
            toast.show(`${user.username} is now an administrator`, 'success');
          }}
        >
          Administrators manage every user, every project, the system settings and the database.
        </ConfirmDialog>
      )}
      {pending === 'demote-self' && (
        <ConfirmDialog
          title="Give up your administrator rights?"
          confirmLabel="Remove my rights"
          onClose={() => setPending(null)}
          onConfirm={async () => {
            await patch({ isSystemAdmin: false });
            await qc.invalidateQueries({ queryKey: qk.session });
          }}
        >
          You lose access to this page at once; another administrator can give the rights back.
        </ConfirmDialog>
      )}
      {pending === 'disable' && (
        <ConfirmDialog
          title={`Disable ${user.username}?`}
          confirmLabel="Disable account"
          onClose={() => setPending(null)}
          onConfirm={async () => {
            await patch({ isActive: false });
            toast.show(`${user.username} is disabled`, 'success');
          }}
        >
          They are signed out everywhere at once, and neither they nor their API key can get in until an
          administrator enables the account again.
        </ConfirmDialog>
      )}
      {pending === 'delete' && (
        <ConfirmDialog
          title={`Delete ${user.username}?`}
          confirmLabel="Delete user"
          busyLabel="Deleting…"
          password
          onClose={() => setPending(null)}
          onConfirm={async (confirmPassword) => {
            await deleteUser(user.id, confirmPassword);
            changed(null, user.id);
            toast.show(`Deleted ${user.username}`, 'success');
            onClose();
          }}
        >
          This cannot be undone. Their profile, avatar, API key, memberships and watches are removed; their
          tickets become unassigned; tickets and comments they wrote stay, shown as by a deleted user.
          Projects they own pass to the next admin or member.
        </ConfirmDialog>
      )}
    </Dialog>
  );
}
