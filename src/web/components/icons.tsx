import type { Priority, TicketType } from '../api/types';

const typeColor: Record<TicketType, string> = {
  Story: '#2f9e44',
  Task: '#1c7ed6',
  Bug: '#e03131',
  Subtask: '#4dabf7',
  Epic: '#7048e8',
};

/** The ticket type as a small coloured glyph with an accessible name. */
export function TypeIcon({ type, size = 14 }: { type: TicketType; size?: number }) {
  const c = typeColor[type] ?? '#868e96';
  const glyph: Record<TicketType, string> = {
    Story: 'M4 3h8v10l-4-3-4 3z',
    Task: 'M4.5 8.5l2.3 2.3 4.7-5.3',
    Bug: 'M8 4.5a3.5 3.5 0 1 1 0 7 3.5 3.5 0 0 1 0-7z',
    Subtask: 'M5 4v5h6M8 6.5l3 2.5-3 2.5',
    Epic: 'M9 2.5 4.5 9H8l-1 4.5L11.5 7H8z',
  };
  const filled = type === 'Story' || type === 'Bug' || type === 'Epic';
  return (
    <svg width={size} height={size} viewBox="0 0 16 16" role="img" aria-label={type} className="shrink-0">
      <title>{type}</title>
      <rect x="0.5" y="0.5" width="15" height="15" rx="3" fill={c} />
      <path
        d={glyph[type]}
        fill={filled ? '#fff' : 'none'}
        stroke="#fff"
        strokeWidth={filled ? 0 : 1.6}
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

const priorityBars: Record<Priority, number> = {
  Lowest: 0,
  Low: 1,
  Medium: 2,
  High: 3,
  Highest: 3,
  Critical: 4,
};

/** Priority as signal bars (Critical as a red exclamation), with an accessible name. */
export function PriorityIcon({ priority, size = 14 }: { priority: Priority; size?: number }) {
  if (priority === 'Critical' || priority === 'Highest') {
    const fill = priority === 'Critical' ? '#e03131' : '#f76707';
    return (
      <svg
        width={size}
        height={size}
        viewBox="0 0 16 16"
        role="img"
        aria-label={`${priority} priority`}
        className="shrink-0"
      >
        <title>{priority}</title>
        <rect x="1" y="1" width="14" height="14" rx="3" fill={fill} />
        <path d="M8 4v5M8 11.5v.5" stroke="#fff" strokeWidth="2" strokeLinecap="round" />
      </svg>
    );
  }
  const n = priorityBars[priority] ?? 2;
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      role="img"
      aria-label={`${priority} priority`}
      className="shrink-0"
    >
      <title>{priority}</title>
      {[0, 1, 2].map((i) => (
        <rect
          key={i}
          x={2 + i * 4.5}
          y={11 - i * 3.5}
          width="3"
          height={3 + i * 3.5}
          rx="1"
          fill={i < n ? 'currentColor' : 'var(--line-strong)'}
          className={i < n ? 'text-muted' : ''}
        />
      ))}
    </svg>
  );
}

export function SearchIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true" className="shrink-0 text-faint">
      <circle cx="7" cy="7" r="4.5" stroke="currentColor" strokeWidth="1.5" fill="none" />
      <path d="m10.5 10.5 3 3" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}

export function PlusIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true" className="shrink-0">
      <path d="M8 3v10M3 8h10" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </svg>
  );
}

export function MenuIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
      <path d="M2.5 4h11M2.5 8h11M2.5 12h11" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}
