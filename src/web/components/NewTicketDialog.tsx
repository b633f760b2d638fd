import { type FormEvent, useState } from 'react';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useMembers } from '../api/members';
import { useProjects } from '../api/projects';
import { type TicketPatch, useCreateTicket } from '../api/tickets';
import { PRIORITIES, type Priority, TICKET_TYPES, type TicketType } from '../api/types';
import { MentionTextarea } from './MentionTextarea';
import { useToast } from './toast';
import { Button, Dialog, Field, Input, Select } from './ui';

export function NewTicketDialog({
  projectId: initialProject,
  defaults,
  onClose,
}: {
  projectId?: string;
  defaults?: TicketPatch;
  onClose: () => void;
}) {
  const projects = useProjects();
  const [projectId, setProjectId] = useState(initialProject ?? '');
  const columns = useColumns(projectId || undefined);
  const members = useMembers(projectId || undefined);
  const create = useCreateTicket(projectId);
  const toast = useToast();
  const [title, setTitle] = useState('');
  const [type, setType] = useState<TicketType>(defaults?.type ?? 'Task');
  const [priority, setPriority] = useState<Priority>(defaults?.priority ?? 'Medium');
  const [columnId, setColumnId] = useState(defaults?.columnId ?? '');
  const [assigneeId, setAssigneeId] = useState(defaults?.assigneeId ?? '');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const t = await create.mutateAsync({
        ...defaults,
        title: title.trim(),
        type,
        priority,
        columnId: columnId || undefined,
        assigneeId: assigneeId || null,
        description: description || undefined,
      });
      toast.show(`Created ${t.key}`, 'success');
      onClose();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <Dialog title="New ticket" onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        {!initialProject && (
          <Field label="Project">
            {(id) => (
              <Select id={id} value={projectId} onChange={(e) => setProjectId(e.target.value)}>
                <option value="">Choose a project</option>
                {projects.data?.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} ({p.key})
                  </option>
                ))}
              </Select>
            )}
          </Field>
        )}
        <Field label="Title">
          {(id) => (
            <Input
              id={id}
              name="title"
              value={title}
              maxLength={255}
              onChange={(e) => setTitle(e.target.value)}
              placeholder="What needs doing?"
            />
          )}
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Type">
            {(id) => (
              <Select id={id} value={type} onChange={(e) => setType(e.target.value as TicketType)}>
                {TICKET_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Priority">
            {(id) => (
              <Select id={id} value={priority} onChange={(e) => setPriority(e.target.value as Priority)}>
                {PRIORITIES.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Status">
            {(id) => (
              <Select id={id} value={columnId} onChange={(e) => setColumnId(e.target.value)}>
                <option value="">{columns.data?.[0]?.name ?? 'First column'}</option>
                {columns.data?.slice(1).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Assignee">
            {(id) => (
              <Select id={id} value={assigneeId} onChange={(e) => setAssigneeId(e.target.value)}>
                <option value="">Unassigned</option>
                {members.data?.map((m) => (
                  <option key={m.userId} value={m.userId}>
                    {m.user.name ?? m.user.username}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        </div>
        <Field label="Description (Markdown, optional)">
          {(id) => (
            <MentionTextarea
              id={id}
              rows={4}
              value={description}
              onValue={setDescription}
              people={(members.data ?? []).map((m) => ({
                username: m.user.username,
                name: m.user.name,
                avatar: m.user.avatar,
              }))}
            />
          )}
        </Field>
        {error && (
          <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-danger">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={create.isPending || !title.trim() || !projectId}>
            {create.isPending ? 'Creating…' : 'Create ticket'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
