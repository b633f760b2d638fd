/** Project settings: the board's columns (add, rename, reorder by drag or keyboard, delete). */
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
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { errorText } from '../api/client';
import { useColumns, useCreateColumn, useDeleteColumn, useMoveColumn, useRenameColumn } from '../api/columns';
import { useTickets } from '../api/tickets';
import type { Column, Project } from '../api/types';
import { FormError, Section } from '../components/ProjectNav';
import { useToast } from '../components/toast';
import { Button, Dialog, Field, Input, Select, Skeleton } from '../components/ui';

export function ColumnsSection({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const toast = useToast();
  const columns = useColumns(project.id);
  const createColumn = useCreateColumn(project.id);
  const renameColumn = useRenameColumn(project.id);
  const moveColumn = useMoveColumn(project.id);
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

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await createColumn.mutateAsync(newName.trim());
      setNewName('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const rename = (c: Column, name: string) => {
    if (!name.trim() || name.trim() === c.name) return;
    setError(null);
    renameColumn.mutateAsync({ columnId: c.id, name: name.trim() }).catch((err) => setError(errorText(err)));
  };
  const onDragEnd = (e: DragEndEvent) => {
    if (!e.over || e.active.id === e.over.id) return;
    const to = list.findIndex((c) => c.id === e.over!.id);
    moveColumn
      .mutateAsync({ columnId: String(e.active.id), order: to })
      .catch((err) => toast.error(`Could not move the column: ${errorText(err)}`));
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
export function useColumnAnnouncements(list: Column[]): Announcements {
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

export function ColumnRow({
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

export function DeleteColumnDialog({
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
  const deleteColumn = useDeleteColumn(project.id);
  const others = columns.filter((c) => c.id !== column.id);
  const [target, setTarget] = useState(others[0]?.id ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await deleteColumn.mutateAsync({
        columnId: column.id,
        moveTicketsTo: count !== 0 ? target : undefined,
      });
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
