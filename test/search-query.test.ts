import { describe, expect, it } from 'vitest';
import { foldText, parseQuery, QueryError, searchWords } from '../src/shared/search-query.js';

const root = (q: string) => parseQuery(q).root;
function fails(q: string): QueryError {
  try {
    parseQuery(q);
  } catch (err) {
    if (err instanceof QueryError) return err;
    throw err;
  }
  throw new Error(`'${q}' parsed`);
}

describe('search query parser: structure', () => {
  it('an empty query is every ticket', () => {
    expect(parseQuery('   ')).toEqual({ root: null, sort: [], hasText: false });
  });
  it('free words, ANDed, with positions', () => {
    expect(root('login  crash')).toEqual({
      kind: 'and',
      items: [
        { kind: 'text', text: 'login', phrase: false, key: null, pos: 1 },
        { kind: 'text', text: 'crash', phrase: false, key: null, pos: 8 },
      ],
    });
    expect(parseQuery('login').hasText).toBe(true);
  });
  it('a phrase keeps its words in one term', () => {
    expect(root('"log in page"')).toEqual({
      kind: 'text',
      text: 'log in page',
      phrase: true,
      key: null,
      pos: 1,
    });
  });
  it('a ticket key is a word that also names the ticket', () => {
    expect(root('web-12')).toMatchObject({ kind: 'text', key: 'WEB-12' });
  });
  it('OR binds tighter than the implicit AND; parentheses group', () => {
    expect(root('a b OR c')).toMatchObject({
      kind: 'and',
      items: [{ text: 'a' }, { kind: 'or', items: [{ text: 'b' }, { text: 'c' }] }],
    });
    expect(root('(a OR b) c')).toMatchObject({
      kind: 'and',
      items: [{ kind: 'or', items: [{ text: 'a' }, { text: 'b' }] }, { text: 'c' }],
    });
    expect(root('a AND b')).toMatchObject({ kind: 'and', items: [{ text: 'a' }, { text: 'b' }] });
  });
  it('- negates a term, a group or a field; a negated word is not relevance text', () => {
    expect(root('-bug')).toEqual({
      kind: 'not',
      item: { kind: 'text', text: 'bug', phrase: false, key: null, pos: 2 },
    });
    expect(root('-(a OR b)')).toMatchObject({ kind: 'not', item: { kind: 'or' } });
    expect(root('-label:ui')).toMatchObject({ kind: 'not', item: { field: 'label', values: ['ui'] } });
    expect(parseQuery('-bug').hasText).toBe(false);
  });
  it('lowercase or is a word', () => {
    expect(root('a or b')).toMatchObject({
      kind: 'and',
      items: [{ text: 'a' }, { text: 'or' }, { text: 'b' }],
    });
  });
});

describe('search query parser: every field', () => {
  it('project, label, status, sprint take names and comma lists, quoted or not', () => {
    expect(root('project:WEB,api')).toMatchObject({ field: 'project', values: ['WEB', 'api'] });
    expect(root('label:"needs review",ui')).toMatchObject({ field: 'label', values: ['needs review', 'ui'] });
    expect(root('status:"In Progress"')).toMatchObject({ field: 'status', values: ['In Progress'], pos: 1 });
    expect(root('sprint:active')).toMatchObject({ field: 'sprint', values: ['active'] });
    expect(root('sprint:none')).toMatchObject({ field: 'sprint', values: ['none'] });
    expect(root('sprint:"Sprint 4"')).toMatchObject({ field: 'sprint', values: ['Sprint 4'] });
  });
  it('assignee and reporter', () => {
    expect(root('assignee:me')).toMatchObject({ field: 'assignee', values: ['me'] });
    expect(root('assignee:none')).toMatchObject({ field: 'assignee', values: ['none'] });
    expect(root('reporter:olga')).toMatchObject({ field: 'reporter', values: ['olga'] });
  });
  it('type and priority in any case, canonical spelling', () => {
    expect(root('type:bug,STORY')).toMatchObject({ field: 'type', values: ['Bug', 'Story'] });
    expect(root('priority:high')).toMatchObject({ field: 'priority', op: ':', values: ['High'] });
    expect(root('priority>=high')).toMatchObject({ field: 'priority', op: '>=', values: ['High'] });
    expect(root('priority<medium')).toMatchObject({ field: 'priority', op: '<', values: ['Medium'] });
  });
  it('is: and has:', () => {
    for (const v of ['open', 'done', 'unassigned', 'watching'])
      expect(root(`is:${v}`)).toMatchObject({ field: 'is', value: v });
    expect(root('has:attachment')).toMatchObject({ field: 'has', value: 'attachment' });
    expect(root('has:LINK')).toMatchObject({ field: 'has', value: 'link' });
  });
  it('points compare numbers or none', () => {
    expect(root('points>=3')).toMatchObject({ field: 'points', op: '>=', value: 3 });
    expect(root('points:0.5')).toMatchObject({ field: 'points', op: ':', value: 0.5 });
    expect(root('points:none')).toMatchObject({ field: 'points', value: null });
  });
  it('dates: absolute days, today, relative days, due:none', () => {
    expect(root('created>2026-01-01')).toMatchObject({
      field: 'created',
      op: '>',
      value: { kind: 'day', day: '2026-01-01' },
    });
    expect(root('updated<-30d')).toMatchObject({
      field: 'updated',
      op: '<',
      value: { kind: 'relative', days: -30 },
    });
    expect(root('due<+7d')).toMatchObject({ field: 'due', op: '<', value: { kind: 'relative', days: 7 } });
    expect(root('due<=+2w')).toMatchObject({ value: { kind: 'relative', days: 14 } });
    expect(root('due:today')).toMatchObject({ value: { kind: 'relative', days: 0 } });
    expect(root('due:none')).toMatchObject({ field: 'due', value: { kind: 'none' } });
  });
  it('parent takes ticket keys', () => {
    expect(root('parent:WEB-3')).toMatchObject({ field: 'parent', values: ['WEB-3'] });
  });
  it('sort: fields with -asc/-desc, or their default direction', () => {
    expect(parseQuery('bug sort:priority').sort).toEqual([{ field: 'priority', dir: 'desc' }]);
    expect(parseQuery('sort:due').sort).toEqual([{ field: 'due', dir: 'asc' }]);
    expect(parseQuery('sort:updated-asc,key-desc').sort).toEqual([
      { field: 'updated', dir: 'asc' },
      { field: 'key', dir: 'desc' },
    ]);
    expect(parseQuery('sort:created').root).toBeNull();
    for (const f of ['points', 'key']) expect(parseQuery(`sort:${f}`).sort[0].field).toBe(f);
  });
});

describe('search query parser: errors name the term and its position', () => {
  const cases: [string, string, number, RegExp][] = [
    ['bug colour:red', 'colour:red', 5, /Unknown field 'colour'.*known fields: project, assignee/],
    ['type:feature', 'type:feature', 1, /Unknown type 'feature'; known: Story, Task, Bug/],
    ['priority:urgent', 'priority:urgent', 1, /Unknown priority/],
    ['is:closed', 'is:closed', 1, /Unknown value for 'is' 'closed'/],
    ['has:votes', 'has:votes', 1, /Unknown value for 'has'/],
    ['points>=lots', 'points>=lots', 1, /not a number/],
    ['created>yesterday', 'created>yesterday', 1, /not a date/],
    ['created>2026-02-30', 'created>2026-02-30', 1, /not a calendar date/],
    ['created:none', 'created:none', 1, /only for due:none/],
    ['label>ui', 'label>ui', 1, /'label' takes ':' only/],
    ['priority>=high,low', 'priority>=high,low', 1, /one value/],
    ['parent:banana', 'parent:banana', 1, /not a ticket key/],
    ['label:', 'label:', 1, /Missing value/],
    ['label:a,,b', 'label:a,,b', 1, /Missing value/],
    ['sort:colour', 'sort:colour', 1, /Unknown sort 'colour'/],
    ['(sort:key)', 'sort:key', 2, /stands on its own/],
    ['-sort:key', 'sort:key', 2, /stands on its own/],
    ['a OR sort:key', 'OR', 3, /cannot be one side of OR/],
    ['a "open', '"open', 3, /Unclosed quote/],
    ['(a b', '(', 1, /Unclosed '\('/],
    ['a b)', ')', 4, /Unexpected '\)'/],
    ['()', '()', 1, /Empty parentheses/],
    ['a OR', 'OR', 3, /OR needs a term on both sides/],
    ['OR a', 'OR', 1, /OR needs a term/],
    ['a OR OR b', 'OR', 3, /OR needs a term/],
    ['AND a', 'AND', 1, /AND needs a term/],
    ['"" a', '""', 1, /Empty phrase/],
  ];
  for (const [q, term, position, message] of cases) {
    it(q, () => {
      const e = fails(q);
      expect(e.message).toMatch(message);
      expect({ term: e.term, position: e.position }).toEqual({ term, position });
    });
  }
  it('a trailing - on its own is a word, not a negation', () => {
    expect(root('a -')).toMatchObject({ kind: 'and', items: [{ text: 'a' }, { text: '-' }] });
  });
  it('too long, too many terms, too deep', () => {
    expect(fails('a'.repeat(1001)).message).toMatch(/longer than 1000/);
    expect(fails(Array.from({ length: 61 }, (_, i) => `w${i}`).join(' ')).message).toMatch(
      /more than 60 terms/,
    );
    expect(fails(`${'('.repeat(20)}a${')'.repeat(20)}`).message).toMatch(/nested deeper/);
  });
});

describe('text folding', () => {
  it('case and accents are ignored; words split on punctuation', () => {
    expect(foldText('Ćafé ÜBER')).toBe('cafe uber');
    expect(searchWords('Crème-brûlée, v2.0!')).toEqual(['creme', 'brulee', 'v2', '0']);
  });
});
