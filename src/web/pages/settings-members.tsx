import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { errorText } from '../api/client';
import { useAddMember, useChangeMemberRole, useMembers, useRemoveMember } from '../api/members';
import type { Member, Project } from '../api/types';
import { useUserSearch } from '../api/users';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, Section } from '../components/ProjectNav';
import { Avatar, Button, Input, Select, Skeleton } from '../components/ui';
import type { Role } from './ProjectSettings';

export function MembersSection({
  project,
  role,
  userId,
}: {
  project: Project;
  role: Role | null;
  userId: string | undefined;
}) {
  const [, navigate] = useLocation();
  const members = useMembers(project.id);
  const changeMemberRole = useChangeMemberRole(project.id);
  const removeMember = useRemoveMember(project.id);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const manage = role === 'owner' || role === 'admin';
  const [handingOver, setHandingOver] = useState<Member | null>(null);
  const changeRole = async (m: Member, next: Role) => {
    setError(null);
    // Handing the project over cannot be taken back by the previous owner: ask first.
    if (next === 'owner') {
      setHandingOver(m);
      return;
    }
    try {
      await changeMemberRole.mutateAsync({ memberId: m.id, role: next });
    } catch (err) {
      setError(errorText(err));
    }
  };
  const canTouch = (m: Member) => {
    if (m.userId === userId) return false;
    if (role === 'owner') return true;
    return role === 'admin' && m.role !== 'owner';
  };
  return (
    <Section
      title="Members"
      description="The owner has full control; admins manage the project and its members except the owner."
    >
      {members.isPending && <Skeleton className="h-24" />}
      <ul className="flex flex-col divide-y divide-line" data-testid="member-list">
        {members.data?.map((m) => {
          const me = m.userId === userId;
          return (
            <li key={m.id} className="flex items-center gap-2 py-1.5" data-testid="member-row">
              <Avatar name={m.user.name ?? m.user.username} src={m.user.avatar} size={24} />
              <span className="min-w-0 flex-1 truncate">
                {m.user.name ?? m.user.username}{' '}
                <span className="text-faint">
                  @{m.user.username}
                  {me ? ' · you' : ''}
                </span>
              </span>
              {canTouch(m) ? (
                // The wrapper sets the width: the select's own w-full would win over a width class.
                <div className="w-28 shrink-0">
                  <Select
                    aria-label={`Role of ${m.user.username}`}
                    value={m.role}
                    onChange={(e) => changeRole(m, e.target.value as Role)}
                  >
                    {role === 'owner' && <option value="owner">Owner</option>}
                    <option value="admin">Admin</option>
                    <option value="member">Member</option>
                  </Select>
                </div>
              ) : (
                <span className="w-28 shrink-0 px-2.5 text-muted capitalize">{m.role}</span>
              )}
              {canTouch(m) && (
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Remove ${m.user.username}`}
                  onClick={() => setRemoving(m)}
                >
                  Remove
                </Button>
              )}
              {me && m.role !== 'owner' && (
                <Button size="sm" variant="danger" onClick={() => setRemoving(m)}>
                  Leave
                </Button>
              )}
              {me && m.role === 'owner' && (
                <span
                  className="text-[12px] text-faint"
                  title="Transfer ownership before leaving the project"
                >
                  Owner cannot leave
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {manage && (
        <AddMember project={project} members={members.data ?? []} canGrantOwner={role === 'owner'} />
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {handingOver && (
        <ConfirmDialog
          title={`Make ${handingOver.user.username} the owner?`}
          confirmLabel="Transfer ownership"
          busyLabel="Transferring…"
          danger={false}
          onClose={() => setHandingOver(null)}
          onConfirm={() => changeMemberRole.mutateAsync({ memberId: handingOver.id, role: 'owner' })}
        >
          A project has one owner: {handingOver.user.name ?? handingOver.user.username} becomes it and you
          become an admin. Only the new owner can hand it back or delete the project.
        </ConfirmDialog>
      )}
      {removing && (
        <ConfirmDialog
          title={removing.userId === userId ? `Leave ${project.name}?` : `Remove ${removing.user.username}?`}
          confirmLabel={removing.userId === userId ? 'Leave project' : 'Remove member'}
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            const me = removing.userId === userId;
            await removeMember.mutateAsync({ memberId: removing.id, me });
            if (me) navigate('/', { replace: true });
          }}
        >
          {removing.userId === userId
            ? 'You lose access to its board and tickets until someone adds you again.'
            : 'They lose access to the project; tickets assigned to them stay assigned.'}
        </ConfirmDialog>
      )}
    </Section>
  );
}

export function AddMember({
  project,
  members,
  canGrantOwner,
}: {
  project: Project;
  members: Member[];
  canGrantOwner: boolean;
}) {
  const addMember = useAddMember(project.id);
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(search.trim()), 200);
    return () => clearTimeout(t);
  }, [search]);
  const results = useUserSearch(debounced, debounced.length > 0);
  const memberIds = new Set(members.map((m) => m.userId));
  const candidates = (results.data ?? []).filter((u) => !memberIds.has(u.id));
  const add = async (userId: string) => {
    setError(null);
    try {
      await addMember.mutateAsync({ userId, role });
      setSearch('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div className="mt-3 flex flex-col gap-2 border-t border-line pt-3">
      <div className="flex gap-2">
        <Input
          aria-label="Find a user to add"
          placeholder="Add a member: search by username or name"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <div className="w-28 shrink-0">
          <Select
            aria-label="Role for the new member"
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
          >
            <option value="member">Member</option>
            <option value="admin">Admin</option>
            {canGrantOwner && <option value="owner">Owner</option>}
          </Select>
        </div>
      </div>
      {debounced && (
        <ul className="flex flex-col rounded-md border border-line" aria-label="Matching users">
          {results.isPending && <li className="px-2 py-1.5 text-faint">Searching…</li>}
          {results.data && candidates.length === 0 && (
            <li className="px-2 py-1.5 text-faint">No user to add matches.</li>
          )}
          {candidates.map((u) => (
            <li key={u.id} className="flex items-center gap-2 px-2 py-1">
              <Avatar name={u.name ?? u.username} src={u.avatar} size={20} />
              <span className="min-w-0 flex-1 truncate">
                {u.name ?? u.username} <span className="text-faint">@{u.username}</span>
              </span>
              <Button size="sm" onClick={() => add(u.id)} aria-label={`Add ${u.username}`}>
                Add
              </Button>
            </li>
          ))}
        </ul>
      )}
      <FormError error={error} />
    </div>
  );
}

// --- Labels ------------------------------------------------------------------------------------
