import { type FormEvent, useEffect, useState } from 'react';
import { PALETTE } from '../../shared/limits';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useCreateLabel, useDeleteLabel, useLabels, useUpdateLabel } from '../api/labels';
import { useSaveSprintSettings, useSprintSettings } from '../api/sprints';
import type { Label, Project, SprintSettings } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormError, Section } from '../components/ProjectNav';
import { useToast } from '../components/toast';
import { Button, ColorDot, Field, Input, Select, Skeleton } from '../components/ui';
import { ColorPicker } from './settings-general';

export function LabelsSection({ project }: { project: Project }) {
  const labels = useLabels(project.id);
  const createLabel = useCreateLabel(project.id);
  const updateLabel = useUpdateLabel(project.id);
  const deleteLabel = useDeleteLabel(project.id);
  const [name, setName] = useState('');
  const [color, setColor] = useState<string>(PALETTE[0]);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Label | null>(null);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await createLabel.mutateAsync({ name: name.trim(), color });
      setName('');
      setColor(PALETTE[Math.floor(Math.random() * PALETTE.length)]);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const update = (l: Label, patch: Pick<Partial<Label>, 'name' | 'color'>) => {
    setError(null);
    updateLabel.mutateAsync({ labelId: l.id, body: patch }).catch((err) => setError(errorText(err)));
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
          onConfirm={() => deleteLabel.mutateAsync(deleting.id)}
        >
          It is removed from every ticket that has it.
        </ConfirmDialog>
      )}
    </Section>
  );
}

export function LabelRow({
  label,
  onUpdate,
  onDelete,
}: {
  label: Label;
  onUpdate: (patch: Pick<Partial<Label>, 'name' | 'color'>) => void;
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

export function SprintSettingsSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const toast = useToast();
  const settings = useSprintSettings(project.id);
  const saveSettings = useSaveSprintSettings(project.id);
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
      await saveSettings.mutateAsync(draft);
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
