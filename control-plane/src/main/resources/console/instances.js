// Instances: filter by task, status, origin and scheduled time; keyset pages (the API's cursor),
// newest first. The first page refreshes itself.

import {api, query} from './api.js';
import {h, fill, table, status} from './dom.js';
import {utc} from './format.js';

const STATUSES = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'TIMEOUT', 'RETRY_WAIT', 'DEAD', 'SKIPPED', 'CANCELLED'];
const ORIGINS = ['SCHEDULE', 'CATCHUP', 'BACKFILL', 'EVENT', 'DEPENDENCY', 'CONDITION', 'MANUAL'];
const PAGE = 50;

function select(id, label, options, value) {
  return [h('label', {for: id}, label),
    h('select', {id, name: id}, h('option', {value: ''}, 'any'),
      options.map(o => h('option', {value: o, selected: o === value}, o)))];
}

function field(id, label, type, value, extra) {
  return [h('label', {for: id}, label), h('input', Object.assign({id, name: id, type, value: value || ''}, extra || {}))];
}

export async function render(ctx) {
  const q = ctx.query;
  const filters = {task: q.get('task') || '', status: q.get('status') || '', origin: q.get('origin') || '',
    from: q.get('from') || '', to: q.get('to') || ''};
  const form = h('form', {class: 'filters', 'aria-label': 'Filter instances'},
    h('div', {}, field('f-task', 'Task', 'text', filters.task, {spellcheck: 'false', autocomplete: 'off'})),
    h('div', {}, select('f-status', 'Status', STATUSES, filters.status)),
    h('div', {}, select('f-origin', 'Origin', ORIGINS, filters.origin)),
    h('div', {}, field('f-from', 'Scheduled from (UTC)', 'datetime-local', filters.from, {step: 1})),
    h('div', {}, field('f-to', 'Scheduled before (UTC)', 'datetime-local', filters.to, {step: 1})),
    h('div', {class: 'form-buttons'}, h('button', {type: 'submit'}, 'Apply filters'),
      h('button', {type: 'button', onclick: () => ctx.go('#/instances')}, 'Clear')));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const v = id => form.querySelector('#' + id).value.trim();
    ctx.go('#/instances' + query({task: v('f-task'), status: v('f-status'), origin: v('f-origin'),
      from: v('f-from'), to: v('f-to')}));
  });
  const live = h('div', {'data-live': true});
  const pager = h('nav', {class: 'pager', 'aria-label': 'Pages of instances'});
  fill(ctx.main, h('h1', {}, 'Instances'), form, live, pager);

  // The cursors of the pages seen so far: [null, c1, c2, ...]; the last is the page shown.
  const cursors = [null];
  const load = async () => {
    const cursor = cursors[cursors.length - 1];
    const page = await api('GET', '/instances' + query({
      task: filters.task, status: filters.status, origin: filters.origin,
      from: filters.from ? filters.from + (filters.from.length === 16 ? ':00' : '') + 'Z' : '',
      to: filters.to ? filters.to + (filters.to.length === 16 ? ':00' : '') + 'Z' : '',
      limit: PAGE, cursor}));
    fill(live, list(page.items, cursors.length));
    fill(pager,
      cursors.length > 1 ? h('button', {type: 'button', onclick: () => { cursors.pop(); load(); }}, 'Previous page') : null,
      h('span', {class: 'page-no'}, `Page ${cursors.length}`),
      page.nextCursor ? h('button', {type: 'button', onclick: () => { cursors.push(page.nextCursor); load(); }}, 'Next page') : null);
  };
  await load();
  return {title: 'Instances', refresh: () => (cursors.length === 1 ? load() : Promise.resolve()), every: 3000};
}

function list(items, pageNo) {
  return table(`Instances, newest scheduled first (page ${pageNo})`,
    ['Instance', 'Task', 'Window', 'Scheduled (UTC)', 'Status', 'Origin', 'Attempt', 'Reason'],
    items.map(i => ({
      attrs: {dataset: {instance: String(i.id), status: i.status}},
      cells: [h('a', {href: `#/instances/${i.id}`}, '#' + i.id),
        h('a', {href: `#/tasks/${encodeURIComponent(i.taskId)}`}, i.taskId),
        i.windowKey, utc(i.scheduledAt), status(i.status), i.origin, String(i.attempt), i.failReason || ''],
    })), {id: 'instances'});
}
