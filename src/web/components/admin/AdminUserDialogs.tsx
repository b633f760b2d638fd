/** Administration: the create-user and manage-user dialogs. */
import { type FormEvent, type ReactNode, useState } from 'react';
import { PASSWORD_RULES } from '../../../shared/accounts';
import { useCreateUser, useDeleteUser, useUpdateUser } from '../../api/admin';
import { errorText } from '../../api/client';
import type { AdminUser, SessionUser } from '../../api/types';
import { PasswordRules } from '../../pages/auth';
import { ConfirmDialog } from '../ConfirmDialog';
import { FormError } from '../ProjectNav';
import { fullTime, relativeTime } from '../time';
import { useToast } from '../toast';
import { Avatar, Button, Dialog, Field, Input } from '../ui';
import { SELF_RULES } from './AdminUsers';

export function CreateUserDialog({ onClose }: { onClose: () => void }) {
  const createUser = useCreateUser();
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
      const user = await createUser.mutateAsync({
        username: username.trim(),
        password,
        confirmPassword,
        name: name.trim() || undefined,
        email: email.trim() || undefined,
        isSystemAdmin,
      });
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
export function ActionRow({
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

export type Pending = 'disable' | 'grant' | 'demote-self' | 'delete' | null;

export function ManageUserDialog({
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
  const updateUser = useUpdateUser();
  const toast = useToast();
  const self = user.id === me.id;
  const [name, setName] = useState(user.name ?? '');
  const [email, setEmail] = useState(user.email ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending>(null);

  const patch = async (body: Partial<Pick<AdminUser, 'name' | 'email' | 'isSystemAdmin' | 'isActive'>>) => {
    const saved = await updateUser.mutateAsync({ userId: user.id, body });
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
      toast.show(`Saved ${saved.username}`, 'success');
    });
  };
  const demoteBlocked = self && user.isSystemAdmin && soleAdmin ? SELF_RULES.demote : null;

  return (
    <Dialog title={`Manage ${user.username}`} onClose={onClose}>
      <div className="flex flex-col gap-3">
        <UserHeader user={user} />

        <form onSubmit={saveDetails} className="grid gap-3 sm:grid-cols-2">
          <DetailsFields name={name} setName={setName} email={email} setEmail={setEmail} />
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

      <PendingConfirmation
        pending={pending}
        close={() => setPending(null)}
        user={user}
        patch={patch}
        closeManage={onClose}
      />
    </Dialog>
  );
}

/** Who is managed: avatar, name, username and since when. */
function UserHeader({ user }: { user: AdminUser }) {
  return (
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
  );
}

/** The managed user's display name and e-mail. */
function DetailsFields({
  name,
  setName,
  email,
  setEmail,
}: {
  name: string;
  setName: (v: string) => void;
  email: string;
  setEmail: (v: string) => void;
}) {
  return (
    <>
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
    </>
  );
}

/** The confirmation a pending change of the managed user asks for. */
function PendingConfirmation({
  pending,
  close,
  user,
  patch,
  closeManage,
}: {
  pending: Pending;
  close: () => void;
  user: AdminUser;
  patch: (body: Partial<Pick<AdminUser, 'isSystemAdmin' | 'isActive'>>) => Promise<AdminUser>;
  closeManage: () => void;
}) {
  const toast = useToast();
  const deleteUser = useDeleteUser();
  return (
    <>
      {pending === 'grant' && (
        <ConfirmDialog
          title={`Make ${user.username} an administrator?`}
          confirmLabel="Make administrator"
          danger={false}
          onClose={close}
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
          onClose={close}
          onConfirm={async () => {
            await patch({ isSystemAdmin: false });
          }}
        >
          You lose access to this page at once; another administrator can give the rights back.
        </ConfirmDialog>
      )}
      {pending === 'disable' && (
        <ConfirmDialog
          title={`Disable ${user.username}?`}
          confirmLabel="Disable account"
          onClose={close}
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
          onClose={close}
          onConfirm={async (confirmPassword) => {
            await deleteUser.mutateAsync({ userId: user.id, confirmPassword });
            toast.show(`Deleted ${user.username}`, 'success');
            closeManage();
          }}
        >
          This cannot be undone. Their profile, avatar, API key, memberships and watches are removed; their
          tickets become unassigned; tickets and comments they wrote stay, shown as by a deleted user.
          Projects they own pass to the next admin or member.
        </ConfirmDialog>
      )}
    </>
  );
}
