// Dead letters: DEAD instances grouped by task and failure reason; a group is re-run in bulk, and
// always by a dry run first (the API's default), which says how many would move.

import {api} from './api.js';
import {h, fill, table, action} from './dom.js';
import {utcAndLocal} from './format.js';

export async function render(ctx) {
  const live = h('div', {'data-live': true});
  const panel = h('div', {id: 'rerun-panel'});
  fill(ctx.main, h('h1', {}, 'Dead letters'),
    h('p', {}, 'DEAD instances, grouped by task and the reason their last attempt failed.'), panel, live);
  const refresh = async () => fill(live, view(ctx, await api('GET', '/dead-letters?limit=200'), panel, refresh));
  await refresh();
  return {title: 'Dead letters', refresh, every: 5000};
}

function view(ctx, groups, panel, refresh) {
  return table('DEAD instances by task and reason, largest group first',
    ['Task', 'Reason', 'Count', 'Last died (UTC, task\'s clock)', 'Newest', 'Re-run'],
    groups.map(g => ({
      attrs: {dataset: {task: g.task}},
      cells: [h('a', {href: `#/tasks/${encodeURIComponent(g.task)}`}, g.task),
        g.reason === null || g.reason === undefined ? h('em', {}, 'no reason recorded') : g.reason,
        String(g.count), utcAndLocal(g.lastFinishedAt, g, 'lastFinishedAt'),
        h('a', {href: `#/instances/${g.newestId}`}, '#' + g.newestId),
        ctx.may('operator')
          ? action('Dry run', () => dryRun(ctx, g, panel, refresh), {'aria-label': `Dry run: re-run the DEAD instances of ${g.task} with this reason`})
          : null],
    })), {id: 'dead-groups'});
}

function request(g, dryRun) {
  return {task: g.task, failReason: g.reason === null || g.reason === undefined ? '' : g.reason,
    limit: Math.min(500, g.count), dryRun};
}

async function dryRun(ctx, g, panel, refresh) {
  try {
    const r = await api('POST', '/instances:rerun-dead', request(g, true));
    const confirm = action(`Re-run ${r.matched}`, async () => {
      confirm.disabled = true;
      try {
        const done = await api('POST', '/instances:rerun-dead', request(g, false));
        fill(panel, h('p', {class: 'msg ok', role: 'status'},
          `Moved ${done.moved} of ${done.matched} back to PENDING (${done.published} published).`));
        await refresh();
      } catch (e) {
        fill(panel, h('p', {class: 'msg error', role: 'alert'}, 'Re-run failed: ' + ctx.problemText(e)));
      }
    }, {'aria-label': `Re-run ${r.matched} DEAD instances of ${g.task}`});
    fill(panel, h('div', {class: 'confirm', role: 'group', 'aria-label': 'Confirm the re-run'},
      h('p', {}, `Dry run: ${r.matched} DEAD instance(s) of ${g.task} match (${r.ids.slice(0, 20).map(x => '#' + x).join(', ')}${r.ids.length > 20 ? ', …' : ''}). Nothing was moved.`),
      confirm,
      h('button', {type: 'button', onclick: () => fill(panel)}, 'Cancel')));
    confirm.focus();
  } catch (e) {
    fill(panel, h('p', {class: 'msg error', role: 'alert'}, 'Dry run failed: ' + ctx.problemText(e)));
  }
}
