import { useState } from 'react';
import { LIMITS } from '../../shared/limits';
import { errorText } from '../api/client';
import { useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import {
  type Template,
  useCreateTemplate,
  useDeleteTemplate,
  useTemplates,
  useUpdateTemplate,
} from '../api/templates';
import { PRIORITIES, type Project, TICKET_TYPES } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, Section } from '../components/ProjectNav';
import { LabelCheckboxes, MemberOptions, PointOptions } from '../components/ticket-fields';
import { Button, Field, Input, Select, Skeleton } from '../components/ui';
import { MarkdownEditor } from './ticket-editors';

/**
 * Ticket templates (docs/decisions/050-ticket-templates.md): the project's admins and owner add,
 * edit (the description in the Markdown editor), reorder, delete and choose the default; members
 * see the list. The New-ticket dialog offers them.
 */
export function TemplatesSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const templates = useTemplates(project.id);
  const updateTemplate = useUpdateTemplate(project.id);
  const deleteTemplate = useDeleteTemplate(project.id);
  const [editing, setEditing] = useState<Template | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Template | null>(null);
  const [error, setError] = useState<string | null>(null);
  const patch = (t: Template, body: { position?: number; isDefault?: boolean }) => {
    setError(null);
    updateTemplate.mutateAsync({ templateId: t.id, body }).catch((err) => setError(errorText(err)));
  };
  const list = templates.data ?? [];
  return (
    <Section
      title="Ticket templates"
      description={
        canEdit
          ? 'Presets for new tickets: the New-ticket dialog offers them, the default one first.'
          : "Presets for new tickets, managed by the project's admins and owner."
      }
    >
      {templates.isPending && <Skeleton className="h-16" />}
      {templates.data?.length === 0 && <p className="text-faint">No templates yet.</p>}
      <ul className="flex flex-col divide-y divide-line" data-testid="template-list">
        {list.map((t, i) => (
          <li key={t.id} className="flex items-center gap-2 py-1.5" data-testid="template-row">
            <div className="min-w-0 flex-1">
              <div className="flex items-center gap-2">
                <span className="font-medium">{t.name}</span>
                {t.isDefault && (
                  <span className="rounded bg-accent-soft px-1.5 text-[11px] font-medium text-accent">
                    Default
                  </span>
                )}
              </div>
              <div className="truncate text-[12px] text-muted">{summary(t)}</div>
            </div>
            {canEdit && (
              <div className="flex shrink-0 items-center gap-1">
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Move template ${t.name} up`}
                  disabled={i === 0}
                  onClick={() => patch(t, { position: i - 1 })}
                >
                  ↑
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Move template ${t.name} down`}
                  disabled={i === list.length - 1}
                  onClick={() => patch(t, { position: i + 1 })}
                >
                  ↓
                </Button>
                {!t.isDefault && (
                  <Button size="sm" variant="ghost" onClick={() => patch(t, { isDefault: true })}>
                    Make default
                  </Button>
                )}
                <Button size="sm" aria-label={`Edit template ${t.name}`} onClick={() => setEditing(t)}>
                  Edit
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Delete template ${t.name}`}
                  onClick={() => setDeleting(t)}
                >
                  Delete
                </Button>
              </div>
            )}
          </li>
        ))}
      </ul>
      {canEdit && editing === null && list.length < LIMITS.templatesPerProject && (
        <div className="mt-3 border-t border-line pt-3">
          <Button onClick={() => setEditing('new')}>Add template</Button>
        </div>
      )}
      {canEdit && editing !== null && (
        <TemplateEditor
          key={editing === 'new' ? 'new' : editing.id}
          project={project}
          template={editing === 'new' ? null : editing}
          onDone={() => setEditing(null)}
        />
      )}
      <div className="mt-2">
        <FormError error={error} />
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete template ${deleting.name}?`}
          confirmLabel="Delete template"
          onClose={() => setDeleting(null)}
          onConfirm={() => deleteTemplate.mutateAsync(deleting.id)}
        >
          New tickets can no longer start from it; tickets made from it stay as they are.
        </ConfirmDialog>
      )}
    </Section>
  );
}

/** What a template presets, in a line. */
function summary(t: Template) {
  const parts = [
    t.about,
    t.type,
    t.priority && `${t.priority} priority`,
    t.title && `title “${t.title}”`,
    t.labels.length > 0 && t.labels.map((l) => l.name).join(', '),
    t.storyPoints != null && `${t.storyPoints} point${t.storyPoints === 1 ? '' : 's'}`,
    t.description && 'description',
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'Presets nothing yet';
}

function TemplateEditor({
  project,
  template,
  onDone,
}: {
  project: Project;
  template: Template | null;
  onDone: () => void;
}) {
  const labels = useLabels(project.id);
  const members = useMembers(project.id);
  const createTemplate = useCreateTemplate(project.id);
  const updateTemplate = useUpdateTemplate(project.id);
  const [name, setName] = useState(template?.name ?? '');
  const [about, setAbout] = useState(template?.about ?? '');
  const [type, setType] = useState(template?.type ?? '');
  const [priority, setPriority] = useState(template?.priority ?? '');
  const [title, setTitle] = useState(template?.title ?? '');
  const [storyPoints, setStoryPoints] = useState(
    template?.storyPoints != null ? String(template.storyPoints) : '',
  );
  const [assigneeId, setAssigneeId] = useState(template?.assigneeId ?? '');
  const [labelIds, setLabelIds] = useState<string[]>(template?.labels.map((l) => l.id) ?? []);
  const [isDefault, setIsDefault] = useState(template?.isDefault ?? false);
  const [error, setError] = useState<string | null>(null);
  const save = async (description: string) => {
    setError(null);
    const body = {
      name: name.trim(),
      about: about.trim() || null,
      type: type || null,
      priority: priority || null,
      title: title.trim() ? title : null,
      description: description.trim() ? description : null,
      storyPoints: storyPoints ? Number(storyPoints) : null,
      assigneeId: assigneeId || null,
      labelIds,
      isDefault,
    };
    try {
      if (template)
        await updateTemplate.mutateAsync({
          templateId: template.id,
          body: { ...body, version: template.version },
        });
      else await createTemplate.mutateAsync(body);
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <section
      aria-label={template ? `Edit template ${template.name}` : 'New template'}
      className="mt-3 flex flex-col gap-3 border-t border-line pt-3"
    >
      <div className="grid grid-cols-2 gap-3">
        <Field label="Template name">
          {(id) => (
            <Input
              id={id}
              value={name}
              maxLength={LIMITS.templateNameMax}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. Bug report"
            />
          )}
        </Field>
        <Field label="What it is for (optional)">
          {(id) => (
            <Input
              id={id}
              value={about}
              maxLength={LIMITS.templateAboutMax}
              onChange={(e) => setAbout(e.target.value)}
            />
          )}
        </Field>
        <Field label="Title starts with (optional)">
          {(id) => (
            <Input
              id={id}
              value={title}
              maxLength={LIMITS.ticketTitleMax}
              onChange={(e) => setTitle(e.target.value)}
              placeholder="e.g. Bug: "
            />
          )}
        </Field>
        <Field label="Ticket type">
          {(id) => (
            <Select id={id} value={type} onChange={(e) => setType(e.target.value)}>
              <option value="">Not preset</option>
              {TICKET_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Ticket priority">
          {(id) => (
            <Select id={id} value={priority} onChange={(e) => setPriority(e.target.value)}>
              <option value="">Not preset</option>
              {PRIORITIES.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Ticket story points">
          {(id) => (
            <Select id={id} value={storyPoints} onChange={(e) => setStoryPoints(e.target.value)}>
              <option value="">Not preset</option>
              <PointOptions />
            </Select>
          )}
        </Field>
        <Field label="Ticket assignee">
          {(id) => (
            <Select id={id} value={assigneeId} onChange={(e) => setAssigneeId(e.target.value)}>
              <option value="">Not preset</option>
              <MemberOptions members={members.data} />
            </Select>
          )}
        </Field>
        <label className="flex items-center gap-2 self-end pb-1.5">
          <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
          Default for new tickets
        </label>
      </div>
      <LabelCheckboxes legend="Ticket labels" labels={labels.data} value={labelIds} onChange={setLabelIds} />
      <div>
        <div className="mb-1 text-[12px] font-medium text-muted">Ticket description</div>
        <MarkdownEditor
          initial={template?.description ?? ''}
          max={LIMITS.ticketDescriptionMax}
          testId="template-description"
          placeholder={'e.g. ## Steps to reproduce\n\n## Expected\n\n## Actual'}
          projectId={project.id}
          saveLabel={template ? 'Save template' : 'Add template'}
          onSave={(text) => (name.trim() ? save(text) : setError('Give the template a name'))}
          onCancel={onDone}
        />
      </div>
      <FormError error={error} />
    </section>
  );
}
