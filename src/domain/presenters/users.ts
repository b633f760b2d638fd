import type { UsersTable } from '../../db/types.js';
import type { AdminUserOut, MeOut, SessionUserOut } from '../../shared/accounts.js';
import type { PersonOut, UserSummaryOut } from '../../shared/common.js';

export const avatarUrl = (stored: string | null): string | null =>
  stored ? `/uploads/avatars/${stored}` : null;

/** GET /api/me and the profile answers. */
export const presentMe = (u: UsersTable): MeOut => ({
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
export const presentAdminUser = (u: UsersTable): AdminUserOut => ({
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
export const presentUserSummary = (
  u: Pick<UsersTable, 'id' | 'username' | 'name' | 'avatar'>,
): UserSummaryOut => ({
  id: u.id,
  username: u.username,
  name: u.name,
  avatar: avatarUrl(u.avatar),
});

type SessionUserRow = Pick<
  UsersTable,
  'id' | 'username' | 'name' | 'email' | 'avatar' | 'is_system_admin' | 'must_change_password'
>;

/**
 * The signed-in user of a session: the sign-in answer, and GET /api/auth/session, which also says
 * whether the user must turn on two-factor sign-in first (`twoFactorSetupRequired`).
 */
export const presentSessionUser = (u: SessionUserRow, twoFactorSetupRequired?: boolean): SessionUserOut => ({
  id: u.id,
  username: u.username,
  name: u.name,
  email: u.email,
  avatar: avatarUrl(u.avatar),
  isSystemAdmin: u.is_system_admin === 1,
  mustChangePassword: u.must_change_password === 1,
  ...(twoFactorSetupRequired === undefined ? {} : { twoFactorSetupRequired }),
});

/** A person of an existing user. */
type Person = PersonOut & { id: string };

/**
 * A person nested in a ticket, comment, attachment or epic (`PersonOut`), from a user's columns as
 * a join reads them (one by one: the ticket list reads its rows as arrays): the display name falls
 * back to the username; null when there is no user (none, or a deleted one).
 */
export function presentPerson(
  id: string,
  username: string,
  name: string | null,
  avatar: string | null,
): Person;
export function presentPerson(
  id: string | null,
  username: string | null,
  name: string | null,
  avatar: string | null,
): Person | null;
export function presentPerson(
  id: string | null,
  username: string | null,
  name: string | null,
  avatar: string | null,
): Person | null {
  return id && username ? { id, name: name ?? username, avatar: avatarUrl(avatar) } : null;
}

/** A deleted user, where a person must be shown (the author of a comment, a ticket's reporter). */
export const DELETED_USER = { id: null, name: 'Deleted user', avatar: null } as const;

/** A person who must be shown (an author, a reporter, an uploader): a deleted user reads as `DELETED_USER`. */
export const presentAuthor = (
  id: string | null,
  username: string | null,
  name: string | null,
  avatar: string | null,
): PersonOut => presentPerson(id, username, name, avatar) ?? { ...DELETED_USER };
