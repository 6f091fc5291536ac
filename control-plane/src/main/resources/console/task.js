// One task: its definition and actions, the next fire times with daylight-saving shifts flagged,
// a timeline of its recent windows, and the retry policy in force with its plan.

import {api, query, ApiError} from './api.js';
import {h, fill, table, status} from './dom.js';
import {utc} from './format.js';
import {taskActions} from './tasks.js';

export async function render(ctx) {
  const id = ctx.arg;
  const path = `/tasks/${encodeURIComponent(id)}`;
  const head = h('div', {});
  const live = h('div', {'data-live': true});
  const fires = h('section', {'aria-labelledby': 'next-title'}, h('h2', {id: 'next-title'}, 'Next fire times'));
  const retry = h('section', {'aria-labelledby': 'retry-title'}, h('h2', {id: 'retry-title'}, 'Retry policy and plan'));
  fill(ctx.main, h('h1', {}, 'Task ', h('code', {}, id)), head, live, fires, retry);

  const refresh = async () => {
    const [t, recent] = await Promise.all([
      api('GET', path),
      api('GET', '/instances' + query({task: id, limit: 30})),
    ]);
    fill(head, details(ctx, t, refresh));
    fill(live, timeline(recent.items));
  };
  await refresh();

  try {
    const next = await api('GET', `${path}/next?count=10`);
    fires.append(nextFires(next));
  } catch (e) {
    fires.append(h('p', {class: 'muted'}, e instanceof ApiError && e.status === 409 ? e.message : ctx.problemText(e)));
  }
  try {
    retry.append(retryView(await api('GET', `${path}/retry`)));
  } catch (e) {
    retry.append(h('p', {class: 'msg error'}, ctx.problemText(e)));
  }
  return {title: 'Task ' + id, refresh, every: 3000};
}

function details(ctx, t, after) {
  return h('div', {class: 'details'},
    h('dl', {class: 'facts', id: 'task-facts'},
      h('dt', {}, 'handler'), h('dd', {}, t.handler || '—'),
      h('dt', {}, 'trigger'), h('dd', {}, t.trigger ? t.trigger.text : '—'),
      h('dt', {}, 'window'), h('dd', {}, t.window || '—'),
      h('dt', {}, 'overlap'), h('dd', {}, t.overlap || '—'),
      h('dt', {}, 'timeout'), h('dd', {}, t.timeout || '—'),
      h('dt', {}, 'catch-up'), h('dd', {}, t.catchup || '—'),
      h('dt', {}, 'paused'), h('dd', {class: 'paused', dataset: {paused: String(t.paused)}}, t.paused ? 'yes' : 'no'),
      h('dt', {}, 'version'), h('dd', {}, String(t.version)),
      h('dt', {}, 'params'), h('dd', {}, h('code', {class: 'json'}, JSON.stringify(t.params)))),
    taskActions(ctx, t, after),
    h('p', {}, h('a', {href: `#/instances?task=${encodeURIComponent(t.id)}`}, 'All instances of this task')));
}

function nextFires(next) {
  return table(`The next ${next.fires.length} fire times in ${next.zone}`,
    ['Fire time (' + next.zone + ')', 'UTC', 'Window', 'Daylight saving'],
    next.fires.map(f => ({
      attrs: f.note ? {class: 'dst-row'} : {},
      cells: [f.local, utc(f.utc), f.window, f.note ? h('strong', {class: 'dst'}, f.note) : '—'],
    })), {id: 'next-fires'});
}

function timeline(items) {
  const strip = h('ol', {class: 'timeline', 'aria-label': 'Recent windows, oldest to newest'},
    items.slice().reverse().map(i => h('li', {},
      h('a', {href: `#/instances/${i.id}`, class: 'tick s-' + i.status.toLowerCase(),
        title: `${i.windowKey}: ${i.status}${i.failReason ? ' — ' + i.failReason : ''}`,
        'aria-label': `window ${i.windowKey} ${i.status}${i.failReason ? ': ' + i.failReason : ''}`}))));
  return h('section', {'aria-labelledby': 'recent-title'},
    h('h2', {id: 'recent-title'}, 'Recent windows'),
    strip,
    table('Recent windows, newest first', ['Instance', 'Window', 'Scheduled (UTC)', 'Status', 'Origin', 'Reason'],
      items.map(i => ({
        attrs: {dataset: {instance: String(i.id), status: i.status}},
        cells: [h('a', {href: `#/instances/${i.id}`}, '#' + i.id), i.windowKey, utc(i.scheduledAt),
          status(i.status), i.origin, i.failReason || ''],
      })), {id: 'recent-windows'}));
}

export function retryView(r) {
  return h('div', {id: 'retry-plan'},
    h('p', {}, h('strong', {}, r.description), ` (source ${r.source}, version ${r.version})`),
    h('p', {}, h('code', {class: 'json'}, JSON.stringify(r.policy))),
    r.steps.length === 0
      ? h('p', {}, 'No retry: a failure is final. ' + r.deadReason)
      : table('If every attempt failed at once, from a failure now', ['Retry', 'Delay', 'After the first failure', 'Policy says'],
        r.steps.map(s => ({cells: [String(s.retry), s.delay, s.after, s.reason]}))),
    r.steps.length ? h('p', {}, 'Then DEAD: ' + r.deadReason) : null);
}


