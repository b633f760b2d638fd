import { type FormEvent, useEffect, useRef, useState } from 'react';
import { parseTicketKey } from '../../shared/rules';
import { errorText } from '../api/client';
import { useProjects } from '../api/projects';
import { type Template, useTemplates } from '../api/templates';
import { type TicketPatch, useCreateTicket } from '../api/tickets';
import { type Member, PRIORITIES, type Priority, TICKET_TYPES, type TicketType } from '../api/types';
import { type ProjectData, useProjectData } from '../hooks/project-data';
import { MentionTextarea } from './MentionTextarea';
import { LabelCheckboxes, MemberOptions, PointOptions } from './ticket-fields';
import { useToast } from './toast';
import { Button, Dialog, Field, Input, Select } from './ui';

/** The dialog's fields as the form holds them ('' for none). */
interface TicketForm {
  title: string;
  type: TicketType;
  priority: Priority;
  columnId: string;
  assigneeId: string;
  description: string;
  storyPoints: string;
  sprintId: string;
  startDate: string;
  dueDate: string;
  parentKey: string;
  labelIds: string[];
}

const formOf = (defaults: TicketPatch | undefined): TicketForm => ({
  title: '',
  type: defaults?.type ?? 'Task',
  priority: defaults?.priority ?? 'Medium',
  columnId: defaults?.columnId ?? '',
  assigneeId: defaults?.assigneeId ?? '',
  description: '',
  storyPoints: defaults?.storyPoints != null ? String(defaults.storyPoints) : '',
  sprintId: defaults?.sprintId ?? '',
  startDate: defaults?.startDate ?? '',
  dueDate: defaults?.dueDate ?? '',
  parentKey: '',
  labelIds: defaults?.labelIds ?? [],
});

/**
 * The form's fields. A template fills only the fields the user has not changed (`edit`); the fields
 * the page preset (`defaults`) count as changed.
 */
function useTicketForm(defaults: TicketPatch | undefined) {
  const [form, setForm] = useState(() => formOf(defaults));
  const touched = useRef(new Set<string>(Object.keys(defaults ?? {})));
  /** The user sets a field. */
  const edit =
    <K extends keyof TicketForm>(field: K) =>
    (value: TicketForm[K]) => {
      touched.current.add(field);
      setForm((f) => ({ ...f, [field]: value }));
    };
  /** A template's values, for the fields the user has not set. */
  const fill = (preset: Partial<TicketForm>) =>
    setForm((f) => {
      const next = { ...f };
      for (const [field, value] of Object.entries(preset))
        if (!touched.current.has(field)) (next as Record<string, unknown>)[field] = value;
      return next;
    });
  return { form, edit, fill };
}

/** What a template (none: the plain defaults) puts in the fields it presets. */
function presetOf(t: Template | undefined, members: Member[] | undefined): Partial<TicketForm> {
  const member = (id: string | null | undefined) => (id && members?.some((m) => m.userId === id) ? id : '');
  return {
    title: t?.title ?? '',
    type: (t?.type as TicketType | null) ?? 'Task',
    priority: (t?.priority as Priority | null) ?? 'Medium',
    assigneeId: member(t?.assigneeId),
    storyPoints: t?.storyPoints != null ? String(t.storyPoints) : '',
    labelIds: t?.labels.map((l) => l.id) ?? [],
    description: t?.description ?? '',
  };
}

/**
 * The template chosen (decision 050): the project's default one at first, once its templates and
 * members are read; another project starts again with its own.
 */
function useTemplateChoice(
  projectId: string,
  members: Member[] | undefined,
  fill: (p: Partial<TicketForm>) => void,
) {
  const templates = useTemplates(projectId || undefined);
  const [templateId, setTemplateId] = useState<string | null>(null);
  const choose = (id: string) => {
    setTemplateId(id);
    fill(
      presetOf(
        templates.data?.find((t) => t.id === id),
        members,
      ),
    );
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the project's templates arrive
  useEffect(() => {
    if (templateId !== null || !templates.data || !members) return;
    const preset = templates.data.find((t) => t.isDefault);
    setTemplateId(preset?.id ?? '');
    if (preset) fill(presetOf(preset, members));
  }, [templates.data, members]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only on a change of project
  useEffect(() => setTemplateId(null), [projectId]);
  return { templates: templates.data ?? [], templateId, choose };
}

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
  const data = useProjectData(projectId || undefined);
  const create = useCreateTicket(projectId);
  const toast = useToast();
  const { form, edit, fill } = useTicketForm(defaults);
  const { templates, templateId, choose } = useTemplateChoice(projectId, data.members.data, fill);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    // The parent is given by its key; it must be a ticket of this project.
    let parentId: string | undefined;
    if (form.parentKey.trim()) {
      const key = parseTicketKey(form.parentKey)?.key;
      parentId = data.tickets.data?.find((t) => t.key === key)?.id;
      if (!parentId) {
        setError(`Parent: no ticket ${form.parentKey.trim().toUpperCase()} in this project`);
        return;
      }
    }
    try {
      const t = await create.mutateAsync({
        ...defaults,
        title: form.title.trim(),
        type: form.type,
        priority: form.priority,
        columnId: form.columnId || undefined,
        assigneeId: form.assigneeId || null,
        description: form.description || undefined,
        storyPoints: form.storyPoints ? Number(form.storyPoints) : null,
        sprintId: form.sprintId || null,
        startDate: form.startDate || null,
        dueDate: form.dueDate || null,
        ...(parentId ? { parentId } : {}),
        labelIds: form.labelIds,
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
        {templates.length > 0 && (
          <Field label="Template">
            {(id) => (
              <Select id={id} value={templateId ?? ''} onChange={(e) => choose(e.target.value)}>
                <option value="">No template</option>
                {templates.map((t) => (
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
              value={form.title}
              maxLength={255}
              onChange={(e) => edit('title')(e.target.value)}
              placeholder="What needs doing?"
            />
          )}
        </Field>
        <TicketFields form={form} edit={edit} data={data} />
        <LabelCheckboxes
          legend="Labels"
          labels={data.labels.data}
          value={form.labelIds}
          onChange={edit('labelIds')}
        />
        <Field label="Description (Markdown, optional)">
          {(id) => (
            <MentionTextarea
              id={id}
              rows={4}
              value={form.description}
              onValue={edit('description')}
              people={(data.members.data ?? []).map((m) => ({
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
          <Button
            type="submit"
            variant="primary"
            disabled={create.isPending || !form.title.trim() || !projectId}
          >
            {create.isPending ? 'Creating…' : 'Create ticket'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** The grid of the ticket's fields: type, priority, status, assignee, points, sprint, dates, parent. */
function TicketFields({
  form,
  edit,
  data,
}: {
  form: TicketForm;
  edit: ReturnType<typeof useTicketForm>['edit'];
  data: ProjectData;
}) {
  const columns = data.columns.data;
  return (
    <div className="grid grid-cols-2 gap-3">
      <Field label="Type">
        {(id) => (
          <Select id={id} value={form.type} onChange={(e) => edit('type')(e.target.value as TicketType)}>
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
            value={form.priority}
            onChange={(e) => edit('priority')(e.target.value as Priority)}
          >
            {PRIORITIES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Status">
        {(id) => (
          <Select id={id} value={form.columnId} onChange={(e) => edit('columnId')(e.target.value)}>
            <option value="">{columns?.[0]?.name ?? 'First column'}</option>
            {columns?.slice(1).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Assignee">
        {(id) => (
          <Select id={id} value={form.assigneeId} onChange={(e) => edit('assigneeId')(e.target.value)}>
            <option value="">Unassigned</option>
            <MemberOptions members={data.members.data} />
          </Select>
        )}
      </Field>
      <Field label="Story points">
        {(id) => (
          <Select id={id} value={form.storyPoints} onChange={(e) => edit('storyPoints')(e.target.value)}>
            <option value="">No estimate</option>
            <PointOptions />
          </Select>
        )}
      </Field>
      <Field label="Sprint">
        {(id) => (
          <Select id={id} value={form.sprintId} onChange={(e) => edit('sprintId')(e.target.value)}>
            <option value="">Backlog (no sprint)</option>
            {data.sprints.data
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
            value={form.startDate}
            onChange={(e) => edit('startDate')(e.target.value)}
          />
        )}
      </Field>
      <Field label="Due date">
        {(id) => (
          <Input id={id} type="date" value={form.dueDate} onChange={(e) => edit('dueDate')(e.target.value)} />
        )}
      </Field>
      <Field label="Parent (ticket key, optional)">
        {(id) => (
          <Input
            id={id}
            value={form.parentKey}
            maxLength={24}
            onChange={(e) => edit('parentKey')(e.target.value)}
            placeholder="e.g. WEB-12"
          />
        )}
      </Field>
    </div>
  );
}
