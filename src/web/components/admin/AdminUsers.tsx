import { type ReactNode, useEffect, useState } from 'react';
import { type AdminUserQuery, useAdminUsers } from '../../api/admin';
import { errorText } from '../../api/client';
import type { AdminUser, SessionUser } from '../../api/types';
import { fullTime, relativeTime } from '../time';
import { Avatar, Button, EmptyState, ErrorState, Input, Select, Skeleton } from '../ui';
import { CreateUserDialog, ManageUserDialog } from './AdminUserDialogs';

/** The API's own words for the self-protection rules (DECISIONS "Users and accounts"). */
export const SELF_RULES = {
  disable: 'Cannot disable your own account',
  delete: 'Cannot delete your own account',
  demote: 'Cannot remove your own administrator rights as the only administrator',
} as const;

export const ACTIVE_ADMINS: AdminUserQuery = {
  search: '',
  status: 'active',
  role: 'admin',
  sortBy: 'username',
  sortOrder: 'asc',
};

/** Search with a short pause, so that the list is not asked for on every key press. */
export function useDebounced<T>(value: T, ms = 200): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
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
  const header = (id: AdminUserQuery['sortBy'], label: string) => (
    <SortHeader id={id} label={label} sortBy={sortBy} sortOrder={sortOrder} onSort={sortOn} />
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
        <UserFilters
          status={status}
          setStatus={setStatus}
          role={role}
          setRole={setRole}
          sortBy={sortBy}
          sortOrder={sortOrder}
          setSort={(by, order) => {
            setSortBy(by);
            setSortOrder(order);
          }}
        />
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
                <UserRow key={u.id} user={u} me={me} onManage={() => setManaging(u)} />
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

/** The status and role filters and the sort of the user list. */
function UserFilters({
  status,
  setStatus,
  role,
  setRole,
  sortBy,
  sortOrder,
  setSort,
}: {
  status: AdminUserQuery['status'];
  setStatus: (s: AdminUserQuery['status']) => void;
  role: AdminUserQuery['role'];
  setRole: (r: AdminUserQuery['role']) => void;
  sortBy: AdminUserQuery['sortBy'];
  sortOrder: AdminUserQuery['sortOrder'];
  setSort: (by: AdminUserQuery['sortBy'], order: AdminUserQuery['sortOrder']) => void;
}) {
  return (
    <>
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
          setSort(by as AdminUserQuery['sortBy'], order as AdminUserQuery['sortOrder']);
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
    </>
  );
}

/** A column heading that sorts the list by it (again: the other way round). */
function SortHeader({
  id,
  label,
  sortBy,
  sortOrder,
  onSort,
}: {
  id: AdminUserQuery['sortBy'];
  label: string;
  sortBy: AdminUserQuery['sortBy'];
  sortOrder: AdminUserQuery['sortOrder'];
  onSort: (id: AdminUserQuery['sortBy']) => void;
}) {
  return (
    <th
      scope="col"
      className="px-3 py-2 text-left font-medium"
      aria-sort={sortBy === id ? (sortOrder === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button
        type="button"
        onClick={() => onSort(id)}
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
}

/** A user in the list: who, e-mail, role, status, since when, and Manage. */
function UserRow({ user: u, me, onManage }: { user: AdminUser; me: SessionUser; onManage: () => void }) {
  return (
    <tr
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
        {u.isActive ? <Badge tone="success">Active</Badge> : <Badge tone="danger">Disabled</Badge>}
      </td>
      <td className="px-3 py-2 whitespace-nowrap text-muted">
        <time dateTime={u.createdAt} title={fullTime(u.createdAt)}>
          {relativeTime(u.createdAt)}
        </time>
      </td>
      <td className="px-3 py-2 text-right">
        <Button size="sm" aria-label={`Manage ${u.username}`} onClick={onManage}>
          Manage
        </Button>
      </td>
    </tr>
  );
}

export function Badge({
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
