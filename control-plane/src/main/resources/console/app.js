// The console's shell: login, the hash router, the navigation, and the live refresh of each page
// (polling the API; the page is never reloaded).

import {api, session, ApiError} from './api.js';
import {h, fill} from './dom.js';
import * as overview from './overview.js';
import * as tasks from './tasks.js';
import * as task from './task.js';
import * as instances from './instances.js';
import * as instance from './instance.js';
import * as dead from './dead.js';
import * as retry from './retry.js';

const main = document.getElementById('main');
const noticeBox = document.getElementById('notice');
let timer = null;
let generation = 0;

/** Shows a message in the live region (read out by screen readers). */
export function notice(text, kind = 'info') {
  fill(noticeBox, text ? h('p', {class: 'msg ' + kind}, text) : null);
}

/** Says what went wrong with an API call, naming the fields the problem names. */
export function problemText(e) {
  if (!(e instanceof ApiError)) return String(e && e.message ? e.message : e);
  const fields = (e.problem && e.problem.problems) || [];
  const named = fields.map(p => `${p.field}${p.value !== null && p.value !== undefined ? ` '${p.value}'` : ''}: ${p.message}`);
  return `${e.status ? e.status + ': ' : ''}${e.message}${named.length ? ' (' + named.join('; ') + ')' : ''}`;
}

const pages = {overview, tasks, task, instances, instance, dead, retry};

function parse() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, q] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return {parts, query: new URLSearchParams(q || '')};
}

function pageOf(parts) {
  if (parts[0] === 'tasks' && parts.length > 1) return ['task', parts[1]];
  if (parts[0] === 'instances' && parts.length > 1) return ['instance', parts[1]];
  if (pages[parts[0]]) return [parts[0], null];
  return ['overview', null];
}

function stopRefresh() {
  if (timer) clearTimeout(timer);
  timer = null;
}

/** Runs refresh every `every` ms while this page is shown; skips a turn while the tab is hidden
 * or while keyboard focus is inside the part that would be replaced. */
function keepFresh(refresh, every, gen) {
  const tick = async () => {
    if (gen !== generation) return;
    const live = main.querySelector('[data-live]');
    const focusInside = live && live.contains(document.activeElement) && document.activeElement !== live;
    if (!document.hidden && !focusInside) {
      try {
        await refresh();
      } catch (e) {
        if (gen === generation) notice('Refresh failed: ' + problemText(e), 'error');
      }
    }
    if (gen === generation) timer = setTimeout(tick, every);
  };
  timer = setTimeout(tick, every);
}

async function route() {
  stopRefresh();
  const gen = ++generation;
  notice('');
  if (!session.token()) {
    showLogin();
    return;
  }
  showChrome(true);
  const {parts, query} = parse();
  const [name, arg] = pageOf(parts);
  document.querySelectorAll('#nav a').forEach(a => {
    const current = a.dataset.page === name || (a.dataset.page + 's') === name ||
      (name === 'task' && a.dataset.page === 'tasks') || (name === 'instance' && a.dataset.page === 'instances');
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  fill(main, h('p', {class: 'loading'}, 'Loading…'));
  try {
    const page = await pages[name].render({main, arg, query, notice, problemText, go, may: session.may});
    if (gen !== generation) return;
    document.title = (page && page.title ? page.title + ' — ' : '') + 'Carillon';
    if (page && page.refresh) keepFresh(page.refresh, page.every || 3000, gen);
  } catch (e) {
    if (gen !== generation) return;
    fill(main, h('h1', {}, 'Cannot show this page'), h('p', {class: 'msg error'}, problemText(e)));
  }
}

/** Goes to a page of the console (a hash change: no reload). */
export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function showChrome(on) {
  document.getElementById('nav').hidden = !on;
  document.getElementById('who').hidden = !on;
  const who = session.whoami();
  fill(document.getElementById('who-name'), who ? `${who.principal} (${who.role})` : '');
}

function showLogin(message) {
  stopRefresh();
  showChrome(false);
  document.title = 'Log in — Carillon';
  const input = h('input', {id: 'token', name: 'token', type: 'password', autocomplete: 'off',
    required: true, spellcheck: 'false', 'aria-describedby': 'token-help'});
  const error = h('p', {id: 'login-error', class: 'msg error', role: 'alert', hidden: !message}, message || '');
  const form = h('form', {class: 'login', 'aria-labelledby': 'login-title'},
    h('h1', {id: 'login-title'}, 'Log in to Carillon'),
    h('label', {for: 'token'}, 'API token'),
    input,
    h('p', {id: 'token-help', class: 'help'},
      'Paste a token of the control-plane API (crl_…). It is kept in this tab only and sent to the API as a bearer token.'),
    error,
    h('button', {type: 'submit'}, 'Log in'));
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    const token = input.value.trim();
    try {
      const who = await api('GET', '/whoami', undefined, {token});
      session.save(token, who);
      if (!location.hash || location.hash === '#/login') location.hash = '#/overview';
      else route();
    } catch (e) {
      fill(error, e instanceof ApiError && e.status === 401 ? 'The API refused this token.' : problemText(e));
      error.hidden = false;
      input.focus();
    }
  });
  fill(main, form);
  input.focus();
}

function logout(message) {
  session.clear();
  showLogin(message);
}

document.getElementById('logout').addEventListener('click', () => logout());
window.addEventListener('carillon:unauthorized', () => logout('The API no longer accepts the token: log in again.'));
window.addEventListener('hashchange', () => {
  route();
  // A new page: reading and Tab start at its content (the login page focuses its token field).
  if (session.token()) main.focus();
});
route();
