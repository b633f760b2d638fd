import { type FormEvent, useEffect, useRef, useState } from 'react';
import { parseTicketKey } from '../../shared/rules';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import { useProjects } from '../api/projects';
import { useSprints } from '../api/sprints';
import { type Template, useTemplates } from '../api/templates';
import { type TicketPatch, useCreateTicket, useTickets } from '../api/tickets';
import { PRIORITIES, type Priority, TICKET_TYPES, type TicketType } from '../api/types';
import { MentionTextarea } from './MentionTextarea';
import { LabelCheckboxes, MemberOptions, PointOptions } from './ticket-fields';
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
  const sprints = useSprints(projectId || undefined);
  const labels = useLabels(projectId || undefined);
  const tickets = useTickets(projectId || undefined);
  const create = useCreateTicket(projectId);
  const toast = useToast();
  const [title, setTitle] = useState('');
  const [type, setType] = useState<TicketType>(defaults?.type ?? 'Task');
  const [priority, setPriority] = useState<Priority>(defaults?.priority ?? 'Medium');
  const [columnId, setColumnId] = useState(defaults?.columnId ?? '');
  const [assigneeId, setAssigneeId] = useState(defaults?.assigneeId ?? '');
  const [description, setDescription] = useState('');
  const [storyPoints, setStoryPoints] = useState(
    defaults?.storyPoints != null ? String(defaults.storyPoints) : '',
  );
  const [sprintId, setSprintId] = useState(defaults?.sprintId ?? '');
  const [startDate, setStartDate] = useState(defaults?.startDate ?? '');
  const [dueDate, setDueDate] = useState(defaults?.dueDate ?? '');
  const [parentKey, setParentKey] = useState('');
  const [labelIds, setLabelIds] = useState<string[]>(defaults?.labelIds ?? []);
  const [error, setError] = useState<string | null>(null);

  // Templates (decision 050): choosing one fills the fields the user has not changed; the fields the
  // page preset (`defaults`) count as changed. The project's default template is chosen at first.
  const templates = useTemplates(projectId || undefined);
  const [templateId, setTemplateId] = useState<string | null>(null);
  const touched = useRef(new Set(Object.keys(defaults ?? {})));
  const edit =
    <T,>(field: string, set: (v: T) => void) =>
    (v: T) => {
      touched.current.add(field);
      set(v);
    };
  const applyTemplate = (t: Template | undefined) => {
    const fill = <T,>(field: string, set: (v: T) => void, v: T) => {
      if (!touched.current.has(field)) set(v);
    };
    const member = (id: string | null | undefined) =>
      id && members.data?.some((m) => m.userId === id) ? id : '';
    fill('title', setTitle, t?.title ?? '');
    fill('type', setType, (t?.type as TicketType | null) ?? 'Task');
    fill('priority', setPriority, (t?.priority as Priority | null) ?? 'Medium');
    fill('assigneeId', setAssigneeId, member(t?.assigneeId));
    fill('storyPoints', setStoryPoints, t?.storyPoints != null ? String(t.storyPoints) : '');
    fill('labelIds', setLabelIds, t?.labels.map((l) => l.id) ?? []);
    fill('description', setDescription, t?.description ?? '');
  };
  const chooseTemplate = (id: string) => {
    setTemplateId(id);
    applyTemplate(templates.data?.find((t) => t.id === id));
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the project's templates arrive
  useEffect(() => {
    if (templateId !== null || !templates.data || !members.data) return;
    const preset = templates.data.find((t) => t.isDefault);
    setTemplateId(preset?.id ?? '');
    if (preset) applyTemplate(preset);
  }, [templates.data, members.data]);
  // Another project: its own templates and default.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only on a change of project
  useEffect(() => setTemplateId(null), [projectId]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    // The parent is given by its key; it must be a ticket of this project.
    let parentId: string | undefined;
    if (parentKey.trim()) {
      const key = parseTicketKey(parentKey)?.key;
      parentId = tickets.data?.find((t) => t.key === key)?.id;
      if (!parentId) {
        setError(`Parent: no ticket ${parentKey.trim().toUpperCase()} in this project`);
        return;
      }
    }
    try {
      const t = await create.mutateAsync({
        ...defaults,
        title: title.trim(),
        type,
        priority,
        columnId: columnId || undefined,
        assigneeId: assigneeId || null,
        description: description || undefined,
        storyPoints: storyPoints ? Number(storyPoints) : null,
        sprintId: sprintId || null,
        startDate: startDate || null,
        dueDate: dueDate || null,
        ...(parentId ? { parentId } : {}),
        labelIds,
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
        {(templates.data?.length ?? 0) > 0 && (
          <Field label="Template">
            {(id) => (
              <Select id={id} value={templateId ?? ''} onChange={(e) => chooseTemplate(e.target.value)}>
                <option value="">No template</option>
                {templates.data!.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                    {t.isDefault ? ' (default)' : ''}
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
              onChange={(e) => edit('title', setTitle)(e.target.value)}
              placeholder="What needs doing?"
            />
          )}
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Type">
            {(id) => (
              <Select
                id={id}
                value={type}
                onChange={(e) => edit('type', setType)(e.target.value as TicketType)}
              >
                {TICKET_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Priority">
            {(id) => (
              <Select
                id={id}
                value={priority}
                onChange={(e) => edit('priority', setPriority)(e.target.value as Priority)}
              >
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
              <Select
                id={id}
                value={assigneeId}
                onChange={(e) => edit('assigneeId', setAssigneeId)(e.target.value)}
              >
                <option value="">Unassigned</option>
                <MemberOptions members={members.data} />
              </Select>
            )}
          </Field>
          <Field label="Story points">
            {(id) => (
              <Select
                id={id}
                value={storyPoints}
                onChange={(e) => edit('storyPoints', setStoryPoints)(e.target.value)}
              >
                <option value="">No estimate</option>
                <PointOptions />
              </Select>
            )}
          </Field>
          <Field label="Sprint">
            {(id) => (
              <Select id={id} value={sprintId ?? ''} onChange={(e) => setSprintId(e.target.value)}>
                <option value="">Backlog (no sprint)</option>
                {sprints.data
                  ?.filter((s) => s.status !== 'completed')
                  .map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name}
                      {s.status === 'active' ? ' (active)' : ''}
                    </option>
                  ))}
              </Select>
            )}
          </Field>
          <Field label="Start date">
            {(id) => (
              <Input
                id={id}
                type="date"
                value={startDate ?? ''}
                onChange={(e) => setStartDate(e.target.value)}
              />
            )}
          </Field>
          <Field label="Due date">
            {(id) => (
              <Input id={id} type="date" value={dueDate ?? ''} onChange={(e) => setDueDate(e.target.value)} />
            )}
          </Field>
          <Field label="Parent (ticket key, optional)">
            {(id) => (
              <Input
                id={id}
                value={parentKey}
                maxLength={24}
                onChange={(e) => setParentKey(e.target.value)}
                placeholder="e.g. WEB-12"
              />
            )}
          </Field>
        </div>
        <LabelCheckboxes
          legend="Labels"
          labels={labels.data}
          value={labelIds}
          onChange={edit('labelIds', setLabelIds)}
        />
        <Field label="Description (Markdown, optional)">
          {(id) => (
            <MentionTextarea
              id={id}
              rows={4}
              value={description}
              onValue={edit('description', setDescription)}
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
