// Tasks: schedule, zone, next fire (task's local time and UTC), last outcome, paused; pause,
// resume and run now for operators.

import {api, query} from './api.js';
import {h, fill, table, status, action} from './dom.js';
import {utc} from './format.js';

export async function render(ctx) {
  const live = h('div', {'data-live': true});
  const more = h('p', {});
  fill(ctx.main, h('h1', {}, 'Tasks'), live, more);
  let cursor = null;
  let rows = [];
  const load = async (append) => {
    const page = await api('GET', '/tasks' + query({limit: 100, cursor: append ? cursor : null}));
    rows = append ? rows.concat(page.items) : page.items;
    cursor = page.nextCursor || null;
    fill(live, view(ctx, rows, () => load(false)));
    fill(more, cursor ? h('button', {type: 'button', onclick: () => load(true)}, 'More tasks') : null);
  };
  await load(false);
  // Refresh what is shown (the first page) unless more pages were loaded.
  return {title: 'Tasks', refresh: () => (rows.length <= 100 ? load(false) : Promise.resolve()), every: 5000};
}

/** The actions on a task, for operators; a viewer gets none. */
export function taskActions(ctx, t, after) {
  if (!ctx.may('operator')) return null;
  const run = async () => {
    try {
      const r = await api('POST', `/tasks/${encodeURIComponent(t.id)}/runs`);
      ctx.notice(`Run now: instance #${r.instance.id} of ${t.id} created.`, 'ok');
      ctx.go(`#/instances/${r.instance.id}`);
    } catch (e) {
      ctx.notice(`Run now of ${t.id} failed: ${ctx.problemText(e)}`, 'error');
    }
  };
  const pause = async (paused) => {
    try {
      await api('POST', `/tasks/${encodeURIComponent(t.id)}/${paused ? 'pause' : 'resume'}`);
      ctx.notice(`${t.id} ${paused ? 'paused' : 'resumed'}.`, 'ok');
      await after();
    } catch (e) {
      ctx.notice(`${paused ? 'Pause' : 'Resume'} of ${t.id} failed: ${ctx.problemText(e)}`, 'error');
    }
  };
  return h('span', {class: 'actions'},
    t.paused
      ? action('Resume', () => pause(false), {'aria-label': `Resume ${t.id}`})
      : action('Pause', () => pause(true), {'aria-label': `Pause ${t.id}`}),
    action('Run now', run, {'aria-label': `Run ${t.id} now`}));
}

export function nextFire(f) {
  if (!f) return '—';
  return h('span', {}, f.local, h('br'), h('small', {}, utc(f.utc)), f.note ? h('br') : null,
    f.note ? h('small', {class: 'dst'}, f.note) : null);
}

function view(ctx, items, after) {
  return table('Tasks, by id', ['Task', 'Schedule', 'Zone', 'Next fire (task zone, UTC)', 'Last outcome', 'Paused', 'Actions'],
    items.map(t => ({
      attrs: {dataset: {task: t.id}},
      cells: [
        h('a', {href: `#/tasks/${encodeURIComponent(t.id)}`}, t.id),
        t.trigger ? t.trigger.text : (t.error ? 'invalid: ' + t.error : '—'),
        t.zone || '—',
        t.paused ? 'paused' : nextFire(t.nextFire),
        t.lastOutcome
          ? h('a', {href: `#/instances/${t.lastOutcome.instanceId}`}, status(t.lastOutcome.status))
          : 'never ran',
        h('span', {class: 'paused', dataset: {paused: String(t.paused)}}, t.paused ? 'yes' : 'no'),
        taskActions(ctx, t, after),
      ],
    })));
}
