// Retry tuning: the overrides in force on the config topic with their versions (offsets), the
// records the retry service refuses, and the retry-plan calculator.

import {api} from './api.js';
import {h, fill, table} from './dom.js';
import {utc} from './format.js';

export async function render(ctx) {
  const config = await api('GET', '/config');
  const result = h('div', {id: 'plan-result', 'aria-live': 'polite'});
  const form = h('form', {class: 'filters', 'aria-labelledby': 'calc-title'},
    h('div', {}, h('label', {for: 'p-recovery'}, 'Recovery time'), h('input', {id: 'p-recovery', value: '1h', required: true, 'aria-describedby': 'p-help'})),
    h('div', {}, h('label', {for: 'p-initial'}, 'First delay'), h('input', {id: 'p-initial', value: '5m', required: true})),
    h('div', {}, h('label', {for: 'p-multiplier'}, 'Multiplier'), h('input', {id: 'p-multiplier', type: 'number', step: '0.1', min: '1', value: '2'})),
    h('div', {}, h('label', {for: 'p-cap'}, 'Longest delay (optional)'), h('input', {id: 'p-cap', value: ''})),
    h('div', {class: 'form-buttons'}, h('button', {type: 'submit'}, 'Plan')));
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    const v = id => form.querySelector('#' + id).value.trim();
    const body = {recovery: v('p-recovery'), initial: v('p-initial')};
    if (v('p-multiplier')) body.multiplier = Number(v('p-multiplier'));
    if (v('p-cap')) body.cap = v('p-cap');
    try {
      const p = await api('POST', '/retry-plan', body);
      fill(result,
        h('p', {}, `${p.retries} retries fit in ${p.recovery}; the last starts ${p.lastStartsAfter} after the first failure.`),
        table('Planned retries', ['Retry', 'Delay', 'Starts after'], p.steps.map(s => ({cells: [String(s.retry), s.delay, s.after]}))),
        h('p', {}, 'As a policy (for config set retry/<task>): ', h('code', {class: 'json'}, JSON.stringify(p.policy))));
    } catch (e) {
      fill(result, h('p', {class: 'msg error', role: 'alert'}, ctx.problemText(e)));
    }
  });
  fill(ctx.main,
    h('h1', {}, 'Retry tuning'),
    h('section', {'aria-labelledby': 'force-title'},
      h('h2', {id: 'force-title'}, 'Overrides in force'),
      h('p', {}, 'From the config topic, as the retry service applies them; the version is the record\'s offset.'),
      table('Config keys in force', ['Key', 'Value', 'Version', 'Set at (UTC)', 'By'],
        config.entries.map(e => ({cells: [h('code', {}, e.key), h('code', {class: 'json'}, JSON.stringify(e.value)),
          String(e.offset), utc(e.at), e.actor || '—']})), {id: 'config-in-force'}),
      config.rejected.length
        ? table('Records the retry service refuses (they changed nothing)', ['Key', 'Value', 'Version', 'Problems', 'By'],
          config.rejected.map(r => ({cells: [h('code', {}, r.key), h('code', {}, r.value || '(tombstone)'), String(r.offset),
            r.problems.join('; '), r.actor || '—']})), {id: 'config-rejected'})
        : h('p', {}, 'No refused record.')),
    h('section', {'aria-labelledby': 'calc-title'},
      h('h2', {id: 'calc-title'}, 'Retry-plan calculator'),
      h('p', {id: 'p-help'}, 'How many exponential retries fit in the time a dependency needs to recover (durations like 30s, 5m, 1h, 2d).'),
      form, result));
  return {title: 'Retry tuning'};
}
