// One instance: where it stands, its attempts (worker, duration, failure reason), its progress and
// result, and the story of its window (every event and decision, in the words of `schedctl why`);
// cancel and re-run for operators.

import {api} from './api.js';
import {h, fill, table, status, action} from './dom.js';
import {utc, utcAndLocal, local, duration} from './format.js';

const FINISHED = ['SUCCESS', 'DEAD', 'SKIPPED', 'CANCELLED'];

export async function render(ctx) {
  const id = ctx.arg;
  if (!/^[1-9][0-9]{0,18}$/.test(id)) throw new Error(`'${id}' is not an instance id`);
  const live = h('div', {'data-live': true});
  const actions = h('div', {class: 'actions-bar'});
  fill(ctx.main, h('h1', {}, 'Instance #' + id), actions, live);
  let shownStatus = null;
  const refresh = async () => {
    const [i, why, attempts] = await Promise.all([
      api('GET', `/instances/${id}`),
      api('GET', `/instances/${id}/why`),
      api('GET', `/instances/${id}/attempts`),
    ]);
    fill(live, ...view(i, why, attempts));
    if (i.status !== shownStatus) {
      shownStatus = i.status;
      fill(actions, buttons(ctx, i, refresh));
    }
  };
  await refresh();
  return {title: 'Instance #' + id, refresh, every: 2000};
}

function buttons(ctx, i, refresh) {
  if (!ctx.may('operator')) return null;
  const reason = h('input', {id: 'change-reason', type: 'text', maxlength: 500, autocomplete: 'off'});
  const change = (verb, path) => async () => {
    try {
      const text = reason.value.trim();
      const r = await api('POST', `/instances/${i.id}/${path}`, text ? {reason: text} : undefined);
      ctx.notice(`Instance #${i.id}: ${r.previousStatus} → ${r.instance.status}.`, 'ok');
      await refresh();
    } catch (e) {
      ctx.notice(`${verb} of #${i.id} failed: ${ctx.problemText(e)}`, 'error');
    }
  };
  return h('div', {class: 'change', role: 'group', 'aria-label': 'Change this instance'},
    h('label', {for: 'change-reason'}, 'Reason to record (optional)'), reason,
    FINISHED.includes(i.status)
      ? action('Re-run', change('Re-run', 'rerun'), {'aria-label': `Re-run instance ${i.id}`})
      : action('Cancel', change('Cancel', 'cancel'), {'aria-label': `Cancel instance ${i.id}`}));
}

/** A link only for http(s) addresses; anything else is shown as text, never made clickable. */
function resultLink(uri) {
  if (!uri) return '—';
  let u = null;
  try {
    u = new URL(uri);
  } catch (e) {
    u = null;
  }
  if (u && (u.protocol === 'https:' || u.protocol === 'http:')) {
    return h('a', {href: u.href, rel: 'noopener noreferrer', target: '_blank'}, uri);
  }
  return h('code', {}, uri);
}

function view(i, why, attempts) {
  const progress = i.progress
    ? h('span', {}, i.progress, i.progressAt ? h('small', {}, ` (reported ${utc(i.progressAt)})`) : null)
    : (i.status === 'RUNNING' ? 'none reported' : '—');
  return [
    h('dl', {class: 'facts', id: 'instance-facts'},
      h('dt', {}, 'task'), h('dd', {}, h('a', {href: `#/tasks/${encodeURIComponent(i.taskId)}`}, i.taskId)),
      h('dt', {}, 'window'), h('dd', {}, `${i.windowKey} (${utc(i.windowStart)} to ${utc(i.windowEnd)})`),
      h('dt', {}, 'scheduled'), h('dd', {}, utc(i.scheduledAt),
        i.zone && i.local && i.local.scheduledAt ? ` (${i.local.scheduledAt} in ${i.zone})` : ` (${local(i.scheduledAt)} here)`),
      h('dt', {}, 'status'), h('dd', {id: 'instance-status', dataset: {status: i.status}}, status(i.status)),
      h('dt', {}, 'origin'), h('dd', {}, i.origin),
      h('dt', {}, 'attempt'), h('dd', {}, `${i.attempt}, retries ${i.retryCount} of ${i.maxRetry}${i.nonRetryable ? ', not retryable' : ''}`),
      h('dt', {}, 'worker'), h('dd', {}, i.workerId || '—'),
      i.leaseUntil ? [h('dt', {}, 'lease until'), h('dd', {}, utc(i.leaseUntil))] : null,
      i.nextAttemptAt ? [h('dt', {}, 'next attempt'), h('dd', {}, utc(i.nextAttemptAt))] : null,
      i.paramsOverride ? [h('dt', {}, 'params override'), h('dd', {}, h('code', {class: 'json'}, JSON.stringify(i.paramsOverride)))] : null,
      h('dt', {}, 'progress'), h('dd', {id: 'instance-progress'}, progress),
      h('dt', {}, 'result'), h('dd', {}, i.resultSummary ? i.resultSummary + (i.resultTruncated ? ' (cut)' : '') : '—'),
      h('dt', {}, 'artifact'), h('dd', {}, resultLink(i.resultUri)),
      h('dt', {}, 'failure reason'), h('dd', {}, i.failReason || '—')),
    h('section', {'aria-labelledby': 'attempts-title'},
      h('h2', {id: 'attempts-title'}, 'Attempts'),
      table('Attempts, first to last', ['Attempt', 'Worker', 'Started (UTC, task\'s clock)', 'Duration', 'Outcome', 'Reason'],
        attempts.map(a => ({cells: [String(a.number), a.worker, utcAndLocal(a.startedAt, a, 'startedAt'),
          duration(a.durationMs) + (a.endedAt ? '' : ' so far'), a.outcome ? status(a.outcome) : 'running', a.reason || '']})),
        {id: 'attempts'})),
    h('section', {'aria-labelledby': 'why-title'},
      h('h2', {id: 'why-title'}, 'Why: the story of this window'),
      h('ol', {class: 'events', id: 'why'}, why.events.map(e =>
        h('li', {}, h('time', {datetime: e.at}, utcAndLocal(e.at, e, 'at')), ' ', e.text))),
      why.hint ? h('p', {class: 'hint'}, why.hint) : null),
  ];
}
