import {
  type Announcements,
  closestCenter,
  DndContext,
  type DragEndEvent,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { PALETTE } from '../../shared/limits';
import { enc, errorText } from '../api/client';
import { createColumn, deleteColumn, updateColumn, useColumns } from '../api/columns';
import { qk } from '../api/keys';
import { createLabel, deleteLabel, updateLabel, useLabels } from '../api/labels';
import { addMember, changeMemberRole, removeMember, useMembers } from '../api/members';
import { deleteProject, updateProject } from '../api/projects';
import { useSession } from '../api/session';
import { saveSprintSettings, useSprintSettings } from '../api/sprints';
import { useTickets } from '../api/tickets';
import type { Column, Label, Member, Project, SprintSettings } from '../api/types';
import { useUserSearch } from '../api/users';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, ProjectFrame, Section } from '../components/ProjectNav';
import { useToast } from '../components/toast';
import { Avatar, Button, ColorDot, Dialog, Field, Input, Select, Skeleton, Textarea } from '../components/ui';

type Role = 'owner' | 'admin' | 'member';

/** My role in the project: system administrators act as owner. */
export function useMyRole(project: Project): { role: Role | null; userId: string | undefined } {
  const session = useSession();
  const members = useMembers(project.id);
  const user = session.data?.user;
  if (user?.isSystemAdmin) return { role: 'owner', userId: user.id };
  const mine = members.data?.find((m) => m.userId === user?.id);
  return {
    role: mine?.role ?? null,
    userId: user?.id,
  };
}

const _p = (projectId: string, rest: string) => `/api/projects/${enc(projectId)}${rest}`;

export function ProjectSettingsPage({ projectKey }: { projectKey: string }) {
  return (
    <ProjectFrame projectKey={projectKey} tab="settings">
      {(project) => <SettingsBody project={project} />}
    </ProjectFrame>
  );
}

function SettingsBody({ project }: { project: Project }) {
  const { role, userId } = useMyRole(project);
  const manage = role === 'owner' || role === 'admin';
  return (
    <div className="flex max-w-3xl flex-col gap-4 p-4">
      {!manage && role && (
        <p className="rounded-md border border-line bg-surface-2 px-3 py-2 text-muted">
          You are a member of this project: you can manage labels; the project's admins and owner manage the
          rest.
        </p>
      )}
      <GeneralSection project={project} canEdit={manage} />
      <ColumnsSection project={project} canEdit={manage} />
      <MembersSection project={project} role={role} userId={userId} />
      <LabelsSection project={project} />
      <SprintSettingsSection project={project} canEdit={manage} />
      {role === 'owner' && <DeleteProjectSection project={project} />}
    </div>
  );
}

function GeneralSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description ?? '');
  const [color, setColor] = useState(project.color);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setName(project.name);
    setDescription(project.description ?? '');
    setColor(project.color);
  }, [project.name, project.description, project.color]);
  const dirty =
    name.trim() !== project.name ||
    (description.trim() || null) !== (project.description || null) ||
    color !== project.color;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const saved = await updateProject(project.id, {
        name: name.trim(),
        description: description.trim() || null,
        color,
      });
      qc.setQueryData<Project[]>(qk.projects, (list) =>
        list
          ?.map((x) => (x.id === saved.id ? { ...x, ...saved } : x))
          .sort((a, b) => a.name.localeCompare(b.name)),
      );
      qc.setQueryData<Project>(qk.project(project.key), (x) => (x ? { ...x, ...saved } : x));
      toast.show('Project saved', 'success');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section
      title="General"
      description={`The key ${project.key} is part of every ticket key and cannot change.`}
    >
      <form onSubmit={submit} className="flex flex-col gap-3">
        <Field label="Project name">
          {(id) => (
            <Input
              id={id}
              value={name}
              maxLength={100}
              disabled={!canEdit}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Description">
          {(id) => (
            <Textarea
              id={id}
              rows={3}
              value={description}
              disabled={!canEdit}
              onChange={(e) => setDescription(e.target.value)}
            />
          )}
        </Field>
        <fieldset className="flex flex-col gap-1" disabled={!canEdit}>
          <legend className="mb-1 text-[12px] font-medium text-muted">Colour</legend>
          <ColorPicker value={color} onChange={setColor} />
        </fieldset>
        <FormError error={error} />
        {canEdit && (
          <div>
            <Button type="submit" variant="primary" disabled={busy || !dirty || !name.trim()}>
              Save changes
            </Button>
          </div>
        )}
      </form>
    </Section>
  );
}

function ColorPicker({
  value,
  onChange,
  label = 'Colour',
}: {
  value: string;
  onChange: (c: string) => void;
  label?: string;
}) {
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      {PALETTE.map((c) => (
        <button
          key={c}
          type="button"
          aria-label={`${label} ${c}`}
          aria-pressed={value.toUpperCase() === c.toUpperCase()}
          onClick={() => onChange(c)}
          className={`h-6 w-6 rounded-md border-2 ${value.toUpperCase() === c.toUpperCase() ? 'border-fg' : 'border-transparent'}`}
          style={{ background: c }}
        />
      ))}
      <label className="ml-1 flex items-center gap-1 text-[12px] text-muted">
        <input
          type="color"
          aria-label={`Custom ${label.toLowerCase()}`}
          value={value.toLowerCase()}
          onChange={(e) => onChange(e.target.value.toUpperCase())}
          className="h-6 w-8 cursor-pointer rounded border border-line bg-transparent"
        />
        Custom
      </label>
    </div>
  );
}

// --- Columns -----------------------------------------------------------------------------------

function ColumnsSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const qc = useQueryClient();
  const toast = useToast();
  const columns = useColumns(project.id);
  const tickets = useTickets(project.id);
  const [newName, setNewName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Column | null>(null);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const list = columns.data ?? [];
  const announcements = useColumnAnnouncements(list);
  const counts = new Map<string, number>();
  for (const t of tickets.data ?? []) counts.set(t.columnId, (counts.get(t.columnId) ?? 0) + 1);

  const refresh = () => qc.invalidateQueries({ queryKey: qk.columns(project.id) });
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const created = await createColumn(project.id, newName.trim());
      qc.setQueryData<Column[]>(qk.columns(project.id), (l) => (l ? [...l, created] : l));
      setNewName('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const rename = async (c: Column, name: string) => {
    if (!name.trim() || name.trim() === c.name) return;
    setError(null);
    qc.setQueryData<Column[]>(qk.columns(project.id), (l) =>
      l?.map((x) => (x.id === c.id ? { ...x, name: name.trim() } : x)),
    );
    try {
      await updateColumn(project.id, c.id, { name: name.trim() });
    } catch (err) {
      setError(errorText(err));
      refresh();
    }
  };
  const onDragEnd = async (e: DragEndEvent) => {
    if (!e.over || e.active.id === e.over.id) return;
    const from = list.findIndex((c) => c.id === e.active.id);
    const to = list.findIndex((c) => c.id === e.over!.id);
    const moved = arrayMove(list, from, to).map((c, i) => ({ ...c, order: i }));
    qc.setQueryData(qk.columns(project.id), moved);
    try {
      await updateColumn(project.id, String(e.active.id), { order: to });
    } catch (err) {
      toast.error(`Could not move the column: ${errorText(err)}`);
      refresh();
    }
  };
  return (
    <Section
      title="Board columns"
      description={
        canEdit
          ? 'Drag to reorder (or focus the handle and use Space and the arrow keys). Names are unique in the project.'
          : undefined
      }
    >
      {columns.isPending ? (
        <Skeleton className="h-24" />
      ) : (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable:
                'To move a column, press Space or Enter. While moving it, use the up and down arrow keys, press Space or Enter to drop it, or Escape to cancel.',
            },
          }}
        >
          <SortableContext items={list.map((c) => c.id)} strategy={verticalListSortingStrategy}>
            <ul className="flex flex-col gap-1" data-testid="column-list">
              {list.map((c) => (
                <ColumnRow
                  key={c.id}
                  column={c}
                  count={counts.get(c.id) ?? 0}
                  canEdit={canEdit}
                  canDelete={list.length > 1}
                  onRename={(name) => rename(c, name)}
                  onDelete={() => setDeleting(c)}
                />
              ))}
            </ul>
          </SortableContext>
        </DndContext>
      )}
      {canEdit && (
        <form onSubmit={add} className="mt-3 flex gap-2">
          <Input
            aria-label="New column name"
            placeholder="New column name"
            value={newName}
            maxLength={50}
            onChange={(e) => setNewName(e.target.value)}
          />
          <Button type="submit" disabled={!newName.trim()}>
            Add column
          </Button>
        </form>
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {deleting && (
        <DeleteColumnDialog
          project={project}
          column={deleting}
          columns={list}
          count={tickets.data ? (counts.get(deleting.id) ?? 0) : null}
          onClose={() => setDeleting(null)}
        />
      )}
    </Section>
  );
}

/** Screen-reader announcements of a column move, by name and position rather than by internal id. */
function useColumnAnnouncements(list: Column[]): Announcements {
  const moved = useRef(false);
  const name = (id: string | number) => list.find((c) => c.id === id)?.name ?? 'column';
  const position = (id: string | number) =>
    `position ${list.findIndex((c) => c.id === id) + 1} of ${list.length}`;
  return {
    onDragStart({ active }) {
      moved.current = false;
      return `Picked up column ${name(active.id)}, ${position(active.id)}.`;
    },
    onDragOver({ active, over }) {
      // The first "over" is the column's own place: nothing has moved yet.
      if (!over || (over.id === active.id && !moved.current)) return undefined;
      moved.current = true;
      return `Column ${name(active.id)} moved to ${position(over.id)}.`;
    },
    onDragEnd({ active, over }) {
      if (!over) return `Column ${name(active.id)} was dropped where it was.`;
      return `Column ${name(active.id)} dropped at ${position(over.id)}.`;
    },
    onDragCancel({ active }) {
      return `Moving column ${name(active.id)} was cancelled.`;
    },
  };
}

function ColumnRow({
  column,
  count,
  canEdit,
  canDelete,
  onRename,
  onDelete,
}: {
  column: Column;
  count: number;
  canEdit: boolean;
  canDelete: boolean;
  onRename: (name: string) => void;
  onDelete: () => void;
}) {
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({
    id: column.id,
    disabled: !canEdit,
  });
  const [name, setName] = useState(column.name);
  useEffect(() => setName(column.name), [column.name]);
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      className={`flex items-center gap-2 rounded-md border border-line bg-surface px-2 py-1 ${isDragging ? 'relative z-10 shadow-pop' : ''}`}
      data-testid="column-row"
    >
      {canEdit && (
        <button
          type="button"
          aria-label={`Move column ${column.name}`}
          className="cursor-grab rounded px-1 text-faint hover:bg-hover hover:text-fg"
          {...attributes}
          {...listeners}
        >
          ⠿
        </button>
      )}
      <Input
        aria-label={`Column name ${column.name}`}
        value={name}
        maxLength={50}
        disabled={!canEdit}
        className="h-7 flex-1 border-transparent bg-transparent hover:border-line"
        onChange={(e) => setName(e.target.value)}
        onBlur={() => onRename(name)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
          if (e.key === 'Escape') setName(column.name);
        }}
      />
      <span className="w-20 text-right text-[12px] text-faint">
        {count} ticket{count === 1 ? '' : 's'}
      </span>
      {canEdit && (
        <Button
          size="sm"
          variant="ghost"
          aria-label={`Delete column ${column.name}`}
          disabled={!canDelete}
          title={canDelete ? 'Delete column' : 'A project needs at least one column'}
          onClick={onDelete}
        >
          Delete
        </Button>
      )}
    </li>
  );
}

function DeleteColumnDialog({
  project,
  column,
  columns,
  count,
  onClose,
}: {
  project: Project;
  column: Column;
  columns: Column[];
  /** Tickets in the column; null while the board's tickets are still loading. */
  count: number | null;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const others = columns.filter((c) => c.id !== column.id);
  const [target, setTarget] = useState(others[0]?.id ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await deleteColumn(project.id, column.id, count !== 0 ? target : undefined);
      qc.invalidateQueries({ queryKey: qk.columns(project.id) });
      qc.invalidateQueries({ queryKey: qk.tickets(project.id) });
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Delete column ${column.name}?`} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        {count !== 0 ? (
          <Field
            label={
              count === null ? 'Move its tickets to' : `Move its ${count} ticket${count === 1 ? '' : 's'} to`
            }
          >
            {(id) => (
              <Select id={id} value={target} onChange={(e) => setTarget(e.target.value)}>
                {others.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        ) : (
          <p className="text-muted">The column is empty.</p>
        )}
        <FormError error={error} />
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="danger" disabled={busy}>
            Delete column
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

// --- Members -----------------------------------------------------------------------------------

function MembersSection({
  project,
  role,
  userId,
}: {
  project: Project;
  role: Role | null;
  userId: string | undefined;
}) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const members = useMembers(project.id);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const manage = role === 'owner' || role === 'admin';
  const refresh = () => qc.invalidateQueries({ queryKey: qk.members(project.id) });
  const [handingOver, setHandingOver] = useState<Member | null>(null);
  const changeRole = async (m: Member, next: Role) => {
    setError(null);
    // Handing the project over cannot be taken back by the previous owner: ask first.
    if (next === 'owner') {
      setHandingOver(m);
      return;
    }
    try {
      await changeMemberRole(project.id, m.id, next);
    } catch (err) {
      setError(errorText(err));
    }
    refresh();
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
          onConfirm={async () => {
            await changeMemberRole(project.id, handingOver.id, 'owner');
            refresh();
          }}
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
            await removeMember(project.id, removing.id);
            if (removing.userId === userId) {
              qc.setQueryData<Project[]>(qk.projects, (l) => l?.filter((x) => x.id !== project.id));
              navigate('/', { replace: true });
            } else refresh();
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

function AddMember({
  project,
  members,
  canGrantOwner,
}: {
  project: Project;
  members: Member[];
  canGrantOwner: boolean;
}) {
  const qc = useQueryClient();
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
      await addMember(project.id, userId, role);
      setSearch('');
      qc.invalidateQueries({ queryKey: qk.members(project.id) });
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

function LabelsSection({ project }: { project: Project }) {
  const qc = useQueryClient();
  const labels = useLabels(project.id);
  const [name, setName] = useState('');
  const [color, setColor] = useState<string>(PALETTE[0]);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Label | null>(null);
  const refresh = () => {
    qc.invalidateQueries({ queryKey: qk.labels(project.id) });
    qc.invalidateQueries({ queryKey: qk.tickets(project.id) });
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await createLabel(project.id, { name: name.trim(), color });
      setName('');
      setColor(PALETTE[Math.floor(Math.random() * PALETTE.length)]);
      refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const update = async (l: Label, patch: Partial<Label>) => {
    setError(null);
    qc.setQueryData<Label[]>(qk.labels(project.id), (list) =>
      list?.map((x) => (x.id === l.id ? { ...x, ...patch } : x)),
    );
    try {
      await updateLabel(project.id, l.id, patch);
    } catch (err) {
      setError(errorText(err));
    }
    refresh();
  };
  return (
    <Section
      title="Labels"
      description="Any member can manage labels. Names are unique in the project, ignoring case."
    >
      {labels.isPending && <Skeleton className="h-16" />}
      {labels.data?.length === 0 && <p className="text-faint">No labels yet.</p>}
      <ul className="flex flex-col gap-1" data-testid="label-list">
        {labels.data?.map((l) => (
          <LabelRow
            key={l.id}
            label={l}
            onUpdate={(patch) => update(l, patch)}
            onDelete={() => setDeleting(l)}
          />
        ))}
      </ul>
      <form onSubmit={add} className="mt-3 flex flex-col gap-2 border-t border-line pt-3">
        <div className="flex gap-2">
          <Input
            aria-label="New label name"
            placeholder="New label name"
            value={name}
            maxLength={50}
            onChange={(e) => setName(e.target.value)}
          />
          <Button type="submit" disabled={!name.trim()}>
            Add label
          </Button>
        </div>
        <ColorPicker value={color} onChange={setColor} label="Label colour" />
      </form>
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete label ${deleting.name}?`}
          confirmLabel="Delete label"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deleteLabel(project.id, deleting.id);
            refresh();
          }}
        >
          It is removed from every ticket that has it.
        </ConfirmDialog>
      )}
    </Section>
  );
}

function LabelRow({
  label,
  onUpdate,
  onDelete,
}: {
  label: Label;
  onUpdate: (patch: Partial<Label>) => void;
  onDelete: () => void;
}) {
  const [name, setName] = useState(label.name);
  useEffect(() => setName(label.name), [label.name]);
  return (
    <li className="flex items-center gap-2" data-testid="label-row">
      <ColorDot color={label.color} size={12} />
      <Input
        aria-label={`Label name ${label.name}`}
        value={name}
        maxLength={50}
        className="h-7 flex-1"
        onChange={(e) => setName(e.target.value)}
        onBlur={() => name.trim() && name.trim() !== label.name && onUpdate({ name: name.trim() })}
        onKeyDown={(e) => {
          if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
          if (e.key === 'Escape') setName(label.name);
        }}
      />
      <input
        type="color"
        aria-label={`Colour of label ${label.name}`}
        value={label.color.toLowerCase()}
        onChange={(e) => onUpdate({ color: e.target.value.toUpperCase() })}
        className="h-7 w-9 cursor-pointer rounded border border-line bg-transparent"
      />
      <Button size="sm" variant="ghost" aria-label={`Delete label ${label.name}`} onClick={onDelete}>
        Delete
      </Button>
    </li>
  );
}

// --- Sprint settings ---------------------------------------------------------------------------

function SprintSettingsSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const qc = useQueryClient();
  const toast = useToast();
  const settings = useSprintSettings(project.id);
  const columns = useColumns(project.id);
  const [draft, setDraft] = useState<SprintSettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    setError(null);
    try {
      const saved = await saveSprintSettings(project.id, draft);
      qc.setQueryData(qk.sprintSettings(project.id), saved);
      toast.show('Sprint settings saved', 'success');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const cols = columns.data ?? [];
  const lastName = cols[cols.length - 1]?.name;
  return (
    <Section title="Sprint settings" description="Defaults for starting and completing sprints.">
      {settings.isError && <FormError error={errorText(settings.error)} />}
      {!draft ? (
        <Skeleton className="h-24" />
      ) : (
        <form onSubmit={save} className="flex flex-col gap-3">
          <fieldset disabled={!canEdit} className="flex flex-col gap-3">
            <Field label="Default sprint length">
              {(id) => (
                <div className="w-40">
                  <Select
                    id={id}
                    value={draft.defaultSprintDuration}
                    onChange={(e) => setDraft({ ...draft, defaultSprintDuration: Number(e.target.value) })}
                  >
                    {[1, 2, 3, 4].map((n) => (
                      <option key={n} value={n}>
                        {n} week{n === 1 ? '' : 's'}
                      </option>
                    ))}
                  </Select>
                </div>
              )}
            </Field>
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={draft.autoCarryOverIncomplete}
                onChange={(e) => setDraft({ ...draft, autoCarryOverIncomplete: e.target.checked })}
              />
              Carry incomplete tickets over to the next sprint by default
            </label>
            <div>
              <div className="text-[12px] font-medium text-muted">Columns that count as done</div>
              <div className="mb-1 text-[12px] text-faint">
                {draft.doneColumnIds.length === 0 && lastName
                  ? `None chosen: the last column (${lastName}) counts as done.`
                  : 'A ticket in any of these columns is complete.'}
              </div>
              <div className="flex flex-wrap gap-3">
                {cols.map((c) => (
                  <label key={c.id} className="flex items-center gap-1.5">
                    <input
                      type="checkbox"
                      checked={draft.doneColumnIds.includes(c.id)}
                      onChange={(e) =>
                        setDraft({
                          ...draft,
                          doneColumnIds: e.target.checked
                            ? [...draft.doneColumnIds, c.id]
                            : draft.doneColumnIds.filter((x) => x !== c.id),
                        })
                      }
                    />
                    {c.name}
                  </label>
                ))}
              </div>
            </div>
          </fieldset>
          <FormError error={error} />
          {canEdit && (
            <div>
              <Button type="submit" variant="primary">
                Save sprint settings
              </Button>
            </div>
          )}
        </form>
      )}
    </Section>
  );
}

function DeleteProjectSection({ project }: { project: Project }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  return (
    <Section
      title="Delete project"
      danger
      description="Deletes the project with all its tickets, sprints, history and files. This cannot be undone."
    >
      <Button variant="danger" onClick={() => setOpen(true)}>
        Delete this project…
      </Button>
      {open && (
        <ConfirmDialog
          title={`Delete ${project.name}?`}
          confirmLabel="Delete project"
          busyLabel="Deleting…"
          typeText={project.key}
          onClose={() => setOpen(false)}
          onConfirm={async () => {
            await deleteProject(project.id);
            qc.setQueryData<Project[]>(qk.projects, (l) => l?.filter((x) => x.id !== project.id));
            qc.removeQueries({ queryKey: ['project'] });
            navigate('/', { replace: true });
          }}
        >
          Everything in {project.key} goes: tickets, sprints, history and attachments.
        </ConfirmDialog>
      )}
    </Section>
  );
}
