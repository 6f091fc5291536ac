// Overview: instances by status now and per hour, fire lag, DEAD, the trigger leader, live workers
// per queue, the retry service's last scan. Refreshed every 2 seconds.

import {api} from './api.js';
import {h, fill, status} from './dom.js';
import {utc, local, duration, ago} from './format.js';

const ORDER = ['PENDING', 'RUNNING', 'RETRY_WAIT', 'FAILED', 'TIMEOUT', 'SUCCESS', 'SKIPPED', 'CANCELLED', 'DEAD'];

export async function render(ctx) {
  const live = h('div', {'data-live': true});
  fill(ctx.main, h('h1', {}, 'Overview'), live);
  const refresh = async () => fill(live, ...view(await api('GET', '/overview')));
  await refresh();
  return {title: 'Overview', refresh, every: 2000};
}

function card(title, ...body) {
  return h('section', {class: 'card', 'aria-label': title}, h('h2', {}, title), ...body);
}

function view(o) {
  const now = o.at;
  const tiles = Object.entries(o.live).map(([s, n]) =>
    h('li', {class: 'tile', dataset: {status: s}}, h('span', {class: 'count'}, String(n)), status(s)));
  tiles.push(h('li', {class: 'tile', dataset: {status: 'DEAD'}},
    h('a', {href: '#/dead', class: 'count'}, String(o.dead)), status('DEAD')));
  const lag = o.fireLag;
  const scan = o.retryScan;
  return [
    h('p', {class: 'asof'}, `As of ${utc(now)} (${local(now)} here)`),
    h('div', {class: 'cards'},
      card('Instances now', h('ul', {class: 'tiles', id: 'status-now'}, tiles)),
      card('Fire lag, last hour',
        lag.windows === 0
          ? h('p', {}, 'No scheduled window fired in the last hour.')
          : h('dl', {class: 'facts', id: 'fire-lag'},
            h('dt', {}, 'windows'), h('dd', {}, String(lag.windows)),
            h('dt', {}, 'p50'), h('dd', {}, duration(lag.p50Ms)),
            h('dt', {}, 'p95'), h('dd', {}, duration(lag.p95Ms)),
            h('dt', {}, 'max'), h('dd', {}, duration(lag.maxMs)))),
      card('Trigger',
        h('dl', {class: 'facts', id: 'trigger-leader'},
          h('dt', {}, 'leader'), h('dd', {}, o.trigger.leader || 'none (no replica leads now)'),
          h('dt', {}, 'answered by'), h('dd', {}, o.trigger.servedBy))),
      card('Retry service',
        scan
          ? h('dl', {class: 'facts', id: 'retry-scan'},
            h('dt', {}, 'last scan'), h('dd', {}, `${ago(scan.finishedAt, now)} (${utc(scan.finishedAt)})`),
            h('dt', {}, 'by'), h('dd', {}, `${scan.holder}${scan.leader ? ' (leader)' : ' (not leading)'}`),
            h('dt', {}, 'took'), h('dd', {}, duration(scan.tookMs) + (scan.complete ? '' : ', stopped early')),
            h('dt', {}, 'did'), h('dd', {},
              `${scan.timedOut} timed out, ${scan.retried} retried, ${scan.dead} dead, ` +
              `${scan.promoted} due, ${scan.republished} republished, ${scan.heldBack} held back, ${scan.archived} archived`))
          : h('p', {id: 'retry-scan'}, 'No scan recorded yet.')),
      card('Workers',
        o.workers.known
          ? (o.workers.queues.length === 0
            ? h('p', {}, 'No live worker.')
            : h('ul', {class: 'plain', id: 'workers'}, o.workers.queues.map(q =>
              h('li', {}, h('strong', {}, q.queue), `: ${q.workers.length} live (${q.workers.join(', ')})`))))
          : h('p', {id: 'workers', class: 'muted'}, 'Not shown: ' + o.workers.note))),
    card('Instances per hour (scheduled, UTC)', hours(o.perHour)),
  ];
}

function hours(perHour) {
  const max = Math.max(1, ...perHour.map(hr => Object.values(hr.counts).reduce((a, b) => a + b, 0)));
  const bars = perHour.map(hr => {
    const total = Object.values(hr.counts).reduce((a, b) => a + b, 0);
    const label = `${utc(hr.hour).slice(11, 16)} UTC: ` +
      (total === 0 ? 'none' : ORDER.filter(s => hr.counts[s]).map(s => `${hr.counts[s]} ${s}`).join(', '));
    const col = h('li', {class: 'bar', title: label, 'aria-label': label});
    const stack = h('span', {class: 'stack', 'aria-hidden': 'true'});
    for (const s of ORDER) {
      if (!hr.counts[s]) continue;
      const seg = h('span', {class: 'seg s-' + s.toLowerCase()});
      seg.style.height = (100 * hr.counts[s] / max) + '%';
      stack.appendChild(seg);
    }
    col.append(stack, h('span', {class: 'hour', 'aria-hidden': 'true'}, utc(hr.hour).slice(11, 13)));
    return col;
  });
  return h('div', {},
    h('ol', {class: 'bars', id: 'per-hour'}, bars),
    h('p', {class: 'legend'}, ORDER.map(s => h('span', {class: 'key'}, h('span', {class: 'swatch s-' + s.toLowerCase()}), s))));
}
