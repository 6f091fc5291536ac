// Building the page from data without parsing markup: every value from the API becomes a text node or
// an attribute set through the DOM, so nothing it holds is ever parsed as markup.

/**
 * h('a', {href: '#/x', class: 'c'}, 'text', child, [more]) -> an element.
 * Attributes starting with "on" take a function; null/undefined/false attributes are left out.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replaces the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * A table: caption, header cells, rows of cells (each a node, text or array). Each cell carries its
 * column's name (data-label), which narrow screens show beside the value when rows become cards;
 * the roles keep it a table for screen readers whatever the layout.
 */
export function table(caption, headers, rows, attrs) {
  return h('div', {class: 'table-wrap'},
    h('table', Object.assign({role: 'table'}, attrs || {}),
      h('caption', {}, caption),
      h('thead', {}, h('tr', {role: 'row'}, headers.map(t => h('th', {scope: 'col', role: 'columnheader'}, t)))),
      h('tbody', {}, rows.length === 0
        ? h('tr', {role: 'row'}, h('td', {colspan: headers.length, class: 'empty', role: 'cell'}, 'none'))
        : rows.map(r => h('tr', Object.assign({role: 'row'}, r.attrs || {}),
          r.cells.map((c, i) => h('td', {role: 'cell', 'data-label': headers[i]}, c)))))));
}

/** A status word with its colour class. */
export function status(s) {
  return h('span', {class: 'status s-' + String(s || 'none').toLowerCase()}, s || '—');
}

/** A button that changes something: marked so tests and styles can tell it apart. */
export function action(label, onclick, attrs) {
  return h('button', Object.assign({type: 'button', class: 'act', dataset: {action: label}, onclick}, attrs || {}), label);
}
