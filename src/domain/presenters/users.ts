import type { UsersTable } from '../../db/types.js';

export const avatarUrl = (stored: string | null): string | null =>
  stored ? `/uploads/avatars/${stored}` : null;

/** GET /api/me and the profile answers. */
export const presentMe = (u: UsersTable) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  name: u.name,
  avatar: avatarUrl(u.avatar),
  isSystemAdmin: u.is_system_admin === 1,
  mustChangePassword: u.must_change_password === 1,
  createdAt: u.created_at,
});

/** Admin user lists and reads. */
export const presentAdminUser = (u: UsersTable) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  name: u.name,
  avatar: avatarUrl(u.avatar),
  isSystemAdmin: u.is_system_admin === 1,
  isActive: u.is_active === 1,
  createdAt: u.created_at,
});

/** Pickers, members, user.updated events. */
export const presentUserSummary = (u: Pick<UsersTable, 'id' | 'username' | 'name' | 'avatar'>) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  avatar: avatarUrl(u.avatar),
});

/** Nested people on tickets and comments: {id, name, avatar}; name falls back to the username. */
export const presentPerson = (
  u: Pick<UsersTable, 'id' | 'username' | 'name' | 'avatar'> | null | undefined,
) => (u ? { id: u.id, name: u.name ?? u.username, avatar: avatarUrl(u.avatar) } : null);

export const DELETED_USER = { id: null, name: 'Deleted user', avatar: null } as const;
