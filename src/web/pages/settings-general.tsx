import { type FormEvent, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { PALETTE } from '../../shared/limits';
import { errorText } from '../api/client';
import { useDeleteProject, useUpdateProject } from '../api/projects';
import type { Project } from '../api/types';
import { DangerZone } from '../components/DangerZone';
import { FormError, Section } from '../components/ProjectNav';
import { useToast } from '../components/toast';
import { Button, Field, Input, Textarea } from '../components/ui';

export function GeneralSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const updateProject = useUpdateProject(project);
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
      await updateProject.mutateAsync({
        name: name.trim(),
        description: description.trim() || null,
        color,
      });
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

export function ColorPicker({
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

/** Who may delete tickets: the reporter and admins, or every member (saved on change). */
export function TicketDeletionSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const updateProject = useUpdateProject(project);
  const toast = useToast();
  // Shown at once, put back when the server refuses.
  const [checked, setChecked] = useState(project.membersMayDeleteTickets);
  useEffect(() => setChecked(project.membersMayDeleteTickets), [project.membersMayDeleteTickets]);
  const change = async (on: boolean) => {
    setChecked(on);
    try {
      await updateProject.mutateAsync({ membersMayDeleteTickets: on });
      toast.show(on ? 'Every member may now delete tickets' : 'Only reporters and admins may delete tickets');
    } catch (err) {
      setChecked(!on);
      toast.error(`Could not save: ${errorText(err)}`);
    }
  };
  return (
    <Section
      title="Ticket deletion"
      description="A ticket can be deleted by its reporter and by the project's admins and owner."
    >
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          checked={checked}
          disabled={!canEdit}
          onChange={(e) => change(e.target.checked)}
        />
        Let every member delete any ticket
      </label>
    </Section>
  );
}

// --- Columns -----------------------------------------------------------------------------------

export function DeleteProjectSection({ project }: { project: Project }) {
  const deleteProject = useDeleteProject();
  const [, navigate] = useLocation();
  return (
    <DangerZone
      title="Delete project"
      description="Deletes the project with all its tickets, sprints, history and files. This cannot be undone."
      action="Delete this project…"
      dialogTitle={`Delete ${project.name}?`}
      confirmLabel="Delete project"
      busyLabel="Deleting…"
      typeText={project.key}
      onConfirm={async () => {
        await deleteProject.mutateAsync(project.id);
        navigate('/', { replace: true });
      }}
    >
      Everything in {project.key} goes: tickets, sprints, history and attachments.
    </DangerZone>
  );
}
